// GET /admin/reports: the numbers behind the dashboard, for operators (admin key, registered
// inside the admin plugin so its key check applies). Also usable on its own, e.g. from a script.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { sendError } from '../http/errors.js';
import { toJsonSchema } from '../http/openapi.js';
import { ErrorBodySchema } from '../decide/decide-schemas.js';
import { unavailable } from '../events/event-routes.js';
import { REPORT_RANGES, buildReport, type ReportRange } from './report-queries.js';

const ReportQuery = z.strictObject({
  range: z.enum(Object.keys(REPORT_RANGES) as [ReportRange, ...ReportRange[]]).default('24h').describe('How far back: the last hour (1-minute buckets), 24 hours (30-minute buckets) or 7 days (6-hour buckets).'),
  app_id: z.string().regex(/^app_[A-Za-z0-9]{1,64}$/).optional().describe('Only this app; every app when absent.'),
  include_test: z.enum(['true', 'false']).default('false').describe('Include traffic from sk_test_ keys (excluded by default).'),
});

const FunnelRowSchema = z.object({
  id: z.string().describe('Campaign id or app id.'),
  name: z.string().describe('Campaign id, or the app name.'),
  decides: z.number().int().describe('Decides (for a campaign: decides it won).'),
  served: z.number().int().describe('Decides that served an offer.'),
  rendered: z.number().int().describe('Served decisions with a counted rendered event.'),
  qualified: z.number().int().describe('Served decisions with a counted qualified impression.'),
  clicks: z.number().int().describe('Served decisions with a counted click.'),
  conversions: z.number().int().describe('Served decisions with a live conversion.'),
});

const ReportSchema = z
  .object({
    range: z.enum(Object.keys(REPORT_RANGES) as [ReportRange, ...ReportRange[]]),
    from: z.string().describe('Start of the range, ISO 8601.'),
    until: z.string().describe('End of the range (now), ISO 8601.'),
    bucket_seconds: z.number().int().describe('Width of each timeline bucket.'),
    app_id: z.string().nullable().describe('The app filter, or null for every app.'),
    include_test: z.boolean().describe('Whether test-key traffic is included.'),
    totals: z
      .object({
        decides: z.number().int(),
        fills: z.number().int(),
        fill_rate: z.number().nullable(),
        rendered: z.number().int(),
        qualified: z.number().int(),
        clicks: z.number().int(),
        conversions: z.number().int(),
      })
      .describe('The funnel over the whole range and every app in the filter.'),
    timeline: z
      .array(
        z.object({
          at: z.string().describe('Bucket start, ISO 8601.'),
          decides: z.number().int(),
          fills: z.number().int(),
          decides_per_minute: z.number(),
          fill_rate: z.number().nullable(),
          latency_ms: z.object({ p50: z.number(), p90: z.number(), p99: z.number() }).nullable().describe('Decide handler latency percentiles.'),
          no_fill_reasons: z.record(z.string(), z.number().int()).describe('No-fill reason codes counted in the bucket.'),
        }),
      )
      .describe('Every bucket of the range, oldest first, empty ones included.'),
    funnel_by_campaign: z.array(FunnelRowSchema),
    funnel_by_app: z.array(FunnelRowSchema),
    top_categories: z.array(z.object({ id: z.string(), decides: z.number().int() })).describe('Most matched categories (message and digest signals, and served offers).'),
    top_entities: z.array(z.object({ id: z.string(), decides: z.number().int() })).describe('Most matched entities.'),
  })
  .describe('Decides, fill rate, no-fill reasons, latency, funnel and top matches over a range.');

export async function reportRoutes(app: FastifyInstance) {
  app.get(
    '/admin/reports',
    {
      schema: {
        tags: ['admin'],
        summary: 'Reporting numbers behind the /dashboard page',
        security: [{ adminKey: [] }],
        querystring: toJsonSchema(ReportQuery),
        response: { 200: toJsonSchema(ReportSchema), 400: toJsonSchema(ErrorBodySchema), 401: toJsonSchema(ErrorBodySchema), 503: toJsonSchema(ErrorBodySchema) },
      },
      config: { badRequest: { error: 'invalid_request' } },
    },
    async (request, reply) => {
      const query = ReportQuery.safeParse(request.query ?? {});
      if (!query.success) return sendError(reply, 400, 'invalid_request');
      try {
        return await buildReport(app.services.db, {
          range: query.data.range,
          appId: query.data.app_id ?? null,
          includeTest: query.data.include_test === 'true',
          until: new Date(app.services.now()),
        });
      } catch (err) {
        return unavailable(request, reply, err);
      }
    },
  );
}
