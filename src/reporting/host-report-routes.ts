// GET /v1/reports: a host's own numbers, with its serving key and without the operator's admin
// key: decides, fills, no-fill reasons, rendered and qualified impressions, clicks and
// conversions, over the range and per bucket (UTC days over 30 days), for the calling app only.
// The same rollups and the same arithmetic as the operator's report (report.ts), filtered to
// the app, so the figures are the ones the dashboard shows for it. Nothing of another app, of a
// campaign's budget or of an advertiser's spend is in it.
import type { FastifyInstance } from 'fastify';
import { callerOf, requireServingKey } from '../auth/require-serving-key.js';
import { querySchema, response } from '../http/openapi.js';
import { SERVING_KEY_ERRORS, UNAVAILABLE } from '../http/error-responses.js';
import { BAD_REPORT_QUERY } from './report-routes.js';
import { feature } from '../http/feature.js';
import type { ZodSchemas } from '../http/validation.js';
import { buildReport, type ReportRange } from './report.js';
import { HostReportQuery, HostReportSchema, type HostReport, type HostReportRange } from './host-report-schemas.js';

// The hosts' ranges are the operator's: a range added to one and not the other fails here.
const SAME_RANGES: [HostReportRange, ReportRange] extends [ReportRange, HostReportRange] ? true : never = true;
void SAME_RANGES;

const EXAMPLE: HostReport = {
  app_id: 'app_9Zx7Cv5Bn3Mq1Wq9Er7Ty5',
  range: '30d',
  from: '2026-10-24T10:01:00.000Z',
  until: '2026-11-23T10:01:00.000Z',
  bucket_seconds: 86400,
  include_test: false,
  totals: {
    decides: 1200,
    fills: 504,
    fill_rate: 0.42,
    no_fill_reasons: { LOW_INTENT: 610, POLICY_BLOCK: 70, NO_ELIGIBLE_OFFER: 16 },
    rendered: 480,
    qualified: 366,
    clicks: 54,
    conversions: 6,
    conversions_occurred: 7,
  },
  buckets: [
    {
      at: '2026-11-22T00:00:00.000Z',
      decides: 40,
      fills: 17,
      fill_rate: 0.425,
      no_fill_reasons: { LOW_INTENT: 21, POLICY_BLOCK: 2 },
      rendered: 16,
      qualified: 12,
      clicks: 2,
      conversions: 0,
      conversions_occurred: 1,
    },
  ],
};

async function hostReports(app: FastifyInstance) {
  app.withTypeProvider<ZodSchemas>().get(
    '/v1/reports',
    {
      schema: {
        tags: ['reports'],
        summary: "The calling app's own numbers: decides, fill, no-fill reasons and the funnel, per day",
        description:
          "For reconciling a host's own counts without the operator's admin key. Only the calling app's traffic; the figures equal the operator dashboard's for that app (the same rollups). Live keys only unless `include_test=true`.",
        security: [{ servingKey: [] }],
        querystring: querySchema(HostReportQuery),
        response: {
          200: response(HostReportSchema, 'The report.', { last_30_days: { summary: 'The last 30 days · 최근 30일', value: EXAMPLE } }),
          400: BAD_REPORT_QUERY,
          ...SERVING_KEY_ERRORS,
          ...UNAVAILABLE,
        },
      },
      config: { badRequest: { error: 'invalid_request' } },
      preValidation: requireServingKey,
    },
    async (request): Promise<HostReport> => {
      const appId = callerOf(request).appId;
      const report = await buildReport(app.reports, {
        range: request.query.range,
        appId,
        includeTest: request.query.include_test === 'true',
        until: new Date(app.now()),
      });
      const buckets = report.timeline.map(
        ({ at, decides, fills, fill_rate, no_fill_reasons, rendered, qualified, clicks, conversions, conversions_occurred }) => ({
          at,
          decides,
          fills,
          fill_rate,
          no_fill_reasons,
          rendered,
          qualified,
          clicks,
          conversions,
          conversions_occurred,
        }),
      );
      const no_fill_reasons: Record<string, number> = {};
      for (const b of buckets) for (const [code, n] of Object.entries(b.no_fill_reasons)) no_fill_reasons[code] = (no_fill_reasons[code] ?? 0) + n;
      const { decides, fills, fill_rate, rendered, qualified, clicks, conversions, conversions_occurred } = report.totals;
      return {
        app_id: appId,
        range: report.range,
        from: report.from,
        until: report.until,
        bucket_seconds: report.bucket_seconds,
        include_test: report.include_test,
        totals: { decides, fills, fill_rate, no_fill_reasons, rendered, qualified, clicks, conversions, conversions_occurred },
        buckets,
      };
    },
  );
}

export const hostReportRoutes = feature(hostReports, { name: 'host-reports', needs: ['reports', 'now', 'authenticator'] });
