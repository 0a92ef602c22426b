// The public shapes of GET /v1/reports, on their own so the typed client can use them without
// the report's code: its query and its answer. The operator's report shares the bucket funnel.
import { z } from 'zod';

/** The report ranges, as the operator's report has them (report.ts `REPORT_RANGES`). */
export const HOST_REPORT_RANGES = ['1h', '24h', '7d', '30d'] as const;
export type HostReportRange = (typeof HOST_REPORT_RANGES)[number];

/** The funnel steps a bucket's decisions reached (the operator's timeline has them too). */
export const BUCKET_FUNNEL = {
  rendered: z.number().int().describe("The bucket's decisions with a counted rendered event."),
  qualified: z.number().int().describe("The bucket's decisions with a counted qualified impression."),
  clicks: z.number().int().describe("The bucket's decisions with a counted click."),
  conversions: z.number().int().describe("The bucket's decisions with a live conversion."),
};

/** Conversions counted on their own time rather than their decision's (the operator's timeline
 *  has them too). */
export const CONVERSIONS_OCCURRED = {
  conversions_occurred: z
    .number()
    .int()
    .describe(
      'Conversions that happened in the bucket (their event_time, else when they were received), whatever bucket their decision is in: a late conversion counts on the day it happened, and each conversion counts (a decision converted twice counts twice). Test-key conversions only with include_test.',
    ),
};

export const HostReportQuery = z.strictObject({
  range: z
    .enum(HOST_REPORT_RANGES)
    .default('30d')
    .describe('How far back: the last hour (1-minute buckets), 24 hours (30-minute buckets), 7 days (6-hour buckets) or 30 days (UTC-day buckets).'),
  include_test: z.enum(['true', 'false']).default('false').describe("Include traffic from this app's sk_test_ keys (excluded by default)."),
});

const Funnel = {
  decides: z.number().int().describe('Decides answered.'),
  fills: z.number().int().describe('Decides that served an offer.'),
  fill_rate: z.number().nullable().describe('fills / decides; null without decides.'),
  no_fill_reasons: z.record(z.string(), z.number().int()).describe('No-fill reason codes counted (a no-fill may list several).'),
};

export const HostReportSchema = z
  .strictObject({
    app_id: z.string().describe('The calling app: the only one a serving key can see.'),
    range: z.enum(HOST_REPORT_RANGES).describe('The range asked for.'),
    from: z.string().describe('Start of the range, ISO 8601: a whole minute.'),
    until: z.string().describe('End of the range (exclusive), ISO 8601: the end of the current minute.'),
    bucket_seconds: z.number().int().describe('Width of each bucket (86400: UTC days).'),
    include_test: z.boolean().describe('Whether test-key traffic is included.'),
    totals: z.strictObject({ ...Funnel, ...BUCKET_FUNNEL, ...CONVERSIONS_OCCURRED }).describe('The whole range.'),
    buckets: z
      .array(
        z.strictObject({ at: z.string().describe('Bucket start, ISO 8601.'), ...Funnel, ...BUCKET_FUNNEL, ...CONVERSIONS_OCCURRED }).describe('One bucket.'),
      )
      .describe('Every bucket of the range, oldest first, empty ones included.'),
  })
  .describe("The calling app's own numbers: what its decides answered and what followed them.");
export type HostReport = z.infer<typeof HostReportSchema>;
