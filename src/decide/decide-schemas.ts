// Response shapes of decide (SPEC 2.2, 2.3, 2.8), for the OpenAPI document and the typed client.
import { z } from 'zod';

export const ReasonCodeSchema = z.enum([
  'POLICY_BLOCK', 'LOW_INTENT', 'NO_ELIGIBLE_OFFER', 'BUDGET_EXHAUSTED', 'TIMEOUT', 'LOCALE_NOT_LIVE',
  'FREQUENCY_CAPPED', 'MATCHED', 'INVALID_ENVELOPE', 'FORBIDDEN_IDENTITY_FIELD', 'CAPABILITY_UNMET',
]);

export const ServedOfferSchema = z
  .strictObject({
    serve: z.literal(true),
    request_id: z.string(),
    decision_id: z.string().regex(/^dec_/),
    offer_id: z.string().regex(/^snp_/).describe('Offer snapshot id; send it as `offer_snapshot_id` on events.'),
    expires_at: z.string().nullable().describe('ISO expiry of the offer.'),
    disclosure: z.string().describe('Sponsorship label; must be visible.'),
    advertiser: z.string().describe('Advertiser identity; must be visible.'),
    link: z.string().describe('Tracked URL {base_url}/r/<token>; never replace it with a merchant URL.'),
    title: z.string().optional().describe('Presentation hint only.'),
    description: z.string().optional().describe('Presentation hint only.'),
    image_url: z.string().optional().describe('Presentation hint only.'),
    cta: z.string().optional().describe('Presentation hint only.'),
    reason_codes: z.array(ReasonCodeSchema),
  })
  .describe('Served offer (SPEC 2.2).');

export const NoFillSchema = z
  .strictObject({
    serve: z.literal(false),
    request_id: z.string(),
    decision_id: z.string().regex(/^dec_/),
    reason_codes: z.array(ReasonCodeSchema),
    retry_after_seconds: z.number().optional(),
  })
  .describe('No-fill (SPEC 2.3). A successful answer: do not render anything.');

export const ErrorBodySchema = z
  .object({
    ok: z.literal(false),
    error: z.string(),
    reason_codes: z.array(z.string()).optional(),
  })
  .describe('Error body (SPEC 2.8).');

export const AffiliateFillSchema = z
  .strictObject({
    serve: z.literal(true),
    request_id: z.string(),
    decision_id: z.string().regex(/^dec_/),
    network: z.string().describe('The travel affiliate network whose tracking URL this is.'),
    advertiser: z.string().describe('Advertiser identity; must be visible.'),
    disclosure: z.string().describe('Affiliate disclosure; must be visible.'),
    affiliate_url: z.string().describe("Direct tracking URL of the network; the host's answer is never rewritten."),
    impression_token: z.string().describe('Capability for POST /v1/events/click-intent; unguessable, expires.'),
    expires_at: z.string(),
    title: z.string().optional().describe('Presentation hint only.'),
    description: z.string().optional().describe('Presentation hint only.'),
    image_url: z.string().optional().describe('Presentation hint only.'),
    cta: z.string().optional().describe('Presentation hint only.'),
    reason_codes: z.array(ReasonCodeSchema),
  })
  .describe('Affiliate fill.');
