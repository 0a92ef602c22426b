// Test environments. With DATABASE_URL / REDIS_URL set (CI) every test file gets its own fresh
// Postgres database and its own Redis key prefix on the real servers; without them (a fresh
// machine) it gets an in-memory PGlite and the in-process counter store. The suites are the same.
import { TEST_METRICS_TOKEN } from './spawn-server.js';
export { METRICS_AUTH } from './spawn-server.js';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Writable } from 'node:stream';
import type { Database } from '../../src/db/database.js';
import { parseConfig, type Config, type ConfigInput } from '../../src/config/config.js';
import { createCounterStore } from '../../src/counters/index.js';
import type { CounterStore } from '../../src/counters/counter-store.js';
import { buildApp } from '../../src/app.js';
import type { z } from 'zod';
import type { CreatedApp } from '../../src/admin/admin-schemas.js';

export { usingRealPostgres, createTestDatabase, type TestDatabase } from './test-db.js';
import { createTestDatabase, type TestDatabase } from './test-db.js';
import type { Matcher } from '../../src/native/offer-index.js';
export const usingRealRedis = Boolean(process.env.REDIS_URL);

export function createTestCounters(prefix = `sn:t:${randomBytes(4).toString('hex')}:`): CounterStore {
  return createCounterStore({ redisUrl: process.env.REDIS_URL, keyPrefix: prefix });
}

export function testConfig(overrides: ConfigInput = {}): Config {
  return parseConfig({
    port: 0,
    host: '127.0.0.1',
    baseUrl: 'http://sidenote.test',
    dataDir: 'memory',
    logLevel: 'info',
    // The request log on, so the privacy tests read every line an operator could turn on.
    logRequests: true,
    // Every answer a test receives was checked against the schema /openapi.json publishes.
    checkResponses: true,
    loadDemoCatalog: true,
    adminKey: 'admin-key-for-tests-0123456789',
    metricsToken: TEST_METRICS_TOKEN,
    catalogPollMs: 200,
    // Production's 50 ms decide budget is about hosts' latency; on a loaded CI machine a cold
    // first decide can exceed it and fail open to TIMEOUT where a test needs a fill. Tests of the
    // budget itself set their own (decide-http "fails open").
    decideTimeBudgetMs: 2_000,
    // The wait before a lost spend record is rebuilt covers the longest decide budget in flight;
    // these test apps never lose their store mid-run, so the 2 s budget above need not delay
    // every start. The money tests that do lose it set a real budget and the derived wait.
    spendSettleMs: 20,
    ...overrides,
  });
}

/** Collects every log line the app writes, to prove what never appears in them. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: string, cb: () => void) {
    this.lines.push(chunk.toString('utf8'));
    cb();
  }
  get text() {
    return this.lines.join('');
  }
}

export interface TestApp {
  app: FastifyInstance;
  db: Database;
  counters: CounterStore;
  logs: LogCapture;
  close(): Promise<void>;
}

/** One app on a test database; pass `shared` to build a second instance on the same stores
 *  (`now`: that instance's clock), `clock` to run a first instance at a chosen time. */
export async function createTestApp(
  overrides: ConfigInput = {},
  shared?: { testDb: TestDatabase; counters?: CounterStore; now?: () => number },
  clock?: { now?: () => number; matcher?: Matcher },
): Promise<TestApp & { testDb: TestDatabase }> {
  const testDb = shared?.testDb ?? (await createTestDatabase());
  const db = shared ? await testDb.openAnother() : testDb.db;
  const counters = shared?.counters ?? createTestCounters();
  const logs = new LogCapture();
  const app = await buildApp(testConfig(overrides), { db, counters, logStream: logs, now: clock?.now ?? shared?.now, matcher: clock?.matcher });
  await app.ready();
  return {
    app,
    db,
    counters,
    logs,
    testDb,
    close: async () => {
      await app.close();
      if (!shared) {
        await counters.close();
        await testDb.drop();
      }
    },
  };
}

export const ADMIN = { authorization: 'Bearer admin-key-for-tests-0123456789' };

export function bearer(key: string) {
  return { authorization: `Bearer ${key}` };
}

/** A host app made through the admin API, as an operator makes one: its id, both serving keys
 *  and its conversion secret. */
export async function createHost(app: Pick<FastifyInstance, 'inject'>, name = 'Host'): Promise<z.infer<typeof CreatedApp>> {
  const res = await app.inject({ method: 'POST', url: '/admin/apps', headers: ADMIN, payload: { name } });
  if (res.statusCode !== 201) throw new Error(`creating the host app ${name}: ${res.statusCode} ${res.body}`);
  return res.json();
}
