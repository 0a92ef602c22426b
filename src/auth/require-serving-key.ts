// Route guard for Bearer serving-key endpoints. Decorates the request with the
// calling app; answers 401 with the documented error strings otherwise.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthOutcome, Principal } from './authenticator.js';
import type { Deadline } from '../util/deadline.js';
import { sendError, sendUnavailable } from '../http/errors.js';
import { countAuthFailure } from '../http/rate-limit.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** Set when the key store could not be reached and the key is not known from before. */
    authUnavailable: boolean;
    /** A key lookup still running when decide's budget ran out: decide answers TIMEOUT at once
     *  and records that answer once the lookup names the app. */
    lateAuthentication?: Promise<AuthOutcome>;
    /** The request's time budget, on routes that have one (decide sets it when the request arrives). */
    deadline?: Deadline;
  }
}

/** For endpoints that must fail open (decide): an unreachable key store is not a 401, the
 *  route decides what to answer. The lookup counts against the request's deadline: a key store
 *  that hangs (a partitioned database waits for its 5 s query timeout) must not hold decide past
 *  it, so once the budget is spent the key counts as unavailable and decide answers TIMEOUT. */
export async function authenticateServingKey(request: FastifyRequest, reply: FastifyReply) {
  const remainingMs = request.deadline?.remainingMs() ?? 0;
  let timer: NodeJS.Timeout | undefined;
  const budgetSpent = new Promise<AuthOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, unavailable: true }), Math.max(0, remainingMs));
  });
  const lookup = request.server.authenticator.authenticate(request.headers.authorization);
  try {
    const outcome = await Promise.race([lookup, budgetSpent]);
    if (!outcome.ok && 'unavailable' in outcome) request.lateAuthentication = lookup;
    await applyOutcome(outcome, request, reply, true);
  } finally {
    clearTimeout(timer);
  }
}

/** For endpoints that must not pretend (events): an unreachable key store is a 503. */
export async function requireServingKey(request: FastifyRequest, reply: FastifyReply) {
  await applyOutcome(await request.server.authenticator.authenticate(request.headers.authorization), request, reply, false);
  if (reply.sent) return;
  if (request.authUnavailable) return sendUnavailable(reply);
}

/** `guardFailures`: on the rate-limited routes (decide, affiliate), a wrong or missing key also
 *  counts against its address's own limit. */
async function applyOutcome(outcome: AuthOutcome, request: FastifyRequest, reply: FastifyReply, guardFailures: boolean) {
  if (outcome.ok) {
    request.principal = outcome.principal;
    return;
  }
  if ('unavailable' in outcome) {
    request.authUnavailable = true;
    return;
  }
  // A flood of requests without a valid key is answered 429 past its own per-address limit;
  // it never spends a host's quota (src/http/rate-limit.ts).
  const guard = guardFailures ? await countAuthFailure(request) : { limited: false, retryAfterSeconds: 0 };
  if (guard.limited) {
    reply.header('retry-after', String(guard.retryAfterSeconds));
    sendError(reply, 'rate_limited', { message: `more than ${request.server.config.authFailureLimitPerMinute} requests a minute without a valid key` });
    return;
  }
  sendError(reply, outcome.error);
}

/** The calling app, on a route guarded by `requireServingKey`, which answers before the
 *  handler when there is none. A handler reading it on a route without the guard is a
 *  programming error: thrown (500), never typed away with `!`. */
export function callerOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route reads its caller without a serving-key guard');
  return request.principal;
}
