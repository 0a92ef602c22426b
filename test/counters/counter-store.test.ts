// One suite, every configured counter store: always the in-process store, and Redis as well when
// REDIS_URL is set (CI). Windows are short (200 ms) real-time windows, so both stores are tested
// the same way; memory-only details (sweep, bounds) use an injected clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import {
  CounterStoreUnavailable,
  createCounterStore,
  createRateLimitStore,
  MemoryCounterStore,
  RedisCounterStore,
  type ClaimCandidate,
  type CounterStore,
  type StartableCounterStore,
} from '../../src/counters/index.js';

const redisUrl = process.env.REDIS_URL;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const uid = () => randomBytes(4).toString('hex');

interface StoreUnderTest {
  kind: 'memory' | 'redis';
  /** Two handles on the same shared state: for Redis two separate clients (two instances), for
   *  memory the same object (its state is one process's). */
  open(prefix: string): { store: StartableCounterStore; other: StartableCounterStore };
}

const opened: CounterStore[] = [];
const track = <T extends CounterStore>(s: T): T => {
  opened.push(s);
  return s;
};

const storesUnderTest: StoreUnderTest[] = [
  {
    kind: 'memory',
    open(prefix) {
      const store = track(createCounterStore({ keyPrefix: prefix }));
      return { store, other: store };
    },
  },
  ...(redisUrl
    ? [
        {
          kind: 'redis' as const,
          open(prefix: string) {
            // A generous timeout: CI machines stall; the bounded-timeout behaviour is tested below.
            const make = () => track(new RedisCounterStore({ url: redisUrl, keyPrefix: prefix, commandTimeoutMs: 1000 }));
            return { store: make(), other: make() };
          },
        },
      ]
    : []),
];

const testPrefixes: string[] = [];
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  if (redisUrl && testPrefixes.length > 0) {
    // Leave nothing behind in a shared Redis.
    const raw = new Redis(redisUrl, { lazyConnect: true });
    await raw.connect();
    for (const prefix of testPrefixes) {
      const keys = await raw.keys(`${prefix}*`);
      if (keys.length > 0) await raw.del(...keys);
    }
    raw.disconnect();
  }
});

describe.each(storesUnderTest)('$kind counter store', ({ kind, open }) => {
  const prefix = `sn:test:${uid()}:`;
  testPrefixes.push(prefix);
  const { store, other } = open(prefix);

  beforeAll(async () => {
    expect(await store.ready(3000)).toBe(true);
    expect(await other.ready(3000)).toBe(true);
    expect(store.kind).toBe(kind);
  });

  describe('hit (fixed-window rate limit)', () => {
    it('counts hits in a window, shared by every handle, and resets after it', async () => {
      const first = await store.hit('w1', 200);
      expect(first).toEqual({ count: 1, resetInMs: 200 });
      const second = await other.hit('w1', 200);
      expect(second.count).toBe(2);
      expect(second.resetInMs).toBeGreaterThan(0);
      expect(second.resetInMs).toBeLessThanOrEqual(200);
      expect((await store.hit('w1', 200)).count).toBe(3);
      // Another key has its own window.
      expect((await store.hit('w2', 200)).count).toBe(1);
      await sleep(260);
      expect(await store.hit('w1', 200)).toEqual({ count: 1, resetInMs: 200 });
    });

    it('the window starts at the first hit and later hits do not extend it', async () => {
      await store.hit('w3', 300);
      await sleep(150);
      const later = await store.hit('w3', 300);
      expect(later.count).toBe(2);
      expect(later.resetInMs).toBeLessThanOrEqual(160);
    });

    it('counts every one of many concurrent hits exactly once', async () => {
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? other : store).hit('w4', 10_000)));
      expect(results.map((r) => r.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    });
  });

  describe('claimFirst', () => {
    it('claims the first candidate that passes and says why the earlier ones were skipped', async () => {
      const capped = { key: 'f:capped', limit: 1, windowMs: 60_000 };
      expect((await store.claimFirst([{ frequency: [capped], budgets: [] }])).claimedIndex).toBe(0);
      const outcome = await store.claimFirst([
        { frequency: [capped], budgets: [] },
        { frequency: [], budgets: [{ key: 'b:lifetime-small', limitMicros: 10, amountMicros: 11, ttlMs: null }] },
        { frequency: [], budgets: [{ key: 'b:daily-small', limitMicros: 10, amountMicros: 11, ttlMs: 5000 }] },
        { frequency: [{ key: 'f:ok', limit: 2, windowMs: 60_000 }], budgets: [{ key: 'b:ok', limitMicros: 100, amountMicros: 40, ttlMs: 60_000 }] },
        { frequency: [{ key: 'f:later', limit: 5, windowMs: 60_000 }], budgets: [{ key: 'b:later', limitMicros: 100, amountMicros: 1, ttlMs: null }] },
      ]);
      expect(outcome.claimedIndex).toBe(3);
      expect(outcome.skipped.map((s) => [s.index, s.reason])).toEqual([
        [0, 'frequency'],
        [1, 'budget'],
        [2, 'budget'],
      ]);
      // The frequency window ends when the first serve's window does.
      expect(outcome.skipped[0].retryAfterMs).toBeGreaterThan(59_000);
      expect(outcome.skipped[0].retryAfterMs).toBeLessThanOrEqual(60_000);
      // A lifetime budget has no window; a daily bucket that was never charged has none yet.
      expect(outcome.skipped[1].retryAfterMs).toBeNull();
      expect(outcome.skipped[2].retryAfterMs).toBeNull();
      // The claimed candidate was charged; the skipped and the later ones were not.
      expect(await other.get('f:ok')).toBe('1');
      expect(await other.get('b:ok')).toBe('40');
      expect(await other.get('b:lifetime-small')).toBeNull();
      expect(await other.get('f:later')).toBeNull();
      expect(await other.get('b:later')).toBeNull();
      expect(await other.get('f:capped')).toBe('1');
    });

    it('reports -1 with every candidate skipped, and retryAfter from the bucket that blocks', async () => {
      const daily = { key: 'b:daily', limitMicros: 100, amountMicros: 60, ttlMs: 60_000 };
      expect((await store.claimFirst([{ frequency: [], budgets: [daily] }])).claimedIndex).toBe(0);
      const none = await other.claimFirst([
        { frequency: [], budgets: [{ key: 'b:total', limitMicros: 1000, amountMicros: 60, ttlMs: null }, daily] },
        { frequency: [{ key: 'f:zero', limit: 0, windowMs: 1000 }], budgets: [] },
      ]);
      expect(none.claimedIndex).toBe(-1);
      expect(none.skipped).toHaveLength(2);
      expect(none.skipped[0]).toMatchObject({ index: 0, reason: 'budget' });
      expect(none.skipped[0].retryAfterMs).toBeGreaterThan(55_000);
      expect(none.skipped[0].retryAfterMs).toBeLessThanOrEqual(60_000);
      // A zero limit never passes and has no window to wait for.
      expect(none.skipped[1]).toEqual({ index: 1, reason: 'frequency', retryAfterMs: null });
      // Nothing was charged, not even the passing total of the skipped candidate.
      expect(await store.get('b:total')).toBeNull();
      expect(await store.get('b:daily')).toBe('60');
    });

    it('checks every key of a candidate: one capped key of several skips it', async () => {
      const outcome = await store.claimFirst([
        {
          frequency: [
            { key: 'f:multi-campaign', limit: 3, windowMs: 60_000 },
            { key: 'f:multi-session', limit: 0, windowMs: 60_000 },
          ],
          budgets: [{ key: 'b:multi', limitMicros: 100, amountMicros: 1, ttlMs: null }],
        },
      ]);
      expect(outcome).toEqual({ claimedIndex: -1, skipped: [{ index: 0, reason: 'frequency', retryAfterMs: null }] });
      expect(await store.get('f:multi-campaign')).toBeNull();
      expect(await store.get('b:multi')).toBeNull();
    });

    it('lets a spend that exactly fills the budget through, and not one micro more', async () => {
      const budget = { key: 'b:exact', limitMicros: 100, amountMicros: 50, ttlMs: null };
      const claim = () => store.claimFirst([{ frequency: [], budgets: [budget] }]);
      expect((await claim()).claimedIndex).toBe(0);
      expect((await claim()).claimedIndex).toBe(0);
      expect((await claim()).claimedIndex).toBe(-1);
      expect(await store.get('b:exact')).toBe('100');
    });

    it('handles no candidates, and a candidate without limits', async () => {
      expect(await store.claimFirst([])).toEqual({ claimedIndex: -1, skipped: [] });
      expect(await store.claimFirst([{ frequency: [], budgets: [] }])).toEqual({ claimedIndex: 0, skipped: [] });
    });

    it('never overspends a budget under 200 concurrent claims from two instances', async () => {
      const budget = { key: `b:race:${uid()}`, limitMicros: 1000, amountMicros: 7, ttlMs: null };
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) => (i % 2 ? other : store).claimFirst([{ frequency: [], budgets: [budget] }])),
      );
      const claimed = results.filter((r) => r.claimedIndex === 0).length;
      expect(claimed).toBe(Math.floor(1000 / 7));
      expect(Number(await store.get(budget.key))).toBe(claimed * 7);
      for (const r of results.filter((r) => r.claimedIndex === -1)) expect(r.skipped).toEqual([{ index: 0, reason: 'budget', retryAfterMs: null }]);
    });

    it('never overserves a frequency cap, and spills over to the next candidate, under 200 concurrent claims', async () => {
      const run = uid();
      const candidates: ClaimCandidate[] = [
        {
          frequency: [{ key: `f:race-a:${run}`, limit: 5, windowMs: 60_000 }],
          budgets: [{ key: `bd:race-a:${run}`, limitMicros: 1_000_000, amountMicros: 1000, ttlMs: 60_000 }],
        },
        {
          frequency: [],
          budgets: [{ key: `bt:race-b:${run}`, limitMicros: 150_000, amountMicros: 1000, ttlMs: null }],
        },
      ];
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? other : store).claimFirst(candidates)));
      const count = (index: number) => results.filter((r) => r.claimedIndex === index).length;
      expect(count(0)).toBe(5);
      expect(count(1)).toBe(150);
      expect(count(-1)).toBe(45);
      expect(await store.get(`f:race-a:${run}`)).toBe('5');
      expect(await store.get(`bd:race-a:${run}`)).toBe('5000');
      expect(await store.get(`bt:race-b:${run}`)).toBe('150000');
    });

    it('ends a frequency window when its time is up, counted from the first serve', async () => {
      const f = { key: `f:short:${uid()}`, limit: 2, windowMs: 200 };
      const claim = () => store.claimFirst([{ frequency: [f], budgets: [] }]);
      expect((await claim()).claimedIndex).toBe(0);
      await sleep(100);
      expect((await claim()).claimedIndex).toBe(0);
      const capped = await claim();
      expect(capped.claimedIndex).toBe(-1);
      expect(capped.skipped[0].retryAfterMs).toBeGreaterThan(0);
      expect(capped.skipped[0].retryAfterMs).toBeLessThanOrEqual(110);
      await sleep(150);
      expect((await claim()).claimedIndex).toBe(0);
    });

    it('expires a daily budget bucket after its ttl (set when created), never a lifetime total', async () => {
      const run = uid();
      const daily = { key: `bd:${run}`, limitMicros: 10, amountMicros: 10, ttlMs: 200 };
      const total = { key: `bt:${run}`, limitMicros: 10, amountMicros: 10, ttlMs: null };
      expect((await store.claimFirst([{ frequency: [], budgets: [daily] }])).claimedIndex).toBe(0);
      expect((await store.claimFirst([{ frequency: [], budgets: [total] }])).claimedIndex).toBe(0);
      const blocked = await store.claimFirst([{ frequency: [], budgets: [daily] }]);
      expect(blocked.skipped[0].reason).toBe('budget');
      expect(blocked.skipped[0].retryAfterMs).toBeGreaterThan(0);
      expect(blocked.skipped[0].retryAfterMs).toBeLessThanOrEqual(200);
      await sleep(260);
      expect(await store.get(daily.key)).toBeNull();
      expect((await store.claimFirst([{ frequency: [], budgets: [daily] }])).claimedIndex).toBe(0);
      expect(await store.claimFirst([{ frequency: [], budgets: [total] }])).toEqual({
        claimedIndex: -1,
        skipped: [{ index: 0, reason: 'budget', retryAfterMs: null }],
      });
    });

    it('rejects malformed limits the same way in every store, touching nothing', async () => {
      const key = `b:bad:${uid()}`;
      await expect(store.claimFirst([{ frequency: [], budgets: [{ key, limitMicros: 10, amountMicros: 1.5, ttlMs: null }] }])).rejects.toBeInstanceOf(RangeError);
      await expect(store.claimFirst([{ frequency: [{ key, limit: 1, windowMs: 0 }], budgets: [] }])).rejects.toBeInstanceOf(RangeError);
      await expect(store.hit(key, -1)).rejects.toBeInstanceOf(RangeError);
      await expect(store.putIfAbsent(key, 'v', 0)).rejects.toBeInstanceOf(RangeError);
      expect(await store.get(key)).toBeNull();
    });
  });

  describe('putIfAbsent, get, delete', () => {
    it('lets exactly one of 50 concurrent callers set the value; the others see it', async () => {
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? other : store).putIfAbsent('once', `v${i}`, 10_000)));
      expect(results.filter((r) => r === null)).toHaveLength(1);
      const winner = results.findIndex((r) => r === null);
      expect(new Set(results.filter((r) => r !== null))).toEqual(new Set([`v${winner}`]));
      expect(await other.get('once')).toBe(`v${winner}`);
    });

    it('honours the TTL: the value is gone after it, and the key can be set again', async () => {
      expect(await store.putIfAbsent('ttl', 'first', 200)).toBeNull();
      expect(await other.putIfAbsent('ttl', 'second', 200)).toBe('first');
      await sleep(260);
      expect(await store.get('ttl')).toBeNull();
      expect(await other.putIfAbsent('ttl', 'third', 200)).toBeNull();
      expect(await store.get('ttl')).toBe('third');
    });

    it('deletes, and get of a missing key is null', async () => {
      expect(await store.putIfAbsent('del', 'x', 10_000)).toBeNull();
      await other.delete('del');
      expect(await store.get('del')).toBeNull();
      await store.delete('never-set');
      expect(await store.putIfAbsent('del', 'y', 10_000)).toBeNull();
    });
  });

  it('answers ping', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });

  describe('@fastify/rate-limit adapter', () => {
    const build = async (s: CounterStore) => {
      const app = Fastify();
      await app.register(rateLimit, { global: false, store: createRateLimitStore(s), skipOnError: true });
      app.get('/limited', { config: { rateLimit: { max: 3, timeWindow: 60_000 } } }, async () => ({ ok: true }));
      app.get('/other', { config: { rateLimit: { max: 1, timeWindow: 60_000 } } }, async () => ({ ok: true }));
      return app;
    };

    it('answers 429 with retry-after after the limit, one limit shared by two app instances', async () => {
      const a = await build(store);
      const b = await build(other);
      try {
        const ip = `10.1.${kind === 'redis' ? 2 : 1}.${Math.floor(Math.random() * 250)}`;
        const responses = [];
        for (let i = 0; i < 5; i++) responses.push(await (i % 2 ? b : a).inject({ url: '/limited', remoteAddress: ip }));
        expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 429, 429]);
        expect(responses[0].headers['x-ratelimit-limit']).toBe('3');
        expect(responses[0].headers['x-ratelimit-remaining']).toBe('2');
        expect(Number(responses[3].headers['retry-after'])).toBeGreaterThan(0);
        expect(Number(responses[3].headers['retry-after'])).toBeLessThanOrEqual(60);
        // Another client, and another route, count on their own.
        expect((await a.inject({ url: '/limited', remoteAddress: '10.9.9.9' })).statusCode).toBe(200);
        expect((await a.inject({ url: '/other', remoteAddress: ip })).statusCode).toBe(200);
        expect((await b.inject({ url: '/other', remoteAddress: ip })).statusCode).toBe(429);
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
});

describe('memory counter store: bounds and sweeping', () => {
  it('expires entries lazily and sweeps expired ones on its timer, and close() clears it', async () => {
    let now = 1_000_000;
    const store = new MemoryCounterStore({ now: () => now, sweepIntervalMs: 20, sweepBatch: 2 });
    for (let i = 0; i < 5; i++) await store.hit(`k${i}`, 100);
    await store.claimFirst([{ frequency: [], budgets: [{ key: 'lifetime', limitMicros: 10, amountMicros: 1, ttlMs: null }] }]);
    expect(store.size).toBe(6);
    now += 101;
    expect(await store.get('k0')).toBeNull(); // lazily, on access
    await sleep(120); // several sweep ticks of two entries each
    expect(store.size).toBe(1);
    expect(await store.get('lifetime')).toBe('1');
    await store.close();
    expect(store.size).toBe(0);
  });

  it('holds at most maxEntries, evicting entries with an expiry before lifetime totals', async () => {
    const store = new MemoryCounterStore({ maxEntries: 10 });
    try {
      await store.claimFirst([{ frequency: [], budgets: [{ key: 'bt:keep', limitMicros: 100, amountMicros: 5, ttlMs: null }] }]);
      for (let i = 0; i < 100; i++) await store.hit(`rl:${i}`, 60_000);
      expect(store.size).toBe(10);
      expect(await store.get('bt:keep')).toBe('5');
      expect(await store.get('rl:99')).toBe('1');
      expect(await store.get('rl:0')).toBeNull();
    } finally {
      await store.close();
    }
  });
});

// These need no Redis server: the store points at a port nothing listens on. They run in every
// run, since ioredis is always installed and the service can always be configured with a bad URL.
describe('Redis counter store when Redis is unreachable', () => {
  let closedPort: number;
  beforeAll(async () => {
    const net = await import('node:net');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closedPort = (server.address() as { port: number }).port;
    await new Promise((resolve) => server.close(resolve));
  });

  it('starts without throwing, and every call fails fast with CounterStoreUnavailable and no driver text', async () => {
    const logs: Array<{ obj: object; msg: string }> = [];
    const logger = { warn: (obj: object, msg: string) => logs.push({ obj, msg }) };
    const down = createCounterStore({ redisUrl: `redis://127.0.0.1:${closedPort}/0`, keyPrefix: 'sn:down:', logger });
    try {
      expect(down.kind).toBe('redis');
      expect(await down.ready(300)).toBe(false);
      const canaryKey = 'nc:app_1:CANARY-KEY-7731';
      const calls: Array<() => Promise<unknown>> = [
        () => down.claimFirst([{ frequency: [{ key: canaryKey, limit: 1, windowMs: 1000 }], budgets: [] }]),
        () => down.hit(canaryKey, 1000),
        () => down.putIfAbsent(canaryKey, 'CANARY-VALUE-5521', 1000),
        () => down.get(canaryKey),
        () => down.delete(canaryKey),
        () => down.ping(),
      ];
      for (const call of calls) {
        const started = Date.now();
        const err = await call().then(
          () => null,
          (e: unknown) => e,
        );
        expect(Date.now() - started).toBeLessThan(1000);
        expect(err).toBeInstanceOf(CounterStoreUnavailable);
        const e = err as CounterStoreUnavailable;
        expect(e.message).toBe('counter store unavailable');
        expect(e.code).toBe('COUNTER_STORE_UNAVAILABLE');
        const everything = `${e.message} ${e.stack} ${JSON.stringify(e)} ${String((e as { cause?: unknown }).cause ?? '')}`;
        for (const leak of ['ECONNREFUSED', '127.0.0.1', String(closedPort), 'Stream', 'ioredis', 'CANARY']) expect(everything).not.toContain(leak);
      }
      // Logged with the key prefix, never a key or a value.
      expect(logs.length).toBeGreaterThan(0);
      const logged = JSON.stringify(logs);
      expect(logged).toContain('sn:down:');
      expect(logged).not.toContain('CANARY');
    } finally {
      await down.close();
    }
  });

  it('answers the rate limit within its bound when the store hangs, failing open', async () => {
    // A store whose hit never settles: a Redis that accepted the connection and went silent.
    const hung = { hit: () => new Promise<never>(() => {}) } as unknown as CounterStore;
    const app = Fastify();
    await app.register(rateLimit, { global: false, store: createRateLimitStore(hung, { answerWithinMs: 50 }), skipOnError: true });
    app.get('/limited', { config: { rateLimit: { max: 1, timeWindow: 60_000 } } }, async () => ({ ok: true }));
    try {
      const started = Date.now();
      const res = await app.inject({ url: '/limited' });
      expect(res.statusCode).toBe(200);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      await app.close();
    }
  });

  it('lets @fastify/rate-limit fail open (skipOnError), and is never a 500 with driver text without it', async () => {
    const down = createCounterStore({ redisUrl: `redis://127.0.0.1:${closedPort}/0` });
    const build = async (skipOnError: boolean) => {
      const app = Fastify();
      await app.register(rateLimit, { global: false, store: createRateLimitStore(down), skipOnError });
      app.get('/limited', { config: { rateLimit: { max: 1, timeWindow: 60_000 } } }, async () => ({ ok: true }));
      return app;
    };
    const open = await build(true);
    const strict = await build(false);
    try {
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        expect((await open.inject({ url: '/limited' })).statusCode).toBe(200);
        expect(Date.now() - started).toBeLessThan(1000);
      }
      const res = await strict.inject({ url: '/limited' });
      expect(res.statusCode).toBe(503);
      expect(res.body).toContain('counter store unavailable');
      for (const leak of ['ECONNREFUSED', '127.0.0.1', 'Stream', 'enableOfflineQueue']) expect(res.body).not.toContain(leak);
    } finally {
      await open.close();
      await strict.close();
      await down.close();
    }
  });
});

// A Redis that stops answering (as under SIGSTOP) and one that is down at startup, through a
// small TCP proxy in front of the real server: pausing the proxy holds the bytes as a stopped
// server would, so replies stay in order when it resumes.
if (redisUrl) {
  describe('Redis counter store when Redis hangs or starts late', () => {
    const target = new URL(redisUrl);
    const net = import('node:net');

    async function startProxy(port = 0) {
      const { createServer, connect } = await net;
      let paused = false;
      const pairs: Array<{ client: import('node:net').Socket; upstream: import('node:net').Socket }> = [];
      const server = createServer((client) => {
        const upstream = connect(Number(target.port || 6379), target.hostname);
        pairs.push({ client, upstream });
        if (paused) client.pause();
        client.pipe(upstream);
        upstream.pipe(client);
        const end = () => {
          client.destroy();
          upstream.destroy();
        };
        client.on('error', end).on('close', end);
        upstream.on('error', end).on('close', end);
      });
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      return {
        port: (server.address() as { port: number }).port,
        pause() {
          paused = true;
          for (const p of pairs) p.client.pause();
        },
        resume() {
          paused = false;
          for (const p of pairs) p.client.resume();
        },
        async close() {
          for (const p of pairs) {
            p.client.destroy();
            p.upstream.destroy();
          }
          await new Promise((resolve) => server.close(resolve));
        },
      };
    }

    it('fails each call within about the command timeout while Redis hangs, and recovers after', async () => {
      const proxy = await startProxy();
      const db = target.pathname.slice(1) || '0';
      const prefix = `sn:test:${uid()}:`;
      testPrefixes.push(prefix);
      const store = new RedisCounterStore({ url: `redis://127.0.0.1:${proxy.port}/${db}`, keyPrefix: prefix, commandTimeoutMs: 200 });
      try {
        expect(await store.ready(3000)).toBe(true);
        expect((await store.hit('h', 10_000)).count).toBe(1);
        proxy.pause();
        const started = Date.now();
        const results = await Promise.all(
          Array.from({ length: 20 }, () => store.claimFirst([{ frequency: [], budgets: [{ key: 'b', limitMicros: 100, amountMicros: 1, ttlMs: null }] }]).catch((e: unknown) => e)),
        );
        expect(Date.now() - started).toBeLessThan(1000);
        for (const r of results) expect(r).toBeInstanceOf(CounterStoreUnavailable);
        await expect(store.ping()).rejects.toBeInstanceOf(CounterStoreUnavailable);
        proxy.resume();
        // Back within a few reconnect attempts at most; replies must match their commands.
        let count = 0;
        for (let i = 0; i < 50 && count === 0; i++) {
          count = await store.hit('h', 10_000).then(
            (r) => r.count,
            async () => {
              await sleep(100);
              return 0;
            },
          );
        }
        expect(count).toBeGreaterThanOrEqual(2);
        expect(await store.putIfAbsent('after', 'v', 10_000)).toBeNull();
        expect(await store.get('after')).toBe('v');
      } finally {
        await store.close();
        await proxy.close();
      }
    });

    it('starts while Redis is down, fails open, and connects once Redis is reachable', async () => {
      const probe = await startProxy();
      const port = probe.port;
      await probe.close(); // nothing listens on `port` now
      const db = target.pathname.slice(1) || '0';
      const prefix = `sn:test:${uid()}:`;
      testPrefixes.push(prefix);
      const store = createCounterStore({ redisUrl: `redis://127.0.0.1:${port}/${db}`, keyPrefix: prefix });
      let proxy: Awaited<ReturnType<typeof startProxy>> | null = null;
      try {
        expect(await store.ready(300)).toBe(false);
        await expect(store.hit('late', 1000)).rejects.toBeInstanceOf(CounterStoreUnavailable);
        proxy = await startProxy(port);
        expect(await store.ready(5000)).toBe(true);
        expect((await store.hit('late', 1000)).count).toBe(1);
      } finally {
        await store.close();
        await proxy?.close();
      }
    });

    it('stores keys under the prefix, a daily bucket with its TTL and a lifetime total without one', async () => {
      const prefix = `sn:test:${uid()}:`;
      testPrefixes.push(prefix);
      const store = track(new RedisCounterStore({ url: redisUrl, keyPrefix: prefix }));
      const raw = new Redis(redisUrl, { lazyConnect: true });
      try {
        await store.ready(3000);
        await raw.connect();
        await store.claimFirst([
          {
            frequency: [{ key: 'fq', limit: 1, windowMs: 30_000 }],
            budgets: [
              { key: 'bt', limitMicros: 10, amountMicros: 1, ttlMs: null },
              { key: 'bd', limitMicros: 10, amountMicros: 1, ttlMs: 90_000 },
            ],
          },
        ]);
        expect(await raw.get(`${prefix}bt`)).toBe('1');
        expect(await raw.pttl(`${prefix}bt`)).toBe(-1);
        expect(await raw.pttl(`${prefix}bd`)).toBeGreaterThan(85_000);
        expect(await raw.pttl(`${prefix}fq`)).toBeGreaterThan(25_000);
        expect(await raw.exists('bt')).toBe(0);
      } finally {
        raw.disconnect();
      }
    });
  });
}
