// GET /v1/reference/reason-codes: the reason-code and error reference as JSON (public).
import type { FastifyInstance } from 'fastify';
import { REFERENCE } from './reason-codes.js';

export async function referenceRoutes(app: FastifyInstance) {
  app.get(
    '/v1/reference/reason-codes',
    { schema: { tags: ['reference'], summary: 'Every reason code and error string, with retry guidance' } },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=3600');
      return { reason_codes: REFERENCE };
    },
  );
}
