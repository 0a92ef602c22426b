// Route guard for Bearer serving-key endpoints (SPEC §5). Decorates the request with the
// calling app; answers 401 with the documented error strings otherwise.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from './authenticator.js';
import { sendError, sendUnavailable } from '../http/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** Set when the key store could not be reached and the key is not known from before. */
    authUnavailable: boolean;
  }
}

/** For endpoints that must fail open (decide): an unreachable key store is not a 401, the
 *  route decides what to answer. */
export async function authenticateServingKey(request: FastifyRequest, reply: FastifyReply) {
  const outcome = await request.server.services.authenticator.authenticate(request.headers.authorization);
  if (outcome.ok) {
    request.principal = outcome.principal;
    return;
  }
  if ('unavailable' in outcome) {
    request.authUnavailable = true;
    return;
  }
  return sendError(reply, 401, outcome.error);
}

/** For endpoints that must not pretend (events): an unreachable key store is a 503. */
export async function requireServingKey(request: FastifyRequest, reply: FastifyReply) {
  await authenticateServingKey(request, reply);
  if (reply.sent) return;
  if (request.authUnavailable) return sendUnavailable(reply);
}
