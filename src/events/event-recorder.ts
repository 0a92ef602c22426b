// Impression events are written through the group-commit writer. Idempotency is enforced by the
// (app_id, idempotency_key) unique constraint, not by a read before the write: concurrent
// duplicates, from one instance or many, insert exactly once; the others learn the original row.
import type { Database } from '../db/database.js';
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

const INSERT_EVENTS = `
INSERT INTO events (id, app_id, type, offer_snapshot_id, decision_id, idempotency_key, request_hash, test, counted,
                    not_counted_reason, created_at)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bytea[],
                     $8::boolean[], $9::boolean[], $10::text[], $11::timestamptz[])
ON CONFLICT (app_id, idempotency_key) DO NOTHING
RETURNING id`;

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
    const col = <T>(f: (r: ImpressionRow) => T) => rows.map(f);
    const inserted = await this.db.query<{ id: string }>(INSERT_EVENTS, [
      col((r) => r.id),
      col((r) => r.appId),
      col((r) => r.type),
      col((r) => r.offerSnapshotId),
      col((r) => r.decisionId),
      col((r) => r.idempotencyKey),
      col((r) => r.requestHash),
      col((r) => r.test),
      col((r) => r.counted),
      col((r) => r.notCountedReason),
      col((r) => r.createdAt.toISOString()),
    ]);
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
