// Decision records go through the group-commit writer: one INSERT … SELECT FROM unnest(…) per
// batch, with a fixed parameter count whatever the batch size. A caller's promise resolves
// after the batch holding its row has committed.
import type { Database } from '../db/database.js';
import { GroupCommitWriter } from '../persistence/group-commit-writer.js';

export interface DecisionRecord {
  id: string;
  appId: string;
  requestId: string;
  kind: 'offer' | 'affiliate';
  test: boolean;
  createdAt: Date;
  serve: boolean;
  reasonCodes: string[];
  offerSnapshotId: string | null;
  campaignId: string | null;
  expiresAt: Date | null;
  locale: string | null;
  country: string | null;
  intentType: string | null;
  messageIntent: string | null;
  matchedCategoryIds: string[];
  matchedEntityIds: string[];
  droppedDigestIds: number;
  latencyUs: number;
}

// Arrays of arrays cannot go through unnest() as ragged text[][], so list columns travel as
// comma-joined text and are split per row on the server. Every list holds ids or reason codes,
// which cannot contain a comma (catalog ids are [a-z0-9._:-], codes [A-Z_]); string_to_array
// is cheaper for the server than expanding JSON, and join() than JSON.stringify here.
const INSERT_DECISIONS = `
INSERT INTO decisions (id, app_id, request_id, kind, test, created_at, serve, reason_codes, offer_snapshot_id,
  campaign_id, expires_at, locale, country, intent_type, cue_intent, matched_category_ids, matched_entity_ids,
  dropped_digest_ids, latency_us)
SELECT id, app_id, request_id, kind, test, created_at, serve,
       string_to_array(reason_codes, ','), offer_snapshot_id, campaign_id, expires_at, locale,
       country, intent_type, cue_intent,
       string_to_array(matched_category_ids, ','),
       string_to_array(matched_entity_ids, ','), dropped_digest_ids, latency_us
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::boolean[], $6::timestamptz[], $7::boolean[],
            $8::text[], $9::text[], $10::text[], $11::timestamptz[], $12::text[], $13::text[], $14::text[],
            $15::text[], $16::text[], $17::text[], $18::int[], $19::int[])
  AS t(id, app_id, request_id, kind, test, created_at, serve, reason_codes, offer_snapshot_id, campaign_id,
       expires_at, locale, country, intent_type, cue_intent, matched_category_ids, matched_entity_ids,
       dropped_digest_ids, latency_us)`;

export class DecisionRecorder {
  private readonly writer: GroupCommitWriter<DecisionRecord, void>;

  constructor(
    private readonly db: Database,
    onFlush?: (size: number, ms: number, ok: boolean) => void,
  ) {
    this.writer = new GroupCommitWriter((rows) => this.insert(rows), { onFlush });
  }

  record(decision: DecisionRecord): Promise<void> {
    return this.writer.write(decision);
  }

  get stats() {
    return this.writer.stats;
  }

  close(): Promise<void> {
    return this.writer.close();
  }

  private async insert(rows: DecisionRecord[]): Promise<void[]> {
    const col = <T>(f: (r: DecisionRecord) => T) => rows.map(f);
    await this.db.query(INSERT_DECISIONS, [
      col((r) => r.id),
      col((r) => r.appId),
      col((r) => r.requestId),
      col((r) => r.kind),
      col((r) => r.test),
      col((r) => r.createdAt.toISOString()),
      col((r) => r.serve),
      col((r) => listColumn(r.reasonCodes)),
      col((r) => r.offerSnapshotId),
      col((r) => r.campaignId),
      col((r) => (r.expiresAt ? r.expiresAt.toISOString() : null)),
      col((r) => r.locale),
      col((r) => r.country),
      col((r) => r.intentType),
      col((r) => r.messageIntent),
      col((r) => listColumn(r.matchedCategoryIds)),
      col((r) => listColumn(r.matchedEntityIds)),
      col((r) => r.droppedDigestIds),
      col((r) => r.latencyUs),
    ]);
    return rows.map(() => undefined);
  }
}

/** A list column as comma-joined text; a comma inside an element would split it, so refuse. */
function listColumn(items: string[]): string {
  for (const item of items) if (item.includes(',')) throw new Error('list column element contains a comma');
  return items.join(',');
}
