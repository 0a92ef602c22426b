// The events table (rendered and qualified impressions) and every read of it: the idempotent
// batch insert behind the event recorder (which also counts the funnel steps counted events
// reach in the report rollups), whether a decision's rendered event is committed, and a
// decision's event counts.
//
// Idempotency is enforced by the primary key of event_idempotency_keys, (app_id,
// idempotency_key), not by a read before the write: concurrent duplicates, from one instance or
// many, insert exactly once; the others learn the original row. The keys live in a table of
// their own, unpartitioned, because the events table is partitioned by day and no constraint on
// it can span days; a key is kept for IDEMPOTENCY_KEY_RETENTION_DAYS
// (src/db/migrations/006_history_partitions.sql says why).
//
// Whether a decision has a rendered event is asked by every qualified impression. Those checks
// are batched with DataLoader (the checks of one event-loop turn become one query) and their
// positive answers remembered, because a rendered event, once committed, stays.
import DataLoader from 'dataloader';
import type { Database } from '../db/database.js';
import { batchInsert, type BatchColumn } from '../persistence/batch-insert.js';
import { decisionsReaching } from '../decisions/decision-repository.js';
import type { ImpressionCounts } from '../decisions/decision-schemas.js';
import { sinceDecision } from '../persistence/decision-time.js';
import { foldFunnelSteps, type FunnelStep } from '../reporting/report-repository.js';
import { deleteInBatches } from '../persistence/batch-delete.js';
import { ImpressionType } from './event-schemas.js';

export type { ImpressionType } from './event-schemas.js';

/** The report funnel step a counted event of each kind reaches, or null for none. A `Record`
 *  over the kinds: a new kind does not compile until it is given its step (the SQL below has no
 *  default step). */
export const FUNNEL_STEP_OF: Record<ImpressionType, FunnelStep | null> = {
  offer_rendered: 'rendered',
  qualified_impression: 'qualified',
};

/** The field of the decision lookup's counts that counts each kind: likewise exhaustive, and a
 *  field the lookup's schema must have. */
const LOOKUP_COUNT_OF: Record<ImpressionType, keyof ImpressionCounts> = {
  offer_rendered: 'offer_rendered',
  qualified_impression: 'qualified_impression',
};

const KINDS = ImpressionType.options;
const STEPPED = KINDS.filter((k) => FUNNEL_STEP_OF[k] !== null);

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

export type ImpressionWriteResult = { inserted: true; eventId: string } | { inserted: false; eventId: string; sameRequest: boolean; type: ImpressionType };

const EVENT_COLUMNS: readonly BatchColumn<ImpressionRow>[] = [
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
];

// The key rows first: an event row is written only for the keys this statement took (the same
// key twice in one batch takes it once).
const EVENT_ROWS = batchInsert<ImpressionRow>('events', EVENT_COLUMNS, {
  where: 'batch.id IN (SELECT event_id FROM keys)',
  returning: 'id, decision_id, type, counted',
});
const KEY_COLUMNS = ['id', 'app_id', 'type', 'idempotency_key', 'request_hash', 'created_at'];
/** The events' parameter array of each key column: the key rows read the same parameters. */
const keyArrays = KEY_COLUMNS.map(EVENT_ROWS.param).join(', ');
// A CTE of its own, so a statement that adds more CTEs (data-modifying ones must be top level)
// writes `WITH ${KEYS_TAKEN}, … AS (${EVENT_ROWS.sql}) …`.
const KEYS_TAKEN = `keys AS (
  INSERT INTO event_idempotency_keys (app_id, idempotency_key, event_id, type, request_hash, created_at)
  SELECT app_id, idempotency_key, id, type, request_hash, created_at
  FROM unnest(${keyArrays}) AS k(${KEY_COLUMNS.join(', ')})
  ON CONFLICT (app_id, idempotency_key) DO NOTHING
  RETURNING event_id
)`;

// The rows, and the funnel steps their counted ones reach, in the report rollups.
const INSERT_EVENTS_COUNTED = `
WITH ${KEYS_TAKEN}, inserted AS (
${EVENT_ROWS.sql}
), reached AS (
  SELECT DISTINCT decision_id, CASE type ${STEPPED.map((k) => `WHEN '${k}' THEN '${FUNNEL_STEP_OF[k]}'`).join(' ')} END AS step
  FROM inserted WHERE counted AND decision_id IS NOT NULL AND type IN (${STEPPED.map((k) => `'${k}'`).join(', ')})
), ${foldFunnelSteps('reached', decisionsReaching('reached'), 'funnel')}
SELECT id FROM inserted`;

const FIND_EXISTING = `
SELECT e.event_id AS id, e.app_id, e.idempotency_key, e.request_hash, e.type
FROM event_idempotency_keys e JOIN unnest($1::text[], $2::text[]) AS k(app_id, idempotency_key)
  ON e.app_id = k.app_id AND e.idempotency_key = k.idempotency_key`;

// One index probe per asked decision, in the days since it was made (a decision's events come
// after it). `LIMIT 1` keeps each a probe of its own: as one join, a day partition that has no
// statistics yet (today's, early on) was read whole, for every check.
const RENDERED = `
SELECT k.app_id, k.decision_id
FROM unnest($1::text[], $2::text[]) AS k(app_id, decision_id)
CROSS JOIN LATERAL (
  SELECT 1 FROM events e
  WHERE e.decision_id = k.decision_id AND e.app_id = k.app_id AND e.type = 'offer_rendered'
    AND ${sinceDecision('e.created_at', 'k.decision_id')}
  LIMIT 1) rendered`;

const COUNTS_OF_DECISION = `
SELECT ${KINDS.map((k) => `(count(*) FILTER (WHERE type = '${k}'))::int AS ${LOOKUP_COUNT_OF[k]}`).join(',\n       ')}
FROM events WHERE decision_id = $1 AND ${sinceDecision('created_at')}`;

/** Statements whose plans a test reads. */
export const EVENT_QUERIES = { rendered: RENDERED };

/** Remembered positive answers; cleared whole when full (they are cheap to refetch). */
const MAX_REMEMBERED = 100_000;

export class EventRepository {
  private readonly rendered = new Set<string>();
  private readonly renderedLoader: DataLoader<string, boolean>;

  constructor(private readonly db: Database) {
    // Batching only: the loader's own per-key memo would keep negative answers and grow without
    // bound; positives are remembered above instead.
    this.renderedLoader = new DataLoader((keys) => this.loadRendered(keys), { cache: false, maxBatchSize: 1000 });
  }

  /** Inserts a batch in one statement; each row learns whether it was inserted or which committed
   *  row holds its (app, idempotency key). */
  async insertImpressions(rows: ImpressionRow[]): Promise<ImpressionWriteResult[]> {
    const inserted = await this.db.query<{ id: string }>(INSERT_EVENTS_COUNTED, EVENT_ROWS.params(rows));
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

  /** Whether the app has an `offer_rendered` event (counted or not) for this decision. */
  async hasRenderedEvent(appId: string, decisionId: string): Promise<boolean> {
    const key = `${appId}\u0000${decisionId}`;
    if (this.rendered.has(key)) return true;
    const rendered = await this.renderedLoader.load(key);
    if (rendered) this.noteRendered(appId, decisionId);
    return rendered;
  }

  /** Remembers that a rendered event for this decision is committed. */
  noteRendered(appId: string, decisionId: string): void {
    if (this.rendered.size >= MAX_REMEMBERED) this.rendered.clear();
    this.rendered.add(`${appId}\u0000${decisionId}`);
  }

  /** Every event that arrived for a decision, counted or not, by type (the decision lookup's counts). */
  async countsOfDecision(decisionId: string): Promise<ImpressionCounts> {
    const r = await this.db.query<ImpressionCounts>(COUNTS_OF_DECISION, [decisionId]);
    return r.rows[0];
  }

  /** Forgets the idempotency keys recorded before `before` (history maintenance): a key used
   *  again after that makes a new event. Deleted a batch at a time, so no statement runs long;
   *  returns how many were forgotten. */
  forgetIdempotencyKeysBefore(before: Date, batch?: number): Promise<number> {
    return deleteInBatches(
      this.db,
      `DELETE FROM event_idempotency_keys WHERE (app_id, idempotency_key) IN (
         SELECT app_id, idempotency_key FROM event_idempotency_keys WHERE created_at < $1 LIMIT $2)`,
      [before.toISOString()],
      batch,
    );
  }

  /** Keys are `app_id \u0000 decision_id`. */
  private async loadRendered(keys: readonly string[]): Promise<boolean[]> {
    const pairs = keys.map((k) => k.split('\u0000'));
    const r = await this.db.query<{ app_id: string; decision_id: string }>(RENDERED, [pairs.map((p) => p[0]), pairs.map((p) => p[1])]);
    const found = new Set(r.rows.map((x) => `${x.app_id}\u0000${x.decision_id}`));
    return keys.map((k) => found.has(k));
  }
}
