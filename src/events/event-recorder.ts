// Impression events are written through the group-commit writer. Idempotency is enforced by the
// (app_id, idempotency_key) unique constraint, not by a read before the write: concurrent
// duplicates, from one instance or many, insert exactly once; the others learn the original row.
import type { Database } from '../db/database.js';
import { batchInsert } from '../persistence/batch-insert.js';
import { GroupCommitWriter } from '../persistence/group-commit-writer.js';

export type ImpressionType = 'offer_rendered' | 'qualified_impression';

export interface ImpressionRow {
  id: string;
  appId: string;
  type: ImpressionType;
  offerSnapshotId: string;
  decisionId: string | null;
  idempotencyKey: string;
  requestHash: Buffer;
  test: boolean;
  counted: boolean;
  notCountedReason: string | null;
  createdAt: Date;
}

export type ImpressionWriteResult =
  | { inserted: true; eventId: string }
  | { inserted: false; eventId: string; sameRequest: boolean; type: ImpressionType };

const INSERT_EVENTS = batchInsert<ImpressionRow>(
  'events',
  [
    { name: 'id', type: 'text', value: (r) => r.id },
    { name: 'app_id', type: 'text', value: (r) => r.appId },
    { name: 'type', type: 'text', value: (r) => r.type },
    { name: 'offer_snapshot_id', type: 'text', value: (r) => r.offerSnapshotId },
    { name: 'decision_id', type: 'text', value: (r) => r.decisionId },
    { name: 'idempotency_key', type: 'text', value: (r) => r.idempotencyKey },
    { name: 'request_hash', type: 'bytea', value: (r) => r.requestHash },
    { name: 'test', type: 'boolean', value: (r) => r.test },
    { name: 'counted', type: 'boolean', value: (r) => r.counted },
    { name: 'not_counted_reason', type: 'text', value: (r) => r.notCountedReason },
    { name: 'created_at', type: 'timestamptz', value: (r) => r.createdAt },
  ],
  { onConflict: '(app_id, idempotency_key) DO NOTHING', returning: 'id' },
);

const FIND_EXISTING = `
SELECT e.id, e.app_id, e.idempotency_key, e.request_hash, e.type
FROM events e JOIN unnest($1::text[], $2::text[]) AS k(app_id, idempotency_key)
  ON e.app_id = k.app_id AND e.idempotency_key = k.idempotency_key`;

export class EventRecorder {
  private readonly writer: GroupCommitWriter<ImpressionRow, ImpressionWriteResult>;

  constructor(
    private readonly db: Database,
    onFlush?: (size: number, ms: number, ok: boolean) => void,
  ) {
    this.writer = new GroupCommitWriter((rows) => this.flush(rows), { onFlush });
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

  private async flush(rows: ImpressionRow[]): Promise<ImpressionWriteResult[]> {
    const inserted = await this.db.query<{ id: string }>(INSERT_EVENTS.sql, INSERT_EVENTS.params(rows));
    const insertedIds = new Set(inserted.rows.map((r) => r.id));
    const losers = rows.filter((r) => !insertedIds.has(r.id));
    const existing = new Map<string, { id: string; request_hash: Uint8Array; type: ImpressionType }>();
    if (losers.length > 0) {
      const found = await this.db.query<{ id: string; app_id: string; idempotency_key: string; request_hash: Uint8Array; type: ImpressionType }>(
        FIND_EXISTING,
        [losers.map((r) => r.appId), losers.map((r) => r.idempotencyKey)],
      );
      for (const f of found.rows) existing.set(`${f.app_id}\u0000${f.idempotency_key}`, f);
    }
    return rows.map((r): ImpressionWriteResult => {
      if (insertedIds.has(r.id)) return { inserted: true, eventId: r.id };
      const e = existing.get(`${r.appId}\u0000${r.idempotencyKey}`);
      // The unique constraint stopped this row, so the winner is committed and must be found.
      if (!e) throw new Error('idempotency conflict without a committed row');
      return { inserted: false, eventId: e.id, sameRequest: Buffer.from(e.request_hash).equals(r.requestHash), type: e.type };
    });
  }
}
