// Decision records go through the group-commit writer: one INSERT … SELECT FROM unnest(…) per
// batch, with a fixed parameter count whatever the batch size. A caller's promise resolves
// after the batch holding its row has committed.
//
// The same statement adds each served decision's spend to the campaign spend ledger
// (campaign_spend_daily / campaign_spend_total), so the ledger can never disagree with the rows.
import type { Database } from '../db/database.js';
import { batchInsert, type BatchColumn } from '../persistence/batch-insert.js';
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
  /** Served: the categories asked for that the offer met; else every category the turn named. */
  matchedCategoryIds: string[];
  matchedEntityIds: string[];
  /** Served: the offer's categories met only as implied by a named entity (evidence that won). */
  impliedCategoryIds: string[];
  droppedDigestIds: number;
  latencyUs: number;
  /** What this decision spent of its campaign's budget: the bid when served live, else 0. */
  spendMicros: number;
}

// One column list for both inserts of decision rows. Lists (reason codes, ids) travel as
// comma-joined text (batch-insert.ts says why).
const DECISION_COLUMNS: readonly BatchColumn<DecisionRecord>[] = [
  { name: 'id', type: 'text', value: (r) => r.id },
  { name: 'app_id', type: 'text', value: (r) => r.appId },
  { name: 'request_id', type: 'text', value: (r) => r.requestId },
  { name: 'kind', type: 'text', value: (r) => r.kind },
  { name: 'test', type: 'boolean', value: (r) => r.test },
  { name: 'created_at', type: 'timestamptz', value: (r) => r.createdAt },
  { name: 'serve', type: 'boolean', value: (r) => r.serve },
  { name: 'reason_codes', type: 'text[]', value: (r) => r.reasonCodes },
  { name: 'offer_snapshot_id', type: 'text', value: (r) => r.offerSnapshotId },
  { name: 'campaign_id', type: 'text', value: (r) => r.campaignId },
  { name: 'expires_at', type: 'timestamptz', value: (r) => r.expiresAt },
  { name: 'locale', type: 'text', value: (r) => r.locale },
  { name: 'country', type: 'text', value: (r) => r.country },
  { name: 'intent_type', type: 'text', value: (r) => r.intentType },
  { name: 'cue_intent', type: 'text', value: (r) => r.messageIntent },
  { name: 'matched_category_ids', type: 'text[]', value: (r) => r.matchedCategoryIds },
  { name: 'matched_entity_ids', type: 'text[]', value: (r) => r.matchedEntityIds },
  { name: 'dropped_digest_ids', type: 'int', value: (r) => r.droppedDigestIds },
  { name: 'latency_us', type: 'int', value: (r) => r.latencyUs },
  { name: 'spend_micros', type: 'bigint', value: (r) => r.spendMicros },
  { name: 'implied_category_ids', type: 'text[]', value: (r) => r.impliedCategoryIds },
];

const DECISION_ROWS = batchInsert('decisions', DECISION_COLUMNS, { returning: 'campaign_id, created_at, spend_micros' });

const INSERT_DECISIONS = `
WITH inserted AS (
${DECISION_ROWS.sql}
), spent AS (
  SELECT campaign_id, (created_at AT TIME ZONE 'UTC')::date AS day, sum(spend_micros)::bigint AS micros, count(*)::bigint AS serves
  FROM inserted WHERE spend_micros > 0 GROUP BY 1, 2
), daily AS (
  -- In campaign order, so that two instances' batches lock ledger rows in the same order.
  INSERT INTO campaign_spend_daily AS s (campaign_id, day, spend_micros, serves)
  SELECT campaign_id, day, micros, serves FROM spent ORDER BY campaign_id, day
  ON CONFLICT (campaign_id, day) DO UPDATE SET spend_micros = s.spend_micros + EXCLUDED.spend_micros, serves = s.serves + EXCLUDED.serves
)
INSERT INTO campaign_spend_total AS s (campaign_id, spend_micros, serves)
SELECT campaign_id, sum(micros), sum(serves) FROM spent GROUP BY 1 ORDER BY 1
ON CONFLICT (campaign_id) DO UPDATE SET spend_micros = s.spend_micros + EXCLUDED.spend_micros, serves = s.serves + EXCLUDED.serves`;

// A decide that timed out answered TIMEOUT: its record must say so, whatever its pipeline had
// written by then. Both statements below are batched by group commit like every other hot-path
// write: timeouts come in floods exactly when the database is slow, and one transaction each
// would exhaust the pool.
//
// The TIMEOUT row of a decide whose pipeline wrote no row: inserted unless a row with that id
// exists (a write whose outcome was unknown may have committed after all). Returns the ids
// inserted; an id not returned needs CORRECT_TIMED_OUT.
const INSERT_TIMEOUTS = batchInsert('decisions', DECISION_COLUMNS, { onConflict: '(id) DO NOTHING', returning: 'id' });

// Turns rows that were written into TIMEOUT rows, and takes a served row's spend off the ledger,
// in one statement. Every sub-statement reads the rows as they were before it.
const CORRECT_TIMED_OUT = `
WITH target AS (
  SELECT d.id, d.serve, d.campaign_id, d.spend_micros, (d.created_at AT TIME ZONE 'UTC')::date AS day, t.latency_us
  FROM unnest($1::text[], $2::int[]) AS t(id, latency_us) JOIN decisions d ON d.id = t.id
), corrected AS (
  UPDATE decisions d SET serve = false, reason_codes = '{TIMEOUT}', offer_snapshot_id = NULL, campaign_id = NULL,
    expires_at = NULL, spend_micros = 0, latency_us = target.latency_us
  FROM target WHERE d.id = target.id
), unspent AS (
  SELECT campaign_id, day, sum(spend_micros)::bigint AS micros, count(*)::bigint AS serves
  FROM target WHERE serve AND spend_micros > 0 GROUP BY 1, 2
), daily AS (
  UPDATE campaign_spend_daily s SET spend_micros = s.spend_micros - u.micros, serves = s.serves - u.serves
  FROM unspent u WHERE s.campaign_id = u.campaign_id AND s.day = u.day
)
UPDATE campaign_spend_total s SET spend_micros = s.spend_micros - u.micros, serves = s.serves - u.serves
FROM (SELECT campaign_id, sum(micros) AS micros, sum(serves) AS serves FROM unspent GROUP BY 1) u
WHERE s.campaign_id = u.campaign_id`;

export class DecisionRecorder {
  private readonly writer: GroupCommitWriter<DecisionRecord, void>;
  private readonly timeouts: GroupCommitWriter<DecisionRecord, boolean>;
  private readonly corrections: GroupCommitWriter<{ id: string; latencyUs: number }, void>;

  constructor(
    private readonly db: Database,
    onFlush?: (size: number, ms: number, ok: boolean) => void,
  ) {
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
    await this.db.query(INSERT_DECISIONS, DECISION_ROWS.params(rows));
    return rows.map(() => undefined);
  }

  private async insertTimeouts(rows: DecisionRecord[]): Promise<boolean[]> {
    const inserted = new Set((await this.db.query<{ id: string }>(INSERT_TIMEOUTS.sql, INSERT_TIMEOUTS.params(rows))).rows.map((r) => r.id));
    return rows.map((r) => inserted.has(r.id));
  }

  private async correctTimedOut(rows: Array<{ id: string; latencyUs: number }>): Promise<void[]> {
    await this.db.query(CORRECT_TIMED_OUT, [rows.map((r) => r.id), rows.map((r) => r.latencyUs)]);
    return rows.map(() => undefined);
  }
}
