// The in-process counter store of the embedded default (no REDIS_URL): the same semantics as the
// Redis store, for one process. Every method runs synchronously to its end before its promise
// settles, so nothing interleaves inside a check-then-claim: that is what makes it atomic here.
//
// Four namespaces, each with its own bound, so that one kind of traffic can never push out
// another kind's state (a flood of clicks once evicted budget counters and a campaign served
// past its daily cap):
// - spend records, one per campaign: never evicted. When full, a campaign without a record stays
//   unknown and is not served (fail closed).
// - frequency windows: never evicted while live. When full of live windows, a claim that would
//   open a new window is refused as capped (fail closed: no serve rather than an uncapped one).
// - rate windows (`hit`: request and click rates) and fast-path entries (`putIfAbsent`: event
//   idempotency, conversion nonces, click dedup, whose durable truth is in Postgres): expired
//   entries go first, then the oldest. Losing one lets a request through a limit early or
//   re-checks a duplicate against the database; never money.
//
// Memory: the last three share one ceiling, `maxMemoryMb` (COUNTER_MEMORY_MB, 128 MB by default):
// half for frequency windows, a fifth for rate windows, the rest for fast-path entries. Each
// namespace holds as many entries as its share divided by the heap an entry can take with the
// longest key the service makes (ENTRY_HEAP_BYTES, measured, with a margin), so the ceiling holds
// whatever the traffic. Spend records are outside it: one per campaign, as many as the catalog.
import {
  checkCampaignId,
  checkCandidates,
  checkKey,
  checkLedgerSpend,
  checkReceipt,
  checkTtl,
  checkHit,
  checkMark,
  newGeneration,
  receiptOf,
  type CachedSpend,
  type ClaimCandidate,
  type ClaimOutcome,
  type ClaimReceipt,
  type LedgerSpend,
  type Mark,
  type MarksAndHitsOutcome,
  type StartableCounterStore,
  type WindowHit,
} from './counter-store.js';
import { DEFAULT_KEY_PREFIX } from './keys.js';

export interface MemoryCounterStoreOptions {
  keyPrefix?: string;
  /** Campaign spend records (default 1,000,000; about 200 bytes each). */
  maxCampaigns?: number;
  /** Heap for frequency windows, rate windows and fast-path entries together (default 128). */
  maxMemoryMb?: number;
  /** Live frequency windows (default: half of `maxMemoryMb`). */
  maxFrequencyWindows?: number;
  /** Rate-limit windows (default: a fifth of `maxMemoryMb`). */
  maxRateWindows?: number;
  /** Fast-path entries (default: the remaining 30% of `maxMemoryMb`). */
  maxEntries?: number;
  /** Sweep period (default 5 s). */
  sweepIntervalMs?: number;
  /** Entries examined per namespace per sweep tick, so one tick never blocks for long. */
  sweepBatch?: number;
  /** Clock, for tests. Read through a call so that fake timers also apply. */
  now?: () => number;
}

export const MEMORY_STORE_DEFAULTS = {
  maxCampaigns: 1_000_000,
  maxMemoryMb: 128,
} as const;

/** Heap one entry takes at most, with the longest key the service makes (a 64-character
 *  campaign id or app id, a long key prefix) and the longest value: measured with V8's
 *  heapUsed after a full collection over 100,000 entries (320, 286 and 521 bytes), plus a
 *  margin. `test/counters/memory-ceiling.test.ts` holds the store to it. */
export const ENTRY_HEAP_BYTES = { frequency: 384, rate: 384, entry: 640 } as const;

/** The share of `maxMemoryMb` each namespace gets. */
const MEMORY_SHARES = { frequency: 0.5, rate: 0.2, entry: 0.3 } as const;

/** How many entries of each namespace fit in `maxMemoryMb`. */
export function entriesWithin(maxMemoryMb: number): { frequency: number; rate: number; entry: number } {
  const bytes = maxMemoryMb * 1024 * 1024;
  const fit = (k: keyof typeof MEMORY_SHARES) => Math.max(1, Math.floor((bytes * MEMORY_SHARES[k]) / ENTRY_HEAP_BYTES[k]));
  return { frequency: fit('frequency'), rate: fit('rate'), entry: fit('entry') };
}

interface Expiring<V> {
  value: V;
  expiresAt: number;
}

/** A map of entries that expire, bounded to `max`, swept incrementally. */
class ExpiringMap<V> {
  readonly map = new Map<string, Expiring<V>>();
  private cursor: Iterator<[string, Expiring<V>]> | null = null;
  private lastFullSweepAt = -Infinity;

  constructor(readonly max: number) {}

  live(key: string, now: number): Expiring<V> | undefined {
    const e = this.map.get(key);
    if (e && e.expiresAt <= now) {
      this.map.delete(key);
      return undefined;
    }
    return e;
  }

  /** Room for one more key: expired entries first (a full pass at most once a second, or a flood
   *  of new keys would make every insert pay for one). False when still full. */
  hasRoom(now: number): boolean {
    if (this.map.size < this.max) return true;
    if (now - this.lastFullSweepAt >= 1000) {
      this.lastFullSweepAt = now;
      for (const [k, e] of this.map) if (e.expiresAt <= now) this.map.delete(k);
    }
    return this.map.size < this.max;
  }

  /** Inserts, evicting the oldest entry when full. For the namespaces that may lose entries. */
  setEvicting(key: string, e: Expiring<V>, now: number) {
    if (!this.map.has(key) && !this.hasRoom(now)) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
    this.map.set(key, e);
  }

  sweepSome(batch: number, now: number) {
    if (!this.cursor) this.cursor = this.map.entries();
    for (let n = 0; n < batch; n++) {
      const next = this.cursor.next();
      if (next.done) {
        this.cursor = null;
        return;
      }
      if (next.value[1].expiresAt <= now) this.map.delete(next.value[0]);
    }
  }

  clear() {
    this.map.clear();
    this.cursor = null;
  }
}

interface SpendRecord {
  generation: string;
  totalMicros: number;
  day: string;
  dayMicros: number;
}

export class MemoryCounterStore implements StartableCounterStore {
  readonly kind = 'memory' as const;
  private readonly spend = new Map<string, SpendRecord>();
  private readonly frequency: ExpiringMap<number>;
  private readonly rateWindows: ExpiringMap<number>;
  private readonly entries: ExpiringMap<string>;
  private readonly maxCampaigns: number;
  private readonly prefix: string;
  private readonly sweepBatch: number;
  private readonly now: () => number;
  private sweeper: NodeJS.Timeout | null;

  constructor(options: MemoryCounterStoreOptions = {}) {
    this.prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.maxCampaigns = Math.max(1, options.maxCampaigns ?? MEMORY_STORE_DEFAULTS.maxCampaigns);
    const fit = entriesWithin(options.maxMemoryMb ?? MEMORY_STORE_DEFAULTS.maxMemoryMb);
    this.frequency = new ExpiringMap(Math.max(1, options.maxFrequencyWindows ?? fit.frequency));
    this.rateWindows = new ExpiringMap(Math.max(1, options.maxRateWindows ?? fit.rate));
    this.entries = new ExpiringMap(Math.max(1, options.maxEntries ?? fit.entry));
    this.sweepBatch = Math.max(1, options.sweepBatch ?? 10_000);
    this.now = options.now ?? (() => Date.now());
    this.sweeper = setInterval(() => this.sweepSome(), options.sweepIntervalMs ?? 5_000);
    this.sweeper.unref();
  }

  /** How many entries each namespace may hold. */
  get bounds() {
    return { campaigns: this.maxCampaigns, frequencyWindows: this.frequency.max, rateWindows: this.rateWindows.max, entries: this.entries.max };
  }

  /** Entries held per namespace (expired ones not yet swept included). */
  get sizes() {
    return { campaigns: this.spend.size, frequencyWindows: this.frequency.map.size, rateWindows: this.rateWindows.map.size, entries: this.entries.map.size };
  }

  /** Entries held in all namespaces. */
  get size(): number {
    const s = this.sizes;
    return s.campaigns + s.frequencyWindows + s.rateWindows + s.entries;
  }

  /** Every entry of every namespace, for diagnostics (and the privacy proof, which searches it). */
  dump(): Array<[namespace: string, key: string, value: unknown]> {
    return [
      ...[...this.spend].map(([k, v]) => ['spend', k, v] as [string, string, unknown]),
      ...[...this.frequency.map].map(([k, v]) => ['frequency', k, v] as [string, string, unknown]),
      ...[...this.rateWindows.map].map(([k, v]) => ['rate', k, v] as [string, string, unknown]),
      ...[...this.entries.map].map(([k, v]) => ['entries', k, v] as [string, string, unknown]),
    ];
  }

  async ready(): Promise<boolean> {
    return true;
  }

  async hits(batch: readonly WindowHit[]) {
    // All checked before any counts: a bad entry leaves every window as it was.
    for (const h of batch) checkHit(h);
    return batch.map((h) => this.addToWindow(h));
  }

  private addToWindow({ key, windowMs, by }: WindowHit) {
    const now = this.now();
    const k = this.prefix + key;
    const e = this.rateWindows.live(k, now);
    if (!e) {
      this.rateWindows.setEvicting(k, { value: by, expiresAt: now + windowMs }, now);
      return { count: by, resetInMs: windowMs };
    }
    e.value += by;
    return { count: e.value, resetInMs: Math.max(0, e.expiresAt - now) };
  }

  async claimFirst(candidates: ClaimCandidate[]): Promise<ClaimOutcome> {
    checkCandidates(candidates);
    // Synchronous from here to the end: nothing interleaves, so check-then-claim is atomic.
    const now = this.now();
    const skipped: ClaimOutcome['skipped'] = [];
    for (let i = 0; i < candidates.length; i++) {
      const c = candidates[i];
      const capped = c.frequency.find((f) => (this.frequency.live(this.prefix + f.key, now)?.value ?? 0) >= f.limit);
      if (capped) {
        const e = this.frequency.live(this.prefix + capped.key, now);
        skipped.push({ index: i, reason: 'frequency', retryAfterMs: e ? Math.max(0, e.expiresAt - now) : null });
        continue;
      }
      // Every window this serve would open must fit; when the namespace is full, no serve.
      const opens = c.frequency.filter((f) => !this.frequency.live(this.prefix + f.key, now)).length;
      if (opens > 0 && !this.roomForWindows(opens, now)) {
        skipped.push({ index: i, reason: 'frequency', retryAfterMs: 1000 });
        continue;
      }
      const s = c.spend;
      const record = s ? this.spend.get(s.campaignId) : undefined;
      if (s && !record) {
        skipped.push({ index: i, reason: 'spend_unknown', retryAfterMs: null });
        continue;
      }
      if (s && record) {
        // A record on the caller's day, or on a later one (the caller's clock is behind another
        // instance's: the campaign's day never moves backwards), holds what today has spent.
        const today = record.day >= s.day ? record.dayMicros : 0;
        // spent > limit - amount rather than spent + amount > limit: exact up to 2^53, as in Lua.
        if (record.totalMicros > s.totalLimitMicros - s.amountMicros) {
          skipped.push({ index: i, reason: 'budget', retryAfterMs: null });
          continue;
        }
        if (today > s.dailyLimitMicros - s.amountMicros) {
          skipped.push({ index: i, reason: 'budget', retryAfterMs: s.msToDayEnd });
          continue;
        }
      }
      for (const f of c.frequency) {
        const k = this.prefix + f.key;
        const e = this.frequency.live(k, now);
        if (e) e.value += 1;
        else this.frequency.map.set(k, { value: 1, expiresAt: now + f.windowMs });
      }
      if (s && record) {
        record.totalMicros += s.amountMicros;
        if (record.day >= s.day) record.dayMicros += s.amountMicros;
        else {
          record.day = s.day;
          record.dayMicros = s.amountMicros;
        }
      }
      return { claimedIndex: i, receipt: receiptOf(c, record?.generation ?? ''), skipped };
    }
    return { claimedIndex: -1, receipt: null, skipped };
  }

  async refund(receipt: ClaimReceipt): Promise<void> {
    checkReceipt(receipt);
    const now = this.now();
    for (const key of receipt.frequencyKeys) {
      const e = this.frequency.live(this.prefix + key, now);
      if (e && e.value > 0) e.value -= 1;
    }
    const s = receipt.spend;
    const record = s ? this.spend.get(s.campaignId) : undefined;
    if (s && record && record.generation === s.generation) {
      record.totalMicros = Math.max(0, record.totalMicros - s.amountMicros);
      if (record.day === s.day) record.dayMicros = Math.max(0, record.dayMicros - s.amountMicros);
    }
  }

  async loadSpend(spend: LedgerSpend[]): Promise<string[]> {
    checkLedgerSpend(spend);
    const generation = newGeneration();
    const loaded: string[] = [];
    for (const s of spend) {
      if (this.spend.has(s.campaignId) || this.spend.size >= this.maxCampaigns) continue;
      this.spend.set(s.campaignId, { generation, totalMicros: s.totalMicros, day: s.day, dayMicros: s.dayMicros });
      loaded.push(s.campaignId);
    }
    return loaded;
  }

  async raiseSpend(spend: LedgerSpend[]): Promise<void> {
    checkLedgerSpend(spend);
    for (const s of spend) {
      const r = this.spend.get(s.campaignId);
      if (!r) continue;
      r.totalMicros = Math.max(r.totalMicros, s.totalMicros);
      if (r.day === s.day) r.dayMicros = Math.max(r.dayMicros, s.dayMicros);
      else if (r.day < s.day) {
        r.day = s.day;
        r.dayMicros = s.dayMicros;
      }
    }
  }

  async readSpend(campaignId: string): Promise<CachedSpend | null> {
    checkCampaignId(campaignId);
    const r = this.spend.get(campaignId);
    return r ? { campaignId, ...r } : null;
  }

  async putIfAbsent(key: string, value: string, ttlMs: number) {
    checkKey(key);
    checkTtl(ttlMs);
    return this.mark({ key, value, ttlMs });
  }

  async marksAndHits(marks: readonly Mark[], hits: readonly WindowHit[]): Promise<MarksAndHitsOutcome> {
    // All checked before anything is set or counted, as in `hits`.
    for (const m of marks) checkMark(m);
    for (const h of hits) checkHit(h);
    return { existing: marks.map((m) => this.mark(m)), hits: hits.map((h) => this.addToWindow(h)) };
  }

  private mark({ key, value, ttlMs }: Mark): string | null {
    const now = this.now();
    const k = this.prefix + key;
    const e = this.entries.live(k, now);
    if (e) return e.value;
    this.entries.setEvicting(k, { value: String(value), expiresAt: now + ttlMs }, now);
    return null;
  }

  async get(key: string) {
    checkKey(key);
    return this.entries.live(this.prefix + key, this.now())?.value ?? null;
  }

  async delete(key: string) {
    checkKey(key);
    this.entries.map.delete(this.prefix + key);
  }

  async ping() {}

  async close() {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    this.spend.clear();
    this.frequency.clear();
    this.rateWindows.clear();
    this.entries.clear();
  }

  private roomForWindows(count: number, now: number): boolean {
    if (this.frequency.map.size + count <= this.frequency.max) return true;
    this.frequency.hasRoom(now);
    return this.frequency.map.size + count <= this.frequency.max;
  }

  private sweepSome() {
    const now = this.now();
    this.frequency.sweepSome(this.sweepBatch, now);
    this.rateWindows.sweepSome(this.sweepBatch, now);
    this.entries.sweepSome(this.sweepBatch, now);
  }
}
