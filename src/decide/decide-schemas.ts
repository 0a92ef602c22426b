// Response shapes of decide: the OpenAPI document, the typed client and the
// service's own types all come from these.
import { z } from 'zod';
import { REASON_CODE_NAMES } from '../errors/reason-codes.js';

export const ReasonCodeSchema = z.enum(REASON_CODE_NAMES).describe('Reason code.');

export const ServedOfferSchema = z
  .strictObject({
    serve: z.literal(true).describe('An offer may be shown.'),
    request_id: z
      .string()
      .describe('Id of this HTTP request, for support; also the `x-request-id` response header (the caller’s own when it sent an opaque one).'),
    decision_id: z.string().regex(/^dec_/).describe('Decision id (`dec_…`); send it as `decision_id` on events and read it back with GET /v1/decisions/{id}.'),
    offer_id: z.string().regex(/^snp_/).describe('Offer snapshot id; send it as `offer_snapshot_id` on events.'),
    expires_at: z.string().nullable().describe('ISO expiry of the offer.'),
    disclosure: z.string().describe('Sponsorship label; must be visible.'),
    advertiser: z.string().describe('Advertiser identity; must be visible.'),
    link: z.string().describe('Tracked URL {base_url}/r/<token>; never replace it with a merchant URL.'),
    title: z.string().optional().describe('Presentation hint only.'),
    description: z.string().optional().describe('Presentation hint only.'),
    image_url: z.string().optional().describe('Presentation hint only.'),
    cta: z.string().optional().describe('Presentation hint only.'),
    reason_codes: z.array(ReasonCodeSchema).describe('Includes `MATCHED`.'),
  })
  .describe('Served offer.');

export const NoFillSchema = z
  .strictObject({
    serve: z.literal(false).describe('No offer: render nothing.'),
    request_id: z
      .string()
      .describe('Id of this HTTP request, for support; also the `x-request-id` response header (the caller’s own when it sent an opaque one).'),
    decision_id: z.string().regex(/^dec_/).describe('Decision id (`dec_…`); the no-fill is recorded too.'),
    reason_codes: z.array(ReasonCodeSchema).describe('Why no offer was returned; every failing gate is listed.'),
    retry_after_seconds: z.number().optional().describe('On TIMEOUT, FREQUENCY_CAPPED and BUDGET_EXHAUSTED: seconds until asking again may fill.'),
  })
  .describe('No-fill. A successful answer: do not render anything.');

export { ErrorBodySchema } from '../http/error-body.js';

export const AffiliateFillSchema = z
  .strictObject({
    serve: z.literal(true).describe('An affiliate offer may be shown.'),
    request_id: z
      .string()
      .describe('Id of this HTTP request, for support; also the `x-request-id` response header (the caller’s own when it sent an opaque one).'),
    decision_id: z.string().regex(/^dec_/).describe('Decision id (`dec_…`), also the sub id of the affiliate URL.'),
    network: z.string().describe('The travel affiliate network whose tracking URL this is.'),
    advertiser: z.string().describe('Advertiser identity; must be visible.'),
    disclosure: z.string().describe('Affiliate disclosure; must be visible.'),
    affiliate_url: z.string().describe("Direct tracking URL of the network; the host's answer is never rewritten."),
    impression_token: z.string().describe('Capability for POST /v1/events/click-intent; unguessable, expires.'),
    expires_at: z.string().describe('ISO time after which the impression token no longer records click intents.'),
    title: z.string().optional().describe('Presentation hint only.'),
    description: z.string().optional().describe('Presentation hint only.'),
    image_url: z.string().optional().describe('Presentation hint only.'),
    cta: z.string().optional().describe('Presentation hint only.'),
    reason_codes: z.array(ReasonCodeSchema).describe('Includes `MATCHED`.'),
  })
  .describe('Affiliate fill.');

export type ServedOffer = z.infer<typeof ServedOfferSchema>;
export type NoFill = z.infer<typeof NoFillSchema>;
export type AffiliateFill = z.infer<typeof AffiliateFillSchema>;
export type DecideResponse = ServedOffer | NoFill;
export type AffiliateResponse = AffiliateFill | NoFill;
