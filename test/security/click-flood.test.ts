// The tracked redirect is public and every click leaves state (a clicks row, dedupe and visitor
// keys, per-address rate windows). One address flooding /r/ must not grow that state without
// bound: past CLICK_RATE_LIMIT_PER_MINUTE it is answered 429 at the edge, before the token is
// read, and the one rate-limit window key per address is all it leaves. Other addresses keep
// clicking and are each limited on their own (IPv6 per /64).
import { createHmac, randomBytes } from 'node:crypto';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  createTestApp,
  createTestCounters,
  createTestDatabase,
  usingRealPostgres,
  usingRealRedis,
  type TestApp,
  type TestDatabase,
} from '../helpers/test-env.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { MemoryCounterStore } from '../../src/counters/memory-counter-store.js';
import type { CounterStore } from '../../src/counters/counter-store.js';
import type { TrackedLinkClaims } from '../../src/links/tracked-link.js';

const stores = `${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'in-process counters'}`;
const DESTINATION = 'https://www.haneulstay.example/jeju';

/** A forced full collection, so heap figures compare what is retained, not what is garbage. */
function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

interface Harness {
  t: TestApp;
  testDb: TestDatabase;
  counters: CounterStore;
  prefix: string;
  redis?: Redis;
  /** Counter keys of this app: entries of the in-process store, or Redis keys under its prefix. */
  counterKeys(): Promise<number>;
  clickRows(where?: string, params?: unknown[]): Promise<number>;
  /** Waits until every click answered so far is in the database. */
  settle(): Promise<number>;
  token(i: number): string;
  close(): Promise<void>;
}

async function harness(clickRateLimitPerMinute?: number): Promise<Harness> {
  const prefix = `sn:t:${randomBytes(4).toString('hex')}:`;
  const testDb = await createTestDatabase();
  const counters = createTestCounters(prefix);
  // 'warn': the test log capture keeps every line it is given, which would be the heap growth measured.
  const t = await createTestApp(
    { loadDemoCatalog: false, logLevel: 'warn', ...(clickRateLimitPerMinute ? { clickRateLimitPerMinute } : {}) },
    { testDb, counters },
  );
  expect((await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() })).statusCode).toBe(200);
  const redis = usingRealRedis ? new Redis(process.env.REDIS_URL!, { lazyConnect: false }) : undefined;
  const expiresAt = Math.floor(Date.now() / 1000) + 3600;
  const claims = (i: number): TrackedLinkClaims => ({
    decisionId: `dec_flood${i}`,
    snapshotId: 'snp_flood',
    appId: 'app_flood',
    advertiserId: 'adv.haneul-stay',
    destination: DESTINATION,
    expiresAt,
    test: false,
  });
  const clickRows = async (where = 'true', params: unknown[] = []) =>
    (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM clicks WHERE ${where}`, params)).rows[0].n;
  return {
    t,
    testDb,
    counters,
    prefix,
    redis,
    async counterKeys() {
      if (counters instanceof MemoryCounterStore) return counters.size;
      let n = 0;
      let cursor = '0';
      do {
        const [next, keys] = await redis!.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        n += keys.length;
        cursor = next;
      } while (cursor !== '0');
      return n;
    },
    clickRows,
    async settle() {
      let last = -1;
      // Settled: the row count held still across a poll and nothing is pending (the writer's
      // pending includes the batch being written: it once did not, and a full run read 2,000
      // rows of 3,000 with the last batch of 1,000 in flight). Up to 60 s beside other files.
      for (let i = 0; i < 1200; i++) {
        await new Promise((r) => setTimeout(r, 50));
        const n = await clickRows();
        if (n === last && t.app.writers.clicks.pending === 0) return n;
        last = n;
      }
      return last;
    },
    token: (i) => t.app.links.sign(claims(i)),
    async close() {
      await t.close();
      await counters.close();
      await redis?.quit();
      await testDb.drop();
    },
  };
}

describe(`tracked-link click limit at the edge (${stores})`, () => {
  describe('one address flooding /r/', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await harness(); // the default limit
    });
    afterAll(() => h?.close());

    it('100,000 clicks from one address leave at most the limit of rows, a bounded number of counter keys and no heap growth', {
      timeout: 300_000,
    }, async () => {
      const limit = h.t.app.config.clickRateLimitPerMinute;
      expect(limit).toBe(120);
      const FLOOD = 100_000;
      const CHUNK = 500;
      const ADDRESS = '203.0.113.77';
      const gc = collector();
      await h.settle();
      const keysBefore = await h.counterKeys();
      const rowsBefore = await h.clickRows();
      gc();
      const heapBefore = process.memoryUsage().heapUsed;
      const started = Date.now();
      const statuses = new Map<number, number>();
      let sample429: { body: string; headers: Record<string, unknown> } | null = null;
      for (let from = 0; from < FLOOD; from += CHUNK) {
        const answers = await Promise.all(
          Array.from({ length: CHUNK }, (_, k) =>
            h.t.app.inject({
              method: 'GET',
              // A new decision and a new browser every time: without a limit each would add a row, a dedupe key and a visitor key.
              url: `/r/${h.token(from + k)}`,
              headers: { 'user-agent': `Mozilla/5.0 (X11; Linux x86_64) Flood/${from + k}` },
              remoteAddress: ADDRESS,
            }),
          ),
        );
        for (const a of answers) {
          statuses.set(a.statusCode, (statuses.get(a.statusCode) ?? 0) + 1);
          if (a.statusCode === 429 && !sample429) sample429 = { body: a.body, headers: a.headers };
        }
      }
      const windows = 1 + Math.floor((Date.now() - started) / 60_000);
      const redirected = statuses.get(302) ?? 0;
      expect([...statuses.keys()].sort()).toEqual([302, 429]);
      expect(redirected).toBeLessThanOrEqual(limit * windows);
      expect(redirected).toBeGreaterThanOrEqual(limit);
      expect(statuses.get(429)).toBe(FLOOD - redirected);
      expect(JSON.parse(sample429!.body)).toEqual({ ok: false, error: 'rate_limited' });
      expect(Number(sample429!.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(sample429!.headers['retry-after'])).toBeLessThanOrEqual(60);

      // Rows: exactly the redirected clicks; none for a 429.
      expect((await h.settle()) - rowsBefore).toBe(redirected);
      // Keys: per redirected click at most a dedupe and a visitor key, plus the address's four
      // click-rate windows and its one edge window (per elapsed minute).
      const keysAdded = (await h.counterKeys()) - keysBefore;
      expect(keysAdded).toBeLessThanOrEqual(2 * redirected + 5 * windows);
      gc();
      const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
      // Stated bound: 8 MiB retained after 100,000 requests (without the limit the in-process
      // store alone would keep about 600,000 entries).
      expect(heapGrowth, `heap grew ${(heapGrowth / 1048576).toFixed(1)} MiB`).toBeLessThan(8 * 1024 * 1024);

      // HEAD (link checkers) shares the window; another address is not affected.
      const head = await h.t.app.inject({ method: 'HEAD', url: `/r/${h.token(FLOOD)}`, remoteAddress: ADDRESS, headers: { 'user-agent': 'Mozilla/5.0' } });
      expect(head.statusCode).toBe(429);
      expect(head.headers['retry-after']).toBeDefined();
      const other = await h.t.app.inject({
        method: 'GET',
        url: `/r/${h.token(FLOOD + 1)}`,
        remoteAddress: '203.0.113.78',
        headers: { 'user-agent': 'Mozilla/5.0' },
      });
      expect(other.statusCode).toBe(302);
      expect(other.headers.location).toBe(DESTINATION);
    });
  });

  describe('many addresses', () => {
    const LIMIT = 3;
    let h: Harness;
    let ipHash: (ip: string) => string;
    beforeAll(async () => {
      h = await harness(LIMIT);
      const key = h.t.app.links.deriveKey('click-ip');
      ipHash = (ip) => createHmac('sha256', key).update(ip).digest('base64url').slice(0, 16);
    });
    afterAll(() => h?.close());

    const click = (i: number, ip: string, ua = `Mozilla/5.0 (Linux; Android 14) Mobile/${i}`) =>
      h.t.app.inject({ method: 'GET', url: `/r/${h.token(i)}`, headers: { 'user-agent': ua }, remoteAddress: ip });
    const v4 = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    const v6 = (i: number) => `2001:db8:${i.toString(16)}::1`; // each in its own /64

    it('clicks from thousands of addresses and browsers are all redirected and recorded; each address is limited on its own', {
      timeout: 120_000,
    }, async () => {
      const addresses = [...Array.from({ length: 2000 }, (_, i) => v4(i + 1)), ...Array.from({ length: 1000 }, (_, i) => v6(i + 1))];
      let n = 0;
      for (let from = 0; from < addresses.length; from += 250) {
        const answers = await Promise.all(addresses.slice(from, from + 250).map((ip) => click(n++, ip)));
        for (const a of answers) expect(a.statusCode).toBe(302);
      }
      expect(await h.settle()).toBe(addresses.length);

      // Every address has LIMIT - 1 clicks left this minute, whatever its neighbours did.
      const sample = [...addresses.slice(0, 50), ...addresses.slice(2000, 2050)];
      const answers = await Promise.all(
        sample.map(async (ip) => {
          const codes: number[] = [];
          for (let k = 0; k < LIMIT + 2; k++) codes.push((await click(n++, ip)).statusCode);
          return codes;
        }),
      );
      for (const codes of answers) expect(codes).toEqual([...Array(LIMIT - 1).fill(302), 429, 429, 429]);
      expect(await h.settle()).toBe(addresses.length + sample.length * (LIMIT - 1));
      for (const ip of [sample[0], sample[77]]) {
        expect(await h.clickRows('ip_hash = $1', [ipHash(ip)])).toBe(LIMIT);
      }
      // Addresses that were not limited kept their single recorded click.
      expect(await h.clickRows('ip_hash = $1', [ipHash(addresses[1500])])).toBe(1);
    });

    it('addresses within one IPv6 /64 share one allowance (rotating them does not multiply it)', async () => {
      const before = await h.settle();
      const codes: number[] = [];
      for (let k = 1; k <= LIMIT + 3; k++) codes.push((await click(900_000 + k, `2001:db8:ffff:1::${k.toString(16)}`)).statusCode);
      expect(codes).toEqual([...Array(LIMIT).fill(302), 429, 429, 429]);
      // Another /64 of the same /48 is someone else.
      expect((await click(900_100, '2001:db8:ffff:2::1')).statusCode).toBe(302);
      expect(await h.settle()).toBe(before + LIMIT + 1);
    });
  });
});
