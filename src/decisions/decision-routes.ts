// GET /v1/decisions/{id}: the calling app's decision metadata with event counts.
// Another app's decision is 404 not_found, exactly like an unknown one.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { callerOf, requireServingKey } from '../auth/require-serving-key.js';
import type { ZodSchemas } from '../http/validation.js';
import { sendError } from '../http/errors.js';
import { paramsSchema, response } from '../http/openapi.js';
import { SERVING_KEY_ERRORS, UNAVAILABLE, errorResponse } from '../http/error-responses.js';
import { explainDecision } from './decision-explanation.js';
import { DecisionExplanationSchema, DecisionMetadataSchema } from './decision-schemas.js';
import { feature } from '../http/feature.js';

const DECISION_ID = /^dec_[A-Za-z0-9]{1,64}$/;
const IdParam = z.strictObject({
  id: z.string().regex(DECISION_ID).describe("The decide response's `decision_id`. Anything else is 404 `not_found`."),
});

const notFound = errorResponse("No decision with this id for the calling app (another app's decision looks the same).", [
  { error: 'not_found', summary: 'Unknown decision · 알 수 없는 결정' },
]);

const METADATA = {
  decision_id: 'dec_7Hc2mQ9xPz4LkV1sR8tY0a',
  request_id: '5f0c2b1e-8d4a-4c6b-9e2f-1a3b5c7d9e0f',
  kind: 'offer',
  test: false,
  created_at: '2026-11-22T10:00:00.000Z',
  serve: true,
  reason_codes: ['MATCHED'],
  offer_snapshot_id: 'snp_4f9Qm2x8Lr1aZ0cV7bN3kD',
  campaign_id: 'haneul-jeju-winter',
  expires_at: '2026-11-22T10:15:00.000Z',
  locale: 'ko-KR',
  country: 'KR',
  intent_type: 'purchase',
  matched_category_ids: ['travel.hotels'],
  matched_entity_ids: ['place.jeju'],
  dropped_digest_ids: 0,
  latency_ms: 1.8,
  events: { offer_rendered: 1, qualified_impression: 1, clicks: 1, conversions: 0, click_intents: 0 },
};

const NOT_FOUND_WHEN_MALFORMED = { badRequest: { error: 'not_found' as const, describe: () => ({}) } };

const PARAMETERS = { personal_data_used: false, conversation_history_used: false, policy: [], reading_budget_exceeded: false, app_exclusions_applied: false };

async function decisions(app: FastifyInstance) {
  const routes = app.withTypeProvider<ZodSchemas>();
  routes.get(
    '/v1/decisions/:id',
    {
      schema: {
        tags: ['decisions'],
        summary: "Read one of the calling app's decisions",
        security: [{ servingKey: [] }],
        params: paramsSchema(IdParam),
        response: {
          200: response(DecisionMetadataSchema, "The calling app's decision, with event counts.", {
            served: { summary: 'A served offer with its events · 노출된 광고와 이벤트', value: METADATA },
            no_fill: {
              summary: 'A no-fill · 광고 없음',
              value: {
                ...METADATA,
                serve: false,
                reason_codes: ['LOCALE_NOT_LIVE'],
                offer_snapshot_id: null,
                campaign_id: null,
                expires_at: null,
                locale: 'ja-JP',
                country: 'JP',
                matched_category_ids: [],
                matched_entity_ids: [],
                events: { offer_rendered: 0, qualified_impression: 0, clicks: 0, conversions: 0, click_intents: 0 },
              },
            },
          }),
          ...SERVING_KEY_ERRORS,
          404: notFound,
          ...UNAVAILABLE,
        },
      },
      // Auth before validation: without a valid key, every id is a 401. A malformed id is as
      // unknown as any other: 404 not_found, never a hint of what ids look like.
      preValidation: requireServingKey,
      config: NOT_FOUND_WHEN_MALFORMED,
    },
    async (request, reply) => {
      const { id } = request.params;
      const decision = await app.repositories.decisions.lookup(callerOf(request).appId, id);
      return decision ?? sendError(reply, 'not_found');
    },
  );

  routes.get(
    '/v1/decisions/:id/explanation',
    {
      schema: {
        tags: ['decisions'],
        summary: 'Why this offer: a user-presentable explanation of the main parameters (EU DSA Art. 26)',
        security: [{ servingKey: [] }],
        params: paramsSchema(IdParam),
        response: {
          200: response(DecisionExplanationSchema, "A short explanation in the decision's language, built from the decision record, never from the message.", {
            ko: {
              summary: 'Korean decision · 한국어 결정',
              value: {
                decision_id: 'dec_7Hc2mQ9xPz4LkV1sR8tY0a',
                locale: 'ko',
                sponsored: true,
                advertiser: 'Haneul Stay',
                explanation:
                  '이 내용은 Haneul Stay의 광고입니다. 현재 질문의 주제(제주, 호텔)와 언어·지역 설정(한국어, KR)에 맞춰 선택되었습니다. 개인정보, 사용자 프로필, 이전 대화 기록은 사용되지 않았습니다.',
                parameters: { topics: ['제주', '호텔'], language: '한국어', country: 'KR', ...PARAMETERS },
              },
            },
            en: {
              summary: 'English decision · 영어 결정',
              value: {
                decision_id: 'dec_2Tg5kW8nYq1RcF4hJ7mP0s',
                locale: 'en',
                sponsored: true,
                advertiser: 'Quietwave Audio',
                explanation:
                  'This is sponsored content from Quietwave Audio. It was chosen based on the topic of the current question (Headphones) and the language and region settings (English, US). No personal data, user profile or previous conversation history was used.',
                parameters: { topics: ['Headphones'], language: 'English', country: 'US', ...PARAMETERS },
              },
            },
            excluded: {
              summary: "The app's own exclusions left an offer out · 앱이 제외한 분야·광고주",
              value: {
                decision_id: 'dec_5Rw1nT6yUi3OpA8sD2fG7h',
                locale: 'en',
                sponsored: false,
                advertiser: null,
                explanation:
                  'No sponsored content was shown for this turn. Offers from categories or advertisers this assistant chose never to show were left out. No personal data or conversation history was used.',
                parameters: { topics: [], language: 'English', country: 'US', ...PARAMETERS, app_exclusions_applied: true },
              },
            },
            no_fill: {
              summary: 'Nothing was shown · 광고가 표시되지 않음',
              value: {
                decision_id: 'dec_3Xk9Qm2pLr7ZtV1sN8cB4d',
                locale: 'en',
                sponsored: false,
                advertiser: null,
                explanation: 'No sponsored content was shown for this turn. No personal data or conversation history was used.',
                parameters: { topics: [], language: 'English', country: 'US', ...PARAMETERS },
              },
            },
          }),
          ...SERVING_KEY_ERRORS,
          404: notFound,
          ...UNAVAILABLE,
        },
      },
      // Auth before validation: without a valid key, every id is a 401. A malformed id is as
      // unknown as any other: 404 not_found, never a hint of what ids look like.
      preValidation: requireServingKey,
      config: NOT_FOUND_WHEN_MALFORMED,
    },
    async (request, reply) => {
      const { id } = request.params;
      const { repositories, catalogRuntime } = app;
      const { decisions: decisionRepo, catalog } = repositories;
      const decision = await decisionRepo.lookupWithEvidence(callerOf(request).appId, id);
      if (!decision) return sendError(reply, 'not_found');
      const advertiser = decision.offer_snapshot_id ? await catalog.snapshotAdvertiserName(decision.offer_snapshot_id) : null;
      return explainDecision(decision, advertiser, (x) => catalogRuntime.serving.names.get(x));
    },
  );
}

export const decisionRoutes = feature(decisions, { name: 'decisions', needs: ['repositories', 'catalogRuntime', 'authenticator'] });
