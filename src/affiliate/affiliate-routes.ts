// POST /v1/events/click-intent: authorised by possession of the impression token.
// It is public (no Bearer key), so it is rate limited per client IP like decide.
import type { FastifyInstance } from 'fastify';
import { requestBody, response } from '../http/openapi.js';
import { BODY_ERRORS, RATE_LIMITED, UNAVAILABLE, badRequest, errorResponse } from '../http/error-responses.js';
import { ClickIntentRequest, ClickIntentResponse } from './click-intent-schemas.js';
import { feature } from '../http/feature.js';
import type { ZodSchemas } from '../http/validation.js';
import { AffiliateImpressions } from './affiliate-impressions.js';

async function clickIntents(app: FastifyInstance) {
  const routes = app.withTypeProvider<ZodSchemas>();
  const affiliateImpressions = new AffiliateImpressions(app.repositories.affiliateImpressions, app.now);
  routes.post(
    '/v1/events/click-intent',
    {
      schema: {
        tags: ['events'],
        summary: 'Record a non-blocking affiliate click intent (analytics only)',
        body: requestBody(ClickIntentRequest, {
          click: {
            summary: 'The user clicked an affiliate offer · 사용자가 제휴 링크를 클릭함',
            value: { impression_token: 'q8Xn2Lm5Vb7Ct9Zr1Kd3Fh6Jw0Ps4Ga8Ue2Yi5To7R', event_id: 'host-click-123', occurred_at: '2026-11-22T10:00:00+09:00' },
          },
        }),
        response: {
          200: response(ClickIntentResponse, 'Recorded (or already recorded, for a retry). Analytics only.', {
            recorded: { summary: 'Recorded · 기록됨', value: { ok: true, inserted: true, click_intent_id: 'cli_7Yh6Tg5Rf4Ed3Ws2Qa1Zx0', billable: false } },
            retry: {
              summary: 'Same token and event id again · 같은 토큰과 이벤트 id로 재시도',
              value: { ok: true, inserted: false, click_intent_id: 'cli_7Yh6Tg5Rf4Ed3Ws2Qa1Zx0', billable: false },
            },
          }),
          400: badRequest('invalid_click_intent', 'The body failed validation.', [
            { name: 'invalid_body', summary: 'Body failed validation · 본문 검증 실패', extra: { message: 'body failed validation: occurred_at' } },
          ]),
          404: errorResponse('Unknown or expired (24 h) impression token.', [{ error: 'unknown_impression' }]),
          ...BODY_ERRORS,
          ...RATE_LIMITED,
          ...UNAVAILABLE,
        },
      },
      config: {
        badRequest: { error: 'invalid_click_intent' },
        rateLimit: { max: app.config.clickIntentRateLimitPerMinute, timeWindow: 60_000 },
      },
    },
    async (request) => {
      const { impression_token, event_id, occurred_at } = request.body;
      return affiliateImpressions.recordClickIntent(impression_token, event_id, occurred_at ? new Date(occurred_at) : null);
    },
  );
}

export const affiliateRoutes = feature(clickIntents, { name: 'click-intents', needs: ['config', 'now', 'repositories'] });
