import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, usingRealPostgres, type TestDatabase } from '../helpers/test-db.js';
import { migrate } from '../../src/db/migrate.js';

describe(`migrations (${usingRealPostgres ? 'Postgres' : 'PGlite'})`, () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.drop());

  it('creates every table the service needs', async () => {
    const r = await t.db.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name");
    expect(r.rows.map((x) => x.table_name)).toEqual(
      expect.arrayContaining([
        'apps',
        'api_keys',
        'conversion_secrets',
        'advertisers',
        'advertiser_destinations',
        'campaigns',
        'offers',
        'offer_snapshots',
        'decisions',
        'events',
        'clicks',
        'conversions',
        'affiliate_impressions',
        'click_intents',
        'affiliate_networks',
        'catalog_state',
        'settings',
        'schema_migrations',
      ]),
    );
  });

  it('is a no-op when run again, also from several instances at once', async () => {
    const others = await Promise.all([t.openAnother(), t.openAnother(), t.openAnother()]);
    const applied = await Promise.all([migrate(t.db), ...others.map((o) => migrate(o))]);
    expect(applied.flat()).toEqual([]);
    const r = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
    expect(r.rows[0].n).toBeGreaterThan(0);
  });

  it('has no column that could hold a message', async () => {
    const r = await t.db.query<{ column_name: string }>("SELECT column_name FROM information_schema.columns WHERE table_schema = 'public'");
    for (const { column_name } of r.rows) expect(column_name).not.toMatch(/message|transcript|conversation/);
  });

  it('enforces idempotency keys and nonce uniqueness per app', async () => {
    const r = await t.db.query<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE schemaname = 'public'");
    const defs = r.rows.map((x) => x.indexdef).join('\n');
    // In key tables of their own, unpartitioned, so the guarantee spans days (migration 006).
    expect(defs).toMatch(/UNIQUE INDEX .* ON public\.event_idempotency_keys USING btree \(app_id, idempotency_key\)/);
    expect(defs).toMatch(/UNIQUE INDEX .* ON public\.conversion_nonces USING btree \(app_id, nonce\)/);
    // The impression's time is a function of the impression: the same guarantee, partitioned.
    expect(defs).toMatch(/UNIQUE INDEX .* ON ONLY public\.click_intents USING btree \(affiliate_impression_id, event_id, impression_created_at\)/);
  });
});

describe('concurrent first start', () => {
  it('two instances migrating an empty database at once both succeed, and it is migrated once', async () => {
    const { openDatabase } = await import('../../src/db/database.js');
    let a: Awaited<ReturnType<typeof openDatabase>>, b: Awaited<ReturnType<typeof openDatabase>>, cleanup: () => Promise<void>;
    if (usingRealPostgres) {
      const { randomBytes } = await import('node:crypto');
      const pg = (await import('pg')).default;
      const name = `sidenote_m_${randomBytes(5).toString('hex')}`;
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      const url = new URL(process.env.DATABASE_URL!);
      url.pathname = `/${name}`;
      a = await openDatabase({ databaseUrl: url.toString(), dataDir: 'memory' });
      b = await openDatabase({ databaseUrl: url.toString(), dataDir: 'memory' });
      cleanup = async () => {
        await a!.close();
        await b!.close();
        await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
        await admin.end();
      };
    } else {
      // PGlite serves one process; two starts race on the same handle.
      a = b = await openDatabase({ dataDir: 'memory' });
      cleanup = () => a!.close();
    }
    try {
      const [ra, rb] = await Promise.all([migrate(a), migrate(b)]);
      expect(ra.length + rb.length).toBeGreaterThan(0);
      expect(ra.length === 0 || rb.length === 0).toBe(true);
      const r = await a.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
      expect(r.rows[0].n).toBe(ra.length + rb.length);
    } finally {
      await cleanup();
    }
  });
});

describe(`migration checksums (${usingRealPostgres ? 'Postgres' : 'PGlite'})`, () => {
  let t: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    t = await createTestDatabase();
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    dir = await mkdtemp((await import('node:path')).join(tmpdir(), 'sidenote-migrations-'));
    await writeFile(`${dir}/900_extra.sql`, 'CREATE TABLE checksum_probe (id int);\n');
    expect(await migrate(t.db, dir)).toEqual(['900_extra.sql']);
  });
  afterAll(async () => {
    await t.drop();
    await (await import('node:fs/promises')).rm(dir, { recursive: true, force: true });
  });

  it('records each applied file and accepts it unchanged, whatever its line endings', async () => {
    const r = await t.db.query<{ checksum: string }>("SELECT checksum FROM schema_migrations WHERE name = '900_extra.sql'");
    expect(r.rows[0].checksum).toMatch(/^[0-9a-f]{64}$/);
    await (await import('node:fs/promises')).writeFile(`${dir}/900_extra.sql`, 'CREATE TABLE checksum_probe (id int);\r\n');
    expect(await migrate(t.db, dir)).toEqual([]);
  });

  it('refuses to start on a migration edited after it was applied, naming it', async () => {
    await (await import('node:fs/promises')).writeFile(`${dir}/900_extra.sql`, 'CREATE TABLE checksum_probe (id bigint);\n');
    await expect(migrate(t.db, dir)).rejects.toThrow(/migration 900_extra\.sql was edited after it was applied/);
    await (await import('node:fs/promises')).writeFile(`${dir}/900_extra.sql`, 'CREATE TABLE checksum_probe (id int);\n');
  });

  it('takes the file as applied where an older version recorded no checksum', async () => {
    await t.db.query("UPDATE schema_migrations SET checksum = NULL WHERE name = '900_extra.sql'");
    expect(await migrate(t.db, dir)).toEqual([]);
    const r = await t.db.query<{ checksum: string | null }>("SELECT checksum FROM schema_migrations WHERE name = '900_extra.sql'");
    expect(r.rows[0].checksum).toMatch(/^[0-9a-f]{64}$/);
  });
});
