// Click-intent request and response.
import { z } from 'zod';
import { storedText } from '../http/text.js';

export const ClickIntentRequest = z
  .strictObject({
    impression_token: storedText(1, 200).describe('The `impression_token` of the affiliate fill; it is the capability, no key is needed.'),
    event_id: storedText(1, 128).describe("The host's own id for this click; the same id again is a retry."),
    occurred_at: z.iso.datetime({ offset: true }).max(40).optional().describe('When the user clicked: ISO-8601 date-time with offset (`Z` or `+09:00`).'),
  })
  .describe('Click intent.');

export const ClickIntentResponse = z
  .strictObject({
    ok: z.literal(true).describe('The click intent is recorded.'),
    inserted: z.boolean().describe('false when this (impression_token, event_id) was already recorded.'),
    click_intent_id: z.string().regex(/^cli_/).describe('Click-intent id (`cli_…`).'),
    billable: z.literal(false).describe('Analytics only; never billable.'),
  })
  .describe('Click-intent response.');
