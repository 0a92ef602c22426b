// REPORTING_DATABASE_URL: reports read a replica. The stand-in replica is another database whose
// traffic differs from the primary's, reached through a role that may only read
// (SELECT grants, default_transaction_read_only): the reports show its figures, not the
// primary's, and the instance starts without trying to migrate or write there.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, createTestDatabase, usingRealPostgres, type TestDatabase } from '../helpers/test-env.js';
import { seedTraffic } from './seed-traffic.js';

async function admin(url: string, sql: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

describe.skipIf(!usingRealPostgres)('reports from a read replica (REPORTING_DATABASE_URL)', () => {
  let replica: TestDatabase;
  let readOnlyUrl: string;
  const role = `sidenote_ro_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    // The replica's data: real traffic through an instance of its own.
    replica = await createTestDatabase();
    const seeding = await createTestApp({ loadDemoCatalog: false }, { testDb: replica });
    await seedTraffic(seeding.app, async () => {
      // Clicks are recorded after the redirect; wait for them.
      for (let i = 0; i < 100; i++) {
        if ((await replica.db.query('SELECT 1 FROM clicks')).rows.length > 0) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    });
    await seeding.app.close();
    const url = new URL(replica.url!);
    await admin(
      url.toString(),
      `CREATE ROLE ${role} LOGIN PASSWORD 'ro-password';
       GRANT CONNECT ON DATABASE ${url.pathname.slice(1)} TO ${role};
       GRANT USAGE ON SCHEMA public TO ${role};
       GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role};
       ALTER ROLE ${role} SET default_transaction_read_only = on;`,
    );
    url.username = role;
    url.password = 'ro-password';
    readOnlyUrl = url.toString();
  }, 120_000);
  afterAll(async () => {
    await replica?.drop();
    if (replica?.url) await admin(replica.url.replace(/\/[^/]*$/, '/postgres'), `DROP ROLE IF EXISTS ${role}`).catch(() => {});
  });

  it('serves the reports from the replica and starts without migrating it', { timeout: 120_000 }, async () => {
    const migrationsBefore = (await replica.db.query('SELECT name, checksum FROM schema_migrations ORDER BY name')).rows;
    // A primary with no traffic at all.
    const t = await createTestApp({ loadDemoCatalog: false, reportingDatabaseUrl: readOnlyUrl });
    try {
      expect((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM decisions')).rows[0].n).toBe(0);
      const res = await t.app.inject({ method: 'GET', url: '/admin/reports?range=1h', headers: ADMIN });
      expect(res.statusCode).toBe(200);
      const report = res.json();
      // seedTraffic's live decides (test keys left out): 7 of host A, 2 of host B.
      expect(report.totals).toMatchObject({ decides: 9, fills: 5, clicks: 1, conversions: 1 });
      expect(report.spend_by_campaign.map((c: { name: string }) => c.name)).toContain('Jeju ocean-view hotels');
      expect(report.funnel_by_app.map((a: { name: string }) => a.name).sort()).toEqual(['Host A', 'Host B']);
      // The primary answers everything else: its own (empty) catalog.
      expect((await t.app.inject({ method: 'GET', url: '/admin/catalog', headers: ADMIN })).json().offers).toEqual([]);
    } finally {
      await t.close();
    }
    expect((await replica.db.query('SELECT name, checksum FROM schema_migrations ORDER BY name')).rows).toEqual(migrationsBefore);
  });

  it('opens only read-only sessions there, so a write could never land', async () => {
    const { openReportingDatabase } = await import('../../src/reporting/reporting-database.js');
    const db = await openReportingDatabase(replica.url!);
    try {
      const err = await db.query("INSERT INTO settings (key, value) VALUES ('x', 'y')").catch((e: Error) => e);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error & { code?: string }).code).toBe('25006'); // read_only_sql_transaction
    } finally {
      await db.close();
    }
  });
});

describe('reports without REPORTING_DATABASE_URL', () => {
  it('read the primary, as before', async () => {
    const t = await createTestApp({ loadDemoCatalog: false });
    try {
      expect(t.app.reports.figures).toBe(t.app.repositories.reports);
      expect(t.app.reports.campaigns).toBe(t.app.repositories.catalog);
      expect(t.app.reports.ledger).toBe(t.app.repositories.decisions);
    } finally {
      await t.close();
    }
  });
});
