// `npm run cluster`: several worker processes share one port, one Postgres and one Redis.
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createTestDatabase, usingRealPostgres, type TestDatabase } from '../helpers/test-db.js';
import { entryPointArgs } from '../helpers/spawn-server.js';
import { adultOnSurface } from '../helpers/envelopes.js';

const ROOT = path.resolve('.');
const ADMIN_KEY = 'cluster-admin-key-0123456789abcdef';
const METRICS_TOKEN = 'cluster-metrics-token-0123456789abcdef';

function run(env: Record<string, string | undefined>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, entryPointArgs('cluster'), {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { child, output: () => out, exited: new Promise((r) => child.on('exit', (code) => r(code))) };
}

describe('cluster mode', () => {
  let testDb: TestDatabase | undefined;
  afterAll(async () => {
    await testDb?.drop();
  });

  it('refuses to start on the embedded defaults, with a clear message', async () => {
    const p = run({ DATABASE_URL: '', REDIS_URL: '' });
    expect(await p.exited).toBe(2);
    expect(p.output()).toContain('cluster mode needs DATABASE_URL and REDIS_URL');
  });

  it('stops after five workers in a row die before listening, waiting longer before each new one', async () => {
    // Nothing listens on port 1: every worker fails at its database connection.
    const p = run({
      DATABASE_URL: 'postgres://sidenote:sidenote@127.0.0.1:1/none',
      REDIS_URL: 'redis://127.0.0.1:1/0',
      CLUSTER_WORKERS: '1',
      METRICS_PORT: 'off',
    });
    expect(await p.exited).toBe(1);
    const waits = [...p.output().matchAll(/before it listened; starting a new one in (\d+) ms/g)].map((m) => Number(m[1]));
    expect(waits).toEqual([500, 1000, 2000, 4000]);
    expect(p.output()).toContain('before it listened, 5 times in a row; stopping');
  }, 60_000);

  // Registered where real Postgres and Redis are configured (CI); the refusal above is what the
  // embedded run can prove.
  if (usingRealPostgres && process.env.REDIS_URL) {
    it('serves from several workers on one port, scrapes all of them in one /metrics, and drains them all on SIGTERM', async () => {
      testDb = await createTestDatabase();
      const port = 20000 + (process.pid % 20000);
      const metricsPort = port + 1;
      const p = run({
        DATABASE_URL: testDb.url,
        CLUSTER_WORKERS: '2',
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        ADMIN_KEY,
        METRICS_TOKEN,
        LOAD_DEMO_CATALOG: 'true',
        REDIS_KEY_PREFIX: `sn:cluster:${process.pid}:`,
      });
      try {
        for (let i = 0; i < 200; i++) {
          const listening = (p.output().match(/Server listening at/g) ?? []).length;
          if (listening >= 2) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        expect((p.output().match(/Server listening at/g) ?? []).length).toBe(2);
        const pids = new Set((p.output().match(/"pid":(\d+)/g) ?? []).map((m) => m.slice(6)));
        expect(pids.size).toBeGreaterThanOrEqual(2);
        const admin = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
        const app = await (await fetch(`http://127.0.0.1:${port}/admin/apps`, { method: 'POST', headers: admin, body: '{"name":"Cluster"}' })).json();
        const statuses: number[] = [];
        for (let i = 0; i < 20; i++) {
          const res = await fetch(`http://127.0.0.1:${port}/v1/offers/decide`, {
            method: 'POST',
            headers: { authorization: `Bearer ${app.serving_key}`, 'content-type': 'application/json', connection: 'close' },
            body: JSON.stringify({
              message: '제주도 호텔 최저가',
              locale: 'ko',
              country: 'KR',
              ...adultOnSurface(),
            }),
          });
          statuses.push(res.status);
        }
        expect(statuses.every((s) => s === 200)).toBe(true);
        // The primary's listener sums every worker's counters: all 20 decides, whichever served them.
        const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
        const decides = [...metrics.matchAll(/^sidenote_http_requests_total\{[^}]*route="\/v1\/offers\/decide"[^}]*\} (\d+)$/gm)].reduce(
          (n, m) => n + Number(m[1]),
          0,
        );
        expect(decides).toBe(20);
        expect(metrics).toMatch(/^sidenote_build_info\{/m);
        // The API port's token scrape lands on either worker and reads the same cluster totals.
        for (let i = 0; i < 6; i++) {
          const scraped = await (
            await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}`, connection: 'close' } })
          ).text();
          const fromApiPort = [...scraped.matchAll(/^sidenote_http_requests_total\{[^}]*route="\/v1\/offers\/decide"[^}]*\} (\d+)$/gm)].reduce(
            (n, m) => n + Number(m[1]),
            0,
          );
          expect(fromApiPort, `scrape ${i}`).toBe(20);
        }
      } finally {
        p.child.kill('SIGTERM');
      }
      expect(await p.exited).toBe(0);
    }, 60_000);
  }
});
