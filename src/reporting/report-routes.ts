// GET /admin/reports: the numbers behind the dashboard, for operators. Registered inside the
// admin plugin (prefix /admin), so its key check applies. Also usable on its own, from a script.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { querySchema, response } from '../http/openapi.js';
import { ADMIN_KEY_ERRORS, UNAVAILABLE, errorResponse } from '../http/error-responses.js';
import { REPORT_RANGES, buildReport, type ReportRange } from './report.js';
import { feature } from '../http/feature.js';
import { BUCKET_FUNNEL, CONVERSIONS_OCCURRED } from './host-report-schemas.js';
import type { ZodSchemas } from '../http/validation.js';

/** 400 of a report whose query is not one of the documented values (the hosts' report too). */
export const BAD_REPORT_QUERY = errorResponse('A query parameter is not one of the documented values.', [
  { error: 'invalid_request', summary: 'Bad query · 잘못된 쿼리' },
]);

const ReportQuery = z.strictObject({
  range: z
    .enum(Object.keys(REPORT_RANGES) as [ReportRange, ...ReportRange[]])
    .default('24h')
    .describe('How far back: the last hour (1-minute buckets), 24 hours (30-minute buckets), 7 days (6-hour buckets) or 30 days (UTC-day buckets).'),
  app_id: z
    .string()
    .regex(/^app_[A-Za-z0-9]{1,64}$/)
    .optional()
    .describe('Only this app; every app when absent.'),
  include_test: z.enum(['true', 'false']).default('false').describe('Include traffic from sk_test_ keys (excluded by default).'),
});

const FunnelRowSchema = z
  .object({
    id: z.string().describe('Campaign id or app id.'),
    name: z.string().describe('Campaign name (its id when the catalog gives none), or the app name.'),
    decides: z.number().int().describe('Decides (for a campaign: decides it won).'),
    served: z.number().int().describe('Decides that served an offer.'),
    rendered: z.number().int().describe('Served decisions with a counted rendered event.'),
    qualified: z.number().int().describe('Served decisions with a counted qualified impression.'),
    clicks: z.number().int().describe('Served decisions with a counted click.'),
    conversions: z.number().int().describe('Served decisions with a live conversion.'),
  })
  .describe('One funnel row.');

const TopMatch = z
  .object({ id: z.string().describe('Category or entity id.'), decides: z.number().int().describe('Decides it was matched in.') })
  .describe('A matched id and how often.');

const Micros = (what: string) => z.number().int().describe(`${what}, in micros of the account currency.`);
const Ratio = (what: string) => z.number().nullable().describe(what);

const CampaignSpendSchema = z
  .object({
    campaign_id: z.string().describe('Campaign id.'),
    name: z.string().describe('Campaign name from the catalog; its id when it has none.'),
    advertiser_id: z.string().describe('Advertiser id.'),
    advertiser_name: z.string().describe('Advertiser name.'),
    status: z
      .enum(['active', 'paused', 'ended', 'archived'])
      .describe('Status as it serves (the catalog with its controls); `archived` for a campaign no longer in the catalog that served in the range.'),
    last_control_change: z
      .object({
        changed_at: z.string().describe('ISO time.'),
        changed_by: z.string().describe('Who, as the change named itself.'),
      })
      .nullable()
      .describe('The last change of its controls (GET /admin/campaigns/{id}/control lists them); null when never controlled.'),
    bid_micros: Micros('Price of one served offer'),
    today: z
      .object({
        day: z.string().describe('Today, the UTC day of the request, YYYY-MM-DD.'),
        spend_micros: Micros('Spent today (ledger)'),
        budget_micros: Micros('Daily budget'),
        budget_used: Ratio('spend / daily budget; null without a daily budget.'),
        day_elapsed: z.number().describe('Fraction of the UTC day elapsed at the request.'),
        pacing: Ratio('budget_used / day_elapsed: 1 spends evenly over the day, above 1 ahead of it; null without a daily budget.'),
        exhausts_at: z
          .string()
          .nullable()
          .describe("When today's budget runs out at today's average spend rate (ISO 8601); null if it does not within the day, or is already exhausted."),
        exhausted: z.boolean().describe("No further serve fits today's budget (spend + bid would exceed it)."),
      })
      .describe('Today (UTC) from the spend ledger: the whole campaign, every app, live traffic only.'),
    lifetime: z
      .object({
        spend_micros: Micros('Spent over its life (ledger)'),
        budget_micros: Micros('Lifetime budget'),
        budget_used: Ratio('spend / lifetime budget; null without one.'),
      })
      .describe('Lifetime from the spend ledger: the whole campaign, live traffic only.'),
    range: z
      .object({
        spend_micros: Micros('Spent by the served decisions of the range'),
        served: z.number().int().describe('Served decisions.'),
        rendered: z.number().int().describe('Served decisions with a counted rendered event.'),
        qualified: z.number().int().describe('Served decisions with a counted qualified impression.'),
        clicks: z.number().int().describe('Served decisions with a counted click.'),
        ctr: Ratio('clicks / qualified; null without qualified impressions.'),
        ecpm_micros: z.number().int().nullable().describe('spend / rendered × 1000, in micros; null without rendered impressions.'),
      })
      .describe("The report's range and filter (app, test keys)."),
  })
  .describe("One campaign's spend against its budgets.");

const ReportSchema = z
  .object({
    range: z.enum(Object.keys(REPORT_RANGES) as [ReportRange, ...ReportRange[]]).describe('The range asked for.'),
    from: z.string().describe('Start of the range, ISO 8601: a whole minute.'),
    until: z.string().describe('End of the range (exclusive), ISO 8601: the end of the current minute, so the range holds everything up to now.'),
    bucket_seconds: z.number().int().describe('Width of each timeline bucket.'),
    app_id: z.string().nullable().describe('The app filter, or null for every app.'),
    include_test: z.boolean().describe('Whether test-key traffic is included.'),
    totals: z
      .object({
        decides: z.number().int().describe('Decides answered.'),
        fills: z.number().int().describe('Decides that served an offer.'),
        fill_rate: z.number().nullable().describe('fills / decides; null without decides.'),
        rendered: z.number().int().describe('Counted rendered events.'),
        qualified: z.number().int().describe('Counted qualified impressions.'),
        clicks: z.number().int().describe('Counted clicks.'),
        conversions: z.number().int().describe('Served decisions with a live conversion.'),
        ...CONVERSIONS_OCCURRED,
      })
      .describe('The funnel over the whole range and every app in the filter.'),
    timeline: z
      .array(
        z
          .object({
            at: z.string().describe('Bucket start, ISO 8601.'),
            decides: z.number().int().describe('Decides in the bucket.'),
            fills: z.number().int().describe('Fills in the bucket.'),
            decides_per_minute: z.number().describe('Average decide rate over the bucket.'),
            fill_rate: z.number().nullable().describe('fills / decides; null without decides.'),
            latency_ms: z
              .object({
                p50: z.number().describe('Median, ms.'),
                p90: z.number().describe('90th percentile, ms.'),
                p99: z.number().describe('99th percentile, ms.'),
              })
              .nullable()
              .describe('Decide handler latency percentiles, from a log-bucket histogram: within 4.4% of the exact value.'),
            no_fill_reasons: z.record(z.string(), z.number().int()).describe('No-fill reason codes counted in the bucket.'),
            ...BUCKET_FUNNEL,
            ...CONVERSIONS_OCCURRED,
          })
          .describe('One timeline bucket.'),
      )
      .describe('Every bucket of the range, oldest first, empty ones included.'),
    funnel_by_campaign: z.array(FunnelRowSchema).describe('The funnel per campaign that won decides.'),
    funnel_by_app: z.array(FunnelRowSchema).describe('The funnel per app.'),
    top_categories: z.array(TopMatch).describe('Most matched categories (message and digest signals, and served offers).'),
    top_entities: z.array(TopMatch).describe('Most matched entities.'),
    spend_by_campaign: z
      .array(CampaignSpendSchema)
      .describe(
        'Every live campaign (and archived ones that served in the range): spend today and lifetime against its budgets, pacing, projected exhaustion, CTR and eCPM. Most spent today first.',
      ),
  })
  .describe('Decides, fill rate, no-fill reasons, latency, funnel, top matches and campaign spend over a range.');

const FUNNEL = {
  id: 'cmp.haneul-korea-stays',
  name: 'Haneul Stay · Korea stays',
  decides: 120,
  served: 84,
  rendered: 80,
  qualified: 61,
  clicks: 9,
  conversions: 1,
};
const EXAMPLE = {
  range: '1h',
  from: '2026-11-22T09:00:00.000Z',
  until: '2026-11-22T10:00:00.000Z',
  bucket_seconds: 60,
  app_id: 'app_9Zx7Cv5Bn3Mq1Wq9Er7Ty5',
  include_test: false,
  totals: { decides: 200, fills: 84, fill_rate: 0.42, rendered: 80, qualified: 61, clicks: 9, conversions: 1, conversions_occurred: 2 },
  timeline: [
    {
      at: '2026-11-22T09:00:00.000Z',
      decides: 4,
      fills: 2,
      decides_per_minute: 4,
      fill_rate: 0.5,
      latency_ms: { p50: 1.2, p90: 2.1, p99: 4.8 },
      no_fill_reasons: { LOCALE_NOT_LIVE: 1, POLICY_BLOCK: 1 },
      rendered: 2,
      qualified: 1,
      clicks: 0,
      conversions: 0,
      conversions_occurred: 1,
    },
  ],
  funnel_by_campaign: [FUNNEL],
  funnel_by_app: [{ ...FUNNEL, id: 'app_9Zx7Cv5Bn3Mq1Wq9Er7Ty5', name: 'Acme Chat', decides: 200 }],
  top_categories: [{ id: 'travel.hotels', decides: 96 }],
  top_entities: [{ id: 'place.jeju', decides: 71 }],
  spend_by_campaign: [
    {
      campaign_id: 'cmp.haneul-korea-stays',
      name: 'Haneul Stay · Korea stays',
      advertiser_id: 'adv.haneul-stay',
      advertiser_name: 'Haneul Stay',
      status: 'active',
      last_control_change: { changed_at: '2026-11-28T09:30:00.000Z', changed_by: 'ops: Mina Park' },
      bid_micros: 150_000,
      today: {
        day: '2026-11-22',
        spend_micros: 54_000_000,
        budget_micros: 200_000_000,
        budget_used: 0.27,
        day_elapsed: 0.4167,
        pacing: 0.648,
        exhausts_at: null,
        exhausted: false,
      },
      lifetime: { spend_micros: 1_210_350_000, budget_micros: 6_000_000_000, budget_used: 0.2017 },
      range: { spend_micros: 12_600_000, served: 84, rendered: 80, qualified: 61, clicks: 9, ctr: 0.1475, ecpm_micros: 157_500_000 },
    },
  ],
};

async function reports(app: FastifyInstance) {
  app.withTypeProvider<ZodSchemas>().get(
    '/reports',
    {
      schema: {
        tags: ['admin'],
        summary: 'Reporting numbers behind the /dashboard page',
        security: [{ adminKey: [] }],
        querystring: querySchema(ReportQuery),
        response: {
          200: response(ReportSchema, 'The report.', { last_hour: { summary: 'The last hour, one app · 최근 1시간, 앱 하나', value: EXAMPLE } }),
          400: BAD_REPORT_QUERY,
          ...ADMIN_KEY_ERRORS,
          ...UNAVAILABLE,
        },
      },
      config: { badRequest: { error: 'invalid_request' } },
    },
    async (request) => {
      const query = request.query;
      return buildReport(app.reports, {
        range: query.range,
        appId: query.app_id ?? null,
        includeTest: query.include_test === 'true',
        until: new Date(app.now()),
      });
    },
  );
}

export const reportRoutes = feature(reports, { name: 'reports', needs: ['reports', 'now'] });
