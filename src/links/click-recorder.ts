// Clicks are recorded after the redirect has been answered. Rows go through the group-commit
// writer; when the database is down they wait in a bounded retry buffer and are written when
// it is back. Past the buffer's bound a click is dropped and counted in `lost`.
import { GroupCommitWriter } from '../persistence/group-commit-writer.js';
import type { ClickRepository, ClickRow } from './click-repository.js';

const MAX_BUFFERED = 50_000;
const RETRY_MS = 1000;

export class ClickRecorder {
  private readonly writer: GroupCommitWriter<ClickRow, void>;
  private readonly retryBuffer: ClickRow[] = [];
  private readonly judging = new Set<Promise<void>>();
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;
  lost = 0;
  recorded = 0;

  constructor(
    private readonly clicks: ClickRepository,
    onFlush?: (size: number, ms: number, ok: boolean) => void,
  ) {
    this.writer = new GroupCommitWriter((rows) => this.insert(rows), { onFlush });
  }

  /** Never throws and never delays the caller: the browser already has its redirect. */
  record(row: ClickRow): void {
    this.writer.write(row).then(
      () => void this.recorded++,
      () => this.buffer(row),
    );
  }

  /** A click still being judged (its counters checked in the store): pending until its row is
   *  recorded, so shutdown and `pending` wait for it too. */
  recordWhenJudged(row: Promise<ClickRow>): void {
    const judged = row.then(
      (r) => this.record(r),
      () => {},
    );
    this.judging.add(judged);
    void judged.finally(() => this.judging.delete(judged));
  }

  get pending(): number {
    return this.judging.size + this.retryBuffer.length + this.writer.stats.pending;
  }

  async close(): Promise<void> {
    // Judging ends within the counter store's command timeout.
    await Promise.allSettled([...this.judging]);
    this.closed = true;
    await this.writer.close();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    // One last attempt for what waited on the database.
    if (this.retryBuffer.length > 0) {
      const rows = this.retryBuffer.splice(0);
      await this.insert(rows).then(
        () => void (this.recorded += rows.length),
        () => void (this.lost += rows.length),
      );
    }
  }

  private buffer(row: ClickRow) {
    if (this.retryBuffer.length >= MAX_BUFFERED) {
      this.lost++;
      return;
    }
    this.retryBuffer.push(row);
    this.scheduleRetry();
  }

  private scheduleRetry() {
    if (this.retryTimer || this.closed) return;
    this.retryTimer = setTimeout(async () => {
      this.retryTimer = null;
      const rows = this.retryBuffer.splice(0, 5000);
      try {
        await this.insert(rows);
        this.recorded += rows.length;
      } catch {
        this.retryBuffer.unshift(...rows);
      }
      if (this.retryBuffer.length > 0) this.scheduleRetry();
    }, RETRY_MS);
    this.retryTimer.unref();
  }

  private async insert(rows: ClickRow[]): Promise<void[]> {
    await this.clicks.insert(rows);
    return rows.map(() => undefined);
  }
}
