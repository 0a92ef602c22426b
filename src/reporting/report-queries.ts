// The SQL behind the operator dashboard: decides, fill rate, no-fill reasons and decide latency
// over time, the funnel decide → rendered → qualified → click → conversion per campaign and per
// app, and the most matched categories and entities. Plain aggregates over the decision and
// event tables, the same SQL on Postgres and PGlite; the (created_at) and (app_id, created_at)
// indexes on decisions bound each scan to the range asked for. No message text exists to
// report on: decisions hold ids, reason codes and counts only.
import type { Queryable } from '../db/database.js';

export const REPORT_RANGES = {
  '1h': { ms: 3_600_000, bucketSeconds: 60 },
  '24h': { ms: 86_400_000, bucketSeconds: 1_800 },
  '7d': { ms: 7 * 86_400_000, bucketSeconds: 6 * 3_600 },
} as const;
export type ReportRange = keyof typeof REPORT_RANGES;

export interface ReportFilter {
  range: ReportRange;
  /** Only this app's traffic; all apps when null. */
  appId: string | null;
  /** Include traffic from test keys (excluded by default: it is not real). */
  includeTest: boolean;
  /** End of the range (now, in production). */
  until: Date;
}

export interface TimelinePoint {
  /** Bucket start, ISO 8601. */
  at: string;
  decides: number;
  fills: number;
  /** Decides per minute over the bucket. */
  decides_per_minute: number;
  /** fills / decides; null for an empty bucket. */
  fill_rate: number | null;
  /** Handler latency percentiles of the bucket's decides, in milliseconds; null when empty. */
  latency_ms: { p50: number; p90: number; p99: number } | null;
  /** No-fill reason codes counted in the bucket. */
  no_fill_reasons: Record<string, number>;
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

export interface Report {
  range: ReportRange;
  from: string;
  until: string;
  bucket_seconds: number;
  app_id: string | null;
  include_test: boolean;
  totals: { decides: number; fills: number; fill_rate: number | null; rendered: number; qualified: number; clicks: number; conversions: number };
  timeline: TimelinePoint[];
  funnel_by_campaign: FunnelRow[];
  funnel_by_app: FunnelRow[];
  top_categories: { id: string; decides: number }[];
  top_entities: { id: string; decides: number }[];
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
       (count(*) FILTER (WHERE EXISTS (SELECT 1 FROM events e WHERE e.decision_id = d.id AND e.type = 'offer_rendered' AND e.counted)))::int AS rendered,
       (count(*) FILTER (WHERE EXISTS (SELECT 1 FROM events e WHERE e.decision_id = d.id AND e.type = 'qualified_impression' AND e.counted)))::int AS qualified,
       (count(*) FILTER (WHERE EXISTS (SELECT 1 FROM clicks c WHERE c.decision_id = d.id AND c.counted)))::int AS clicks,
       (count(*) FILTER (WHERE EXISTS (SELECT 1 FROM conversions v WHERE v.decision_id = d.id AND NOT v.test)))::int AS conversions
FROM decisions d ${groupBy === 'app' ? 'JOIN apps a ON a.id = d.app_id' : ''}
WHERE ${DECISION_FILTER} ${groupBy === 'campaign' ? 'AND d.serve' : ''}
GROUP BY 1
ORDER BY served DESC, decides DESC, id
${groupBy === 'campaign' ? 'LIMIT 50' : ''}`;

const top = (column: 'matched_category_ids' | 'matched_entity_ids') => `
SELECT x.id, count(*)::int AS decides
FROM decisions d, unnest(d.${column}) AS x(id)
WHERE ${DECISION_FILTER}
GROUP BY 1 ORDER BY 2 DESC, 1
LIMIT 10`;

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

export async function buildReport(db: Queryable, filter: ReportFilter): Promise<Report> {
  const { ms, bucketSeconds } = REPORT_RANGES[filter.range];
  const until = filter.until;
  const from = new Date(until.getTime() - ms);
  const params = [from.toISOString(), until.toISOString(), filter.appId, filter.includeTest];
  const [timeline, reasons, byCampaign, byApp, categories, entities] = await Promise.all([
    db.query<{ bucket: number; decides: number; fills: number; p50: number | null; p90: number | null; p99: number | null }>(TIMELINE, [...params, bucketSeconds]),
    db.query<{ bucket: number; reason: string; n: number }>(NO_FILL_REASONS, [...params, bucketSeconds]),
    db.query<FunnelRow>(funnel('campaign'), params),
    db.query<FunnelRow>(funnel('app'), params),
    db.query<{ id: string; decides: number }>(top('matched_category_ids'), params),
    db.query<{ id: string; decides: number }>(top('matched_entity_ids'), params),
  ]);

  // Every bucket of the range, empty ones included, so charts show gaps as zero.
  const firstBucket = Math.floor(from.getTime() / 1000 / bucketSeconds) * bucketSeconds;
  const points = new Map<number, TimelinePoint>();
  for (let b = firstBucket; b * 1000 < until.getTime(); b += bucketSeconds) {
    points.set(b, { at: new Date(b * 1000).toISOString(), decides: 0, fills: 0, decides_per_minute: 0, fill_rate: null, latency_ms: null, no_fill_reasons: {} });
  }
  for (const r of timeline.rows) {
    const p = points.get(Number(r.bucket));
    if (!p) continue;
    p.decides = r.decides;
    p.fills = r.fills;
    p.decides_per_minute = round(r.decides / (bucketSeconds / 60));
    p.fill_rate = r.decides > 0 ? round(r.fills / r.decides) : null;
    p.latency_ms = r.p50 === null ? null : { p50: round(Number(r.p50) / 1000), p90: round(Number(r.p90) / 1000), p99: round(Number(r.p99) / 1000) };
  }
  for (const r of reasons.rows) {
    const p = points.get(Number(r.bucket));
    if (p) p.no_fill_reasons[r.reason] = r.n;
  }
  const sum = (rows: FunnelRow[], k: keyof FunnelRow) => rows.reduce((n, r) => n + Number(r[k]), 0);
  const decides = sum(byApp.rows, 'decides');
  const fills = sum(byApp.rows, 'served');
  return {
    range: filter.range,
    from: from.toISOString(),
    until: until.toISOString(),
    bucket_seconds: bucketSeconds,
    app_id: filter.appId,
    include_test: filter.includeTest,
    totals: {
      decides,
      fills,
      fill_rate: decides > 0 ? round(fills / decides) : null,
      rendered: sum(byApp.rows, 'rendered'),
      qualified: sum(byApp.rows, 'qualified'),
      clicks: sum(byApp.rows, 'clicks'),
      conversions: sum(byApp.rows, 'conversions'),
    },
    timeline: [...points.values()],
    funnel_by_campaign: byCampaign.rows,
    funnel_by_app: byApp.rows,
    top_categories: categories.rows,
    top_entities: entities.rows,
  };
}
