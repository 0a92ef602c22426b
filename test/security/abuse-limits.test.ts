// Limits that protect the service from abusive callers:
// oversized bodies get a 413 with an error body on every route, the decide rate limit is one
// global limit across instances sharing the counter store, and X-Forwarded-For is believed only
// from a configured trusted proxy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import {
  ADMIN,
  bearer,
  createTestApp,
  createTestCounters,
  createTestDatabase,
  usingRealPostgres,
  usingRealRedis,
  type TestApp,
  type TestDatabase,
  createHost,
} from '../helpers/test-env.js';
import type { CounterStore } from '../../src/counters/counter-store.js';
import { adultOnSurface } from '../helpers/envelopes.js';

const stores = `${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'in-process counters'}`;
const envelope = adultOnSurface({ locale: 'en' });

describe(`abuse limits (${stores})`, () => {
  describe('oversized bodies', () => {
    let t: TestApp;
    let key: string;
    beforeAll(async () => {
      t = await createTestApp({ bodyLimitBytes: 8 * 1024 });
      key = (await createHost(t.app, 'Big')).serving_key;
    });
    afterAll(() => t?.close());

    it('413 payload_too_large on every POST route, before authentication, without echoing the body', async () => {
      const huge = JSON.stringify({ ...envelope, message: `BIGBODY${'x'.repeat(20_000)}` });
      for (const url of [
        '/v1/offers/decide',
        '/v1/offers/affiliate',
        '/v1/events/rendered',
        '/v1/events/qualified-impression',
        '/v1/events/impression',
        '/v1/events/conversion',
        '/v1/events/click-intent',
      ]) {
        for (const headers of [{ ...bearer(key), 'idempotency-key': 'big-body-1' }, {}]) {
          const res = await t.app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, payload: huge });
          expect(res.statusCode, url).toBe(413);
          expect(res.json()).toEqual({ ok: false, error: 'payload_too_large' });
          expect(res.body).not.toContain('BIGBODY');
        }
      }
      // The admin API checks its key first (401 without it), then the size.
      const admin = await t.app.inject({ method: 'POST', url: '/admin/apps', headers: { ...ADMIN, 'content-type': 'application/json' }, payload: huge });
      expect(admin.statusCode).toBe(413);
      expect(admin.json()).toEqual({ ok: false, error: 'payload_too_large' });
    });

    it('413 also for a body streamed without a length (chunked)', async () => {
      const huge = JSON.stringify({ ...envelope, message: 'y'.repeat(20_000) });
      const streamed = await t.app.inject({
        method: 'POST',
        url: '/v1/offers/decide',
        headers: { ...bearer(key), 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        payload: huge,
      });
      expect(streamed.statusCode).toBe(413);
      expect(streamed.json()).toEqual({ ok: false, error: 'payload_too_large' });
      // A body just under the limit is still read and judged on its content.
      const under = JSON.stringify({ ...envelope, message: 'z'.repeat(3_000) });
      expect(
        (await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: { ...bearer(key), 'content-type': 'application/json' }, payload: under }))
          .statusCode,
      ).toBe(200);
    });
  });

  describe('the decide rate limit is global across instances', () => {
    let testDb: TestDatabase;
    let countersA: CounterStore;
    let countersB: CounterStore;
    let a: TestApp;
    let b: TestApp;
    beforeAll(async () => {
      testDb = await createTestDatabase();
      // With Redis each instance has its own client on the same key prefix, like two processes.
      // Embedded, the in-process store is the shared state, so both use the same object.
      const prefix = `sn:t:rl:${randomBytes(4).toString('hex')}:`;
      countersA = createTestCounters(prefix);
      countersB = usingRealRedis ? createTestCounters(prefix) : countersA;
      a = await createTestApp({ decideRateLimitPerMinute: 10 }, { testDb, counters: countersA });
      b = await createTestApp({ decideRateLimitPerMinute: 10 }, { testDb, counters: countersB });
    });
    afterAll(async () => {
      await b?.close();
      await a?.close();
      await countersA?.close();
      if (countersB !== countersA) await countersB?.close();
      await testDb?.drop();
    });

    it('10 per minute per client IP in total, whichever instance answers', async () => {
      const key = (await createHost(a.app, 'RL2')).serving_key;
      const statuses: number[] = [];
      for (let i = 0; i < 14; i++) {
        const inst = i % 2 === 0 ? a : b;
        const res = await inst.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(key), payload: envelope, remoteAddress: '10.66.0.1' });
        statuses.push(res.statusCode);
        if (res.statusCode === 429) {
          expect(res.json()).toMatchObject({ ok: false, error: 'rate_limited' });
          expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
        }
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(10);
      expect(statuses.slice(10)).toEqual([429, 429, 429, 429]);
      // Both instances refuse now, and another client is unaffected on both.
      for (const inst of [a, b]) {
        expect(
          (await inst.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(key), payload: envelope, remoteAddress: '10.66.0.1' })).statusCode,
        ).toBe(429);
        expect(
          (await inst.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(key), payload: envelope, remoteAddress: '10.66.0.2' })).statusCode,
        ).toBe(200);
      }
    });
  });

  describe("a host's decide quota is spent only by its own authenticated calls", () => {
    let t: TestApp;
    let key: string;
    let otherKey: string;
    beforeAll(async () => {
      t = await createTestApp({ decideRateLimitPerMinute: 5, authFailureLimitPerMinute: 8 });
      key = (await createHost(t.app, 'Quota')).serving_key;
      otherKey = (await createHost(t.app, 'Neighbour')).serving_key;
    });
    afterAll(() => t?.close());
    const decide = (remoteAddress: string, headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers, payload: envelope, remoteAddress });

    it('requests without a valid key have their own limit (401, then 429) and leave the host its quota', async () => {
      const refused = [];
      for (let i = 0; i < 10; i++) refused.push((await decide('10.77.0.1', i % 2 ? { authorization: 'Bearer sk_live_wrong' } : {})).statusCode);
      expect(refused).toEqual([401, 401, 401, 401, 401, 401, 401, 401, 429, 429]);
      const last = await decide('10.77.0.1');
      expect(last.json()).toMatchObject({ ok: false, error: 'rate_limited' });
      expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
      // The host behind the same address still has all five of its decides.
      const host = [];
      for (let i = 0; i < 6; i++) host.push((await decide('10.77.0.1', bearer(key))).statusCode);
      expect(host).toEqual([200, 200, 200, 200, 200, 429]);
    });

    it('another host behind the same address has a quota of its own', async () => {
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await decide('10.77.0.2', bearer(key))).statusCode);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      expect((await decide('10.77.0.2', bearer(otherKey))).statusCode).toBe(200);
    });

    it('an IPv6 client counts by its /64: rotating addresses inside it does not multiply the quota', async () => {
      const statuses = [];
      for (let i = 1; i <= 7; i++) statuses.push((await decide(`2001:db8:77:1::${i.toString(16)}`, bearer(key))).statusCode);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
      // The next /64 is another client.
      expect((await decide('2001:db8:77:2::1', bearer(key))).statusCode).toBe(200);
    });
  });

  describe('X-Forwarded-For is believed only from a trusted proxy', () => {
    let t: TestApp;
    let key: string;
    const PROXY = '10.55.0.1';
    beforeAll(async () => {
      t = await createTestApp({ decideRateLimitPerMinute: 3, trustedProxies: [PROXY] });
      key = (await createHost(t.app, 'XFF')).serving_key;
    });
    afterAll(() => t?.close());
    const decide = (remoteAddress: string, xff?: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/offers/decide',
        headers: { ...bearer(key), ...(xff ? { 'x-forwarded-for': xff } : {}) },
        payload: envelope,
        remoteAddress,
      });

    it('from the trusted proxy, each forwarded client has its own window', async () => {
      for (let client = 1; client <= 4; client++) {
        const statuses = [];
        for (let i = 0; i < 4; i++) statuses.push((await decide(PROXY, `198.51.100.${client}`)).statusCode);
        expect(statuses, `client ${client}`).toEqual([200, 200, 200, 429]);
      }
    });

    it('from anyone else, a rotating X-Forwarded-For does not escape the limit', async () => {
      const statuses = [];
      for (let i = 0; i < 8; i++) statuses.push((await decide('203.0.113.9', `192.0.2.${i}`)).statusCode);
      expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
    });

    it('a client cannot prepend a spoofed address through the trusted proxy', async () => {
      // The proxy appends the real client; only the right-most untrusted hop counts.
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await decide(PROXY, `192.0.2.${i}, 198.51.100.200`)).statusCode);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
    });
  });
});
