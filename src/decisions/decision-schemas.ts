// Decision metadata returned by GET /v1/decisions/{id} (SPEC 4.9, DESIGN.md §2).
import { z } from 'zod';

export const DecisionMetadataSchema = z
  .strictObject({
    decision_id: z.string(),
    request_id: z.string(),
    kind: z.enum(['offer', 'affiliate']),
    test: z.boolean(),
    created_at: z.string(),
    serve: z.boolean(),
    reason_codes: z.array(z.string()),
    offer_snapshot_id: z.string().nullable(),
    campaign_id: z.string().nullable(),
    expires_at: z.string().nullable(),
    locale: z.string().nullable(),
    country: z.string().nullable(),
    intent_type: z.string().nullable(),
    matched_category_ids: z.array(z.string()),
    matched_entity_ids: z.array(z.string()),
    dropped_digest_ids: z.int(),
    latency_ms: z.number(),
    events: z.strictObject({
      offer_rendered: z.int(),
      qualified_impression: z.int(),
      clicks: z.int(),
      conversions: z.int(),
      click_intents: z.int(),
    }),
  })
  .describe('Decision metadata. Never contains the message.');
