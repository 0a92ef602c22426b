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
    signature: chars(16, 256).describe(
      'Lowercase hex HMAC-SHA256 of "{timestamp}.{nonce}.{offer_snapshot_id}.{decision_id or empty}" with the app\'s conversion secret.',
    ),
  })
  .describe('Signed conversion.');

export const ConversionResponse = z
  .strictObject({
    ok: z.literal(true).describe('The conversion is recorded and committed.'),
    inserted: z.boolean().describe('false for an exact retry of a recorded conversion.'),
    conversion_id: z.string().regex(/^cnv_/).describe('Conversion id (`cnv_…`); the same for an exact retry.'),
    offer_snapshot_id: z.string().describe('The snapshot id sent.'),
    billable: z.literal(false).describe('Recorded events are never billable.'),
    ledger_written: z.literal(false).describe('No ledger entry is written for a recorded conversion.'),
  })
  .describe('Conversion response.');

export type ConversionRequest = z.infer<typeof ConversionRequest>;
