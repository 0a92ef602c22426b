// Per-client-IP rate limits through @fastify/rate-limit, a well-kept plugin that already does
// windows, headers and per-route limits. Its windows live in our counter store, so instances
// sharing Redis share one limit. `request.ip` honours X-Forwarded-For only from the configured
// trusted proxies (Fastify's trustProxy), never from arbitrary callers (DESIGN.md §4).
import { createHmac } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import { createRateLimitStore } from '../counters/rate-limit-store.js';

/** A client's rate-limit identity: a keyed hash of its address (IPv6 cut to `v6Prefix` bits
 *  first), so counter-store keys never hold a raw address (docs/operations.md, privacy). */
export function clientIdentity(key: Buffer, ip: string, v6Prefix = 128): string {
  return createHmac('sha256', key).update(normalizeIP(ip, v6Prefix)).digest('base64url').slice(0, 22);
}

async function rateLimiting(app: FastifyInstance) {
  const addressKey = app.links.deriveKey('rate-limit-address');
  await app.register(rateLimit, {
    // Only routes that ask for a limit get one (decide, affiliate).
    global: false,
    // The limited routes (decide, affiliate, click intent) answer within the decide budget.
    store: createRateLimitStore(app.counters, { answerWithinMs: app.config.decideTimeBudgetMs }),
    keyGenerator: (request) => clientIdentity(addressKey, request.ip),
    // A counter store outage must not turn into errors for hosts: the limit fails open.
    skipOnError: true,
    errorResponseBuilder: (_request, context) => ({
      statusCode: 429,
      ok: false,
      error: 'rate_limited',
      message: `rate limit of ${context.max} requests per minute exceeded; retry after ${context.after}`,
    }),
  });
}

/** Registered before the features, so their routes' `config.rateLimit` finds it. */
export default fp(rateLimiting, { name: 'rate-limiting', dependencies: ['config', 'counters', 'links'], fastify: '5.x' });
