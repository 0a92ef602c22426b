// The full privacy proof: thousands of
// decides whose messages carry unique markers, in Korean and English, served, gated and
// refused, plus bodies built to fail (forbidden and unknown keys, bad ids, oversized, malformed,
// wrong content type). Then every place a marker could land is searched: every response body,
// the app's log lines at trace level, every database row (pg_dump of the whole database on real
// Postgres), every Redis key and value, every Redis command the app sent (MONITOR), the slow
// log, /metrics, and the Postgres server log. (message-never-stored.test.ts is the quick version.)
import type { MemoryCounterStore } from '../../src/counters/memory-counter-store.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import net from 'node:net';
import { promisify } from 'node:util';
import {
  METRICS_AUTH,
  bearer,
  createTestApp,
  createTestCounters,
  createTestDatabase,
  usingRealPostgres,
  usingRealRedis,
  type TestApp,
  createHost,
} from '../helpers/test-env.js';
import { dumpDatabase, dumpRedis } from '../helpers/dump.js';
import { keyHash } from '../../src/counters/keys.js';

const RUN = `PRIVMARK${randomBytes(5).toString('hex')}`; // every marker of this run starts with it
// Every request comes from this address (TEST-NET-2, so it appears nowhere by chance): it may be
// stored only as a keyed hash, never as it is.
const CLIENT = `198.51.100.${1 + (randomBytes(1)[0] % 254)}`;
// An unkeyed hash of an IPv4 address is reversed by trying all 2^32 of them: it is as good as the
// address, and must not be stored either.
const CLIENT_UNKEYED = keyHash(CLIENT);
const DECIDES = Number(process.env.PRIVACY_DECIDES ?? 2400);
const PG_LOG = '/var/log/postgresql/postgresql-15-main.log';
const COUNTER_PREFIX = `sn:t:privacy:${randomBytes(4).toString('hex')}:`;
const stores = `${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'in-process counters'}`;

const adult = { age_band: '18_plus', contextual_offer_consent: true };
const surface = { clickable: true, disclosure_capable: true };
/** Decide bodies, each carrying marker `m` in its message; the later ones fail validation. */
const variants: Array<(m: string) => unknown> = [
  (m) => ({
    message: `제주도 호텔 최저가 알려줘 ${m}`,
    locale: 'ko-KR',
    country: 'KR',
    session: { token: `tok-${m.length}` },
    audience: adult,
    native_surface: surface,
  }),
  (m) => ({ message: `cheapest iphone 16 deal please ${m}`, locale: 'en-US', country: 'US', audience: adult, native_surface: surface }),
  (m) => ({ message: `${m} 우울증 상담 받고 싶어`, locale: 'ko', audience: adult, native_surface: surface }),
  (m) => ({ message: `what's the weather like today ${m}`, locale: 'en', audience: adult, native_surface: surface }),
  (m) => ({ message: `東京のホテル ${m}`, locale: 'ja-JP', native_surface: surface }),
  (m) => ({ message: `제주 호텔 ${m}`, locale: 'ko', audience: { age_band: '13_17' }, native_surface: { clickable: false, disclosure_capable: true } }),
  // Refused with 400, the marker in the message and in other user-controlled places.
  (m) => ({ message: m, email: `${m}@example.com`, native_surface: surface }),
  (m) => ({ message: m, session: { digest: { category_ids: [m, `Bad Id ${m}`], entity_ids: [m] } }, native_surface: surface }),
  // Unknown keys are named in the 400 only when they are plain identifiers (an integrator's
  // typo); a key that reads like text is shown as `*`.
  (m) => ({ message: m, [`${m} said this`]: m, session: { [`note: ${m}`]: m }, native_surface: surface }),
  (m) => ({ message: m, locale: m, country: m, native_surface: surface }),
  (m) => ({ message: `${m} `.repeat(400), native_surface: surface }), // over 4000 characters
  (m) => ({ message: m, native_surface: { clickable: m, disclosure_capable: true } }),
  (m) => ({ message: m, session: { token: m.repeat(20), digest: { generated_at: m } }, native_surface: surface }),
  (m) => [m],
];

describe(`markers in messages, and the client's address, appear nowhere (${stores})`, () => {
  let t: TestApp & { testDb: { url?: string } };
  let key: string;
  const bodies: string[] = [];
  const statuses: Record<number, number> = {};
  const monitored: string[] = [];
  let stopMonitor = async () => {};
  let pgLogStart = -1;

  beforeAll(async () => {
    // Own stores, so the Redis dump can be limited to this file's key prefix.
    const testDb = await createTestDatabase();
    const counters = createTestCounters(COUNTER_PREFIX);
    const app = await createTestApp({ logLevel: 'trace', decideRateLimitPerMinute: 10_000_000, bodyLimitBytes: 32 * 1024 }, { testDb, counters });
    t = { ...app, close: async () => (await app.close(), await counters.close(), await testDb.drop()) };
    key = (await createHost(t.app, 'Privacy proof')).serving_key;
    if (usingRealRedis) {
      // Every command any client sends to Redis while the decides run, arguments included. A raw
      // socket: ioredis' monitor mode can mistake early MONITOR lines for replies under load.
      const url = new URL(process.env.REDIS_URL!);
      const socket = net.connect(Number(url.port || 6379), url.hostname);
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => monitored.push(chunk));
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      socket.write('MONITOR\r\n');
      await new Promise((r) => setTimeout(r, 100));
      stopMonitor = async () => void socket.destroy();
    }
    if (usingRealPostgres)
      pgLogStart = await stat(PG_LOG).then(
        (s) => s.size,
        () => -1,
      );

    const send = async (payload: string, contentType = 'application/json', url = '/v1/offers/decide') => {
      const res = await t.app.inject({ method: 'POST', url, headers: { ...bearer(key), 'content-type': contentType }, payload, remoteAddress: CLIENT });
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      bodies.push(`${JSON.stringify(res.headers)} ${res.body}`);
    };
    for (let i = 0; i < DECIDES; i++) {
      const m = `${RUN}x${i}`;
      await send(JSON.stringify(variants[i % variants.length](m)), 'application/json', i % 10 === 9 ? '/v1/offers/affiliate' : '/v1/offers/decide');
    }
    // Bodies that never get as far as the envelope.
    await send(`{"message": "${RUN} unterminated`);
    await send(`{"message": "${RUN}", "native_surface": {"clickable": tru}}`);
    await send(`${RUN}`, 'text/plain');
    await send(JSON.stringify({ message: `${RUN}${'가'.repeat(20_000)}`, native_surface: surface })); // 413
    await send(`{"message":"${RUN}","x":${'['.repeat(5000)}${']'.repeat(5000)},"native_surface":{"clickable":true,"disclosure_capable":true}}`);
    // Let group-commit writers and click recorders finish before the stores are read.
    await new Promise((r) => setTimeout(r, 300));
  }, 180_000);

  afterAll(async () => {
    await stopMonitor();
    await t?.close();
  });

  it('ran the intended mix: served, no-fill and refused decides', () => {
    console.log(`privacy proof: ${bodies.length} requests, statuses ${JSON.stringify(statuses)}`);
    expect(bodies.length).toBe(DECIDES + 5);
    expect(statuses[200]).toBeGreaterThan(DECIDES / 3);
    expect(statuses[400]).toBeGreaterThan(DECIDES / 3);
    expect(statuses[413]).toBeGreaterThan(0);
    expect(statuses[415]).toBe(1);
    expect(Object.keys(statuses).filter((s) => Number(s) >= 500)).toEqual([]);
    expect(bodies.join('\n')).toContain('"serve":true');
  });

  it('is in no response body or header', () => {
    const leaks = bodies.filter((b) => b.includes(RUN));
    expect(leaks.slice(0, 3), `${leaks.length} bodies`).toEqual([]);
  });

  it('is in no log line (trace level)', () => {
    expect(t.logs.lines.length).toBeGreaterThan(DECIDES);
    expect(t.logs.text).not.toContain(RUN);
    expect(t.logs.text).not.toContain(CLIENT);
  });

  it('is in no /metrics series', async () => {
    const metrics = await t.app.inject({ url: '/metrics', headers: METRICS_AUTH });
    expect(metrics.body).toContain('sidenote_decide_outcomes_total');
    expect(metrics.body).not.toContain(RUN);
  });

  it(`is in no database row (${usingRealPostgres ? 'pg_dump of the whole database' : 'every table of PGlite'})`, async () => {
    const decisions = (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM decisions')).rows[0].n;
    expect(decisions).toBeGreaterThan(DECIDES / 3);
    const dump = usingRealPostgres
      ? (await promisify(execFile)('pg_dump', ['--no-owner', '--dbname', t.testDb.url!], { maxBuffer: 512 * 1024 * 1024 })).stdout
      : await dumpDatabase(t.db);
    expect(dump).toMatch(/decisions/);
    expect(dump).not.toContain(RUN);
    expect(dump).not.toContain(CLIENT);
  });

  it.runIf(usingRealRedis)('is in no Redis key, value, slow-log entry or command sent (real Redis only)', async () => {
    const dump = await dumpRedis(process.env.REDIS_URL!, COUNTER_PREFIX);
    expect(dump.length).toBeGreaterThan(0);
    expect(dump).not.toContain(RUN);
    expect(dump).not.toContain(CLIENT);
    expect(dump).not.toContain(CLIENT_UNKEYED);
    const commands = monitored.join('');
    expect(commands.split('\n').filter((l) => l.includes(COUNTER_PREFIX)).length).toBeGreaterThan(DECIDES / 3); // MONITOR saw the app's commands
    expect(commands).not.toContain(RUN);
    expect(commands).not.toContain(CLIENT);
  });

  it.runIf(!usingRealRedis)('is in no entry of the in-process counter store (embedded only)', () => {
    // Everything in every namespace of the in-process store is searched.
    const entries = (t.counters as MemoryCounterStore).dump();
    expect(entries.length).toBeGreaterThan(0);
    expect(JSON.stringify(entries)).not.toContain(RUN);
    expect(JSON.stringify(entries)).not.toContain(CLIENT);
    expect(JSON.stringify(entries)).not.toContain(CLIENT_UNKEYED);
  });

  it.runIf(usingRealPostgres)('is in no line the Postgres server logged meanwhile (real Postgres only)', async () => {
    expect(pgLogStart, `${PG_LOG} must be readable`).toBeGreaterThanOrEqual(0);
    const file = await open(PG_LOG, 'r');
    try {
      const { size } = await file.stat();
      const buf = Buffer.alloc(Math.max(0, size - pgLogStart));
      await file.read(buf, 0, buf.length, pgLogStart);
      expect(buf.toString('utf8')).not.toContain(RUN);
      expect(buf.toString('utf8')).not.toContain(CLIENT);
    } finally {
      await file.close();
    }
  });
});
