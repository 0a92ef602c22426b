// Route schemas from zod: each helper gives the JSON Schema that /openapi.json shows and keeps
// the zod schema it came from, which validates the request (validation.ts). One schema per
// shape, so the document cannot drift from what the code accepts.
import { z } from 'zod';
import { ZOD_SCHEMA, type ZodRouteSchema } from './validation.js';

export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
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

/** A request body: the zod schema that validates it, with named examples for the document.
 *  `optional` for an operation that also takes no body at all; `validatedBy: 'handler'` for the
 *  one body whose service validates it itself (the catalog import lists every problem, schema
 *  and references together, as the CLI does). */
export function requestBody<S extends z.ZodType>(schema: S, examples: Examples, options?: { optional?: boolean; validatedBy?: 'route' }): ZodRouteSchema<S>;
export function requestBody(schema: z.ZodType, examples: Examples, options: { optional?: boolean; validatedBy: 'handler' }): Record<string, unknown>;
export function requestBody(
  schema: z.ZodType,
  examples: Examples,
  options: { optional?: boolean; validatedBy?: 'route' | 'handler' } = {},
): Record<string, unknown> {
  return {
    ...toJsonSchema(schema),
    'x-examples': examples,
    ...(options.optional ? { [OPTIONAL_BODY]: true } : {}),
    ...(options.validatedBy === 'handler' ? {} : { [ZOD_SCHEMA]: schema }),
  };
}

/** Path parameters, validated by this zod schema. */
export function paramsSchema<S extends z.ZodType>(schema: S): ZodRouteSchema<S> {
  return { ...toJsonSchema(schema), [ZOD_SCHEMA]: schema };
}

/** A query string, validated by this zod schema. */
export function querySchema<S extends z.ZodType>(schema: S): ZodRouteSchema<S> {
  return { ...toJsonSchema(schema), [ZOD_SCHEMA]: schema };
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
    [ZOD_SCHEMA]: schema,
  };
}
