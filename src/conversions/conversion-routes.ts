// POST /v1/events/conversion (SPEC 4.8).
import type { FastifyInstance } from 'fastify';
import { requireServingKey } from '../auth/require-serving-key.js';
import { sendError } from '../http/errors.js';
import { toJsonSchema } from '../http/openapi.js';
import { ErrorBodySchema } from '../decide/decide-schemas.js';
import { unavailable } from '../events/event-routes.js';
import { ConversionRequest, ConversionResponse } from './conversion-schemas.js';

export async function conversionRoutes(app: FastifyInstance) {
  app.post(
    '/v1/events/conversion',
    {
      schema: {
        tags: ['events'],
        summary: 'Record a signed conversion',
        security: [{ servingKey: [] }],
        body: toJsonSchema(ConversionRequest),
        response: {
          200: toJsonSchema(ConversionResponse),
          400: toJsonSchema(ErrorBodySchema),
          401: toJsonSchema(ErrorBodySchema),
          404: toJsonSchema(ErrorBodySchema),
          503: toJsonSchema(ErrorBodySchema),
        },
      },
      config: { badRequest: { error: 'invalid_conversion' } },
      preHandler: requireServingKey,
    },
    async (request, reply) => {
      const parsed = ConversionRequest.safeParse(request.body);
      if (!parsed.success) {
        return sendError(reply, 400, 'invalid_conversion', {
          message: 'body failed validation: ' + parsed.error.issues.map((i) => i.path.join('.') || '(body)').join(', '),
        });
      }
      try {
        const outcome = await app.services.conversions.record(request.principal!, parsed.data);
        if (outcome.status === 200) return outcome.body;
        return sendError(reply, outcome.status, outcome.error);
      } catch (err) {
        return unavailable(request, reply, err);
      }
    },
  );
}
