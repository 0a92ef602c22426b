// The report behind the operator dashboard: decides, fill rate, no-fill reasons and decide
// latency over time, the funnel decide → rendered → qualified → click → conversion per campaign
// and per app, and the most matched categories and entities. The figures are SQL aggregates
// (report-repository.ts); this file fills the gaps of the timeline and adds up the totals. No
// message text exists to report on: decisions hold ids, reason codes and counts only.
import type { FunnelRow, ReportRepository } from './report-repository.js';

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

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

export async function buildReport(reports: ReportRepository, filter: ReportFilter): Promise<Report> {
  const { ms, bucketSeconds } = REPORT_RANGES[filter.range];
  const until = filter.until;
  const from = new Date(until.getTime() - ms);
  const { timeline, reasons, byCampaign, byApp, categories, entities } = await reports.figures({
    from,
    until,
    appId: filter.appId,
    includeTest: filter.includeTest,
    bucketSeconds,
  });

  // Every bucket of the range, empty ones included, so charts show gaps as zero.
  const firstBucket = Math.floor(from.getTime() / 1000 / bucketSeconds) * bucketSeconds;
  const points = new Map<number, TimelinePoint>();
  for (let b = firstBucket; b * 1000 < until.getTime(); b += bucketSeconds) {
    points.set(b, { at: new Date(b * 1000).toISOString(), decides: 0, fills: 0, decides_per_minute: 0, fill_rate: null, latency_ms: null, no_fill_reasons: {} });
  }
  for (const r of timeline) {
    const p = points.get(Number(r.bucket));
    if (!p) continue;
    p.decides = r.decides;
    p.fills = r.fills;
    p.decides_per_minute = round(r.decides / (bucketSeconds / 60));
    p.fill_rate = r.decides > 0 ? round(r.fills / r.decides) : null;
    p.latency_ms = r.p50 === null ? null : { p50: round(Number(r.p50) / 1000), p90: round(Number(r.p90) / 1000), p99: round(Number(r.p99) / 1000) };
  }
  for (const r of reasons) {
    const p = points.get(Number(r.bucket));
    if (p) p.no_fill_reasons[r.reason] = r.n;
  }
  const sum = (rows: FunnelRow[], k: keyof FunnelRow) => rows.reduce((n, r) => n + Number(r[k]), 0);
  const decides = sum(byApp, 'decides');
  const fills = sum(byApp, 'served');
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
      rendered: sum(byApp, 'rendered'),
      qualified: sum(byApp, 'qualified'),
      clicks: sum(byApp, 'clicks'),
      conversions: sum(byApp, 'conversions'),
    },
    timeline: [...points.values()],
    funnel_by_campaign: byCampaign,
    funnel_by_app: byApp,
    top_categories: categories,
    top_entities: entities,
  };
}
