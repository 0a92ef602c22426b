// The SQL behind the report (report.ts): plain aggregates over the decision records, the same
// SQL on Postgres and PGlite; the (created_at) and (app_id, created_at) indexes on decisions
// bound each scan to the range asked for.
//
// A read model: its statements scan decisions (and join apps for names), tables owned by other
// repositories, because each figure is one aggregate over the range's decisions, computed where
// the rows are. What the funnel counts from events, clicks and conversions are predicates those
// tables' repositories export, so each of those tables is still named by its owner's SQL alone.
import type { Queryable } from '../db/database.js';
import { decisionHasCountedEvent } from '../events/event-repository.js';
import { DECISION_HAS_COUNTED_CLICK } from '../links/click-repository.js';
import { DECISION_HAS_REAL_CONVERSION } from '../conversions/conversion-repository.js';

export interface ReportWindow {
  from: Date;
  until: Date;
  /** Only this app's traffic; all apps when null. */
  appId: string | null;
  /** Include traffic from test keys. */
  includeTest: boolean;
  bucketSeconds: number;
}

export interface FunnelRow {
  id: string;
  name: string;
  decides: number;
  served: number;
  rendered: number;
  qualified: number;
  clicks: number;
  conversions: number;
}

/** A campaign's served decisions in the range, and what followed them (counted events only). */
export interface CampaignRangeRow {
  id: string;
  spend_micros: number;
  served: number;
  rendered: number;
  qualified: number;
  clicks: number;
}

export interface ReportFigures {
  timeline: { bucket: number; decides: number; fills: number; p50: number | null; p90: number | null; p99: number | null }[];
  reasons: { bucket: number; reason: string; n: number }[];
  byCampaign: FunnelRow[];
  byApp: FunnelRow[];
  campaignRange: CampaignRangeRow[];
  categories: { id: string; decides: number }[];
  entities: { id: string; decides: number }[];
}

// $1 from, $2 until, $3 app id or null, $4 include test traffic.
const DECISION_FILTER = `d.created_at >= $1 AND d.created_at < $2 AND ($3::text IS NULL OR d.app_id = $3) AND ($4::boolean OR NOT d.test)`;

const TIMELINE = `
SELECT floor(extract(epoch FROM d.created_at) / $5)::bigint * $5 AS bucket,
       count(*)::int AS decides,
       (count(*) FILTER (WHERE d.serve))::int AS fills,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY d.latency_us) AS p50,
       percentile_cont(0.9) WITHIN GROUP (ORDER BY d.latency_us) AS p90,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY d.latency_us) AS p99
FROM decisions d
WHERE ${DECISION_FILTER}
GROUP BY 1 ORDER BY 1`;

const NO_FILL_REASONS = `
SELECT floor(extract(epoch FROM d.created_at) / $5)::bigint * $5 AS bucket, r.reason, count(*)::int AS n
FROM decisions d, unnest(d.reason_codes) AS r(reason)
WHERE ${DECISION_FILTER} AND NOT d.serve
GROUP BY 1, 2`;

// Each later step counts decisions that reached it (counted events only), so the funnel reads
// as conversion between steps, not as raw event volume.
const funnel = (groupBy: 'campaign' | 'app') => `
SELECT ${groupBy === 'campaign' ? 'd.campaign_id' : 'd.app_id'} AS id,
       ${groupBy === 'campaign' ? 'd.campaign_id' : 'max(a.name)'} AS name,
       count(*)::int AS decides,
       (count(*) FILTER (WHERE d.serve))::int AS served,
       (count(*) FILTER (WHERE ${decisionHasCountedEvent('offer_rendered')}))::int AS rendered,
       (count(*) FILTER (WHERE ${decisionHasCountedEvent('qualified_impression')}))::int AS qualified,
       (count(*) FILTER (WHERE ${DECISION_HAS_COUNTED_CLICK}))::int AS clicks,
       (count(*) FILTER (WHERE ${DECISION_HAS_REAL_CONVERSION}))::int AS conversions
FROM decisions d ${groupBy === 'app' ? 'JOIN apps a ON a.id = d.app_id' : ''}
WHERE ${DECISION_FILTER} ${groupBy === 'campaign' ? 'AND d.serve' : ''}
GROUP BY 1
ORDER BY served DESC, decides DESC, id
${groupBy === 'campaign' ? 'LIMIT 50' : ''}`;

// Every campaign that served in the range (no limit: the spend table lists them all).
const CAMPAIGN_RANGE = `
SELECT d.campaign_id AS id,
       sum(d.spend_micros)::bigint AS spend_micros,
       count(*)::int AS served,
       (count(*) FILTER (WHERE ${decisionHasCountedEvent('offer_rendered')}))::int AS rendered,
       (count(*) FILTER (WHERE ${decisionHasCountedEvent('qualified_impression')}))::int AS qualified,
       (count(*) FILTER (WHERE ${DECISION_HAS_COUNTED_CLICK}))::int AS clicks
FROM decisions d
WHERE ${DECISION_FILTER} AND d.serve
GROUP BY 1`;

const top = (column: 'matched_category_ids' | 'matched_entity_ids') => `
SELECT x.id, count(*)::int AS decides
FROM decisions d, unnest(d.${column}) AS x(id)
WHERE ${DECISION_FILTER}
GROUP BY 1 ORDER BY 2 DESC, 1
LIMIT 10`;

const FUNNEL_BY_CAMPAIGN = funnel('campaign');
const FUNNEL_BY_APP = funnel('app');
const TOP_CATEGORIES = top('matched_category_ids');
const TOP_ENTITIES = top('matched_entity_ids');

export class ReportRepository {
  constructor(private readonly db: Queryable) {}

  /** Every figure of the window, each from one statement, run together. */
  async figures(w: ReportWindow): Promise<ReportFigures> {
    const params = [w.from.toISOString(), w.until.toISOString(), w.appId, w.includeTest];
    const [timeline, reasons, byCampaign, byApp, campaignRange, categories, entities] = await Promise.all([
      this.db.query<ReportFigures['timeline'][number]>(TIMELINE, [...params, w.bucketSeconds]),
      this.db.query<ReportFigures['reasons'][number]>(NO_FILL_REASONS, [...params, w.bucketSeconds]),
      this.db.query<FunnelRow>(FUNNEL_BY_CAMPAIGN, params),
      this.db.query<FunnelRow>(FUNNEL_BY_APP, params),
      this.db.query<CampaignRangeRow>(CAMPAIGN_RANGE, params),
      this.db.query<{ id: string; decides: number }>(TOP_CATEGORIES, params),
      this.db.query<{ id: string; decides: number }>(TOP_ENTITIES, params),
    ]);
    return {
      timeline: timeline.rows,
      reasons: reasons.rows,
      byCampaign: byCampaign.rows,
      byApp: byApp.rows,
      campaignRange: campaignRange.rows.map((r) => ({ ...r, spend_micros: Number(r.spend_micros) })),
      categories: categories.rows,
      entities: entities.rows,
    };
  }
}
