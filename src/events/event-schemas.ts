// Impression event request and response (SPEC 2.4, 2.5).
import { z } from 'zod';

export const IdempotencyKey = z.string().min(8).max(80);
export const SnapshotId = z.string().max(80).regex(/^snp_[A-Za-z0-9]+$/, 'must be an offer snapshot id (snp_…)');
export const DecisionId = z.string().max(80).regex(/^dec_[A-Za-z0-9]+$/, 'must be a decision id (dec_…)');

export const ImpressionEventRequest = z
  .strictObject({
    offer_snapshot_id: SnapshotId.describe('The `offer_id` of the decide response.'),
    decision_id: DecisionId.optional().describe("When given, must be the calling app's decision that served this snapshot."),
    type: z.enum(['offer_rendered', 'qualified_impression']).optional().describe('Default `offer_rendered`.'),
    idempotency_key: IdempotencyKey.optional().describe('Accepted on the alias path; must agree with the header when both are sent.'),
  })
  .describe('Impression event (SPEC 2.4).')
  .meta({ examples: [{ offer_snapshot_id: 'snp_4f9Qm2x8Lr1aZ0cV7bN3kD', decision_id: 'dec_7Hc2mQ9xPz4LkV1sR8tY0a', type: 'offer_rendered' }] });

export const ImpressionEventResponse = z
  .strictObject({
    ok: z.literal(true),
    inserted: z.boolean().describe('false when this idempotency key was already recorded with the same content.'),
    event_id: z.string().regex(/^evt_/),
    offer_snapshot_id: z.string(),
    type: z.enum(['offer_rendered', 'qualified_impression']),
    billable: z.literal(false),
  })
  .describe('Impression event response (SPEC 2.5).');

export type ImpressionEventRequest = z.infer<typeof ImpressionEventRequest>;
