// Click-intent request and response (SPEC 2.7, 4.3).
import { z } from 'zod';

export const ClickIntentRequest = z
  .strictObject({
    impression_token: z.string().min(1).max(200).describe('From the affiliate fill.'),
    event_id: z.string().min(1).max(128).describe("The host's own id for this click; the same id again is a retry."),
    occurred_at: z.string().max(40).pipe(z.iso.datetime({ offset: true })).optional(),
  })
  .describe('Click intent (SPEC 2.7).');

export const ClickIntentResponse = z.strictObject({
  ok: z.literal(true),
  inserted: z.boolean(),
  click_intent_id: z.string().regex(/^cli_/),
  billable: z.literal(false),
});
