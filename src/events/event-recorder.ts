// Impression events are written through the group-commit writer: the rows of concurrent requests
// go to the events repository together, as one idempotent statement (event-repository.ts), and
// each request is answered once the statement that carried its row has committed.
import { GroupCommitWriter } from '../persistence/group-commit-writer.js';
import type { EventRepository, ImpressionRow, ImpressionWriteResult } from './event-repository.js';

export class EventRecorder {
  private readonly writer: GroupCommitWriter<ImpressionRow, ImpressionWriteResult>;

  constructor(events: EventRepository, onFlush?: (size: number, ms: number, ok: boolean) => void) {
    this.writer = new GroupCommitWriter((rows) => events.insertImpressions(rows), { onFlush });
  }

  record(row: ImpressionRow): Promise<ImpressionWriteResult> {
    return this.writer.write(row);
  }

  get stats() {
    return this.writer.stats;
  }

  close(): Promise<void> {
    return this.writer.close();
  }
}
