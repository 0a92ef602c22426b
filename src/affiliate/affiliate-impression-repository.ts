// Affiliate impressions and the click intents that present their tokens: the two tables of one
// capability (a click intent exists only through its impression). An impression is found by the
// SHA-256 of its token, never by the token; a click intent is unique per (impression, event id).
// Click intents are partitioned by their impression's creation time (impression_created_at), a
// function of the impression: so that uniqueness still spans days, and every statement names it.
import type { Database } from '../db/database.js';
import { sinceDecision } from '../persistence/decision-time.js';

export interface AffiliateImpressionRow {
  id: string;
  tokenHash: Buffer;
  decisionId: string;
  appId: string;
  networkId: string;
  offerSnapshotId: string;
  expiresAt: Date;
  createdAt: Date;
}

export class AffiliateImpressionRepository {
  constructor(private readonly db: Database) {}

  async insert(i: AffiliateImpressionRow): Promise<void> {
    await this.db.query(
      `INSERT INTO affiliate_impressions (id, token_hash, decision_id, app_id, network_id, offer_snapshot_id, expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [i.id, i.tokenHash, i.decisionId, i.appId, i.networkId, i.offerSnapshotId, i.expiresAt.toISOString(), i.createdAt.toISOString()],
    );
  }

  async findByTokenHash(tokenHash: Buffer): Promise<{ id: string; expiresAt: Date; createdAt: Date } | null> {
    const r = await this.db.query<{ id: string; expires_at: Date; created_at: Date }>(
      'SELECT id, expires_at, created_at FROM affiliate_impressions WHERE token_hash = $1',
      [tokenHash],
    );
    const found = r.rows[0];
    return found ? { id: found.id, expiresAt: found.expires_at, createdAt: found.created_at } : null;
  }

  /** Inserts the click intent unless this (impression, event id) is recorded; true when inserted. */
  async insertClickIntent(c: {
    id: string;
    impressionId: string;
    impressionCreatedAt: Date;
    eventId: string;
    occurredAt: Date | null;
    createdAt: Date;
  }): Promise<boolean> {
    const inserted = await this.db.query<{ id: string }>(
      `INSERT INTO click_intents (id, affiliate_impression_id, event_id, occurred_at, created_at, impression_created_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (affiliate_impression_id, event_id, impression_created_at) DO NOTHING RETURNING id`,
      [c.id, c.impressionId, c.eventId, c.occurredAt ? c.occurredAt.toISOString() : null, c.createdAt.toISOString(), c.impressionCreatedAt.toISOString()],
    );
    return inserted.rows.length === 1;
  }

  /** The id of the click intent recorded for this (impression, event id). */
  async clickIntentId(impressionId: string, impressionCreatedAt: Date, eventId: string): Promise<string> {
    const r = await this.db.query<{ id: string }>(
      'SELECT id FROM click_intents WHERE affiliate_impression_id = $1 AND event_id = $2 AND impression_created_at = $3',
      [impressionId, eventId, impressionCreatedAt.toISOString()],
    );
    return r.rows[0].id;
  }

  /** Click intents on the impressions of a decision (the decision lookup's `click_intents`). */
  async clickIntentsOfDecision(decisionId: string): Promise<number> {
    const r = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM click_intents ci
       JOIN affiliate_impressions ai ON ai.id = ci.affiliate_impression_id AND ai.created_at = ci.impression_created_at
       WHERE ai.decision_id = $1 AND ${sinceDecision('ai.created_at')} AND ${sinceDecision('ci.impression_created_at')}`,
      [decisionId],
    );
    return r.rows[0].n;
  }
}
