// The conversions table and its nonces: the single-use insert (the primary key of
// conversion_nonces, (app_id, nonce), is what makes a nonce single use, across instances), the
// conversion a reused nonce names, and a decision's conversion count; the insert also counts the
// decision a live conversion reaches in the report rollups. Nonces have a table of their own because conversions are partitioned by day and no
// constraint on them can span days; a nonce is kept for CONVERSION_NONCE_RETENTION_DAYS
// (src/db/migrations/006_history_partitions.sql says why that is enough).
import type { Database } from '../db/database.js';
import { decisionsReaching } from '../decisions/decision-repository.js';
import { sinceDecision } from '../persistence/decision-time.js';
import { foldFunnelSteps } from '../reporting/report-repository.js';
import { deleteInBatches } from '../persistence/batch-delete.js';

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
}

const INSERT_IF_NONCE_UNUSED = `
WITH nonce AS (
  INSERT INTO conversion_nonces (app_id, nonce, conversion_id, request_hash, created_at) VALUES ($2, $5, $1, $7, $9)
  ON CONFLICT (app_id, nonce) DO NOTHING RETURNING conversion_id
), inserted AS (
  INSERT INTO conversions (id, app_id, offer_snapshot_id, decision_id, nonce, signed_at, request_hash, test, created_at)
  SELECT $1, $2, $3, $4, $5, to_timestamp($6), $7, $8, $9 WHERE EXISTS (SELECT 1 FROM nonce)
  RETURNING id, decision_id, test
), reached AS (
  SELECT DISTINCT decision_id, 'conversion' AS step FROM inserted WHERE decision_id IS NOT NULL AND NOT test
), ${foldFunnelSteps('reached', decisionsReaching('reached'), 'funnel')}
SELECT id FROM inserted`;

export class ConversionRepository {
  constructor(private readonly db: Database) {}

  /** Inserts the conversion unless its app already used the nonce; true when inserted. */
  async insertIfNonceUnused(c: NewConversion): Promise<boolean> {
    const inserted = await this.db.query<{ id: string }>(INSERT_IF_NONCE_UNUSED, [
      c.id,
      c.appId,
      c.offerSnapshotId,
      c.decisionId,
      c.nonce,
      c.signedAt,
      c.requestHash,
      c.test,
      c.createdAt.toISOString(),
    ]);
    return inserted.rows.length === 1;
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

  /** Conversions of a decision, test ones included (the decision lookup's `conversions`). */
  async countOfDecision(decisionId: string): Promise<number> {
    const r = await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM conversions WHERE decision_id = $1 AND ${sinceDecision('created_at')}`, [
      decisionId,
    ]);
    return r.rows[0].n;
  }
}
