// /openapi.json is generated from the same zod schemas that validate requests, so the
// document cannot drift from the code. Route schemas are documentation only: validation is
// zod's job (strict, no coercion, no silent key removal — DESIGN.md §4), so Fastify's own
// Ajv validation and fast-json-stringify serialisation are switched off.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { z } from 'zod';
import { finishDocument } from './openapi-document.js';

export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  delete json.$schema;
  return json;
}

/** One named example of a request or response body; `summary` says what it shows. */
export interface NamedExample {
  summary: string;
  value: unknown;
}
/** Named examples, `ko` / `en` where the body carries text in a language. */
export type Examples = Record<string, NamedExample>;

const OPTIONAL_BODY = 'x-sidenote-optional-body';

/** A request body for the document: the zod schema that validates it, with named examples.
 *  `optional` for an operation that also takes no body at all. */
export function requestBody(schema: z.ZodType, examples: Examples, options: { optional?: boolean } = {}): Record<string, unknown> {
  return { ...toJsonSchema(schema), 'x-examples': examples, ...(options.optional ? { [OPTIONAL_BODY]: true } : {}) };
}

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

/** A response header as the document lists it. */
export interface HeaderDoc {
  description: string;
  type: 'string' | 'integer';
}

/** A response for the document: its schema, what it means and named examples. */
export function response(schema: z.ZodType, description: string, examples: Examples, headers?: Record<string, HeaderDoc>): Record<string, unknown> {
  return {
    ...toJsonSchema(schema),
    // @fastify/swagger's key for the response's own description (the schema keeps its own).
    'x-response-description': description,
    'x-examples': examples,
    ...(headers ? { headers } : {}),
  };
}

/** Route schemas as documentation only (see the top of this file): no Ajv, no fast-json-stringify.
 *  Every Fastify instance that registers this project's routes calls it. */
export function schemasAsDocumentation(app: FastifyInstance) {
  app.setValidatorCompiler(() => (data) => ({ value: data }));
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
}

export async function registerOpenApi(app: FastifyInstance, baseUrl: string) {
  schemasAsDocumentation(app);
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
    transformObject: (documentObject) => finishDocument(markOptionalBodies((documentObject as { openapiObject: Record<string, any> }).openapiObject)) as never,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  // The same document, browsable. Its assets ship inside the package: no CDN, works offline.
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
}
