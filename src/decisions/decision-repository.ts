// Reads of decision records: the ownership checks events need, and the lookup hosts call.
//
// Every event and conversion checks the decision it names. Those checks are batched with
// DataLoader (the lookups of one event-loop turn become one `= ANY($1)` query) and their
// positive answers are remembered, because a decision row never changes once written and a
// rendered event, once committed, stays. On loopback a query's socket write costs the sender
// tens of microseconds, so one query per request was most of an event's CPU.
import DataLoader from 'dataloader';
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

/** Remembered positive answers per repository; cleared whole when full (they are cheap to refetch). */
const MAX_REMEMBERED = 100_000;

export class DecisionRepository {
  private readonly owners = new Map<string, DecisionOwnership>();
  private readonly rendered = new Set<string>();
  private readonly ownershipLoader: DataLoader<string, DecisionOwnership | null>;
  private readonly renderedLoader: DataLoader<string, boolean>;

  constructor(private readonly db: Database) {
    // Batching only: the loaders' own per-key memo would keep negative answers and grow without
    // bound; positives are remembered below instead.
    this.ownershipLoader = new DataLoader((ids) => this.loadOwnership(ids), { cache: false, maxBatchSize: 1000 });
    this.renderedLoader = new DataLoader((keys) => this.loadRendered(keys), { cache: false, maxBatchSize: 1000 });
  }

  private async loadOwnership(ids: readonly string[]): Promise<(DecisionOwnership | null)[]> {
    const r = await this.db.query<{ id: string; app_id: string; offer_snapshot_id: string | null; created_at: Date; test: boolean }>(
      'SELECT id, app_id, offer_snapshot_id, created_at, test FROM decisions WHERE id = ANY($1::text[])',
      [ids],
    );
    const found = new Map(r.rows.map((d) => [d.id, { appId: d.app_id, offerSnapshotId: d.offer_snapshot_id, createdAt: d.created_at, test: d.test }]));
    return ids.map((id) => found.get(id) ?? null);
  }

  /** Keys are `app_id \u0000 decision_id`. */
  private async loadRendered(keys: readonly string[]): Promise<boolean[]> {
    const pairs = keys.map((k) => k.split('\u0000'));
    const r = await this.db.query<{ app_id: string; decision_id: string }>(
      `SELECT DISTINCT e.app_id, e.decision_id
       FROM events e JOIN unnest($1::text[], $2::text[]) AS k(app_id, decision_id)
         ON e.app_id = k.app_id AND e.decision_id = k.decision_id
       WHERE e.type = 'offer_rendered'`,
      [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
    );
    const found = new Set(r.rows.map((x) => `${x.app_id}\u0000${x.decision_id}`));
    return keys.map((k) => found.has(k));
  }

  /** Remembers that a rendered event for this decision is committed. */
  noteRendered(appId: string, decisionId: string): void {
    if (this.rendered.size >= MAX_REMEMBERED) this.rendered.clear();
    this.rendered.add(`${appId}\u0000${decisionId}`);
  }

  async ownership(decisionId: string): Promise<DecisionOwnership | null> {
    const known = this.owners.get(decisionId);
    if (known) return known;
    const d = await this.ownershipLoader.load(decisionId);
    if (d) {
      if (this.owners.size >= MAX_REMEMBERED) this.owners.clear();
      this.owners.set(decisionId, d);
    }
    return d;
  }

  /** The calling app's decision with its event counts; another app's decision is simply absent. */
  async lookup(appId: string, decisionId: string): Promise<DecisionMetadata | null> {
    const found = await this.lookupWithEvidence(appId, decisionId);
    if (!found) return null;
    const { implied_category_ids: _implied, ...metadata } = found;
    return metadata;
  }

  /** As `lookup`, plus the categories a served offer met only as implied by a named entity:
   *  the explanation names them, the decision lookup (SPEC 4.9) does not carry them. */
  // Every count is what arrived for the decision, counted or not (a test key's events, a bot's
  // click, a qualified impression before any render): the integrator checking its integration
  // sees each call it made. What counts for reports and billing is the reports' business.
  async lookupWithEvidence(appId: string, decisionId: string): Promise<(DecisionMetadata & { implied_category_ids: string[] }) | null> {
    const r = await this.db.query<Record<string, unknown> & { created_at: Date; expires_at: Date | null }>(
      `SELECT d.*,
         (SELECT count(*)::int FROM events e WHERE e.decision_id = d.id AND e.type = 'offer_rendered') AS rendered,
         (SELECT count(*)::int FROM events e WHERE e.decision_id = d.id AND e.type = 'qualified_impression') AS qualified,
         (SELECT count(*)::int FROM clicks c WHERE c.decision_id = d.id) AS clicks,
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
      implied_category_ids: (d.implied_category_ids as string[] | null) ?? [],
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

  async hasRenderedEvent(appId: string, decisionId: string): Promise<boolean> {
    const key = `${appId}\u0000${decisionId}`;
    if (this.rendered.has(key)) return true;
    const rendered = await this.renderedLoader.load(key);
    if (rendered) this.noteRendered(appId, decisionId);
    return rendered;
  }
}
