// GET /v1/reference/reason-codes: the reason-code and error reference as JSON (public).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { response } from '../http/openapi.js';
import { REFERENCE } from './reason-codes.js';
import { feature } from '../http/feature.js';

const ReferenceSchema = z
  .strictObject({
    reason_codes: z
      .array(
        z
          .strictObject({
            code: z.string().describe('The reason code or error string.'),
            kind: z.enum(['reason_code', 'error']).describe('`reason_code` (in `reason_codes` of a 200) or `error` (the `error` of an error body).'),
            status: z.int().describe('HTTP status it comes with.'),
            endpoints: z.array(z.string()).describe('Operations that can answer with it.'),
            meaning: z.string().describe('What it means, in English.'),
            retry: z.boolean().describe('Whether the same request may succeed later.'),
            retry_after_seconds: z.int().nullable().describe('How long to wait first, when there is a fixed answer.'),
          })
          .describe('One reason code or error string.'),
      )
      .describe('Every reason code and error string.'),
  })
  .describe('The reason-code and error reference.');

const byCode = (code: string) => REFERENCE.find((e) => e.code === code)!;

async function reference(app: FastifyInstance) {
  app.get(
    '/v1/reference/reason-codes',
    {
      schema: {
        tags: ['reference'],
        summary: 'Every reason code and error string, with retry guidance',
        response: {
          200: response(
            ReferenceSchema,
            'The reference (English). Cacheable for an hour.',
            {
              entries: {
                summary: 'Two of the entries · 항목 두 개',
                value: { reason_codes: [byCode('TIMEOUT'), byCode('unknown_snapshot')] },
              },
            },
            { 'cache-control': { type: 'string', description: '`public, max-age=3600`.' } },
          ),
        },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=3600');
      return { reason_codes: REFERENCE };
    },
  );
}

export const referenceRoutes = feature(reference, { name: 'reference', needs: [] });
