// Decision records go through the group-commit writer: the rows of concurrent decides go to the
// decision repository together, one statement per batch with a fixed parameter count whatever
// the batch size, which also adds each served decision's spend to the campaign spend ledger
// (src/decisions/decision-repository.ts). A caller's promise resolves after the batch holding its
// row has committed.
import { setTimeout as sleep } from 'node:timers/promises';
import { GroupCommitWriter } from '../persistence/group-commit-writer.js';
import type { DecisionRecord, DecisionRepository } from '../decisions/decision-repository.js';

/** A confirmation that failed is tried again after these waits (about two minutes in all, less
 *  than the sweep's grace), then left to the sweep. */
const CONFIRM_RETRIES_MS = [250, 1_000, 5_000, 15_000, 30_000, 60_000];

export class DecisionRecorder {
  private readonly writer: GroupCommitWriter<DecisionRecord, void>;
  private readonly timeouts: GroupCommitWriter<DecisionRecord, boolean>;
  private readonly corrections: GroupCommitWriter<{ id: string; latencyUs: number }, void>;
  private readonly confirmations: GroupCommitWriter<string, void>;
  private readonly confirming = new Set<Promise<void>>();
  private readonly closing = new AbortController();

  constructor(
    private readonly decisions: DecisionRepository,
    onFlush?: (size: number, ms: number, ok: boolean) => void,
  ) {
    // A decide that timed out answered TIMEOUT: its record must say so, whatever its pipeline had
    // written by then. Those writes are batched by group commit like every other hot-path write:
    // timeouts come in floods exactly when the database is slow, and one transaction each would
    // exhaust the pool.
    this.writer = new GroupCommitWriter((rows) => this.insert(rows), { onFlush });
    this.timeouts = new GroupCommitWriter((rows) => this.insertTimeouts(rows), { onFlush });
    this.corrections = new GroupCommitWriter((rows) => this.correctTimedOut(rows), { onFlush });
    this.confirmations = new GroupCommitWriter((ids) => this.confirmServes(ids), { onFlush });
  }

  /** The served decision `id` was answered in time: its row counts from now on. Written behind
   *  the answer and tried again while the database is away; a served row never confirmed is
   *  corrected to TIMEOUT by the sweep (src/decisions/unconfirmed-serves.ts): unbilled, which is
   *  what a failure may cost, never the reverse. */
  confirm(id: string): void {
    const attempt = (async () => {
      for (let i = 0; ; i++) {
        try {
          return await this.confirmations.write(id);
        } catch {
          if (i >= CONFIRM_RETRIES_MS.length || this.closing.signal.aborted) return;
          // Closing cuts the wait short: one last try, then the sweep's turn.
          await sleep(CONFIRM_RETRIES_MS[i], undefined, { signal: this.closing.signal, ref: false }).catch(() => {});
        }
      }
    })();
    this.confirming.add(attempt);
    void attempt.finally(() => this.confirming.delete(attempt));
  }

  record(decision: DecisionRecord): Promise<void> {
    return this.writer.write(decision);
  }

  /** Makes the record of decision `record.id` the TIMEOUT no-fill the host was told, exactly one
   *  row: a row the pipeline wrote (served or not) is corrected, a served row's spend taken off
   *  the ledger in the same statement; with no row, `record` (the TIMEOUT record) is inserted.
   *  `written`: whether the pipeline's own write is known to have committed. */
  async recordTimedOut(record: DecisionRecord, written: boolean): Promise<void> {
    if (!written && (await this.timeouts.write(record))) return;
    await this.corrections.write({ id: record.id, latencyUs: record.latencyUs });
  }

  get stats() {
    return this.writer.stats;
  }

  async close(): Promise<void> {
    this.closing.abort();
    await Promise.allSettled([...this.confirming]);
    await Promise.all([this.writer.close(), this.timeouts.close(), this.corrections.close(), this.confirmations.close()]);
  }

  private async insert(rows: DecisionRecord[]): Promise<void[]> {
    await this.decisions.insert(rows);
    return rows.map(() => undefined);
  }

  /** The TIMEOUT row is inserted unless a row with that id exists (a write whose outcome was
   *  unknown may have committed after all); false for a row that then needs correcting. */
  private async insertTimeouts(rows: DecisionRecord[]): Promise<boolean[]> {
    const inserted = await this.decisions.insertTimedOut(rows);
    return rows.map((r) => inserted.has(r.id));
  }

  private async confirmServes(ids: string[]): Promise<void[]> {
    await this.decisions.confirmServes(ids);
    return ids.map(() => undefined);
  }

  private async correctTimedOut(rows: Array<{ id: string; latencyUs: number }>): Promise<void[]> {
    await this.decisions.correctTimedOut(rows);
    return rows.map(() => undefined);
  }
}
