// The in-process counter store of the embedded default (no REDIS_URL): the same semantics as the
// Redis store, for one process. Every method runs synchronously to its end before its promise
// settles, so nothing interleaves inside a check-then-claim: that is what makes it atomic here.
//
// Bounded: entries expire lazily on access and in an incremental sweep on an unref'd timer (it
// never keeps the process alive), and the map holds at most `maxEntries`. When full of live
// entries it evicts the oldest entry that has an expiry; lifetime budget totals (no expiry) are
// only evicted when nothing else is left, since losing one would let a campaign spend again.
import {
  checkCandidates,
  checkKey,
  checkTtl,
  checkWindow,
  type ClaimCandidate,
  type ClaimOutcome,
  type StartableCounterStore,
} from './counter-store.js';
import { DEFAULT_KEY_PREFIX } from './keys.js';

interface Entry {
  value: number | string;
  /** Epoch ms; null = no expiry. */
  expiresAt: number | null;
}

export interface MemoryCounterStoreOptions {
  keyPrefix?: string;
  /** Upper bound on entries (default 500,000, roughly 100 MB at worst). */
  maxEntries?: number;
  /** Sweep period (default 5 s). */
  sweepIntervalMs?: number;
  /** Entries examined per sweep tick, so one tick never blocks the event loop for long. */
  sweepBatch?: number;
  /** Clock, for tests. Read through a call so that fake timers also apply. */
  now?: () => number;
}

export class MemoryCounterStore implements StartableCounterStore {
  readonly kind = 'memory' as const;
  private readonly entries = new Map<string, Entry>();
  private readonly prefix: string;
  private readonly maxEntries: number;
  private readonly sweepBatch: number;
  private readonly now: () => number;
  private sweeper: NodeJS.Timeout | null;
  private sweepCursor: Iterator<[string, Entry]> | null = null;
  private lastFullSweepAt = -Infinity;

  constructor(options: MemoryCounterStoreOptions = {}) {
    this.prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.maxEntries = Math.max(1, options.maxEntries ?? 500_000);
    this.sweepBatch = Math.max(1, options.sweepBatch ?? 10_000);
    this.now = options.now ?? (() => Date.now());
    this.sweeper = setInterval(() => this.sweepSome(this.sweepBatch), options.sweepIntervalMs ?? 5_000);
    this.sweeper.unref();
  }

  /** Entries currently held (expired ones not yet swept included). */
  get size(): number {
    return this.entries.size;
  }

  async ready(): Promise<boolean> {
    return true;
  }

  async hit(key: string, windowMs: number) {
    checkWindow(key, windowMs);
    const now = this.now();
    const k = this.prefix + key;
    const e = this.live(k, now);
    if (!e || typeof e.value !== 'number') {
      this.set(k, { value: 1, expiresAt: now + windowMs });
      return { count: 1, resetInMs: windowMs };
    }
    e.value += 1;
    // A counter without expiry cannot occur through this API; give it one rather than count forever.
    if (e.expiresAt === null) e.expiresAt = now + windowMs;
    return { count: e.value, resetInMs: Math.max(0, e.expiresAt - now) };
  }

  async claimFirst(candidates: ClaimCandidate[]): Promise<ClaimOutcome> {
    checkCandidates(candidates);
    // Synchronous from here to the end: nothing interleaves, so check-then-claim is atomic.
    const now = this.now();
    const skipped: ClaimOutcome['skipped'] = [];
    for (let i = 0; i < candidates.length; i++) {
      const c = candidates[i];
      const capped = c.frequency.find((f) => this.count(f.key, now) >= f.limit);
      if (capped) {
        skipped.push({ index: i, reason: 'frequency', retryAfterMs: this.ttl(capped.key, now) });
        continue;
      }
      // spent > limit - amount rather than spent + amount > limit: exact up to 2^53, as in Lua.
      const broke = c.budgets.find((b) => this.count(b.key, now) > b.limitMicros - b.amountMicros);
      if (broke) {
        skipped.push({ index: i, reason: 'budget', retryAfterMs: broke.ttlMs === null ? null : this.ttl(broke.key, now) });
        continue;
      }
      for (const f of c.frequency) this.add(f.key, 1, f.windowMs, now);
      for (const b of c.budgets) this.add(b.key, b.amountMicros, b.ttlMs, now);
      return { claimedIndex: i, skipped };
    }
    return { claimedIndex: -1, skipped };
  }

  async putIfAbsent(key: string, value: string, ttlMs: number) {
    checkKey(key);
    checkTtl(ttlMs);
    const now = this.now();
    const k = this.prefix + key;
    const e = this.live(k, now);
    if (e) return String(e.value);
    this.set(k, { value: String(value), expiresAt: now + ttlMs });
    return null;
  }

  async get(key: string) {
    checkKey(key);
    const e = this.live(this.prefix + key, this.now());
    return e ? String(e.value) : null;
  }

  async delete(key: string) {
    checkKey(key);
    this.entries.delete(this.prefix + key);
  }

  async ping() {}

  async close() {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    this.sweepCursor = null;
    this.entries.clear();
  }

  private live(k: string, now: number): Entry | undefined {
    const e = this.entries.get(k);
    if (e && e.expiresAt !== null && e.expiresAt <= now) {
      this.entries.delete(k);
      return undefined;
    }
    return e;
  }

  /** Numeric value of a counter (0 when absent), as Redis' tonumber(GET … or '0'). */
  private count(key: string, now: number): number {
    const v = this.live(this.prefix + key, now)?.value;
    if (v === undefined) return 0;
    const n = Number(v);
    return Number.isFinite(n) ? n : 0;
  }

  /** ms until the key expires; null when absent or without expiry (as PTTL's -2 / -1). */
  private ttl(key: string, now: number): number | null {
    const e = this.live(this.prefix + key, now);
    return e?.expiresAt == null ? null : Math.max(0, e.expiresAt - now);
  }

  private add(key: string, amount: number, ttlMs: number | null, now: number) {
    const k = this.prefix + key;
    const e = this.live(k, now);
    if (e) {
      e.value = (typeof e.value === 'number' ? e.value : Number(e.value) || 0) + amount;
      // As the Lua: a key that has no expiry gets one when a ttl is given.
      if (e.expiresAt === null && ttlMs !== null) e.expiresAt = now + ttlMs;
    } else {
      this.set(k, { value: amount, expiresAt: ttlMs === null ? null : now + ttlMs });
    }
  }

  private set(k: string, e: Entry) {
    if (!this.entries.has(k) && this.entries.size >= this.maxEntries) this.makeRoom();
    this.entries.set(k, e);
  }

  private makeRoom() {
    // First the expired ones, then the oldest inserted entry that has an expiry (a rate-limit
    // window or a frequency cap: losing it lets one more request or serve through), and only as a
    // last resort the oldest entry of all.
    // A full sweep is O(n): at most once a second, or a flood of new keys would make every
    // insert pay for one.
    const now = this.now();
    if (now - this.lastFullSweepAt >= 1000) {
      this.lastFullSweepAt = now;
      this.sweepAll(now);
      if (this.entries.size < this.maxEntries) return;
    }
    let scanned = 0;
    for (const [k, e] of this.entries) {
      if (e.expiresAt !== null) {
        this.entries.delete(k);
        return;
      }
      // A map full of lifetime totals is not a state this service reaches; stop scanning early.
      if (++scanned >= 1000) break;
    }
    const oldest = this.entries.keys().next();
    if (!oldest.done) this.entries.delete(oldest.value);
  }

  private sweepAll(now: number) {
    for (const [k, e] of this.entries) if (e.expiresAt !== null && e.expiresAt <= now) this.entries.delete(k);
  }

  /** Examines up to `batch` entries, resuming where the previous tick stopped. */
  private sweepSome(batch: number) {
    const now = this.now();
    if (!this.sweepCursor) this.sweepCursor = this.entries.entries();
    for (let n = 0; n < batch; n++) {
      const next = this.sweepCursor.next();
      if (next.done) {
        this.sweepCursor = null;
        return;
      }
      const [k, e] = next.value;
      if (e.expiresAt !== null && e.expiresAt <= now) this.entries.delete(k);
    }
  }
}
