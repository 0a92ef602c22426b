// The report's figures (report.ts) and the rollups they are read from. A report never reads the
// raw history: it sums rollup rows, so its cost follows the range's length, not how many
// decisions the range holds (bench/RESULTS.md, "Reports").
//
// The rollups (migration 005) are kept in the very statements that write decisions, events,
// clicks and conversions, as the spend ledger is kept with the decision rows: a rollup can never
// disagree with the rows it counts, and there is no job to fall behind or watermark to lose.
// This file owns those tables and writes their SQL, as CTE fragments the writers embed
// (foldDecisions, foldFunnelSteps, foldConversions), so each rollup's shape and arithmetic are read in one place.
//
// Two grains: a minute (grain 60) and a half hour (grain 1800). A range is whole minutes; it reads
// half-hour rows for the half hours it covers whole and minute rows for the ragged ends (and for
// the last hour, whose buckets are minutes). A 7-day report sums about 340 half hours and at most
// 59 minutes at each end, per app and campaign.
import { planEachCall, type Queryable } from '../db/database.js';
import { deleteInBatches } from '../persistence/batch-delete.js';

export interface ReportWindow {
  /** Start of the range; a whole minute. */
  from: Date;
  /** End of the range (exclusive); a whole minute. */
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
  /** Per bucket: decides, fills and the funnel steps the bucket's decisions reached. */
  timeline: { bucket: number; decides: number; fills: number; rendered: number; qualified: number; clicks: number; conversions: number }[];
  /** Latency histogram per timeline bucket: `latency_bucket` as in latency-histogram.ts. */
  latency: { bucket: number; latency_bucket: number; n: number }[];
  reasons: { bucket: number; reason: string; n: number }[];
  /** Per bucket: conversions that happened in it (their event_time, else when received). */
  conversionsOccurred: { bucket: number; n: number }[];
  byCampaign: FunnelRow[];
  byApp: FunnelRow[];
  campaignRange: CampaignRangeRow[];
  categories: { id: string; decides: number }[];
  entities: { id: string; decides: number }[];
}

export const MINUTE_GRAIN_S = 60;
export const HALF_HOUR_GRAIN_S = 1800;

// ---- Writing: CTE fragments the writers embed in the statements that write the rows. ----------

const GRAINS = `(VALUES (${MINUTE_GRAIN_S}), (${HALF_HOUR_GRAIN_S})) AS g(grain)`;
/** Start of the grain's minute or half hour holding `time`. */
const at = (time: string) => `date_bin(g.grain * interval '1 second', ${time}, timestamptz '1970-01-01 00:00:00+00')`;
/** The latency histogram's bucket of a latency in microseconds: floor(8 · log2 µs), in float8
 *  (a numeric logarithm cost ~20 µs a row). Migration 005 uses the same expression. */
const latencyBucket = (latencyUs: string) => `floor(8 * ln(greatest(${latencyUs}, 1)::float8) / ln(2::float8))::smallint`;
/** The rollup's campaign key: served decisions' campaign, '' for the rest. */
export const campaignKey = (serve: string, campaignId: string) => `CASE WHEN ${serve} THEN coalesce(${campaignId}, '') ELSE '' END`;

const TOTALS_COLUMNS = 'grain, at, app_id, test, campaign_id, decides, served, spend_micros, rendered, qualified, clicks, conversions';
const KEY = '1, 2, 3, 4, 5';
const ADD_TOTALS = ['decides', 'served', 'spend_micros', 'rendered', 'qualified', 'clicks', 'conversions']
  .map((c) => `${c} = r.${c} + EXCLUDED.${c}`)
  .join(', ');

/**
 * CTEs (to follow `WITH …,`) that add decision rows to every rollup. `source` names a CTE with
 * the decisions' created_at, app_id, test, serve, campaign_id, spend_micros, reason_codes,
 * latency_us, matched_category_ids and matched_entity_ids, and `sign`: 1 adds a row, -1 takes
 * it off (a TIMEOUT correction takes the row as written off and adds it as corrected). Rows are
 * grouped to one upsert row per key, in key order, so concurrent writers lock rollup rows in
 * the same order. `prefix` names the CTEs.
 */
export function foldDecisions(source: string, prefix: string): string {
  return `${prefix}_totals AS (
  INSERT INTO report_rollups AS r (${TOTALS_COLUMNS})
  SELECT g.grain, ${at('s.created_at')}, s.app_id, s.test, ${campaignKey('s.serve', 's.campaign_id')},
         sum(s.sign), coalesce(sum(s.sign) FILTER (WHERE s.serve), 0), sum(s.sign * s.spend_micros), 0, 0, 0, 0
  FROM ${source} s CROSS JOIN ${GRAINS}
  GROUP BY ${KEY} ORDER BY ${KEY}
  ON CONFLICT (grain, at, app_id, test, campaign_id) DO UPDATE SET ${ADD_TOTALS}
), ${prefix}_reasons AS (
  INSERT INTO report_reason_rollups AS r (grain, at, app_id, test, reason, decides)
  SELECT g.grain, ${at('s.created_at')}, s.app_id, s.test, x.reason, sum(s.sign)
  FROM ${source} s CROSS JOIN ${GRAINS} CROSS JOIN LATERAL unnest(s.reason_codes) AS x(reason)
  WHERE NOT s.serve
  GROUP BY ${KEY} ORDER BY ${KEY}
  ON CONFLICT (grain, at, app_id, test, reason) DO UPDATE SET decides = r.decides + EXCLUDED.decides
), ${prefix}_latency AS (
  INSERT INTO report_latency_rollups AS r (grain, at, app_id, test, bucket, decides)
  SELECT g.grain, ${at('s.created_at')}, s.app_id, s.test, ${latencyBucket('s.latency_us')}, sum(s.sign)
  FROM ${source} s CROSS JOIN ${GRAINS}
  GROUP BY ${KEY} ORDER BY ${KEY}
  ON CONFLICT (grain, at, app_id, test, bucket) DO UPDATE SET decides = r.decides + EXCLUDED.decides
), ${prefix}_matches AS (
  INSERT INTO report_match_rollups AS r (grain, at, app_id, test, kind, match_id, decides)
  SELECT g.grain, ${at('s.created_at')}, s.app_id, s.test, x.kind, x.id, sum(s.sign)
  FROM ${source} s CROSS JOIN ${GRAINS}
    CROSS JOIN LATERAL (SELECT 'category', c FROM unnest(s.matched_category_ids) AS c
                        UNION ALL SELECT 'entity', e FROM unnest(s.matched_entity_ids) AS e) AS x(kind, id)
  GROUP BY ${KEY}, 6 ORDER BY ${KEY}, 6
  ON CONFLICT (grain, at, app_id, test, kind, match_id) DO UPDATE SET decides = r.decides + EXCLUDED.decides
)`;
}

export type FunnelStep = 'rendered' | 'qualified' | 'click' | 'conversion';

/**
 * CTEs (to follow `WITH …,`) that count funnel steps reached: `reached` names a CTE of distinct
 * (decision_id, step) from counted rows just written; `decisions` is a query giving those
 * decisions' id, created_at, app_id, test and campaign_id (the rollup's campaign key), written by
 * the decisions' own repository. A step's first mark for a decision adds 1 at the decision's
 * time; a step already marked adds nothing (the mark's primary key decides, across instances).
 */
export function foldFunnelSteps(reached: string, decisions: string, prefix: string): string {
  return `${prefix}_decisions AS (
  ${decisions}
), ${prefix}_marked AS (
  INSERT INTO report_funnel_marks (decision_id, step, decided_at)
  SELECT x.decision_id, x.step, d.created_at FROM ${reached} x JOIN ${prefix}_decisions d ON d.id = x.decision_id
  ORDER BY 1, 2
  ON CONFLICT (decision_id, step) DO NOTHING
  RETURNING decision_id, step
), ${prefix}_totals AS (
  INSERT INTO report_rollups AS r (${TOTALS_COLUMNS})
  SELECT g.grain, ${at('d.created_at')}, d.app_id, d.test, d.campaign_id, 0, 0, 0,
         count(*) FILTER (WHERE m.step = 'rendered'), count(*) FILTER (WHERE m.step = 'qualified'),
         count(*) FILTER (WHERE m.step = 'click'), count(*) FILTER (WHERE m.step = 'conversion')
  FROM ${prefix}_marked m JOIN ${prefix}_decisions d ON d.id = m.decision_id CROSS JOIN ${GRAINS}
  GROUP BY ${KEY} ORDER BY ${KEY}
  ON CONFLICT (grain, at, app_id, test, campaign_id) DO UPDATE SET ${ADD_TOTALS}
)`;
}

/**
 * A CTE (to follow `WITH …,`) that counts conversions on their own time, whatever the time of the
 * decision they name: `inserted` names a CTE of conversions just written (app_id, test,
 * decision_id, occurred_at, created_at), `decisions` a query giving those decisions' id and
 * campaign_id (the rollup's campaign key), as for foldFunnelSteps. Every conversion counts, at
 * its event_time, else when it was received.
 */
export function foldConversions(inserted: string, decisions: string, prefix: string): string {
  return `${prefix}_decisions AS (
  ${decisions}
), ${prefix}_totals AS (
  INSERT INTO report_conversion_rollups AS r (grain, at, app_id, test, campaign_id, conversions)
  SELECT g.grain, ${at('coalesce(i.occurred_at, i.created_at)')}, i.app_id, i.test, coalesce(d.campaign_id, ''), count(*)
  FROM ${inserted} i LEFT JOIN ${prefix}_decisions d ON d.id = i.decision_id CROSS JOIN ${GRAINS}
  GROUP BY ${KEY} ORDER BY ${KEY}
  ON CONFLICT (grain, at, app_id, test, campaign_id) DO UPDATE SET conversions = r.conversions + EXCLUDED.conversions
)`;
}

// ---- Reading ---------------------------------------------------------------------------------

// $1 from, $2 until (whole minutes), $3 / $4 the whole half hours inside them, $5 app id or
// null, $6 include test traffic. Half-hour rows cover [$3, $4); minute rows the rest.
const filter = (r: string) => `((${r}.grain = ${HALF_HOUR_GRAIN_S} AND ${r}.at >= $3 AND ${r}.at < $4)
    OR (${r}.grain = ${MINUTE_GRAIN_S} AND ${r}.at >= $1 AND ${r}.at < $2 AND NOT (${r}.at >= $3 AND ${r}.at < $4)))
  AND ($5::text IS NULL OR ${r}.app_id = $5) AND ($6::boolean OR NOT ${r}.test)`;
const bucketOf = (r: string) => `floor(extract(epoch FROM ${r}.at) / $7)::bigint * $7`;

// The totals rollup is read once for the timeline, the funnel by app and by campaign, and the
// campaigns' spend: one scan grouped three ways (GROUPING SETS), where four statements each read
// the range (bench/RESULTS.md, "Reports"). `set` is grouping(bucket, app_id, campaign_id): 3 the
// timeline, 5 an app, 6 a campaign. `rank` is each set's order, decided here so ties order by
// the database's collation as before. Each later funnel step counts decisions that reached it
// (counted events only), so the funnel reads as conversion between steps, not as raw event
// volume; a campaign's decides are the ones it won.
const TOTALS = planEachCall(`
WITH grouped AS MATERIALIZED (
  SELECT grouping(b.bucket, r.app_id, r.campaign_id) AS set, b.bucket, r.app_id, r.campaign_id,
         sum(r.decides)::int AS decides, sum(r.served)::int AS served, sum(r.spend_micros)::bigint AS spend_micros,
         sum(r.rendered)::int AS rendered, sum(r.qualified)::int AS qualified, sum(r.clicks)::int AS clicks, sum(r.conversions)::int AS conversions
  FROM report_rollups r CROSS JOIN LATERAL (SELECT ${bucketOf('r')} AS bucket) b
  WHERE ${filter('r')}
  GROUP BY GROUPING SETS ((b.bucket), (r.app_id), (r.campaign_id))
)
SELECT g.set, g.bucket, coalesce(g.app_id, g.campaign_id) AS id, a.name, g.decides, g.served, g.spend_micros,
       g.rendered, g.qualified, g.clicks, g.conversions,
       row_number() OVER (PARTITION BY g.set ORDER BY g.bucket, g.served DESC, CASE WHEN g.set = 5 THEN g.decides END DESC, coalesce(g.app_id, g.campaign_id)) AS rank
FROM grouped g LEFT JOIN apps a ON g.set = 5 AND a.id = g.app_id
WHERE (g.set = 3 AND g.decides > 0)
   OR (g.set = 5 AND g.decides > 0 AND a.id IS NOT NULL)
   OR (g.set = 6 AND g.campaign_id <> '' AND g.served > 0)`);

interface TotalsRow {
  set: 3 | 5 | 6;
  bucket: number | null;
  id: string | null;
  name: string | null;
  decides: number;
  served: number;
  spend_micros: number | string;
  rendered: number;
  qualified: number;
  clicks: number;
  conversions: number;
  rank: number | string;
}

const LATENCY = planEachCall(`
SELECT ${bucketOf('r')} AS bucket, r.bucket AS latency_bucket, sum(r.decides)::int AS n
FROM report_latency_rollups r
WHERE ${filter('r')}
GROUP BY 1, 2 HAVING sum(r.decides) > 0`);

// Conversions on their own time (foldConversions), per bucket.
const CONVERSIONS_OCCURRED = planEachCall(`
SELECT ${bucketOf('r')} AS bucket, sum(r.conversions)::int AS n
FROM report_conversion_rollups r
WHERE ${filter('r')}
GROUP BY 1 HAVING sum(r.conversions) > 0`);

const NO_FILL_REASONS = planEachCall(`
SELECT ${bucketOf('r')} AS bucket, r.reason, sum(r.decides)::int AS n
FROM report_reason_rollups r
WHERE ${filter('r')}
GROUP BY 1, 2 HAVING sum(r.decides) > 0`);

/** Campaigns in the funnel table; the spend table lists every campaign that served. */
const FUNNEL_CAMPAIGNS = 50;

// The ten most matched categories and the ten most matched entities, in one scan.
const TOP_MATCHES = planEachCall(`
SELECT kind, id, decides FROM (
  SELECT r.kind, r.match_id AS id, sum(r.decides)::int AS decides,
         row_number() OVER (PARTITION BY r.kind ORDER BY sum(r.decides) DESC, r.match_id) AS rank
  FROM report_match_rollups r
  WHERE ${filter('r')}
  GROUP BY 1, 2 HAVING sum(r.decides) > 0
) x
WHERE rank <= 10
ORDER BY kind, rank`);

const HALF_HOUR_MS = HALF_HOUR_GRAIN_S * 1000;

/** Minute rows are read for the last hour and the ragged ends of ranges up to 7 days: a day
 *  past the longest range, they are never read again. */
export const MINUTE_ROLLUP_RETENTION_DAYS = 8;
const ROLLUP_TABLES = ['report_rollups', 'report_reason_rollups', 'report_latency_rollups', 'report_match_rollups', 'report_conversion_rollups'] as const;

export class ReportRepository {
  constructor(private readonly db: Queryable) {}

  /** Deletes the rollup rows of one grain (60: minutes, 1800: half hours) that start before
   *  `before`, in batches; returns how many. */
  async forgetRollupsBefore(grain: 60 | 1800, before: Date, batch?: number): Promise<number> {
    let forgotten = 0;
    for (const table of ROLLUP_TABLES) {
      const statement = `DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE grain = $1 AND at < $2 LIMIT $3)`;
      forgotten += await deleteInBatches(this.db, statement, [grain, before.toISOString()], batch);
    }
    return forgotten;
  }

  /** Deletes the funnel marks of decisions made before `before` (they go with their decisions:
   *  an event can no longer name a decision retention has dropped), in batches. */
  forgetFunnelMarksBefore(before: Date, batch?: number): Promise<number> {
    return deleteInBatches(
      this.db,
      'DELETE FROM report_funnel_marks WHERE (decision_id, step) IN (SELECT decision_id, step FROM report_funnel_marks WHERE decided_at < $1 LIMIT $2)',
      [before.toISOString()],
      batch,
    );
  }

  /** Every figure of the window, from five statements over the rollups (one per rollup table),
   *  run together. */
  async figures(w: ReportWindow): Promise<ReportFigures> {
    // Half-hour rows only where the buckets are at least that wide and the range holds whole
    // half hours; an empty [$3, $4) leaves everything to the minute rows.
    const from = w.from.getTime();
    const until = w.until.getTime();
    let halfHoursFrom = Math.ceil(from / HALF_HOUR_MS) * HALF_HOUR_MS;
    let halfHoursUntil = Math.floor(until / HALF_HOUR_MS) * HALF_HOUR_MS;
    if (w.bucketSeconds < HALF_HOUR_GRAIN_S || halfHoursFrom >= halfHoursUntil) halfHoursFrom = halfHoursUntil = until;
    const params = [
      w.from.toISOString(),
      w.until.toISOString(),
      new Date(halfHoursFrom).toISOString(),
      new Date(halfHoursUntil).toISOString(),
      w.appId,
      w.includeTest,
    ];
    const [totals, latency, reasons, matches, occurred] = await Promise.all([
      this.db.query<TotalsRow>(TOTALS, [...params, w.bucketSeconds]),
      this.db.query<ReportFigures['latency'][number]>(LATENCY, [...params, w.bucketSeconds]),
      this.db.query<ReportFigures['reasons'][number]>(NO_FILL_REASONS, [...params, w.bucketSeconds]),
      this.db.query<{ kind: 'category' | 'entity'; id: string; decides: number }>(TOP_MATCHES, params),
      this.db.query<{ bucket: number | string; n: number }>(CONVERSIONS_OCCURRED, [...params, w.bucketSeconds]),
    ]);
    const ofSet = (set: TotalsRow['set']) => totals.rows.filter((r) => r.set === set).sort((a, b) => Number(a.rank) - Number(b.rank));
    const funnel = (r: TotalsRow, name: string, decides: number): FunnelRow => ({
      id: r.id as string,
      name,
      decides,
      served: r.served,
      rendered: r.rendered,
      qualified: r.qualified,
      clicks: r.clicks,
      conversions: r.conversions,
    });
    const campaigns = ofSet(6);
    return {
      timeline: ofSet(3).map((r) => ({
        bucket: Number(r.bucket),
        decides: r.decides,
        fills: r.served,
        rendered: r.rendered,
        qualified: r.qualified,
        clicks: r.clicks,
        conversions: r.conversions,
      })),
      latency: latency.rows,
      reasons: reasons.rows,
      conversionsOccurred: occurred.rows.map((r) => ({ bucket: Number(r.bucket), n: r.n })),
      byCampaign: campaigns.slice(0, FUNNEL_CAMPAIGNS).map((r) => funnel(r, r.id as string, r.served)),
      byApp: ofSet(5).map((r) => funnel(r, r.name as string, r.decides)),
      campaignRange: campaigns.map((r) => ({
        id: r.id as string,
        spend_micros: Number(r.spend_micros),
        served: r.served,
        rendered: r.rendered,
        qualified: r.qualified,
        clicks: r.clicks,
      })),
      categories: matches.rows.filter((r) => r.kind === 'category').map(({ id, decides }) => ({ id, decides })),
      entities: matches.rows.filter((r) => r.kind === 'entity').map(({ id, decides }) => ({ id, decides })),
    };
  }
}
