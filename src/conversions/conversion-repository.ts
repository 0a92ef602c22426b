// The conversions table, its nonces and its order ids: the single-use insert (the primary key of
// conversion_nonces, (app_id, nonce), is what makes a nonce single use, across instances; that
// of conversion_orders, (app_id, order_id), what makes an advertiser's order count once), the
// conversion a reused nonce names, and a decision's conversion count; the insert also counts the
// decision a live conversion reaches in the report rollups. Nonces have a table of their own because conversions are partitioned by day and no
// constraint on them can span days; a nonce is kept for CONVERSION_NONCE_RETENTION_DAYS
// (src/db/migrations/006_history_partitions.sql says why that is enough).
import type { Database } from '../db/database.js';
import { decisionsReaching } from '../decisions/decision-repository.js';
import { sinceDecision } from '../persistence/decision-time.js';
import { foldConversions, foldFunnelSteps } from '../reporting/report-repository.js';
import { deleteInBatches } from '../persistence/batch-delete.js';
import { batchInsert, type BatchColumn } from '../persistence/batch-insert.js';

export interface NewConversion {
  id: string;
  appId: string;
  offerSnapshotId: string;
  decisionId: string | null;
  nonce: string;
  /** The request's `timestamp`, Unix seconds. */
  signedAt: number;
  requestHash: Buffer;
  test: boolean;
  createdAt: Date;
  /** When it happened (the request's `event_time`), or null: when it was received. */
  occurredAt: Date | null;
  /** The advertiser's own id for it: a second conversion with it is a duplicate. */
  orderId: string | null;
}

/** What recording a conversion did. */
export type Recorded =
  | { kind: 'inserted' }
  /** The app used the nonce before (an exact retry, or a reuse the caller tells apart). */
  | { kind: 'nonce_used' }
  /** The app recorded a conversion with this order id before: that conversion. */
  | { kind: 'duplicate_order'; conversionId: string };

const PARAMS = '$1, $2, $3, $4, $5, to_timestamp($6), $7, $8, $9, $10::timestamptz, $11::text';
/** Spends the nonce, unless the app spent it before: the row only when it was inserted. Its
 *  values are placeholders, so one statement serves the record's parameters and the short list
 *  of a claim on its own. */
const claimNonce = (app: string, nonce: string, conversion: string, hash: string, at: string) =>
  `INSERT INTO conversion_nonces (app_id, nonce, conversion_id, request_hash, created_at) VALUES (${app}, ${nonce}, ${conversion}, ${hash}, ${at})
  ON CONFLICT (app_id, nonce) DO NOTHING RETURNING conversion_id`;

const INSERTED_COLUMNS = 'id, app_id, decision_id, test, occurred_at, created_at';

/** The conversion row, when `guard` holds, the decision's funnel step it reaches, and the
 *  conversion counted on its own time. The decision is looked up once, for both rollups. */
const conversionRow = (guard: string) =>
  counted(`INSERT INTO conversions (id, app_id, offer_snapshot_id, decision_id, nonce, signed_at, request_hash, test, created_at, occurred_at, order_id)
  SELECT ${PARAMS} WHERE ${guard}
  RETURNING ${INSERTED_COLUMNS}`);

/** `insert` (a statement returning INSERTED_COLUMNS) as the CTE `inserted`, then the funnel step
 *  and the conversion counts of what it inserted, in the report rollups: grouped by key, so a
 *  batch takes each rollup row's lock once. */
const counted = (insert: string) => `inserted AS (
  ${insert}
), decided AS (
  ${decisionsReaching('inserted')}
), reached AS (
  SELECT DISTINCT decision_id, 'conversion' AS step FROM inserted WHERE decision_id IS NOT NULL AND NOT test
), ${foldFunnelSteps('reached', 'SELECT * FROM decided', 'funnel')},
${foldConversions('inserted', 'SELECT * FROM decided', 'occurred')}
SELECT id FROM inserted`;

const INSERT_CLAIMED = `WITH ${conversionRow('true')}`;
const CLAIM_NONCE = claimNonce('$1', '$2', '$3', '$4', '$5');

// Conversions without an order id, many in one statement (the group-commit writer's batch): each
// spends its nonce unless its app spent it before (also earlier in the same batch: the first one
// wins), and only those rows are inserted and counted.
const CONVERSION_COLUMNS: readonly BatchColumn<NewConversion>[] = [
  { name: 'id', type: 'text', value: (c) => c.id },
  { name: 'app_id', type: 'text', value: (c) => c.appId },
  { name: 'offer_snapshot_id', type: 'text', value: (c) => c.offerSnapshotId },
  { name: 'decision_id', type: 'text', value: (c) => c.decisionId },
  { name: 'nonce', type: 'text', value: (c) => c.nonce },
  { name: 'signed_at', type: 'timestamptz', value: (c) => new Date(c.signedAt * 1000) },
  { name: 'request_hash', type: 'bytea', value: (c) => c.requestHash },
  { name: 'test', type: 'boolean', value: (c) => c.test },
  { name: 'created_at', type: 'timestamptz', value: (c) => c.createdAt },
  { name: 'occurred_at', type: 'timestamptz', value: (c) => c.occurredAt },
  { name: 'order_id', type: 'text', value: (c) => c.orderId },
];
const CONVERSION_ROWS = batchInsert<NewConversion>('conversions', CONVERSION_COLUMNS, {
  where: 'batch.id IN (SELECT conversion_id FROM nonces)',
  returning: INSERTED_COLUMNS,
});
// The nonce rows read the conversions' parameters.
const INSERT_BATCH_IF_NONCES_UNUSED = `
WITH nonces AS (
  INSERT INTO conversion_nonces (app_id, nonce, conversion_id, request_hash, created_at)
  SELECT app_id, nonce, id, request_hash, created_at
  FROM unnest(${['app_id', 'nonce', 'id', 'request_hash', 'created_at'].map(CONVERSION_ROWS.param).join(', ')}) AS k(app_id, nonce, id, request_hash, created_at)
  ON CONFLICT (app_id, nonce) DO NOTHING
  RETURNING conversion_id
), ${counted(CONVERSION_ROWS.sql)}`;

export class ConversionRepository {
  constructor(private readonly db: Database) {}

  /** Records the conversion unless its app used the nonce, or (with an order id) recorded that
   *  order, before. A duplicate order still spends the nonce, on the order's conversion, so an
   *  exact retry of the request is answered the same way. */
  async record(c: NewConversion): Promise<Recorded> {
    const params = [
      c.id,
      c.appId,
      c.offerSnapshotId,
      c.decisionId,
      c.nonce,
      c.signedAt,
      c.requestHash,
      c.test,
      c.createdAt.toISOString(),
      c.occurredAt?.toISOString() ?? null,
      c.orderId,
    ];
    if (c.orderId === null) return (await this.recordWithoutOrder([c]))[0];
    return this.db.transaction(async (tx) => {
      const nonce = await tx.query(CLAIM_NONCE, [c.appId, c.nonce, c.id, c.requestHash, c.createdAt.toISOString()]);
      if (nonce.rows.length === 0) return { kind: 'nonce_used' } as const;
      const claimed = await tx.query(
        `INSERT INTO conversion_orders (app_id, order_id, conversion_id, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (app_id, order_id) DO NOTHING RETURNING conversion_id`,
        [c.appId, c.orderId, c.id, c.createdAt.toISOString()],
      );
      if (claimed.rows.length === 0) {
        const first = await tx.query<{ conversion_id: string }>('SELECT conversion_id FROM conversion_orders WHERE app_id = $1 AND order_id = $2', [
          c.appId,
          c.orderId,
        ]);
        const conversionId = first.rows[0].conversion_id;
        await tx.query('UPDATE conversion_nonces SET conversion_id = $3 WHERE app_id = $1 AND nonce = $2', [c.appId, c.nonce, conversionId]);
        return { kind: 'duplicate_order', conversionId } as const;
      }
      await tx.query(INSERT_CLAIMED, params);
      return { kind: 'inserted' } as const;
    });
  }

  /** Records conversions without an order id in one statement: each is inserted unless its app
   *  used its nonce before (or an earlier row of the batch did). */
  async recordWithoutOrder(rows: readonly NewConversion[]): Promise<Recorded[]> {
    if (rows.some((c) => c.orderId !== null)) throw new Error('recordWithoutOrder: a conversion with an order id');
    const inserted = await this.db.query<{ id: string }>(INSERT_BATCH_IF_NONCES_UNUSED, CONVERSION_ROWS.params(rows));
    const ids = new Set(inserted.rows.map((r) => r.id));
    return rows.map((c) => (ids.has(c.id) ? { kind: 'inserted' } : { kind: 'nonce_used' }));
  }

  /** The conversion that used this nonce, with the hash of the request that made it. */
  async findByNonce(appId: string, nonce: string): Promise<{ id: string; requestHash: Buffer } | null> {
    const r = await this.db.query<{ id: string; request_hash: Uint8Array }>(
      'SELECT conversion_id AS id, request_hash FROM conversion_nonces WHERE app_id = $1 AND nonce = $2',
      [appId, nonce],
    );
    const e = r.rows[0];
    return e ? { id: e.id, requestHash: Buffer.from(e.request_hash) } : null;
  }

  /** Forgets the nonces recorded before `before` (history maintenance); returns how many. */
  forgetNoncesBefore(before: Date, batch?: number): Promise<number> {
    return deleteInBatches(
      this.db,
      `DELETE FROM conversion_nonces WHERE (app_id, nonce) IN (
         SELECT app_id, nonce FROM conversion_nonces WHERE created_at < $1 LIMIT $2)`,
      [before.toISOString()],
      batch,
    );
  }

  /** Forgets the order ids recorded before `before` (history maintenance); returns how many. */
  forgetOrdersBefore(before: Date, batch?: number): Promise<number> {
    return deleteInBatches(
      this.db,
      `DELETE FROM conversion_orders WHERE (app_id, order_id) IN (
         SELECT app_id, order_id FROM conversion_orders WHERE created_at < $1 LIMIT $2)`,
      [before.toISOString()],
      batch,
    );
  }

  /** Conversions of a decision, test ones included (the decision lookup's `conversions`). */
  async countOfDecision(decisionId: string): Promise<number> {
    const r = await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM conversions WHERE decision_id = $1 AND ${sinceDecision('created_at')}`, [
      decisionId,
    ]);
    return r.rows[0].n;
  }
}
