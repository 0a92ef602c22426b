// Requests are validated by their route, before any handler runs: the zod schema a route
// declares for its body, query string or path parameters (requestBody, querySchema and
// paramsSchema in openapi.ts) is the one that documents it in /openapi.json and the one that
// parses it here, so handlers receive parsed values and never validate by hand. zod rather than
// Fastify's Ajv: strict, no coercion, no silent removal of unknown keys.
import type { FastifyInstance, FastifySchema, FastifyTypeProvider } from 'fastify';
import type { z } from 'zod';

/** Where a route schema keeps the zod schema it was made from. */
export const ZOD_SCHEMA: unique symbol = Symbol.for('sidenote.zod-schema');

/** A route schema part made from a zod schema (openapi.ts): the zod schema rides along, typed. */
export type ZodRouteSchema<S extends z.ZodType> = Record<string, unknown> & { readonly [ZOD_SCHEMA]: S };

/** Types a route's handler from the zod schemas its route schema was made from, the same ones
 *  that validate it below: `request.body`, `request.query` and `request.params` are what they
 *  parsed to, with no cast. (`app.withTypeProvider<ZodSchemas>()`.) A part without a zod schema
 *  stays `unknown`; answers stay unchecked by type (checkResponses checks them at run time). */
export interface ZodSchemas extends FastifyTypeProvider {
  validator: this['schema'] extends { readonly [ZOD_SCHEMA]: infer S extends z.ZodType } ? z.output<S> : unknown;
  serializer: unknown;
}

type HttpPart = 'body' | 'querystring' | 'params' | 'headers';

/** A request part that failed its route's schema. Answered 400 by the error handler in the
 *  route's own error vocabulary (config.badRequest); it never carries the values sent. */
export class RequestInvalid extends Error {
  readonly statusCode = 400;
  constructor(
    readonly part: HttpPart,
    readonly error: z.ZodError,
  ) {
    super(`${part} failed validation`);
    this.name = 'RequestInvalid';
  }

  /** The failing field paths, never their values: `body failed validation: nonce, timestamp`. */
  get detail(): string {
    const part = this.part === 'querystring' ? 'query' : this.part;
    return `${part} failed validation: ${failingFields(this.error, `(${part})`).join(', ')}`;
  }
}

/** The paths of the fields that failed, each once, never their values; `whole` stands for a value
 *  that failed as a whole (not an object, say). */
export function failingFields(error: z.ZodError, whole: string): string[] {
  return [...new Set(error.issues.map((i) => i.path.join('.') || whole))];
}

/** Validates with the zod schema behind a route schema; a schema without one (a header schema
 *  written as plain JSON Schema for the document) is documentation only. */
export function useZodValidation(app: FastifyInstance, opts: { checkResponses?: boolean } = {}) {
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const zod = (schema as FastifySchema & { [ZOD_SCHEMA]?: z.ZodType })[ZOD_SCHEMA];
    if (!zod) return (data) => ({ value: data });
    const part = (httpPart ?? 'body') as HttpPart;
    return (data) => {
      const parsed = zod.safeParse(data);
      return parsed.success ? { value: parsed.data } : { error: new RequestInvalid(part, parsed.error) };
    };
  });
  // Answers are built by code from typed values; JSON.stringify writes them as they are. With
  // checkResponses (tests, CHECK_RESPONSES) each answer is first parsed with the schema its
  // route publishes for that status: an answer /openapi.json does not describe is a bug (500).
  app.setSerializerCompiler(({ schema, method, url, httpStatus }) => {
    const zod = (schema as FastifySchema & { [ZOD_SCHEMA]?: z.ZodType })[ZOD_SCHEMA];
    if (!opts.checkResponses || !zod) return (data) => JSON.stringify(data);
    return (data) => {
      const parsed = zod.safeParse(data);
      if (!parsed.success) throw new ResponseOffContract(`${method} ${url} ${httpStatus}`, parsed.error);
      return JSON.stringify(data);
    };
  });
}

/** An answer its route's published schema does not admit (checkResponses only). */
export class ResponseOffContract extends Error {
  constructor(
    readonly route: string,
    readonly error: z.ZodError,
  ) {
    super(`answer of ${route} does not match its schema: ${error.issues.map((i) => `${i.path.join('.') || '(root)'} ${i.code}`).join(', ')}`);
    this.name = 'ResponseOffContract';
  }
}
