// The report behind the operator dashboard: decides, fill rate, no-fill reasons and decide
// latency over time, the funnel decide → rendered → qualified → click → conversion per campaign
// and per app, the most matched categories and entities, and each campaign's spend against its
// budgets (pacing, projected exhaustion, CTR, eCPM). The figures are SQL aggregates
// (report-repository.ts) and the spend ledger; this file fills the gaps of the timeline, adds up
// the totals and works out the spend ratios. No message text exists to report on: decisions
// hold ids, reason codes and counts only.
import type { ReportCampaign } from '../catalog/catalog-repository.js';
import type { LedgerSpend } from '../counters/counter-store.js';
import { percentileUs } from './latency-histogram.js';
import type { CampaignRangeRow, FunnelRow, ReportRepository } from './report-repository.js';

/** Where the report's numbers come from, each table read by its own repository. */
export interface ReportSources {
  figures: ReportRepository;
  /** Campaign names and budgets (the catalog). */
  campaigns: { campaignsForReport(): Promise<ReportCampaign[]> };
  /** The spend ledger of record (Postgres): lifetime and one UTC day's spend per campaign. */
  ledger: { spendOf(campaignIds: readonly string[], day: string): Promise<LedgerSpend[]> };
}

export const REPORT_RANGES = {
  '1h': { ms: 3_600_000, bucketSeconds: 60 },
  '24h': { ms: 86_400_000, bucketSeconds: 1_800 },
  '7d': { ms: 7 * 86_400_000, bucketSeconds: 6 * 3_600 },
  // Day buckets are whole UTC days (bucket starts are multiples of the width since the epoch).
  '30d': { ms: 30 * 86_400_000, bucketSeconds: 86_400 },
} as const;
export type ReportRange = keyof typeof REPORT_RANGES;

export interface ReportFilter {
  range: ReportRange;
  /** Only this app's traffic; all apps when null. */
  appId: string | null;
  /** Include traffic from test keys (excluded by default: it is not real). */
  includeTest: boolean;
  /** Now, in production: the range ends with the minute holding it, and pacing is as of it. */
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
  /** Handler latency percentiles of the bucket's decides, in milliseconds, read from the
   *  rollups' histogram (within 4.4%, latency-histogram.ts); null when empty. */
  latency_ms: { p50: number; p90: number; p99: number } | null;
  /** No-fill reason codes counted in the bucket. */
  no_fill_reasons: Record<string, number>;
  /** The bucket's decisions that reached each later funnel step (counted events only). */
  rendered: number;
  qualified: number;
  clicks: number;
  conversions: number;
  /** Conversions that happened in the bucket (their event_time, else when received), whatever
   *  bucket their decision is in; each counts, so a decision converted twice counts twice. */
  conversions_occurred: number;
}

/** One campaign's spend against its budgets. Money is in micros of the account currency. */
export interface CampaignSpend {
  campaign_id: string;
  /** The catalog name, or the id when the campaign has none. */
  name: string;
  advertiser_id: string;
  advertiser_name: string;
  status: ReportCampaign['status'] | 'archived';
  /** The last change of its controls (pause, budgets, end date); null when never controlled. */
  last_control_change: { changed_at: string; changed_by: string } | null;
  bid_micros: number;
  /** Today (the UTC day of the request), from the ledger; whole campaign (every app), live traffic only. */
  today: {
    day: string;
    spend_micros: number;
    budget_micros: number;
    /** spend / daily budget; null without a daily budget. */
    budget_used: number | null;
    /** Fraction of the UTC day elapsed at the request. */
    day_elapsed: number;
    /** budget_used / day_elapsed: 1 is on pace, above 1 spends ahead of the day; null without a budget. */
    pacing: number | null;
    /** When today's budget runs out at today's average spend rate; null if not within the day. */
    exhausts_at: string | null;
    /** No further serve fits today's budget (spend + bid would exceed it). */
    exhausted: boolean;
  };
  /** Lifetime, from the ledger; whole campaign, live traffic only. */
  lifetime: { spend_micros: number; budget_micros: number; budget_used: number | null };
  /** The report's range and filter (app, test keys): served decisions and what followed them. */
  range: {
    spend_micros: number;
    served: number;
    rendered: number;
    qualified: number;
    clicks: number;
    /** clicks / qualified impressions; null without qualified impressions. */
    ctr: number | null;
    /** spend / rendered impressions × 1000, in micros; null without rendered impressions. */
    ecpm_micros: number | null;
  };
}

export interface Report {
  range: ReportRange;
  from: string;
  until: string;
  bucket_seconds: number;
  app_id: string | null;
  include_test: boolean;
  totals: {
    decides: number;
    fills: number;
    fill_rate: number | null;
    rendered: number;
    qualified: number;
    clicks: number;
    conversions: number;
    conversions_occurred: number;
  };
  timeline: TimelinePoint[];
  funnel_by_campaign: FunnelRow[];
  funnel_by_app: FunnelRow[];
  top_categories: { id: string; decides: number }[];
  top_entities: { id: string; decides: number }[];
  spend_by_campaign: CampaignSpend[];
}

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

const MINUTE_MS = 60_000;

export async function buildReport(sources: ReportSources, filter: ReportFilter): Promise<Report> {
  const { ms, bucketSeconds } = REPORT_RANGES[filter.range];
  // Ranges are whole minutes, the rollups' finest grain, ending with the current one (so far).
  const now = filter.until;
  const until = new Date(Math.ceil(now.getTime() / MINUTE_MS) * MINUTE_MS);
  const from = new Date(until.getTime() - ms);
  const [{ timeline, latency, reasons, conversionsOccurred, byCampaign, byApp, campaignRange, categories, entities }, campaigns] = await Promise.all([
    sources.figures.figures({ from, until, appId: filter.appId, includeTest: filter.includeTest, bucketSeconds }),
    sources.campaigns.campaignsForReport(),
  ]);
  const today = now.toISOString().slice(0, 10);
  // Live campaigns, and archived ones that served in the range.
  const inRange = new Map(campaignRange.map((r) => [r.id, r]));
  const listed = campaigns.filter((c) => !c.archived || inRange.has(c.id));
  const ledger = new Map(
    (
      await sources.ledger.spendOf(
        listed.map((c) => c.id),
        today,
      )
    ).map((l) => [l.campaignId, l]),
  );
  const nameOf = new Map(campaigns.map((c) => [c.id, c.name ?? c.id]));

  // Every bucket of the range, empty ones included, so charts show gaps as zero.
  const firstBucket = Math.floor(from.getTime() / 1000 / bucketSeconds) * bucketSeconds;
  const points = new Map<number, TimelinePoint>();
  for (let b = firstBucket; b * 1000 < until.getTime(); b += bucketSeconds) {
    points.set(b, {
      at: new Date(b * 1000).toISOString(),
      decides: 0,
      fills: 0,
      decides_per_minute: 0,
      fill_rate: null,
      latency_ms: null,
      no_fill_reasons: {},
      rendered: 0,
      qualified: 0,
      clicks: 0,
      conversions: 0,
      conversions_occurred: 0,
    });
  }
  for (const r of timeline) {
    const p = points.get(Number(r.bucket));
    if (!p) continue;
    p.decides = r.decides;
    p.fills = r.fills;
    p.decides_per_minute = round(r.decides / (bucketSeconds / 60));
    p.fill_rate = r.decides > 0 ? round(r.fills / r.decides) : null;
    p.rendered = r.rendered;
    p.qualified = r.qualified;
    p.clicks = r.clicks;
    p.conversions = r.conversions;
  }
  const histograms = new Map<number, { bucket: number; n: number }[]>();
  for (const r of latency) {
    const b = Number(r.bucket);
    histograms.set(b, [...(histograms.get(b) ?? []), { bucket: r.latency_bucket, n: r.n }]);
  }
  for (const [b, histogram] of histograms) {
    const p = points.get(b);
    const ms = (q: number) => round((percentileUs(histogram, q) ?? 0) / 1000);
    if (p && p.decides > 0) p.latency_ms = { p50: ms(0.5), p90: ms(0.9), p99: ms(0.99) };
  }
  for (const r of reasons) {
    const p = points.get(Number(r.bucket));
    if (p) p.no_fill_reasons[r.reason] = r.n;
  }
  for (const r of conversionsOccurred) {
    const p = points.get(r.bucket);
    if (p) p.conversions_occurred = r.n;
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
      conversions_occurred: [...points.values()].reduce((n, p) => n + p.conversions_occurred, 0),
    },
    timeline: [...points.values()],
    funnel_by_campaign: byCampaign.map((r) => ({ ...r, name: nameOf.get(r.id) ?? r.id })),
    funnel_by_app: byApp,
    top_categories: categories,
    top_entities: entities,
    spend_by_campaign: listed
      .map((c) => campaignSpend(c, ledger.get(c.id), inRange.get(c.id), now))
      .sort((a, b) => b.today.spend_micros - a.today.spend_micros || b.range.spend_micros - a.range.spend_micros || (a.campaign_id < b.campaign_id ? -1 : 1)),
  };
}

const DAY_MS = 86_400_000;

function campaignSpend(c: ReportCampaign, ledger: LedgerSpend | undefined, range: CampaignRangeRow | undefined, now: Date): CampaignSpend {
  const dayStart = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  const elapsedMs = now.getTime() - dayStart;
  const spentToday = ledger?.dayMicros ?? 0;
  const daily = c.budgetDailyMicros;
  const used = daily > 0 ? spentToday / daily : null;
  // At today's average rate (spend since midnight UTC / time since then) the budget runs out at
  // dayStart + elapsed × daily / spent; only a time before the day ends is an exhaustion.
  let exhaustsAt: string | null = null;
  const exhausted = spentToday + c.bidMicros > daily;
  if (!exhausted && spentToday > 0 && elapsedMs > 0) {
    const at = dayStart + Math.round((elapsedMs * daily) / spentToday);
    if (at < dayStart + DAY_MS) exhaustsAt = new Date(at).toISOString();
  }
  const r = range ?? { spend_micros: 0, served: 0, rendered: 0, qualified: 0, clicks: 0 };
  return {
    campaign_id: c.id,
    name: c.name ?? c.id,
    advertiser_id: c.advertiserId,
    advertiser_name: c.advertiserName,
    status: c.archived ? 'archived' : c.status,
    last_control_change: c.lastControlChange && { changed_at: c.lastControlChange.changedAt, changed_by: c.lastControlChange.changedBy },
    bid_micros: c.bidMicros,
    today: {
      day: new Date(dayStart).toISOString().slice(0, 10),
      spend_micros: spentToday,
      budget_micros: daily,
      budget_used: used === null ? null : round(used, 4),
      day_elapsed: round(elapsedMs / DAY_MS, 4),
      pacing: used === null || elapsedMs === 0 ? null : round(used / (elapsedMs / DAY_MS), 3),
      exhausts_at: exhaustsAt,
      exhausted,
    },
    lifetime: {
      spend_micros: ledger?.totalMicros ?? 0,
      budget_micros: c.budgetTotalMicros,
      budget_used: c.budgetTotalMicros > 0 ? round((ledger?.totalMicros ?? 0) / c.budgetTotalMicros, 4) : null,
    },
    range: {
      spend_micros: r.spend_micros,
      served: r.served,
      rendered: r.rendered,
      qualified: r.qualified,
      clicks: r.clicks,
      ctr: r.qualified > 0 ? round(r.clicks / r.qualified, 4) : null,
      ecpm_micros: r.rendered > 0 ? Math.round((r.spend_micros / r.rendered) * 1000) : null,
    },
  };
}
