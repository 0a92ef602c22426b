// Not found, or found with another method: the answer for every request no route took. A known
// path asked with a method it does not take answers 405 with `Allow` (RFC 9110 §15.5.6) rather
// than 404, so a client learns what the path accepts. Whether a path is known is the router's
// answer (`findRoute`, which decodes and normalises exactly as routing does), never a comparison
// of URL text: a guard and the router that disagree on a spelling is how the admin API was once
// reachable without its key.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './errors.js';

/** Collects the methods routes are registered with. Call before any route is registered. */
export function trackRouteMethods(app: FastifyInstance): Set<string> {
  const methods = new Set<string>();
  app.addHook('onRoute', (route) => {
    for (const m of [route.method].flat()) methods.add(m.toUpperCase());
  });
  return methods;
}

/** An onRequest hook for requests no route took: 405 with `Allow` when the router knows the path
 *  under other methods. On request, before Fastify looks at the body (it refuses a QUERY without
 *  a content type, for example), so every method gets the same clear answer. Add it in each
 *  context with its own not-found handler, after that context's access checks. */
export function methodNotAllowedHook(app: FastifyInstance, methods: ReadonlySet<string>) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.is404) return;
    const url = request.raw.url ?? '/';
    const allowed = [...methods].filter((method) => app.findRoute({ method: method as 'GET', url }) !== null).sort();
    if (allowed.length === 0) return;
    reply.header('allow', allowed.join(', '));
    return sendError(reply, 'method_not_allowed');
  };
}

export async function notFound(_request: FastifyRequest, reply: FastifyReply) {
  return sendError(reply, 'not_found');
}
