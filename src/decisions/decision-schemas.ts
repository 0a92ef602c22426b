// Decision metadata returned by GET /v1/decisions/{id}.
import { z } from 'zod';

/** A decision's impression events by kind, counted or not. The events folder maps each of its
 *  kinds to one of these fields (a kind it does not map does not compile). */
export const ImpressionCounts = z.strictObject({
  offer_rendered: z.int().describe('offer_rendered events recorded (counted or not).'),
  qualified_impression: z.int().describe('qualified_impression events recorded (counted or not).'),
});
export type ImpressionCounts = z.infer<typeof ImpressionCounts>;

/** Which operation made a decision: `offer` the decide operation (it serves `sponsored` offers),
 *  `affiliate` the affiliate operation. Not an offer's kind (catalog-schema.ts OfferKind). */
export const DecisionKind = z.enum(['offer', 'affiliate']);
export type DecisionKind = z.infer<typeof DecisionKind>;

export const DecisionMetadataSchema = z
  .strictObject({
    decision_id: z.string().describe('Decision id (`dec_…`).'),
    request_id: z.string().describe('Id of the decide request that made it.'),
    kind: DecisionKind.describe('`offer` from decide, `affiliate` from the affiliate operation.'),
    test: z.boolean().describe('Made with a test key: stored and shown, never counted.'),
    created_at: z.string().describe('ISO time of the decision.'),
    serve: z.boolean().describe('Whether an offer was returned.'),
    reason_codes: z.array(z.string()).describe('The reason codes answered.'),
    offer_snapshot_id: z.string().nullable().describe('The served offer snapshot (`snp_…`), null for a no-fill.'),
    campaign_id: z.string().nullable().describe('Campaign of the served offer, null for a no-fill.'),
    expires_at: z.string().nullable().describe('ISO expiry of the served offer, null for a no-fill.'),
    locale: z.string().nullable().describe('Locale sent in the envelope.'),
    country: z.string().nullable().describe('Country hint sent in the envelope.'),
    intent_type: z.string().nullable().describe('Digest intent type sent, if any.'),
    matched_category_ids: z.array(z.string()).describe('Allowlisted categories that matched.'),
    matched_entity_ids: z.array(z.string()).describe('Allowlisted entities that matched.'),
    dropped_digest_ids: z.int().describe('Digest ids dropped because they are not in the allowlisted taxonomy.'),
    latency_ms: z.number().describe('Server time spent deciding, in milliseconds.'),
    events: z
      .strictObject({
        ...ImpressionCounts.shape,
        clicks: z.int().describe('Tracked-link clicks recorded (counted or not).'),
        conversions: z.int().describe('Conversions recorded.'),
        click_intents: z.int().describe('Affiliate click intents recorded.'),
      })
      .describe("What arrived for this decision, each count whether or not it counts (a test key's events, a bot's click): reports show what counts."),
  })
  .describe('Decision metadata. Never contains the message.');

export const DecisionExplanationSchema = z
  .strictObject({
    decision_id: z.string().describe('Decision id (`dec_…`).'),
    locale: z.enum(['ko', 'en']).describe("Language of the explanation: the decision's locale, Korean or English."),
    sponsored: z.boolean().describe('Whether sponsored content was shown.'),
    advertiser: z.string().nullable().describe('Who paid for it; null when nothing was shown.'),
    explanation: z.string().describe('One short paragraph, ready to show to the user.'),
    parameters: z
      .strictObject({
        topics: z.array(z.string()).describe('The matched topics in plain words, at most five.'),
        language: z.string().nullable().describe('The language setting used, in plain words.'),
        country: z.string().nullable().describe('The country hint used.'),
        personal_data_used: z.literal(false).describe('Always false: no personal data is used.'),
        conversation_history_used: z.literal(false).describe('Always false: only the current turn is used, and not stored.'),
        policy: z
          .array(z.string())
          .describe(
            "What a `POLICY_BLOCK` stood on, empty otherwise: `audience` (not 18_plus), `consent` (no contextual-offer consent), `host_safety` (the digest said unknown or blocked), or the sensitive families read in the message (`health`, `self-harm`, `medication`, `minors`, `gambling`, `adult`, `politics`, … the catalog's topic ids; `sensitive` when only the learned classifier read it). Never the words.",
          ),
        reading_budget_exceeded: z
          .boolean()
          .describe("Whether the message was too long or complex to read within the core's step budget (its policy reading is still whole)."),
        app_exclusions_applied: z
          .boolean()
          .describe("Whether the host app's own brand-safety exclusions (categories or advertisers it never shows) set aside an offer that otherwise fitted."),
      })
      .describe('The main parameters behind the choice.'),
  })
  .describe('"Why this offer": a user-presentable explanation (EU DSA Art. 26).');
