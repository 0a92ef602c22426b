// One suite, every configured counter store: always the in-process store, and Redis as well when
// REDIS_URL is set (CI). Windows are short (200 ms) real-time windows, so both stores are tested
// the same way; memory-only details (sweep, bounds) use an injected clock.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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
  type SpendClaim,
  type StartableCounterStore,
} from '../../src/counters/index.js';
import { counterKeys } from '../../src/counters/keys.js';

const redisUrl = process.env.REDIS_URL;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** "Fails fast" against a store that is down or hangs: an answer within its bound (tens to
 *  hundreds of milliseconds), where the failure it guards against waits for ever or for ioredis'
 *  retries (tens of seconds). Wide enough that a loaded machine does not blur the two. */
const FAILS_FAST_MS = 5_000;
const uid = () => randomBytes(4).toString('hex');
/** One fixed-window hit: a batch of one. */
const hit = (s: CounterStore, key: string, windowMs: number) => s.hits([{ key, windowMs, by: 1 }]).then(([r]) => r);

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
      const first = await hit(store, 'w1', 200);
      expect(first).toEqual({ count: 1, resetInMs: 200 });
      const second = await hit(other, 'w1', 200);
      expect(second.count).toBe(2);
      expect(second.resetInMs).toBeGreaterThan(0);
      expect(second.resetInMs).toBeLessThanOrEqual(200);
      expect((await hit(store, 'w1', 200)).count).toBe(3);
      // Another key has its own window.
      expect((await hit(store, 'w2', 200)).count).toBe(1);
      await sleep(260);
      expect(await hit(store, 'w1', 200)).toEqual({ count: 1, resetInMs: 200 });
    });

    it('the window starts at the first hit and later hits do not extend it', async () => {
      await hit(store, 'w3', 300);
      await sleep(150);
      const later = await hit(store, 'w3', 300);
      expect(later.count).toBe(2);
      expect(later.resetInMs).toBeLessThanOrEqual(160);
    });

    it('counts every one of many concurrent hits exactly once', async () => {
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => hit(i % 2 ? other : store, 'w4', 10_000)));
      expect(results.map((r) => r.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    });

    it('adds a batch of hits to many windows in one call, in the order asked', async () => {
      await hit(store, 'w5', 10_000);
      const results = await other.hits([
        { key: 'w5', windowMs: 10_000, by: 4 },
        { key: 'w6', windowMs: 300, by: 2 },
      ]);
      expect(results.map((r) => r.count)).toEqual([5, 2]);
      expect(results[1].resetInMs).toBeLessThanOrEqual(300);
      expect((await hit(store, 'w6', 300)).count).toBe(3);
      await expect(store.hits([{ key: 'w7', windowMs: 100, by: 0 }])).rejects.toBeInstanceOf(RangeError);
    });
  });

  describe('claimFirst, refund and the spend records', () => {
    const DAY = '2026-11-23';
    const spend = (campaignId: string, o: Partial<SpendClaim> = {}): SpendClaim => ({
      campaignId,
      amountMicros: 10,
      totalLimitMicros: 1_000,
      dailyLimitMicros: 1_000,
      day: DAY,
      msToDayEnd: 3_600_000,
      ...o,
    });
    const load = (campaignId: string, totalMicros = 0, dayMicros = 0, day = DAY) => store.loadSpend([{ campaignId, totalMicros, day, dayMicros }]);
    const cmp = () => `cmp.${uid()}`;

    it('claims the first candidate that passes and says why the earlier ones were skipped', async () => {
      const [capped, broke, unknown, ok, later] = [cmp(), cmp(), cmp(), cmp(), cmp()];
      for (const id of [capped, broke, ok, later]) await load(id);
      const cap = { key: `f:capped:${uid()}`, limit: 1, windowMs: 60_000 };
      expect((await store.claimFirst([{ frequency: [cap], spend: spend(capped) }])).claimedIndex).toBe(0);
      const outcome = await other.claimFirst([
        { frequency: [cap], spend: spend(capped) },
        { frequency: [], spend: spend(broke, { amountMicros: 11, totalLimitMicros: 10 }) },
        { frequency: [], spend: spend(unknown) },
        { frequency: [{ key: `f:ok:${uid()}`, limit: 2, windowMs: 60_000 }], spend: spend(ok, { amountMicros: 40 }) },
        { frequency: [], spend: spend(later) },
      ]);
      expect(outcome.claimedIndex).toBe(3);
      expect(outcome.skipped.map((s) => [s.index, s.reason])).toEqual([
        [0, 'frequency'],
        [1, 'budget'],
        [2, 'spend_unknown'],
      ]);
      // The frequency window ends when the first serve's window does; a lifetime budget has none.
      expect(outcome.skipped[0].retryAfterMs).toBeGreaterThan(59_000);
      expect(outcome.skipped[0].retryAfterMs).toBeLessThanOrEqual(60_000);
      expect(outcome.skipped[1].retryAfterMs).toBeNull();
      expect(outcome.skipped[2].retryAfterMs).toBeNull();
      expect(outcome.receipt?.spend).toMatchObject({ campaignId: ok, day: DAY, amountMicros: 40 });
      expect(outcome.receipt?.frequencyKeys).toHaveLength(1);
      // The claimed candidate was charged; the skipped and the later ones were not.
      expect(await store.readSpend(ok)).toMatchObject({ totalMicros: 40, day: DAY, dayMicros: 40 });
      expect(await store.readSpend(broke)).toMatchObject({ totalMicros: 0, dayMicros: 0 });
      expect(await store.readSpend(later)).toMatchObject({ totalMicros: 0, dayMicros: 0 });
      expect(await store.readSpend(unknown)).toBeNull();
    });

    it('never claims a campaign whose spend is unknown, and loads a record only where there is none', async () => {
      const id = cmp();
      const none = await store.claimFirst([{ frequency: [], spend: spend(id) }]);
      expect(none).toEqual({ claimedIndex: -1, receipt: null, skipped: [{ index: 0, reason: 'spend_unknown', retryAfterMs: null }] });
      expect(await store.loadSpend([{ campaignId: id, totalMicros: 500, day: DAY, dayMicros: 200 }])).toEqual([id]);
      expect((await other.claimFirst([{ frequency: [], spend: spend(id) }])).claimedIndex).toBe(0);
      // A second load (another instance, a late rebuild) keeps the record and its claims.
      expect(await other.loadSpend([{ campaignId: id, totalMicros: 0, day: DAY, dayMicros: 0 }])).toEqual([]);
      expect(await store.readSpend(id)).toMatchObject({ totalMicros: 510, dayMicros: 210 });
    });

    it('lets a spend that exactly fills the budget through, and not one micro more', async () => {
      const id = cmp();
      await load(id);
      const claim = () => store.claimFirst([{ frequency: [], spend: spend(id, { amountMicros: 50, totalLimitMicros: 100 }) }]);
      expect((await claim()).claimedIndex).toBe(0);
      expect((await claim()).claimedIndex).toBe(0);
      expect((await claim()).claimedIndex).toBe(-1);
      expect((await store.readSpend(id))?.totalMicros).toBe(100);
    });

    it('caps a day by its daily limit until the day ends, and starts the next day at zero', async () => {
      const id = cmp();
      await load(id, 0, 0, '2026-11-22');
      const today = spend(id, { amountMicros: 60, dailyLimitMicros: 100, msToDayEnd: 1234 });
      expect((await store.claimFirst([{ frequency: [], spend: today }])).claimedIndex).toBe(0);
      const blocked = await other.claimFirst([{ frequency: [], spend: today }]);
      expect(blocked.skipped).toEqual([{ index: 0, reason: 'budget', retryAfterMs: 1234 }]);
      const tomorrow = { ...today, day: '2026-11-24' };
      expect((await other.claimFirst([{ frequency: [], spend: tomorrow }])).claimedIndex).toBe(0);
      expect(await store.readSpend(id)).toMatchObject({ totalMicros: 120, day: '2026-11-24', dayMicros: 60 });
    });

    it('never overspends a budget under 200 concurrent claims from two instances', async () => {
      const id = cmp();
      await load(id);
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) => (i % 2 ? other : store).claimFirst([{ frequency: [], spend: spend(id, { amountMicros: 7 }) }])),
      );
      const claimed = results.filter((r) => r.claimedIndex === 0).length;
      expect(claimed).toBe(Math.floor(1000 / 7));
      expect((await store.readSpend(id))?.totalMicros).toBe(claimed * 7);
      for (const r of results.filter((r) => r.claimedIndex === -1)) expect(r.skipped).toEqual([{ index: 0, reason: 'budget', retryAfterMs: null }]);
    });

    it('never overserves a frequency cap, and spills over to the next candidate, under 200 concurrent claims', async () => {
      const [a, b] = [cmp(), cmp()];
      await load(a);
      await load(b);
      const candidates: ClaimCandidate[] = [
        {
          frequency: [{ key: `f:race-a:${uid()}`, limit: 5, windowMs: 60_000 }],
          spend: spend(a, { amountMicros: 1000, totalLimitMicros: 1_000_000, dailyLimitMicros: 1_000_000 }),
        },
        { frequency: [], spend: spend(b, { amountMicros: 1000, totalLimitMicros: 150_000, dailyLimitMicros: 1_000_000 }) },
      ];
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? other : store).claimFirst(candidates)));
      const count = (index: number) => results.filter((r) => r.claimedIndex === index).length;
      expect(count(0)).toBe(5);
      expect(count(1)).toBe(150);
      expect(count(-1)).toBe(45);
      expect((await store.readSpend(a))?.totalMicros).toBe(5000);
      expect((await store.readSpend(b))?.totalMicros).toBe(150_000);
    });

    it('answers each of many claims made in one turn with its own outcome, in order; a malformed one fails alone', async () => {
      const [ok, broke, capped] = [cmp(), cmp(), cmp()];
      for (const id of [ok, broke, capped]) await load(id);
      const cap = { key: `f:turn:${uid()}`, limit: 1, windowMs: 60_000 };
      // 300 decides in one turn (more than one script call carries), then a malformed claim.
      const claims = Array.from({ length: 300 }, (_, i) =>
        store.claimFirst(
          i % 3 === 0
            ? [{ frequency: [], spend: spend(ok, { amountMicros: 1 }) }]
            : i % 3 === 1
              ? [
                  { frequency: [], spend: spend(broke, { amountMicros: 11, totalLimitMicros: 10 }) },
                  { frequency: [], spend: spend(ok, { amountMicros: 2 }) },
                ]
              : [{ frequency: [cap], spend: spend(capped) }],
        ),
      );
      const malformed = store.claimFirst([{ frequency: [{ key: 'f:bad', limit: 1, windowMs: 0 }], spend: null }]);
      await expect(malformed).rejects.toBeInstanceOf(RangeError);
      const results = await Promise.all(claims);
      for (const [i, r] of results.entries()) {
        if (i % 3 === 0) expect(r, `decide ${i}`).toMatchObject({ claimedIndex: 0, skipped: [] });
        if (i % 3 === 1) expect(r, `decide ${i}`).toMatchObject({ claimedIndex: 1, skipped: [{ index: 0, reason: 'budget', retryAfterMs: null }] });
      }
      // The cap lets the first of them through, in the order they were made.
      const cappedOutcomes = results.filter((_, i) => i % 3 === 2).map((r) => r.claimedIndex);
      expect(cappedOutcomes).toEqual([0, ...Array(99).fill(-1)]);
      expect((await store.readSpend(ok))?.totalMicros).toBe(100 * 1 + 100 * 2);
      expect((await store.readSpend(broke))?.totalMicros).toBe(0);
    });

    it('ends a frequency window when its time is up, counted from the first serve', async () => {
      const f = { key: `f:short:${uid()}`, limit: 2, windowMs: 200 };
      const claim = () => store.claimFirst([{ frequency: [f], spend: null }]);
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

    it('refunds a claim exactly: the frequency count and the spend come back', async () => {
      const id = cmp();
      await load(id, 100, 30);
      const f = { key: `f:refund:${uid()}`, limit: 1, windowMs: 60_000 };
      const claimed = await store.claimFirst([{ frequency: [f], spend: spend(id, { amountMicros: 25 }) }]);
      expect(claimed.claimedIndex).toBe(0);
      expect((await other.claimFirst([{ frequency: [f], spend: null }])).claimedIndex).toBe(-1);
      await other.refund(claimed.receipt!);
      expect(await store.readSpend(id)).toMatchObject({ totalMicros: 100, dayMicros: 30 });
      expect((await store.claimFirst([{ frequency: [f], spend: null }])).claimedIndex).toBe(0);
    });

    it('ignores a refund for a record of another generation (rebuilt from the ledger since)', async () => {
      const id = cmp();
      await load(id, 100, 30);
      const claimed = await store.claimFirst([{ frequency: [], spend: spend(id, { amountMicros: 25 }) }]);
      const receipt = { ...claimed.receipt!, spend: { ...claimed.receipt!.spend!, generation: 'another-generation' } };
      await store.refund(receipt);
      expect(await store.readSpend(id)).toMatchObject({ totalMicros: 125, dayMicros: 55 });
    });

    it('raises records to the ledger, never lowers them, and moves to a newer day', async () => {
      const id = cmp();
      await load(id, 100, 30);
      await store.raiseSpend([{ campaignId: id, totalMicros: 90, day: DAY, dayMicros: 50 }]);
      expect(await store.readSpend(id)).toMatchObject({ totalMicros: 100, dayMicros: 50 });
      await other.raiseSpend([{ campaignId: id, totalMicros: 400, day: '2026-11-24', dayMicros: 7 }]);
      expect(await store.readSpend(id)).toMatchObject({ totalMicros: 400, day: '2026-11-24', dayMicros: 7 });
      await store.raiseSpend([{ campaignId: id, totalMicros: 1, day: DAY, dayMicros: 999 }]);
      expect(await store.readSpend(id)).toMatchObject({ totalMicros: 400, day: '2026-11-24', dayMicros: 7 });
      // An unknown campaign is left unknown: loading it is the keeper's job, after its wait.
      const unknown = cmp();
      await store.raiseSpend([{ campaignId: unknown, totalMicros: 5, day: DAY, dayMicros: 5 }]);
      expect(await store.readSpend(unknown)).toBeNull();
    });

    it('handles no candidates, and a candidate without limits', async () => {
      expect(await store.claimFirst([])).toEqual({ claimedIndex: -1, receipt: null, skipped: [] });
      expect(await store.claimFirst([{ frequency: [], spend: null }])).toEqual({ claimedIndex: 0, receipt: { frequencyKeys: [], spend: null }, skipped: [] });
    });

    it('rejects malformed limits the same way in every store, touching nothing', async () => {
      const id = cmp();
      await expect(store.claimFirst([{ frequency: [], spend: spend(id, { amountMicros: 1.5 }) }])).rejects.toBeInstanceOf(RangeError);
      await expect(store.claimFirst([{ frequency: [], spend: spend(id, { day: 'today' }) }])).rejects.toBeInstanceOf(RangeError);
      await expect(store.claimFirst([{ frequency: [], spend: spend('Not An Id') }])).rejects.toBeInstanceOf(RangeError);
      await expect(store.claimFirst([{ frequency: [{ key: 'k', limit: 1, windowMs: 0 }], spend: null }])).rejects.toBeInstanceOf(RangeError);
      await expect(store.loadSpend([{ campaignId: id, totalMicros: -1, day: DAY, dayMicros: 0 }])).rejects.toBeInstanceOf(RangeError);
      await expect(hit(store, 'k', -1)).rejects.toBeInstanceOf(RangeError);
      await expect(store.putIfAbsent('k', 'v', 0)).rejects.toBeInstanceOf(RangeError);
      expect(await store.readSpend(id)).toBeNull();
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

  describe('marksAndHits (a click: dedup marks and rate windows in one call)', () => {
    it('sets each mark only if absent and counts each hit, answering in the order asked', async () => {
      const first = await store.marksAndHits(
        [
          { key: 'mh:a', value: 'x', ttlMs: 10_000 },
          { key: 'mh:b', value: 'y', ttlMs: 10_000 },
        ],
        [
          { key: 'mh:w1', windowMs: 10_000, by: 1 },
          { key: 'mh:w2', windowMs: 300, by: 2 },
        ],
      );
      expect(first.existing).toEqual([null, null]);
      expect(first.hits.map((h) => h.count)).toEqual([1, 2]);
      expect(first.hits[1].resetInMs).toBeLessThanOrEqual(300);
      // A mark another instance made is seen; one made now is not; windows keep counting.
      const second = await other.marksAndHits(
        [
          { key: 'mh:b', value: 'z', ttlMs: 10_000 },
          { key: 'mh:c', value: 'z', ttlMs: 10_000 },
        ],
        [{ key: 'mh:w1', windowMs: 10_000, by: 1 }],
      );
      expect(second.existing).toEqual(['y', null]);
      expect(second.hits.map((h) => h.count)).toEqual([2]);
      expect(await store.get('mh:c')).toBe('z');
      expect(await other.marksAndHits([], [])).toEqual({ existing: [], hits: [] });
    });

    it('answers each of 100 concurrent callers with its own outcome; exactly one sets a shared mark', async () => {
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          (i % 2 ? other : store).marksAndHits(
            [
              { key: 'mh:shared', value: `v${i}`, ttlMs: 10_000 },
              { key: `mh:own:${i}`, value: 'own', ttlMs: 10_000 },
            ],
            [{ key: 'mh:rate', windowMs: 10_000, by: 1 }],
          ),
        ),
      );
      expect(results.filter((r) => r.existing[0] === null)).toHaveLength(1);
      for (const r of results) expect(r.existing[1]).toBeNull();
      expect(results.map((r) => r.hits[0].count).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    });

    it('rejects a malformed mark or hit before touching anything', async () => {
      await expect(store.marksAndHits([{ key: 'mh:bad', value: 'x', ttlMs: 0 }], [{ key: 'mh:badw', windowMs: 1000, by: 1 }])).rejects.toBeInstanceOf(
        RangeError,
      );
      await expect(store.marksAndHits([{ key: 'mh:bad', value: 'x', ttlMs: 1000 }], [{ key: 'mh:badw', windowMs: 1000, by: 0 }])).rejects.toBeInstanceOf(
        RangeError,
      );
      expect(await store.get('mh:bad')).toBeNull();
      expect((await hit(store, 'mh:badw', 1000)).count).toBe(1);
    });

    if (kind === 'redis') {
      it('sends the calls of one event-loop turn as one script call', async () => {
        // Every command ioredis writes goes through sendCommand (auto-pipelining included).
        const { redis } = store as unknown as { redis: { sendCommand: (command: { name: string }) => unknown } };
        const send = vi.spyOn(redis, 'sendCommand');
        try {
          await Promise.all(
            Array.from({ length: 40 }, (_, i) =>
              store.marksAndHits([{ key: `mh:turn:${i}`, value: '1', ttlMs: 10_000 }], [{ key: 'mh:turnrate', windowMs: 10_000, by: 1 }]),
            ),
          );
          // EVAL the first time this connection runs the script, EVALSHA after.
          expect(send.mock.calls.map(([command]) => command.name.replace('evalsha', 'eval'))).toEqual(['eval']);
        } finally {
          send.mockRestore();
        }
      });
    }
  });
  it('answers ping', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });

  describe('@fastify/rate-limit adapter', () => {
    it('answers far from the limit at once and sends the hits of a burst in a few batches, counting each once', async () => {
      let calls = 0;
      // Every round trip to the store counts.
      const counted = Object.create(store, {
        hits: {
          value: (batch: Parameters<CounterStore['hits']>[0]) => {
            calls++;
            return store.hits(batch);
          },
        },
      }) as CounterStore;
      const app = Fastify();
      await app.register(rateLimit, { global: false, store: createRateLimitStore(counted), skipOnError: true });
      app.get('/roomy', { config: { rateLimit: { max: 1000, timeWindow: 60_000 } } }, async () => ({ ok: true }));
      try {
        const ip = `10.3.${kind === 'redis' ? 2 : 1}.${Math.floor(Math.random() * 250)}`;
        const answers = await Promise.all(Array.from({ length: 200 }, () => app.inject({ url: '/roomy', remoteAddress: ip })));
        expect(answers.every((a) => a.statusCode === 200)).toBe(true);
        expect(answers.map((a) => Number(a.headers['x-ratelimit-remaining'])).sort((a, b) => b - a)[0]).toBe(999);
        await sleep(50);
        expect(calls).toBeLessThan(20);
        // Every hit reached the store once: the next exact count (past half the limit) says so.
        const next = await store.hits([{ key: counterKeys.rateLimit('GET/roomy', ip), windowMs: 60_000, by: 1 }]);
        expect(next[0].count).toBe(201);
      } finally {
        await app.close();
      }
    });

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

describe('memory counter store: bounded namespaces and sweeping', () => {
  const DAY = '2026-11-23';
  const spend = (campaignId: string): SpendClaim => ({ campaignId, amountMicros: 1, totalLimitMicros: 100, dailyLimitMicros: 5, day: DAY, msToDayEnd: 1000 });

  it('expires entries lazily and sweeps expired ones on its timer, and close() clears it', async () => {
    let now = 1_000_000;
    const store = new MemoryCounterStore({ now: () => now, sweepIntervalMs: 20, sweepBatch: 2 });
    for (let i = 0; i < 5; i++) await hit(store, `k${i}`, 100);
    await store.loadSpend([{ campaignId: 'cmp.keep', totalMicros: 0, day: DAY, dayMicros: 0 }]);
    await store.claimFirst([{ frequency: [], spend: spend('cmp.keep') }]);
    expect(store.size).toBe(6);
    now += 101;
    await sleep(120); // several sweep ticks of two entries each
    expect(store.sizes).toEqual({ campaigns: 1, frequencyWindows: 0, rateWindows: 0, entries: 0 });
    expect((await store.readSpend('cmp.keep'))?.totalMicros).toBe(1);
    await store.close();
    expect(store.size).toBe(0);
  });

  it('keeps each namespace within its bound: a flood of click, rate-limit and dedup keys never evicts spend or frequency state', async () => {
    const store = new MemoryCounterStore({ maxCampaigns: 3, maxFrequencyWindows: 4, maxRateWindows: 10, maxEntries: 10 });
    try {
      await store.loadSpend([{ campaignId: 'cmp.capped', totalMicros: 0, day: DAY, dayMicros: 0 }]);
      const capped = { key: 'fq:session:cmp.capped', limit: 1, windowMs: 60_000 };
      // Five serves against a daily cap of five; then the flood; then the cap must still hold.
      for (let i = 0; i < 5; i++) expect((await store.claimFirst([{ frequency: [], spend: spend('cmp.capped') }])).claimedIndex).toBe(0);
      expect((await store.claimFirst([{ frequency: [capped], spend: null }])).claimedIndex).toBe(0);
      for (let i = 0; i < 10_000; i++) {
        await hit(store, `cr:1m:ip${i}`, 60_000);
        await store.putIfAbsent(`cd:dec_${i}`, '1', 3_600_000);
      }
      expect(store.sizes).toEqual({ campaigns: 1, frequencyWindows: 1, rateWindows: 10, entries: 10 });
      expect((await store.claimFirst([{ frequency: [], spend: spend('cmp.capped') }])).skipped).toEqual([{ index: 0, reason: 'budget', retryAfterMs: 1000 }]);
      expect((await store.claimFirst([{ frequency: [capped], spend: null }])).claimedIndex).toBe(-1);
      // The newest rate window and entry are there; the oldest went.
      expect(await store.get('cd:dec_9999')).toBe('1');
      expect(await store.get('cd:dec_0')).toBeNull();
    } finally {
      await store.close();
    }
  });

  it('refuses a serve rather than open a frequency window past its bound (fail closed)', async () => {
    const store = new MemoryCounterStore({ maxFrequencyWindows: 3 });
    try {
      for (let i = 0; i < 3; i++)
        expect((await store.claimFirst([{ frequency: [{ key: `fq:s${i}`, limit: 1, windowMs: 60_000 }], spend: null }])).claimedIndex).toBe(0);
      const full = await store.claimFirst([{ frequency: [{ key: 'fq:s-new', limit: 1, windowMs: 60_000 }], spend: null }]);
      expect(full).toEqual({ claimedIndex: -1, receipt: null, skipped: [{ index: 0, reason: 'frequency', retryAfterMs: 1000 }] });
      expect(store.sizes.frequencyWindows).toBe(3);
    } finally {
      await store.close();
    }
  });

  it('loads no spend record past its bound: that campaign stays unknown and is never claimed', async () => {
    const store = new MemoryCounterStore({ maxCampaigns: 2 });
    try {
      const ids = ['cmp.a', 'cmp.b', 'cmp.c'];
      expect(await store.loadSpend(ids.map((campaignId) => ({ campaignId, totalMicros: 0, day: DAY, dayMicros: 0 })))).toEqual(['cmp.a', 'cmp.b']);
      expect((await store.claimFirst([{ frequency: [], spend: spend('cmp.c') }])).skipped[0].reason).toBe('spend_unknown');
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
        () => down.claimFirst([{ frequency: [{ key: canaryKey, limit: 1, windowMs: 1000 }], spend: null }]),
        () => hit(down, canaryKey, 1000),
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
        expect(Date.now() - started).toBeLessThan(FAILS_FAST_MS);
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
    const hung = { hits: () => new Promise<never>(() => {}) } as unknown as CounterStore;
    const app = Fastify();
    await app.register(rateLimit, { global: false, store: createRateLimitStore(hung, { answerWithinMs: 50 }), skipOnError: true });
    app.get('/limited', { config: { rateLimit: { max: 1, timeWindow: 60_000 } } }, async () => ({ ok: true }));
    try {
      const started = Date.now();
      const res = await app.inject({ url: '/limited' });
      expect(res.statusCode).toBe(200);
      expect(Date.now() - started).toBeLessThan(FAILS_FAST_MS);
    } finally {
      await app.close();
    }
  });

  it('counts a batch whose answer timed out once: a slow store never refuses a client under its limit', async () => {
    // The first batch reaches the store and runs, but its answer is lost (ioredis' commandTimeout
    // on a loaded machine); then the store answers again. Before, the batch's hits were sent a
    // second time, so the client was refused at 3 of 4.
    const real = new MemoryCounterStore();
    let lose = 1;
    const slow = {
      hits: async (batch: Parameters<CounterStore['hits']>[0]) => {
        const r = await real.hits(batch);
        if (lose-- > 0) throw new CounterStoreUnavailable({ mayHaveRun: true });
        return r;
      },
    } as unknown as CounterStore;
    // A store that was down refused the batch outright: its hits go again, once.
    const down = new MemoryCounterStore();
    let refuse = 1;
    const refusing = {
      hits: async (batch: Parameters<CounterStore['hits']>[0]) => {
        if (refuse-- > 0) throw new CounterStoreUnavailable();
        return down.hits(batch);
      },
    } as unknown as CounterStore;
    for (const [store, backing] of [
      [slow, real],
      [refusing, down],
    ] as const) {
      const app = Fastify();
      await app.register(rateLimit, { global: false, store: createRateLimitStore(store), skipOnError: true });
      app.get('/limited', { config: { rateLimit: { max: 4, timeWindow: 60_000 } } }, async () => ({ ok: true }));
      try {
        const codes: number[] = [];
        for (let i = 0; i < 2; i++) codes.push((await app.inject({ url: '/limited', remoteAddress: '10.4.4.4' })).statusCode);
        await sleep(20); // the first batch is sent and fails
        if (store === refusing) await sleep(1_100); // a refused batch goes again after the pause
        for (let i = 0; i < 3; i++) codes.push((await app.inject({ url: '/limited', remoteAddress: '10.4.4.4' })).statusCode);
        expect(codes).toEqual([200, 200, 200, 200, 429]);
        // The store holds every hit once: the two batched, the three counted exactly (and this one).
        const [now] = await backing.hits([{ key: counterKeys.rateLimit('GET/limited', '10.4.4.4'), windowMs: 60_000, by: 1 }]);
        expect(now.count).toBe(6);
      } finally {
        await app.close();
      }
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
        expect(Date.now() - started).toBeLessThan(FAILS_FAST_MS);
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
        expect((await hit(store, 'h', 10_000)).count).toBe(1);
        proxy.pause();
        const started = Date.now();
        const results = await Promise.all(
          Array.from({ length: 20 }, () => store.claimFirst([{ frequency: [{ key: 'f', limit: 100, windowMs: 1000 }], spend: null }]).catch((e: unknown) => e)),
        );
        expect(Date.now() - started).toBeLessThan(FAILS_FAST_MS);
        for (const r of results) expect(r).toBeInstanceOf(CounterStoreUnavailable);
        await expect(store.ping()).rejects.toBeInstanceOf(CounterStoreUnavailable);
        proxy.resume();
        // Back within a few reconnect attempts at most; replies must match their commands.
        let count = 0;
        for (let i = 0; i < 50 && count === 0; i++) {
          count = await hit(store, 'h', 10_000).then(
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
        await expect(hit(store, 'late', 1000)).rejects.toBeInstanceOf(CounterStoreUnavailable);
        proxy = await startProxy(port);
        expect(await store.ready(5000)).toBe(true);
        expect((await hit(store, 'late', 1000)).count).toBe(1);
      } finally {
        await store.close();
        await proxy?.close();
      }
    });

    it('stores keys under the prefix: a frequency window with its TTL, a spend record as one hash without one', async () => {
      const prefix = `sn:test:${uid()}:`;
      testPrefixes.push(prefix);
      const store = track(new RedisCounterStore({ url: redisUrl, keyPrefix: prefix }));
      const raw = new Redis(redisUrl, { lazyConnect: true });
      try {
        await store.ready(3000);
        await raw.connect();
        await store.loadSpend([{ campaignId: 'cmp.x', totalMicros: 5, day: '2026-11-23', dayMicros: 2 }]);
        await store.claimFirst([
          {
            frequency: [{ key: 'fq', limit: 1, windowMs: 30_000 }],
            spend: { campaignId: 'cmp.x', amountMicros: 1, totalLimitMicros: 10, dailyLimitMicros: 10, day: '2026-11-23', msToDayEnd: 1000 },
          },
        ]);
        const hash = await raw.hgetall(`${prefix}sp:cmp.x`);
        expect(hash).toMatchObject({ t: '6', d: '2026-11-23', m: '3' });
        expect(hash.g).toMatch(/^[A-Za-z0-9_-]{12}$/);
        expect(await raw.pttl(`${prefix}sp:cmp.x`)).toBe(-1);
        expect(await raw.pttl(`${prefix}fq`)).toBeGreaterThan(25_000);
        expect(await raw.exists('sp:cmp.x')).toBe(0);
      } finally {
        raw.disconnect();
      }
    });
  });
}
