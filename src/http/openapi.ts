// /openapi.json is generated from the same zod schemas that validate requests, so the
// document cannot drift from the code. Route schemas are documentation only: validation is
// zod's job (strict, no coercion, no silent key removal — DESIGN.md §4), so Fastify's own
// Ajv validation and fast-json-stringify serialisation are switched off.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { z } from 'zod';

export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  delete json.$schema;
  return json;
}

export async function registerOpenApi(app: FastifyInstance, baseUrl: string) {
  app.setValidatorCompiler(() => (data) => ({ value: data }));
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sidenote sponsored-offer decision API',
        version: '1.0.0',
        description:
          'Decides, once per user turn of a host AI application, whether a labelled, tracked sponsored offer may be shown beside the host\'s own answer. See SPEC.md.',
      },
      servers: [{ url: baseUrl }],
      components: {
        securitySchemes: {
          servingKey: { type: 'http', scheme: 'bearer', description: 'Server-side serving key, `sk_live_…` or `sk_test_…`.' },
          adminKey: { type: 'http', scheme: 'bearer', description: 'Operator admin key (ADMIN_KEY).' },
        },
      },
    },
    hideUntagged: false,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  // The same document, browsable. Its assets ship inside the package: no CDN, works offline.
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
}
