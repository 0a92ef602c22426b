// GET /openapi.json and the browsable /docs: the document @fastify/swagger collects from every
// route's schema, finished for client generators (openapi-document.ts). This folder sits above
// the features (it names their public shapes as components); src/http/ holds the helpers the
// features' routes use to declare their schemas, and depends on no feature.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { z } from 'zod';
import { OPTIONAL_BODY } from '../http/openapi.js';
import { sendError } from '../http/errors.js';
import { finishDocument, plainBooleanDocument } from './openapi-document.js';

const OpenApiQuery = z.strictObject({
  booleans: z.enum(['plain']).optional().describe('`plain`: booleans the spec fixes as plain `type: boolean` (openapi-generator’s Python client).'),
});

/** @fastify/swagger marks every request body required; clear it where the code takes none. */
function markOptionalBodies(doc: Record<string, any>) {
  for (const item of Object.values(doc.paths ?? {}) as Array<Record<string, any>>) {
    for (const operation of Object.values(item)) {
      const media = operation?.requestBody?.content?.['application/json'];
      if (!media?.schema?.[OPTIONAL_BODY]) continue;
      delete media.schema[OPTIONAL_BODY];
      operation.requestBody.required = false;
    }
  }
  return doc;
}

export async function registerOpenApi(app: FastifyInstance, baseUrl: string) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sidenote sponsored-offer decision API',
        version: '1.0.0',
        description:
          "Decides, once per user turn of a host AI application, whether a labelled, tracked sponsored offer may be shown beside the host's own answer. The README and docs/ of the repository say more.",
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
    transformObject: (documentObject) => finishDocument(markOptionalBodies((documentObject as { openapiObject: Record<string, any> }).openapiObject)) as never,
  });
  // `?booleans=plain`: for generators that cannot read a boolean `const` (openapi-document.ts).
  app.get('/openapi.json', { schema: { hide: true } }, async (request, reply) => {
    const query = OpenApiQuery.safeParse(request.query);
    if (!query.success) return sendError(reply, 'invalid_request', { message: 'booleans: only `plain`' });
    return query.data.booleans === 'plain' ? plainBooleanDocument(app.swagger() as never) : app.swagger();
  });
  // The same document, browsable. Its assets ship inside the package: no CDN, works offline.
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
}
