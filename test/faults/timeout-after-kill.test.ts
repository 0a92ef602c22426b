// A decide answered TIMEOUT never stays billed, whatever stops its instance. The instance's
// database link turns slow (500 ms each way, past the 50 ms decide budget): its served rows
// commit while the host is told TIMEOUT, and the instance is killed (SIGKILL) before its
// corrections can reach the database. Restarted, the service leaves no served row and no spend
// for any answer the host got as TIMEOUT, and the ledger agrees with the rows to the micro.
// Real Postgres only: the link's delay is a proxy in front of a throwaway Postgres server.
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startServer, type ServerProcess } from '../helpers/spawn-server.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { ThrowawayPostgres } from '../helpers/throwaway-servers.js';
import { servingEnvelope } from '../helpers/host-traffic.js';

const realServers = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const ADMIN_KEY = 'kill-admin-key-0123456789abcdef';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(realServers)('TIMEOUT answers after the instance is killed during a slow database (real Postgres)', () => {
  let postgres: ThrowawayPostgres | undefined;
  let proxy: FaultProxy | undefined;
  let server: ServerProcess | undefined;
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await proxy?.close();
    await postgres?.destroy();
  });

  it('leaves no served row and no spend for any of them once a new instance has started', { timeout: 180_000 }, async () => {
    postgres = await ThrowawayPostgres.start();
    proxy = await FaultProxy.start({ host: '127.0.0.1', port: postgres.port });
    // In-process counters (no REDIS_URL): one instance at a time, as here.
    const env = {
      DATABASE_URL: postgres.url(proxy.port),
      REDIS_URL: '',
      ADMIN_KEY,
      LOAD_DEMO_CATALOG: 'true',
      DECIDE_RATE_LIMIT_PER_MINUTE: '10000000',
      UNCONFIRMED_SERVE_GRACE_MS: '1000',
      UNCONFIRMED_SERVE_SWEEP_MS: '1000',
    };
    server = await startServer(env);
    const admin = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
    const key = (await (await fetch(`${server.url}/admin/apps`, { method: 'POST', headers: admin, body: '{"name":"Killed"}' })).json()).serving_key;
    const decide = async () =>
      (
        await fetch(`${server!.url}/v1/offers/decide`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(servingEnvelope()),
        })
      ).json();
    let first = await decide();
    for (let i = 0; i < 20 && !first.serve; i++) first = await decide();
    expect(first.serve, JSON.stringify(first)).toBe(true);
    await decide(); // the key is in the lookup cache

    proxy.set({ kind: 'delay', ms: 500 });
    const answers = await Promise.all(Array.from({ length: 10 }, () => decide()));
    expect(
      answers.every((a) => a.reason_codes.includes('TIMEOUT')),
      JSON.stringify(answers),
    ).toBe(true);
    // Killed once their served rows are in the database (read straight from it, not through the
    // slow link): a correction needs two more crossings of the link (1,000 ms) to arrive.
    const db = new pg.Client({ connectionString: postgres.url() });
    await db.connect();
    try {
      const ids = answers.map((a) => a.decision_id);
      const servedRows = async () => Number((await db.query('SELECT count(*) AS n FROM decisions WHERE serve AND id = ANY($1::text[])', [ids])).rows[0].n);
      for (let i = 0; i < 500 && (await servedRows()) === 0; i++) await sleep(10);
      server.child.kill('SIGKILL');
      await server.exited;
      proxy.set({ kind: 'pass' });
      // The case this is about: rows served for answers the host got as TIMEOUT.
      expect(await servedRows()).toBeGreaterThan(0);

      server = await startServer(env);
      for (let i = 0; i < 100 && (await servedRows()) > 0; i++) await sleep(100);
      expect(await servedRows()).toBe(0);
      const rows = await db.query('SELECT id, serve, reason_codes, spend_micros FROM decisions WHERE id = ANY($1::text[])', [ids]);
      for (const r of rows.rows) expect(r, r.id).toMatchObject({ serve: false, reason_codes: ['TIMEOUT'], spend_micros: '0' });
      // The ledger is the rows' spend, to the micro.
      const ledger = await db.query(
        `SELECT (SELECT coalesce(sum(spend_micros), 0) FROM campaign_spend_total)::bigint AS ledger,
                (SELECT coalesce(sum(spend_micros), 0) FROM decisions)::bigint AS rows`,
      );
      expect(ledger.rows[0].ledger).toBe(ledger.rows[0].rows);
    } finally {
      await db.end();
    }
  });
});
