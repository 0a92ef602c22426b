// GET /v1/decisions/{id} (SPEC 4.9): the calling app's decision metadata with event counts.
// Another app's decision is 404 not_found, exactly like an unknown one.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requireServingKey } from '../auth/require-serving-key.js';
import { sendError } from '../http/errors.js';
import { toJsonSchema } from '../http/openapi.js';
import { ErrorBodySchema } from '../decide/decide-schemas.js';
import { unavailable } from '../events/event-routes.js';
import { explainDecision } from './decision-explanation.js';
import { DecisionMetadataSchema } from './decision-schemas.js';

const DECISION_ID = /^dec_[A-Za-z0-9]{1,64}$/;

export async function decisionRoutes(app: FastifyInstance) {
  app.get(
    '/v1/decisions/:id',
    {
      schema: {
        tags: ['decisions'],
        summary: "Read one of the calling app's decisions",
        security: [{ servingKey: [] }],
        params: toJsonSchema(z.strictObject({ id: z.string() })),
        response: {
          200: toJsonSchema(DecisionMetadataSchema),
          401: toJsonSchema(ErrorBodySchema),
          404: toJsonSchema(ErrorBodySchema),
          503: toJsonSchema(ErrorBodySchema),
        },
      },
      preHandler: requireServingKey,
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      if (!DECISION_ID.test(id)) return sendError(reply, 404, 'not_found');
      try {
        const decision = await app.services.decisionRepo.lookup(request.principal!.appId, id);
        return decision ?? sendError(reply, 404, 'not_found');
      } catch (err) {
        return unavailable(request, reply, err);
      }
    },
  );

  app.get(
    '/v1/decisions/:id/explanation',
    {
      schema: {
        tags: ['decisions'],
        summary: 'Why this offer: a user-presentable explanation of the main parameters (EU DSA Art. 26)',
        security: [{ servingKey: [] }],
        params: toJsonSchema(z.strictObject({ id: z.string() })),
        response: { 401: toJsonSchema(ErrorBodySchema), 404: toJsonSchema(ErrorBodySchema), 503: toJsonSchema(ErrorBodySchema) },
      },
      preHandler: requireServingKey,
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      if (!DECISION_ID.test(id)) return sendError(reply, 404, 'not_found');
      try {
        const { decisionRepo, catalogRuntime } = app.services;
        const decision = await decisionRepo.lookup(request.principal!.appId, id);
        if (!decision) return sendError(reply, 404, 'not_found');
        const advertiser = decision.offer_snapshot_id ? await decisionRepo.advertiserName(decision.offer_snapshot_id) : null;
        return explainDecision(decision, advertiser, (x) => catalogRuntime.serving.names.get(x));
      } catch (err) {
        return unavailable(request, reply, err);
      }
    },
  );
}
