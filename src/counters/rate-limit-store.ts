// Adapts the counter store to @fastify/rate-limit v11's store contract, so rate-limit windows
// live in Redis and every instance sharing it shares one limit.
//
// Counted locally, synchronised in batches (issue 16: a Redis command per request was a fifth of
// decide's CPU). Each instance keeps, per client and route, the count the store last answered
// plus the hits it has taken since. While that total is at most half the limit, or already over
// it, the request is answered from it at once and its hit joins the next batch: one `hits`
// script for every window touched in an event-loop turn. Between half the limit and the limit,
// every hit is counted in the store before the answer, so the last admissions are exact. One
// instance answers exactly as before. Over N instances a client is admitted at most about
// max(limit, N × limit / 2) times in a window, less in practice: batches leave within the turn
// that counted them. SPEC's limit is per client IP; DESIGN's "shared across instances" holds.
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
import { CounterStoreUnavailable, type CounterStore, type WindowHit } from './counter-store.js';
import { counterKeys } from './keys.js';

type IncrCallback = Parameters<FastifyRateLimitStore['incr']>[1];

/** What the plugin passes at runtime (its typings name route options; it is the merged params). */
interface StoreParams {
  continueExceeding?: boolean;
  exponentialBackoff?: boolean;
  routeInfo?: { method?: string | string[]; url?: string };
}

/** One client's window on one route, as this instance knows it. */
interface Window {
  /** The count the store last answered (every instance's hits it had seen). */
  synced: number;
  /** Hits taken here and not yet sent. */
  pending: number;
  /** Hits sent and not yet answered. */
  sending: number;
  windowMs: number;
  resetAt: number;
}

/** Windows kept in memory at most; the oldest go first (a flood of addresses cannot grow it). */
const MAX_WINDOWS = 100_000;
/** After a failed batch, the next one waits this long: a store that is down is not asked every turn. */
const RETRY_AFTER_FAILURE_MS = 1_000;

class RateWindows {
  private readonly windows = new Map<string, Window>();
  private flushScheduled = false;
  private quietUntil = 0;

  constructor(
    private readonly counters: CounterStore,
    private readonly answerWithinMs: number | undefined,
  ) {}

  incr(key: string, windowMs: number, max: number, cb: IncrCallback): void {
    const now = Date.now();
    let w = this.windows.get(key);
    if (!w || now >= w.resetAt) {
      w = { synced: 0, pending: 0, sending: 0, windowMs, resetAt: now + windowMs };
      this.windows.delete(key);
      this.windows.set(key, w);
      if (this.windows.size > MAX_WINDOWS) this.windows.delete(this.windows.keys().next().value!);
    }
    w.pending++;
    const local = w.synced + w.sending + w.pending;
    if (local <= max / 2 || w.synced > max) {
      cb(null, { current: local, ttl: Math.max(0, w.resetAt - now) });
      this.scheduleFlush();
      return;
    }
    this.countExactly(key, w, cb);
  }

  /** Near the limit: this window's hits go to the store now, and its answer is the answer. */
  private countExactly(key: string, w: Window, cb: IncrCallback): void {
    const by = w.pending;
    w.pending = 0;
    w.sending += by;
    let settled = false;
    const settle = (err: Error | null, value?: { current: number; ttl: number }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      cb(err, value as { current: number; ttl: number });
    };
    // Past the bound the check fails open (the plugin's skipOnError); the hits stay counted here.
    const timer = this.answerWithinMs === undefined ? undefined : setTimeout(() => settle(new CounterStoreUnavailable()), this.answerWithinMs);
    this.counters.hits([{ key, windowMs: w.windowMs, by }]).then(
      ([r]) => {
        this.settled(w, by, r);
        settle(null, { current: r.count, ttl: r.resetInMs });
      },
      (err: unknown) => {
        this.failed(w, by, err);
        settle(new CounterStoreUnavailable());
      },
    );
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    const wait = this.quietUntil - Date.now();
    if (wait > 0) setTimeout(() => this.flush(), wait).unref();
    else setImmediate(() => this.flush());
  }

  /** Sends every window's pending hits in one call. */
  private flush(): void {
    this.flushScheduled = false;
    const sent: [Window, number][] = [];
    const batch: WindowHit[] = [];
    for (const [key, w] of this.windows) {
      if (w.pending === 0) continue;
      sent.push([w, w.pending]);
      batch.push({ key, windowMs: w.windowMs, by: w.pending });
      w.sending += w.pending;
      w.pending = 0;
    }
    if (batch.length === 0) return;
    this.counters.hits(batch).then(
      (results) => results.forEach((r, i) => this.settled(sent[i][0], sent[i][1], r)),
      (err: unknown) => {
        for (const [w, by] of sent) this.failed(w, by, err);
        this.quietUntil = Date.now() + RETRY_AFTER_FAILURE_MS;
        this.scheduleFlush();
      },
    );
  }

  private settled(w: Window, by: number, r: { count: number; resetInMs: number }): void {
    // Replies come in the order batches were sent, so the count includes every earlier batch of
    // this window and none still sending.
    w.sending -= by;
    w.synced = Math.max(w.synced, r.count);
    w.resetAt = Date.now() + r.resetInMs;
  }

  /** A batch failed. If the store did not take it, its hits count here and go with a later
   *  batch. If it may have (the answer timed out: a slow store, not a down one), sending them
   *  again could count them twice and refuse a client under its limit, so they are taken as
   *  counted: at most once, as a store that fails is treated everywhere (fail open). */
  private failed(w: Window, by: number, err: unknown): void {
    w.sending -= by;
    if (err instanceof CounterStoreUnavailable && err.mayHaveRun) w.synced += by;
    else w.pending += by;
  }
}

/** A store class for `@fastify/rate-limit`'s `store` option, backed by the counter store.
 *  `answerWithinMs` bounds how long a request waits for the limit: past it the check counts as
 *  a store error, which fails open. The limit runs before decide's handler, so without this a
 *  slow or hung Redis would hold decide for the whole command timeout, past its time budget. */
export function createRateLimitStore(counters: CounterStore, opts: { answerWithinMs?: number } = {}): FastifyRateLimitStoreCtor {
  const windows = new RateWindows(counters, opts.answerWithinMs);
  class CounterRateLimitStore implements FastifyRateLimitStore {
    private readonly scope: string;

    constructor(options: FastifyRateLimitOptions | StoreParams, scope = 'global') {
      const params = options as StoreParams;
      // A fixed window is all the counter store offers; refuse options it would silently ignore.
      if (params?.continueExceeding || params?.exponentialBackoff) {
        throw new Error('counter rate-limit store supports neither continueExceeding nor exponentialBackoff');
      }
      this.scope = scope;
    }

    incr(key: string, cb: IncrCallback, timeWindow: number, max?: number) {
      let window = Math.trunc(Number(timeWindow));
      if (!Number.isFinite(window) || window < 1) window = 1;
      windows.incr(counterKeys.rateLimit(this.scope, String(key)), window, Number(max ?? 0), cb);
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
