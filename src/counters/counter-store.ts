// The hot shared state of serving: rate-limit windows, frequency caps, budget counters and the
// dedup/idempotency fast path. One interface, two implementations: Redis (shared by every
// instance, src/counters/redis-counter-store.ts) and process memory (the embedded default,
// src/counters/memory-counter-store.ts). One test suite runs against both.
//
// Keys come from `counterKeys` (keys.ts) and hold ids and hashes only, never user text.
// Values are ours too (ids, counts); callers never store a host's text as a value.

/** A frequency cap: the window starts at the first serve (the key's expiry). */
export interface FrequencyLimit {
  key: string;
  limit: number;
  windowMs: number;
}

/** A budget: spent + amountMicros must stay ≤ limitMicros. */
export interface BudgetLimit {
  key: string;
  limitMicros: number;
  amountMicros: number;
  /** Expiry of a daily bucket, set when the bucket is created; null for a lifetime total. */
  ttlMs: number | null;
}

export interface ClaimCandidate {
  frequency: FrequencyLimit[];
  budgets: BudgetLimit[];
}

export interface ClaimOutcome {
  /** Index of the candidate claimed, or -1 when none passed. */
  claimedIndex: number;
  /** For each candidate before the claimed one (or all when none): why it was skipped and when it
   *  may pass again (null when no window will reset it, e.g. a lifetime budget). */
  skipped: Array<{ index: number; reason: 'frequency' | 'budget'; retryAfterMs: number | null }>;
}

export interface CounterStore {
  readonly kind: 'redis' | 'memory';
  /** Fixed-window hit for rate limiting: increments and returns the count in the current window
   *  and ms until it resets. The first hit starts the window. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetInMs: number }>;
  /** Frequency and budget check for the top-K candidates of one decide, in ONE round trip,
   *  claiming the first candidate that passes ATOMICALLY (two instances never overspend or
   *  overserve). A candidate passes when every frequency count < limit and every budget's
   *  spent + amountMicros ≤ limitMicros; claiming increments every frequency key (a new key gets
   *  PEXPIRE windowMs) and adds amountMicros to every budget key (a new key gets PEXPIRE ttlMs). */
  claimFirst(candidates: ClaimCandidate[]): Promise<ClaimOutcome>;
  /** Set if absent with a TTL; returns null when it was set, else the existing value. */
  putIfAbsent(key: string, value: string, ttlMs: number): Promise<string | null>;
  get(key: string): Promise<string | null>;
  delete(key: string): Promise<void>;
  /** Liveness for /readyz. Throws when unreachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
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
export class CounterStoreUnavailable extends Error {
  readonly code = 'COUNTER_STORE_UNAVAILABLE';
  /** So that, should it ever escape to Fastify's default handler, it is a 503, not a 500. */
  readonly statusCode = 503;
  constructor() {
    super('counter store unavailable');
    this.name = 'CounterStoreUnavailable';
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

export function checkTtl(ttlMs: number): void {
  positiveInt(ttlMs, 'ttlMs');
}

export function checkCandidates(candidates: ClaimCandidate[]): void {
  if (!Array.isArray(candidates)) throw new RangeError('candidates must be an array');
  for (const c of candidates) {
    for (const f of c.frequency) {
      keyArg(f.key);
      nonNegativeInt(f.limit, 'frequency.limit');
      positiveInt(f.windowMs, 'frequency.windowMs');
    }
    for (const b of c.budgets) {
      keyArg(b.key);
      nonNegativeInt(b.limitMicros, 'budget.limitMicros');
      nonNegativeInt(b.amountMicros, 'budget.amountMicros');
      if (b.ttlMs !== null) positiveInt(b.ttlMs, 'budget.ttlMs');
    }
  }
}
