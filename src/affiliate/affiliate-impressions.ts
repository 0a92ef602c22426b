// Affiliate impression tokens and the click intents that present them (SPEC 4.3). A token is a
// capability: 256 random bits handed to the host once; only its SHA-256 is stored.
import type { Database } from '../db/database.js';
import { newId, sha256 } from '../util/ids.js';

export interface NewAffiliateImpression {
  tokenHash: Buffer;
  decisionId: string;
  appId: string;
  networkId: string;
  offerSnapshotId: string;
  expiresAt: Date;
  createdAt: Date;
}

export type ClickIntentOutcome =
  | { status: 200; body: { ok: true; inserted: boolean; click_intent_id: string; billable: false } }
  | { status: 404; error: 'unknown_impression' };

export class AffiliateImpressions {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  async create(i: NewAffiliateImpression): Promise<void> {
    await this.db.query(
      `INSERT INTO affiliate_impressions (id, token_hash, decision_id, app_id, network_id, offer_snapshot_id, expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [newId('aim'), i.tokenHash, i.decisionId, i.appId, i.networkId, i.offerSnapshotId, i.expiresAt.toISOString(), i.createdAt.toISOString()],
    );
  }

  /** Analytics only: a click intent never moves a budget or a bill. */
  async recordClickIntent(token: string, eventId: string, occurredAt: Date | null): Promise<ClickIntentOutcome> {
    const found = await this.db.query<{ id: string; expires_at: Date }>(
      'SELECT id, expires_at FROM affiliate_impressions WHERE token_hash = $1',
      [sha256(token)],
    );
    const impression = found.rows[0];
    if (!impression || impression.expires_at.getTime() < this.now()) return { status: 404, error: 'unknown_impression' };
    const id = newId('cli');
    const inserted = await this.db.query<{ id: string }>(
      `INSERT INTO click_intents (id, affiliate_impression_id, event_id, occurred_at, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (affiliate_impression_id, event_id) DO NOTHING RETURNING id`,
      [id, impression.id, eventId, occurredAt ? occurredAt.toISOString() : null, new Date(this.now()).toISOString()],
    );
    if (inserted.rows.length === 1) return { status: 200, body: { ok: true, inserted: true, click_intent_id: id, billable: false } };
    const existing = await this.db.query<{ id: string }>(
      'SELECT id FROM click_intents WHERE affiliate_impression_id = $1 AND event_id = $2',
      [impression.id, eventId],
    );
    return { status: 200, body: { ok: true, inserted: false, click_intent_id: existing.rows[0].id, billable: false } };
  }
}
