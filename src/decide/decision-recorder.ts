// Decision records go through the group-commit writer: the rows of concurrent decides go to the
// decision repository together, one statement per batch with a fixed parameter count whatever
// the batch size, which also adds each served decision's spend to the campaign spend ledger
// (src/decisions/decision-repository.ts). A caller's promise resolves after the batch holding its
// row has committed.
import { GroupCommitWriter } from '../persistence/group-commit-writer.js';
import type { DecisionRecord, DecisionRepository } from '../decisions/decision-repository.js';

export class DecisionRecorder {
  private readonly writer: GroupCommitWriter<DecisionRecord, void>;
  private readonly timeouts: GroupCommitWriter<DecisionRecord, boolean>;
  private readonly corrections: GroupCommitWriter<{ id: string; latencyUs: number }, void>;

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
    await Promise.all([this.writer.close(), this.timeouts.close(), this.corrections.close()]);
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

  private async correctTimedOut(rows: Array<{ id: string; latencyUs: number }>): Promise<void[]> {
    await this.decisions.correctTimedOut(rows);
    return rows.map(() => undefined);
  }
}
