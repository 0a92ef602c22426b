// Conversion event request and response.
import { z } from 'zod';
import { DecisionId, SnapshotId } from '../events/event-schemas.js';
import { chars, storedText } from '../http/text.js';

export const ConversionRequest = z
  .strictObject({
    offer_snapshot_id: SnapshotId.describe('The `offer_id` of the decide response (`snp_…`).'),
    decision_id: DecisionId.optional().describe("The decide response's `decision_id`; signed as empty when omitted."),
    timestamp: z.int().min(0).max(1e11).describe('Unix seconds when the host signed it; must be within 300 s of server time.'),
    nonce: storedText(8, 80).describe('8 to 80 characters, single use per app.'),
    event_time: z
      .int()
      .min(0)
      .max(1e11)
      .optional()
      .describe(
        'Unix seconds when the conversion happened (the purchase), when it is sent later than that: accepted up to 300 s ahead of server time, no earlier than 300 s before the decision, and within the attribution window after it (`ATTRIBUTION_WINDOW_DAYS`; from now, without a `decision_id`). Default: when it is received.',
      ),
    order_id: storedText(1, 120)
      .optional()
      .describe(
        "The advertiser's own id for the conversion (an order number): the app's second conversion with it is a duplicate, answered with the first one's `conversion_id`.",
      ),
    signature: chars(16, 256).describe(
      'Lowercase hex HMAC-SHA256 with the app\'s conversion secret of "{timestamp}.{nonce}.{offer_snapshot_id}.{decision_id or empty}", followed by ".{event_time or empty}.{order_id or empty}" when either is sent.',
    ),
  })
  .describe('Signed conversion.');

export const ConversionResponse = z
  .strictObject({
    ok: z.literal(true).describe('The conversion is recorded and committed.'),
    inserted: z.boolean().describe('false for an exact retry of a recorded conversion, or for an `order_id` the app recorded before.'),
    conversion_id: z.string().regex(/^cnv_/).describe('Conversion id (`cnv_…`); the recorded one for an exact retry or a duplicate `order_id`.'),
    offer_snapshot_id: z.string().describe('The snapshot id sent.'),
    billable: z.literal(false).describe('Recorded events are never billable.'),
    ledger_written: z.literal(false).describe('No ledger entry is written for a recorded conversion.'),
  })
  .describe('Conversion response.');

export type ConversionRequest = z.infer<typeof ConversionRequest>;

/** Most conversions in one batch. */
export const MAX_BATCH_CONVERSIONS = 1000;

export const ConversionBatchRequest = z
  .strictObject({
    conversions: z
      .array(z.unknown())
      .min(1)
      .max(MAX_BATCH_CONVERSIONS)
      .describe(
        '1 to 1,000 signed conversions, each the body of `POST /v1/events/conversion`. Each is checked and recorded on its own: one that fails is answered in its result, and the others are recorded.',
      ),
  })
  .describe('A batch of signed conversions.');

/** The refusals of the single endpoint that a batch answers per item (any other error fails the
 *  batch). */
export const BatchRefusal = z.enum(['invalid_conversion', 'expired_conversion', 'invalid_signature', 'unknown_snapshot']);

export const ConversionBatchResult = z
  .strictObject({
    index: z.int().min(0).describe('Position of the conversion in the request.'),
    status: z
      .enum(['inserted', 'duplicate', 'invalid'])
      .describe('`inserted`: recorded now. `duplicate`: an exact retry, or an `order_id` recorded before. `invalid`: refused, nothing recorded (`error`).'),
    conversion_id: z.string().regex(/^cnv_/).optional().describe('The recorded conversion (inserted and duplicate).'),
    error: BatchRefusal.optional().describe('Why an invalid conversion was refused: the error code the single endpoint answers.'),
    message: z.string().optional().describe('For `invalid_conversion` that failed validation: the fields, never their values.'),
  })
  .describe('What happened to one conversion of a batch.');

export const ConversionBatchResponse = z
  .strictObject({
    ok: z.literal(true).describe('Every conversion was checked; see each result.'),
    inserted: z.int().min(0).describe('Conversions recorded now.'),
    duplicates: z.int().min(0).describe('Exact retries and order ids recorded before.'),
    invalid: z.int().min(0).describe('Conversions refused.'),
    results: z.array(ConversionBatchResult).describe('One per conversion, in request order.'),
  })
  .describe('Batch response.');

export type ConversionBatchResult = z.infer<typeof ConversionBatchResult>;
