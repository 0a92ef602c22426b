// Per-client rate limits through @fastify/rate-limit, a well-kept plugin that already does
// windows, headers and per-route limits. Its windows live in our counter store, so instances
// sharing Redis share one limit. `request.ip` honours X-Forwarded-For only from the configured
// trusted proxies (Fastify's trustProxy), never from arbitrary callers.
//
// A client is its address, an IPv6 address cut to its first RATE_LIMIT_IPV6_PREFIX_BITS (64 by
// default: one subscriber's prefix). On routes that take a serving key the limit runs after
// authentication (`hook: 'preHandler'`), per calling app and address: a host's quota is spent
// only by its own authenticated calls, never by someone else's requests from the same address.
// Requests with no valid key are guarded apart (`countAuthFailure`).
import { createHmac } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import { createRateLimitStore } from '../counters/rate-limit-store.js';
import { boundedMemo } from '../util/bounded-memo.js';
import { counterKeys } from '../counters/keys.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** A client address as every per-address limit counts it: a keyed hash of the address
     *  (IPv6 cut to the configured prefix), never the address itself. */
    clientIdentity(ip: string): string;
  }
}

/** A client's rate-limit identity: a keyed hash of its address (IPv6 cut to `v6Prefix` bits
 *  first), so counter-store keys never hold a raw address (docs/operations.md, privacy). */
export function clientIdentity(key: Buffer, ip: string, v6Prefix: number): string {
  return createHmac('sha256', key).update(normalizeIP(ip, v6Prefix)).digest('base64url').slice(0, 22);
}

/** [`clientIdentity`] under one key, remembered per address (at most 10,000). A host's servers
 *  call from a handful of addresses and a visitor clicks from one, and each hash costs an HMAC
 *  and an IPv6 parse (about 4 µs, a few percent of a redirect): each address is hashed once. The
 *  memo lives in this process' memory only, as the request's own address does; nothing here is
 *  written anywhere. */
export function clientIdentities(key: Buffer, v6Prefix: number): (ip: string) => string {
  return boundedMemo(10_000, (ip: string) => clientIdentity(key, ip, v6Prefix));
}

/** The window of an authenticated caller: its app and its address. */
function callerKey(app: FastifyInstance, request: FastifyRequest): string {
  const address = app.clientIdentity(request.ip);
  return request.principal ? `${request.principal.appId}.${address}` : address;
}

const AUTH_FAILURE_WINDOW_MS = 60_000;

/** Counts one request whose serving key was missing or wrong against its address; true when the
 *  address is past AUTH_FAILURE_LIMIT_PER_MINUTE (answer 429, not 401). A counter store that
 *  cannot answer lets the request be answered as usual: the guard fails open. */
export async function countAuthFailure(request: FastifyRequest): Promise<{ limited: boolean; retryAfterSeconds: number }> {
  const app = request.server;
  try {
    const [window] = await app.counters.hits([
      { key: counterKeys.rateLimit('auth-failures', app.clientIdentity(request.ip)), windowMs: AUTH_FAILURE_WINDOW_MS, by: 1 },
    ]);
    return { limited: window.count > app.config.authFailureLimitPerMinute, retryAfterSeconds: Math.max(1, Math.ceil(window.resetInMs / 1000)) };
  } catch {
    return { limited: false, retryAfterSeconds: 0 };
  }
}

async function rateLimiting(app: FastifyInstance) {
  const addressKey = app.links.deriveKey('rate-limit-address');
  const v6Prefix = app.config.rateLimitIpv6PrefixBits;
  app.decorate('clientIdentity', clientIdentities(addressKey, v6Prefix));
  await app.register(rateLimit, {
    // Only routes that ask for a limit get one (decide, affiliate, click intent, redirect).
    global: false,
    // The limited routes (decide, affiliate, click intent) answer within the decide budget.
    store: createRateLimitStore(app.counters, { answerWithinMs: app.config.decideTimeBudgetMs }),
    keyGenerator: (request) => callerKey(app, request),
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
