// /openapi.json is generated from the same zod schemas that validate requests, so the
// document cannot drift from the code. Route schemas are documentation only: validation is
// zod's job (strict, no coercion, no silent key removal — DESIGN.md §4), so Fastify's own
// Ajv validation and fast-json-stringify serialisation are switched off.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';

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

/** Marks a request body the operation may also go without (src/openapi/ clears `required`). */
export const OPTIONAL_BODY = 'x-sidenote-optional-body';

/** A request body for the document: the zod schema that validates it, with named examples.
 *  `optional` for an operation that also takes no body at all. */
export function requestBody(schema: z.ZodType, examples: Examples, options: { optional?: boolean } = {}): Record<string, unknown> {
  return { ...toJsonSchema(schema), 'x-examples': examples, ...(options.optional ? { [OPTIONAL_BODY]: true } : {}) };
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
