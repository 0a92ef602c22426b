// Nothing acknowledged is lost: kill -9 the server while hosts stream events at it, start it
// again on the same database, and find every event that was answered 200.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type ServerProcess } from '../helpers/spawn-server.js';
import { createTestDatabase, usingRealPostgres, type TestDatabase } from '../helpers/test-db.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { adultOnSurface } from '../helpers/envelopes.js';

const ADMIN_KEY = 'sigkill-admin-key-0123456789abcdef';

describe(`SIGKILL during an event stream (${usingRealPostgres ? 'Postgres' : 'PGlite'})`, () => {
  let dataDir: string;
  let testDb: TestDatabase | undefined;
  let env: Record<string, string>;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'sidenote-kill-'));
    // A roomy decide budget: the first decide must fill (its offer is what the events refer to),
    // and on a loaded machine a cold key lookup alone can exceed the default 50 ms.
    env = { ADMIN_KEY, LOAD_DEMO_CATALOG: 'true', DECIDE_RATE_LIMIT_PER_MINUTE: '100000', DECIDE_TIME_BUDGET_MS: '5000' };
    if (usingRealPostgres) {
      testDb = await createTestDatabase();
      env.DATABASE_URL = testDb.url!;
    } else {
      env.SIDENOTE_DATA_DIR = dataDir;
      env.DATABASE_URL = '';
    }
  });
  /** How many of these event ids are in the database, read with the server stopped. */
  async function storedEvents(ids: string[]): Promise<number> {
    const db: Database = usingRealPostgres ? await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: 'memory' }) : await openDatabase({ dataDir });
    try {
      return (await db.query('SELECT id FROM events WHERE id = ANY($1::text[])', [ids])).rows.length;
    } finally {
      await db.close();
    }
  }

  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await testDb?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('finds every acknowledged event after restart', async () => {
    server = await startServer(env);
    const admin = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
    const app = await (await fetch(`${server.url}/admin/apps`, { method: 'POST', headers: admin, body: '{"name":"Killer"}' })).json();
    const auth = { authorization: `Bearer ${app.serving_key}`, 'content-type': 'application/json' };
    const decided = await (
      await fetch(`${server.url}/v1/offers/decide`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          message: '제주도 호텔 최저가',
          locale: 'ko',
          country: 'KR',
          ...adultOnSurface(),
        }),
      })
    ).json();
    expect(decided.serve).toBe(true);

    const acknowledged: string[] = [];
    let stop = false;
    let n = 0;
    const worker = async () => {
      while (!stop) {
        try {
          const res = await fetch(`${server!.url}/v1/events/rendered`, {
            method: 'POST',
            headers: { ...auth, 'idempotency-key': `kill-${process.pid}-${++n}` },
            body: JSON.stringify({ offer_snapshot_id: decided.offer_id, decision_id: decided.decision_id }),
          });
          if (res.status === 200) acknowledged.push((await res.json()).event_id);
        } catch {
          return; // the server is gone
        }
      }
    };
    const workers = Array.from({ length: 16 }, worker);
    await new Promise((r) => setTimeout(r, 1500));
    server.child.kill('SIGKILL');
    await server.exited;
    stop = true;
    await Promise.all(workers);
    expect(acknowledged.length).toBeGreaterThan(50);

    expect(await storedEvents(acknowledged)).toBe(acknowledged.length);
    // And the service starts again on that database.
    server = await startServer(env);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 120_000);

  it('on SIGTERM finishes in-flight requests, flushes pending writes and exits 0', async () => {
    server = await startServer(env);
    const admin = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
    const app = await (await fetch(`${server.url}/admin/apps`, { method: 'POST', headers: admin, body: '{"name":"Terminator"}' })).json();
    const auth = { authorization: `Bearer ${app.serving_key}`, 'content-type': 'application/json' };
    const decide = () =>
      fetch(`${server!.url}/v1/offers/decide`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          message: '제주도 호텔 최저가',
          locale: 'ko',
          country: 'KR',
          session: { token: `term-${Math.random()}` },
          ...adultOnSurface(),
        }),
      });
    const decided = await (await decide()).json();
    const inFlight = Array.from({ length: 40 }, (_, i) =>
      fetch(`${server!.url}/v1/events/rendered`, {
        method: 'POST',
        headers: { ...auth, 'idempotency-key': `term-${process.pid}-${i}` },
        body: JSON.stringify({ offer_snapshot_id: decided.offer_id, decision_id: decided.decision_id }),
      }).then(async (r) => ({ status: r.status, body: await r.json() })),
    );
    await new Promise((r) => setTimeout(r, 5));
    server.child.kill('SIGTERM');
    const results = await Promise.allSettled(inFlight);
    expect(await server.exited).toBe(0);
    const answered = results
      .filter((r) => r.status === 'fulfilled')
      .map((r) => (r as PromiseFulfilledResult<{ status: number; body: { event_id: string } }>).value);
    expect(answered.length).toBeGreaterThan(0);
    expect(
      answered.map((a) => a.status).filter((s) => s !== 200),
      JSON.stringify(answered.find((a) => a.status !== 200)),
    ).toEqual([]);
    const ids = answered.map((a) => a.body.event_id);
    expect(await storedEvents(ids)).toBe(ids.length);
    expect(server.output()).toContain('shutting down');
  }, 120_000);
});
