// Keeps the counter store's spend records (a cache) in step with the Postgres ledger (the truth).
//
// - A campaign without a record in the store has an unknown spend and is not served (claims skip
//   it as `spend_unknown`). Its record is loaded from the ledger: at start for every campaign of
//   the catalog, and whenever a claim finds one missing (the store lost its data: a restart of an
//   in-process store, a Redis FLUSHALL or a Redis restart without persistence, an eviction).
// - Before a record that went missing is loaded again, the keeper waits `settleMs`: a serve
//   claimed just before the store lost the record may not have committed its decision row yet.
//   A served row is only kept if it committed before its decide's deadline (src/decide/), so
//   after the longest decide budget every kept serve is in the ledger; later commits are undone
//   by the timed-out decide itself. That makes the rebuilt record exact.
// - Every `reconcileMs` the records of the catalog's campaigns are raised to at least the
//   ledger's figures: a Redis restored from an old snapshot, or a replica promoted without the
//   last writes, keeps its records but under-counts; this bounds what it can overspend.
import type { CounterStore, LedgerSpend } from '../counters/counter-store.js';
import { utcDay } from '../counters/serve-claims.js';

/** The ledger's committed figures. The ledger is written with the decision rows, so the decision
 *  repository (src/decisions/) reads it; this folder depends only on this shape. */
export interface SpendLedger {
  /** Lifetime and `day` spend of each campaign (0 for one that never spent). */
  spendOf(campaignIds: readonly string[], day: string): Promise<LedgerSpend[]>;
}

export interface SpendKeeperOptions {
  /** How long to wait before loading a record that went missing (see above). Only a store shared
   *  with other instances (Redis) can lose records while claims on them are in flight; an
   *  in-process store never drops a record, so its new records load at once. */
  settleMs: number;
  /** Period of raising records to the ledger's figures. */
  reconcileMs: number;
  now: () => number;
  log: { warn(obj: object, msg: string): void };
}

/** Campaigns per ledger read and store call. A catalog of a million offers has 50,000 campaigns:
 *  one call for all of them spread 200,000 arguments into the Redis script call, which throws a
 *  RangeError, so their records were never loaded (and the retry rebuilt the call every settle
 *  period); and one statement binds a 50,000-element array. Batches also leave the event loop
 *  free between them. */
export const SPEND_BATCH = 1000;

function* inBatches<T>(list: readonly T[]): Generator<T[]> {
  for (let i = 0; i < list.length; i += SPEND_BATCH) yield list.slice(i, i + SPEND_BATCH);
}

export class SpendKeeper {
  private readonly pending = new Set<string>();
  private loadTimer: NodeJS.Timeout | null = null;
  private reconciler: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Records loaded from the ledger by this instance (for /metrics and tests). */
  loaded = 0;

  constructor(
    private readonly ledger: SpendLedger,
    private readonly counters: CounterStore,
    private readonly campaignIds: () => string[],
    private readonly options: SpendKeeperOptions,
  ) {}

  private get settleMs(): number {
    return this.counters.kind === 'redis' ? this.options.settleMs : 0;
  }

  /** Campaigns about to be served for the first time by this instance (at start, and after a
   *  catalog import): their records are loaded before the catalog that has them is swapped in.
   *  If the store or the database is down they stay unknown (not served) and are loaded when a
   *  claim finds them missing. */
  async prepare(campaignIds: string[]): Promise<void> {
    if (this.settleMs > 0) await new Promise((r) => setTimeout(r, this.settleMs));
    try {
      await this.loadNow(campaignIds);
    } catch (err) {
      this.options.log.warn({ err: { type: (err as Error).name } }, 'spend records not loaded; their campaigns wait');
      this.ensureLoaded(campaignIds);
    }
  }

  /** Starts raising records to the ledger's figures every reconcileMs. */
  start(): void {
    this.reconciler = setInterval(() => void this.reconcile().catch(() => {}), this.options.reconcileMs);
    this.reconciler.unref();
  }

  /** Campaigns a claim found without a record: loaded after settleMs, in one batch. */
  ensureLoaded(campaignIds: readonly string[]): void {
    for (const id of campaignIds) this.pending.add(id);
    if (this.loadTimer || this.stopped || this.pending.size === 0) return;
    this.loadTimer = setTimeout(() => {
      this.loadTimer = null;
      const ids = [...this.pending];
      this.pending.clear();
      this.loadNow(ids).catch(() => this.ensureLoaded(ids));
    }, this.settleMs);
    this.loadTimer.unref();
  }

  /** Reads the ledger and loads the records the store does not have (existing ones are kept:
   *  they may hold claims the ledger has not seen yet). */
  async loadNow(campaignIds: readonly string[]): Promise<string[]> {
    const day = utcDay(this.options.now());
    const loaded: string[] = [];
    for (const batch of inBatches(campaignIds)) {
      const done = await this.counters.loadSpend(await this.ledger.spendOf(batch, day));
      this.loaded += done.length;
      loaded.push(...done);
    }
    return loaded;
  }

  /** Raises every catalog campaign's record to at least the ledger's figures. */
  async reconcile(): Promise<void> {
    const day = utcDay(this.options.now());
    for (const batch of inBatches(this.campaignIds())) await this.counters.raiseSpend(await this.ledger.spendOf(batch, day));
  }

  stop(): void {
    this.stopped = true;
    if (this.loadTimer) clearTimeout(this.loadTimer);
    if (this.reconciler) clearInterval(this.reconciler);
    this.loadTimer = null;
    this.reconciler = null;
  }
}
