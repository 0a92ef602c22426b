// The hot shared state of serving: rate-limit windows, frequency caps, budget counters and the
// dedup/idempotency fast path. One interface, two implementations: Redis (shared by every
// instance, src/counters/redis-counter-store.ts) and process memory (the embedded default,
// src/counters/memory-counter-store.ts). One test suite runs against both.
//
// Keys come from `counterKeys` (keys.ts) and hold ids and hashes only, never user text.
// Values are ours too (ids, counts); callers never store a host's text as a value.
import { randomBytes } from 'node:crypto';
import { StoreUnavailable } from '../errors/error-registry.js';

/** A frequency cap: the window starts at the first serve (the key's expiry). */
export interface FrequencyLimit {
  key: string;
  limit: number;
  windowMs: number;
}

/** What one serve of a campaign would spend, and the campaign's limits. The store keeps one
 *  spend record per campaign (lifetime total, and the total of one UTC day) as a cache of the
 *  Postgres ledger (src/spend/); a campaign with no record has an unknown spend and is never
 *  claimed until the ledger has loaded it. */
export interface SpendClaim {
  campaignId: string;
  amountMicros: number;
  totalLimitMicros: number;
  dailyLimitMicros: number;
  /** UTC day of the serve (`YYYY-MM-DD`). */
  day: string;
  /** ms until that day ends: when a daily limit lets the campaign serve again. */
  msToDayEnd: number;
}

export interface ClaimCandidate {
  frequency: FrequencyLimit[];
  spend: SpendClaim | null;
}

/** What a claim took, so that it can be given back (`refund`) when its decide timed out. */
export interface ClaimReceipt {
  frequencyKeys: string[];
  /** `generation` names the spend record the amount was added to: a refund only applies to that
   *  record, never to one rebuilt from the ledger since (which may not include the claim). */
  spend: { campaignId: string; day: string; amountMicros: number; generation: string } | null;
}

export type SkipReason = 'frequency' | 'budget' | 'spend_unknown';

export interface ClaimOutcome {
  /** Index of the candidate claimed, or -1 when none passed. */
  claimedIndex: number;
  receipt: ClaimReceipt | null;
  /** For each candidate before the claimed one (or all when none): why it was skipped and when it
   *  may pass again (null when no window will reset it, e.g. a lifetime budget). */
  skipped: Array<{ index: number; reason: SkipReason; retryAfterMs: number | null }>;
}

/** A campaign's spend as the ledger has it: lifetime, and on one UTC day. */
export interface LedgerSpend {
  campaignId: string;
  totalMicros: number;
  day: string;
  dayMicros: number;
}

/** A campaign's spend record in the store (tests and diagnostics). */
export interface CachedSpend extends LedgerSpend {
  generation: string;
}

export interface WindowHit {
  key: string;
  windowMs: number;
  by: number;
}

/** An entry set only if absent, with a TTL (as `putIfAbsent`). */
export interface Mark {
  key: string;
  value: string;
  ttlMs: number;
}

/** What `marksAndHits` answers: for each mark in order, the value already there (null when this
 *  call set it); for each hit, its window's count and the ms until it resets. */
export interface MarksAndHitsOutcome {
  existing: (string | null)[];
  hits: { count: number; resetInMs: number }[];
}

export interface CounterStore {
  readonly kind: 'redis' | 'memory';
  /** Fixed-window hits for rate limiting, many windows in one round trip: each key grows by `by`
   *  (at least 1) and answers its count in the current window and the ms until it resets, in the
   *  order asked. The first hit starts a window. */
  hits(batch: readonly WindowHit[]): Promise<{ count: number; resetInMs: number }[]>;
  /** Frequency and spend check for the top-K candidates of one decide, in ONE round trip,
   *  claiming the first candidate that passes ATOMICALLY (two instances never overspend or
   *  overserve). A candidate passes when every frequency count < limit, its campaign's spend is
   *  known, and lifetime + amount ≤ total limit and today's + amount ≤ daily limit; claiming
   *  increments every frequency key (a new key gets PEXPIRE windowMs) and adds the amount to the
   *  campaign's lifetime and today's spend. */
  claimFirst(candidates: ClaimCandidate[]): Promise<ClaimOutcome>;
  /** Gives a claim back: frequency counts down by one (never below zero, never recreating an
   *  expired window), the amount off the spend record it was added to (if that record still
   *  exists with the same generation). */
  refund(receipt: ClaimReceipt): Promise<void>;
  /** Loads spend records for campaigns that have none (a record that exists is left alone: it
   *  may already hold claims the ledger has not seen). Returns the campaign ids loaded now. */
  loadSpend(spend: LedgerSpend[]): Promise<string[]>;
  /** Raises existing records to at least the ledger's figures (a store restored from an old
   *  snapshot, or a replica that missed writes, under-counts); never lowers one. */
  raiseSpend(spend: LedgerSpend[]): Promise<void>;
  readSpend(campaignId: string): Promise<CachedSpend | null>;
  /** Set if absent with a TTL; returns null when it was set, else the existing value. */
  putIfAbsent(key: string, value: string, ttlMs: number): Promise<string | null>;
  /** `putIfAbsent` for each mark and `hits` for the windows, for one caller (a click's dedup marks
   *  and its address' rate windows). The Redis store sends every call made in one event-loop turn
   *  in one script call: one command for a turn's clicks, not three a click. */
  marksAndHits(marks: readonly Mark[], hits: readonly WindowHit[]): Promise<MarksAndHitsOutcome>;
  get(key: string): Promise<string | null>;
  delete(key: string): Promise<void>;
  /** Liveness for /readyz. Throws when unreachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Skip reasons by the number the Redis script returns. */
export const SKIP_REASONS: Record<number, SkipReason> = { 1: 'frequency', 2: 'budget', 3: 'spend_unknown' };

/** The receipt of a claimed candidate. */
export function receiptOf(c: ClaimCandidate, generation: string): ClaimReceipt {
  return {
    frequencyKeys: c.frequency.map((f) => f.key),
    spend: c.spend ? { campaignId: c.spend.campaignId, day: c.spend.day, amountMicros: c.spend.amountMicros, generation } : null,
  };
}

/** A new spend-record generation: random, so two loads never share one. */
export function newGeneration(): string {
  return randomBytes(9).toString('base64url');
}

/** A store that can be connected explicitly at startup (`createCounterStore` returns one). */
export interface StartableCounterStore extends CounterStore {
  /** Connects if not connected; resolves true once usable, false after timeoutMs. Never throws:
   *  the service starts with its counter store down and fails open until it comes back. */
  ready(timeoutMs?: number): Promise<boolean>;
}

/** Minimal pino-compatible logger. */
export interface CounterStoreLogger {
  warn(obj: object, msg: string): void;
  info?(obj: object, msg: string): void;
}

/** The store could not be reached or did not answer in time. The message is fixed: no driver
 *  text, no keys, no arguments. Callers fail open (decide: no-fill; rate limit: let through). */
export class CounterStoreUnavailable extends StoreUnavailable {
  /** The command may have reached the store and run: it timed out waiting for the answer. A
   *  caller must not send it again as if it had not (a retried hit would count twice). */
  readonly mayHaveRun: boolean;
  constructor(opts: { mayHaveRun?: boolean } = {}) {
    super('counter store unavailable', 'COUNTER_STORE_UNAVAILABLE');
    this.name = 'CounterStoreUnavailable';
    this.mayHaveRun = opts.mayHaveRun ?? false;
  }
}

export function isCounterStoreUnavailable(err: unknown): err is CounterStoreUnavailable {
  return err instanceof CounterStoreUnavailable || (err as { code?: unknown } | null)?.code === 'COUNTER_STORE_UNAVAILABLE';
}

// Shared argument checks, so both stores reject the same programming errors the same way
// (Redis would otherwise fail on a fractional INCRBY while memory would accept it). Messages
// name the field, never a value.
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function nonNegativeInt(n: unknown, field: string): void {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_SAFE) throw new RangeError(`${field} must be a non-negative safe integer`);
}

function positiveInt(n: unknown, field: string): void {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_SAFE) throw new RangeError(`${field} must be a positive safe integer`);
}

function keyArg(key: unknown): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > 512) throw new RangeError('key must be a non-empty string of at most 512 characters');
}

export function checkKey(key: string): void {
  keyArg(key);
}

export function checkWindow(key: string, windowMs: number): void {
  keyArg(key);
  positiveInt(windowMs, 'windowMs');
}

export function checkHit(h: WindowHit): void {
  checkWindow(h.key, h.windowMs);
  positiveInt(h.by, 'by');
}

export function checkTtl(ttlMs: number): void {
  positiveInt(ttlMs, 'ttlMs');
}

export function checkMark(m: Mark): void {
  keyArg(m.key);
  if (typeof m.value !== 'string') throw new RangeError('value must be a string');
  positiveInt(m.ttlMs, 'ttlMs');
}

const UTC_DAY = /^\d{4}-\d{2}-\d{2}$/;
const CAMPAIGN_ID = /^[a-z0-9][a-z0-9._:-]{0,63}$/;

function campaignArg(id: unknown): void {
  if (typeof id !== 'string' || !CAMPAIGN_ID.test(id)) throw new RangeError('campaignId must be a catalog id');
}

function dayArg(day: unknown): void {
  if (typeof day !== 'string' || !UTC_DAY.test(day)) throw new RangeError('day must be YYYY-MM-DD');
}

export function checkCandidates(candidates: ClaimCandidate[]): void {
  if (!Array.isArray(candidates)) throw new RangeError('candidates must be an array');
  for (const c of candidates) {
    for (const f of c.frequency) {
      keyArg(f.key);
      nonNegativeInt(f.limit, 'frequency.limit');
      positiveInt(f.windowMs, 'frequency.windowMs');
    }
    if (c.spend) {
      campaignArg(c.spend.campaignId);
      dayArg(c.spend.day);
      nonNegativeInt(c.spend.amountMicros, 'spend.amountMicros');
      nonNegativeInt(c.spend.totalLimitMicros, 'spend.totalLimitMicros');
      nonNegativeInt(c.spend.dailyLimitMicros, 'spend.dailyLimitMicros');
      positiveInt(c.spend.msToDayEnd, 'spend.msToDayEnd');
    }
  }
}

export function checkReceipt(r: ClaimReceipt): void {
  for (const key of r.frequencyKeys) keyArg(key);
  if (r.spend) {
    campaignArg(r.spend.campaignId);
    dayArg(r.spend.day);
    nonNegativeInt(r.spend.amountMicros, 'spend.amountMicros');
    if (typeof r.spend.generation !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(r.spend.generation)) throw new RangeError('spend.generation is malformed');
  }
}

export function checkLedgerSpend(list: LedgerSpend[]): void {
  if (!Array.isArray(list)) throw new RangeError('spend must be an array');
  for (const s of list) {
    campaignArg(s.campaignId);
    dayArg(s.day);
    nonNegativeInt(s.totalMicros, 'totalMicros');
    nonNegativeInt(s.dayMicros, 'dayMicros');
  }
}

export function checkCampaignId(id: string): void {
  campaignArg(id);
}
