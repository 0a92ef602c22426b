// POST /v1/events/click-intent (SPEC 4.3): authorised by possession of the impression token.
// It is public (no Bearer key), so it is rate limited per client IP like decide.
import type { FastifyInstance } from 'fastify';
import { sendError } from '../http/errors.js';
import { toJsonSchema } from '../http/openapi.js';
import { ErrorBodySchema } from '../decide/decide-schemas.js';
import { unavailable } from '../events/event-routes.js';
import { ClickIntentRequest, ClickIntentResponse } from './click-intent-schemas.js';

export async function affiliateRoutes(app: FastifyInstance) {
  app.post(
    '/v1/events/click-intent',
    {
      schema: {
        tags: ['events'],
        summary: 'Record a non-blocking affiliate click intent (analytics only)',
        body: toJsonSchema(ClickIntentRequest),
        response: {
          200: toJsonSchema(ClickIntentResponse),
          400: toJsonSchema(ErrorBodySchema),
          404: toJsonSchema(ErrorBodySchema),
          429: toJsonSchema(ErrorBodySchema),
          503: toJsonSchema(ErrorBodySchema),
        },
      },
      config: {
        badRequest: { error: 'invalid_click_intent' },
        rateLimit: { max: app.services.config.clickIntentRateLimitPerMinute, timeWindow: 60_000 },
      },
    },
    async (request, reply) => {
      const parsed = ClickIntentRequest.safeParse(request.body);
      if (!parsed.success) {
        return sendError(reply, 400, 'invalid_click_intent', {
          message: 'body failed validation: ' + parsed.error.issues.map((i) => i.path.join('.') || '(body)').join(', '),
        });
      }
      const { impression_token, event_id, occurred_at } = parsed.data;
      try {
        const outcome = await app.services.affiliateImpressions.recordClickIntent(impression_token, event_id, occurred_at ? new Date(occurred_at) : null);
        return outcome.status === 200 ? outcome.body : sendError(reply, 404, outcome.error);
      } catch (err) {
        return unavailable(request, reply, err);
      }
    },
  );
}
