// Adapts the counter store to @fastify/rate-limit v11's store contract, so rate-limit windows
// live in Redis and every instance sharing it shares one limit.
//
// Contract (node_modules/@fastify/rate-limit/index.js): the plugin does `new Store(globalParams)`,
// calls `child(mergedRouteParams)` once per route with its own `config.rateLimit`, and per request
// `incr(key, cb, timeWindow, max)` expecting `cb(null, { current, ttl })` (ttl in ms).
// The optional `read` (needed only for `createRateLimit(...)(req, { increment: false })`) is not
// implemented; the plugin then fails fast with a clear message.
//
// Store errors: the plugin rethrows a store error unless `skipOnError: true`, in which case it
// lets the request through as if under the limit. Sidenote registers it with skipOnError: true
// (src/http/rate-limit.ts): a counter store outage fails OPEN, it never becomes errors for hosts.
// The error passed back is always CounterStoreUnavailable (fixed message, statusCode 503), so even
// without skipOnError it could not become a 500 that carries driver text.
//
// Keys: counterKeys.rateLimit(scope, clientKey); the client key is already a keyed hash of the
// address (src/http/rate-limit.ts: an unkeyed hash of an IPv4 address is reversed by trying all
// of them), hashed again here, and the scope is the route's method and URL pattern (never the
// request's URL).
import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { CounterStoreUnavailable, type CounterStore } from './counter-store.js';
import { counterKeys } from './keys.js';

type IncrCallback = Parameters<FastifyRateLimitStore['incr']>[1];

/** What the plugin passes at runtime (its typings name route options; it is the merged params). */
interface StoreParams {
  continueExceeding?: boolean;
  exponentialBackoff?: boolean;
  routeInfo?: { method?: string | string[]; url?: string };
}

/** A store class for `@fastify/rate-limit`'s `store` option, backed by `counters.hit`.
 *  `answerWithinMs` bounds how long a request waits for the limit: past it the check counts as
 *  a store error, which fails open. The limit runs before decide's handler, so without this a
 *  slow or hung Redis would hold decide for the whole command timeout, past its time budget. */
export function createRateLimitStore(counters: CounterStore, opts: { answerWithinMs?: number } = {}): FastifyRateLimitStoreCtor {
  class CounterRateLimitStore implements FastifyRateLimitStore {
    private readonly scope: string;

    constructor(options: FastifyRateLimitOptions | StoreParams, scope = 'global') {
      const params = options as StoreParams;
      // A fixed window is all CounterStore.hit offers; refuse options it would silently ignore.
      if (params?.continueExceeding || params?.exponentialBackoff) {
        throw new Error('counter rate-limit store supports neither continueExceeding nor exponentialBackoff');
      }
      this.scope = scope;
    }

    incr(key: string, cb: IncrCallback, timeWindow: number) {
      let window = Math.trunc(Number(timeWindow));
      if (!Number.isFinite(window) || window < 1) window = 1;
      let settled = false;
      const settle = (err: Error | null, value?: { current: number; ttl: number }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        cb(err, value as { current: number; ttl: number });
      };
      const timer = opts.answerWithinMs === undefined ? undefined : setTimeout(() => settle(new CounterStoreUnavailable()), opts.answerWithinMs);
      counters.hit(counterKeys.rateLimit(this.scope, String(key)), window).then(
        (r) => settle(null, { current: r.count, ttl: r.resetInMs }),
        () => settle(new CounterStoreUnavailable()),
      );
    }

    child(routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
      const params = routeOptions as unknown as StoreParams;
      const info = params?.routeInfo ?? {};
      const method = Array.isArray(info.method) ? info.method.join(',') : (info.method ?? '');
      // The route's pattern (e.g. /v1/decide), not the requested URL: bounded and ours.
      const scope = `${method}${info.url ?? ''}` || 'adhoc';
      return new CounterRateLimitStore(params, scope.replace(/[^A-Za-z0-9_.,/-]/g, '_'));
    }
  }
  return CounterRateLimitStore;
}
