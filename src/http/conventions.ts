// What every route of a Sidenote server shares: errors in the API's format, zod validation,
// one log line per request when asked (LOG_REQUESTS), JSON bodies only, and connections that close while draining.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { installErrorHandler } from './errors.js';
import { useZodValidation } from './validation.js';

/** The request's one log line: what was asked (method and route pattern), the answer and how
 *  long it took. No address, no URL, no body. */
async function logRequestCompleted(request: FastifyRequest, reply: FastifyReply) {
  request.log.info(
    { method: request.method, route: request.routeOptions.url ?? null, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
    'request completed',
  );
}

async function httpConventions(app: FastifyInstance, opts: { logRequests?: boolean; checkResponses?: boolean }) {
  installErrorHandler(app);
  useZodValidation(app, { checkResponses: opts.checkResponses });
  if (opts.logRequests) app.addHook('onResponse', logRequestCompleted);
  // Every body is JSON; anything else is 415, not a string for the handlers to puzzle over.
  app.removeContentTypeParser('text/plain');
  // While draining, every response asks its client to close the connection, so keep-alive
  // sockets end as soon as their last request is answered and shutdown is not held open.
  let draining = false;
  app.addHook('preClose', async () => {
    draining = true;
  });
  app.addHook('onSend', async (request, reply) => {
    if (draining) reply.header('connection', 'close');
    // Every answer names its request (server-options.ts, requestId), so a host can quote it.
    reply.header('x-request-id', request.id);
  });
}

export default fp(httpConventions, { name: 'http-conventions', fastify: '5.x' });
