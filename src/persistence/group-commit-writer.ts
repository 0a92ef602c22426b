// Group commit: rows written by concurrent requests are flushed together in one statement, and
// each caller's promise settles only after the statement that carried its row has committed.
// A flush starts at once when the writer is idle, and rows arriving during a flush wait for the
// next one, so batches grow with load while a lone request pays a single round trip.
export type FlushBatch<Row, Result> = (rows: Row[]) => Promise<Result[]>;

export interface GroupCommitStats {
  flushes: number;
  rows: number;
  failedFlushes: number;
  largestBatch: number;
  /** Rows written and not yet committed or failed: those waiting and those being flushed. */
  pending: number;
}

interface Pending<Row, Result> {
  row: Row;
  resolve: (r: Result) => void;
  reject: (e: unknown) => void;
}

export class GroupCommitWriter<Row, Result = void> {
  private queue: Pending<Row, Result>[] = [];
  private flushing: Promise<void> | null = null;
  private closed = false;
  readonly stats: GroupCommitStats = { flushes: 0, rows: 0, failedFlushes: 0, largestBatch: 0, pending: 0 };

  constructor(
    private readonly flushBatch: FlushBatch<Row, Result>,
    private readonly opts: {
      maxBatch?: number;
      /** Called after each flush with batch size and duration, for metrics. */
      onFlush?: (size: number, ms: number, ok: boolean) => void;
    } = {},
  ) {}

  write(row: Row): Promise<Result> {
    if (this.closed) return Promise.reject(new Error('writer closed'));
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ row, resolve, reject });
      this.stats.pending++;
      if (!this.flushing) this.flushing = this.runFlushes();
    });
  }

  /** Waits until every row written so far has been flushed (or failed). */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Refuses new rows and flushes what is pending. */
  async close(): Promise<void> {
    this.closed = true;
    await this.drain();
  }

  private async runFlushes(): Promise<void> {
    // Let the current tick's other requests join the first batch.
    await new Promise<void>((r) => setImmediate(r));
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.opts.maxBatch ?? 1000);
        const started = performance.now();
        try {
          const results = await this.flushBatch(batch.map((p) => p.row));
          this.stats.flushes++;
          this.stats.rows += batch.length;
          this.stats.largestBatch = Math.max(this.stats.largestBatch, batch.length);
          this.opts.onFlush?.(batch.length, performance.now() - started, true);
          this.stats.pending -= batch.length;
          batch.forEach((p, i) => p.resolve(results[i] as Result));
        } catch (err) {
          // The statement failed as a whole: nothing of the batch is committed, every caller hears it.
          this.stats.failedFlushes++;
          this.opts.onFlush?.(batch.length, performance.now() - started, false);
          this.stats.pending -= batch.length;
          for (const p of batch) p.reject(err);
        }
      }
    } finally {
      this.flushing = null;
    }
  }
}
