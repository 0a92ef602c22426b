// Reads of decision records: the ownership checks events need, and the lookup hosts call.
import type { Database } from '../db/database.js';

export interface DecisionOwnership {
  appId: string;
  offerSnapshotId: string | null;
  createdAt: Date;
  test: boolean;
}

export interface DecisionMetadata {
  decision_id: string;
  request_id: string;
  kind: 'offer' | 'affiliate';
  test: boolean;
  created_at: string;
  serve: boolean;
  reason_codes: string[];
  offer_snapshot_id: string | null;
  campaign_id: string | null;
  expires_at: string | null;
  locale: string | null;
  country: string | null;
  intent_type: string | null;
  matched_category_ids: string[];
  matched_entity_ids: string[];
  dropped_digest_ids: number;
  latency_ms: number;
  events: {
    offer_rendered: number;
    qualified_impression: number;
    clicks: number;
    conversions: number;
    click_intents: number;
  };
}

export class DecisionRepository {
  constructor(private readonly db: Database) {}

  async ownership(decisionId: string): Promise<DecisionOwnership | null> {
    const r = await this.db.query<{ app_id: string; offer_snapshot_id: string | null; created_at: Date; test: boolean }>(
      'SELECT app_id, offer_snapshot_id, created_at, test FROM decisions WHERE id = $1',
      [decisionId],
    );
    const d = r.rows[0];
    return d ? { appId: d.app_id, offerSnapshotId: d.offer_snapshot_id, createdAt: d.created_at, test: d.test } : null;
  }

  /** The calling app's decision with its event counts; another app's decision is simply absent. */
  async lookup(appId: string, decisionId: string): Promise<DecisionMetadata | null> {
    const r = await this.db.query<Record<string, unknown> & { created_at: Date; expires_at: Date | null }>(
      `SELECT d.*,
         (SELECT count(*)::int FROM events e WHERE e.decision_id = d.id AND e.type = 'offer_rendered' AND e.counted) AS rendered,
         (SELECT count(*)::int FROM events e WHERE e.decision_id = d.id AND e.type = 'qualified_impression' AND e.counted) AS qualified,
         (SELECT count(*)::int FROM clicks c WHERE c.decision_id = d.id AND c.counted) AS clicks,
         (SELECT count(*)::int FROM conversions v WHERE v.decision_id = d.id) AS conversions,
         (SELECT count(*)::int FROM click_intents ci JOIN affiliate_impressions ai ON ai.id = ci.affiliate_impression_id
            WHERE ai.decision_id = d.id) AS click_intents
       FROM decisions d WHERE d.id = $1 AND d.app_id = $2`,
      [decisionId, appId],
    );
    const d = r.rows[0];
    if (!d) return null;
    return {
      decision_id: d.id as string,
      request_id: d.request_id as string,
      kind: d.kind as 'offer' | 'affiliate',
      test: d.test as boolean,
      created_at: d.created_at.toISOString(),
      serve: d.serve as boolean,
      reason_codes: d.reason_codes as string[],
      offer_snapshot_id: (d.offer_snapshot_id as string | null) ?? null,
      campaign_id: (d.campaign_id as string | null) ?? null,
      expires_at: d.expires_at ? d.expires_at.toISOString() : null,
      locale: (d.locale as string | null) ?? null,
      country: (d.country as string | null) ?? null,
      intent_type: (d.intent_type as string | null) ?? null,
      matched_category_ids: d.matched_category_ids as string[],
      matched_entity_ids: d.matched_entity_ids as string[],
      dropped_digest_ids: d.dropped_digest_ids as number,
      latency_ms: Math.round((d.latency_us as number) / 10) / 100,
      events: {
        offer_rendered: d.rendered as number,
        qualified_impression: d.qualified as number,
        clicks: d.clicks as number,
        conversions: d.conversions as number,
        click_intents: d.click_intents as number,
      },
    };
  }

  /** The advertiser shown with a snapshot, as frozen in it. */
  async advertiserName(snapshotId: string): Promise<string | null> {
    const r = await this.db.query<{ name: string }>("SELECT content->>'advertiser_name' AS name FROM offer_snapshots WHERE id = $1", [snapshotId]);
    return r.rows[0]?.name ?? null;
  }

  async hasRenderedEvent(appId: string, decisionId: string): Promise<boolean> {
    const r = await this.db.query(
      "SELECT 1 FROM events WHERE decision_id = $1 AND app_id = $2 AND type = 'offer_rendered' LIMIT 1",
      [decisionId, appId],
    );
    return r.rows.length > 0;
  }
}
