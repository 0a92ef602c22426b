// Impression event request and response.
import { z } from 'zod';
import { storedText } from '../http/text.js';

/** Body `idempotency_key` (alias path): 8 to 80 characters. */
export const IdempotencyKey = storedText(8, 80);
/** The `Idempotency-Key` header: 8 to 80 visible ASCII characters. HTTP strips a header's outer
 *  spaces and carries no other text safely, so this is SPEC's 8 to 80 as a header can hold it. */
export const IDEMPOTENCY_KEY_HEADER = /^[\x21-\x7e]{8,80}$/;
export const SnapshotId = z
  .string()
  .max(80)
  .regex(/^snp_[A-Za-z0-9]+$/, 'must be an offer snapshot id (snp_…)');
export const DecisionId = z
  .string()
  .max(80)
  .regex(/^dec_[A-Za-z0-9]+$/, 'must be a decision id (dec_…)');
export const ImpressionType = z.enum(['offer_rendered', 'qualified_impression']);
export type ImpressionType = z.infer<typeof ImpressionType>;

const common = {
  offer_snapshot_id: SnapshotId.describe('The `offer_id` of the decide response (`snp_…`).'),
  decision_id: DecisionId.optional().describe("The decide response's `decision_id`; when given, must be the calling app's decision that served this snapshot."),
};

/** The alias path: `type` picks the event, and the retry key may come in the body. */
export const ImpressionEventRequest = z
  .strictObject({
    ...common,
    type: ImpressionType.optional().describe('Which impression event; default `offer_rendered`.'),
    idempotency_key: IdempotencyKey.optional().describe('Retry key, 8 to 80 characters; must equal the Idempotency-Key header when both are sent.'),
  })
  .describe('Impression event, alias path.');

/** A canonical path: the path names the event, the retry key is the Idempotency-Key header only. */
export function canonicalImpressionRequest(type: z.infer<typeof ImpressionType>) {
  return z
    .strictObject({
      ...common,
      type: z.literal(type).optional().describe(`\`${type}\` or omitted; this path records only that event.`),
    })
    .describe(`Impression event on the canonical path for \`${type}\`.`);
}

export const ImpressionEventResponse = z
  .strictObject({
    ok: z.literal(true).describe('The event is recorded and committed.'),
    inserted: z.boolean().describe('false when this idempotency key was already recorded with the same content.'),
    event_id: z.string().regex(/^evt_/).describe('Event id (`evt_…`); the same for a retry.'),
    offer_snapshot_id: z.string().describe('The snapshot id sent.'),
    type: ImpressionType.describe('The event recorded.'),
    billable: z.literal(false).describe('Recorded events are never billable.'),
  })
  .describe('Impression event response.');

export type ImpressionEventRequest = z.infer<typeof ImpressionEventRequest>;
