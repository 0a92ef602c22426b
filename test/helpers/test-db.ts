// Test databases. With DATABASE_URL set (CI) every test file gets its own fresh Postgres
// database on the real server; without it (a fresh machine) an in-memory PGlite.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';

export const usingRealPostgres = Boolean(process.env.DATABASE_URL);

export interface TestDatabase {
  db: Database;
  /** Connection string of this file's own database (real Postgres only). */
  url?: string;
  /** Opens another connection pool to the same database (a second instance). */
  openAnother(): Promise<Database>;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const db = await openDatabase({ dataDir: 'memory' });
    await migrate(db);
    return {
      db,
      // PGlite is one process' database: "another instance" shares the same handle.
      openAnother: async () => ({ ...db, close: async () => {} }),
      drop: () => db.close(),
    };
  }
  const name = `sidenote_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString(), dataDir: 'memory', poolSize: 5 });
  await migrate(db);
  const others: Database[] = [];
  return {
    db,
    url: url.toString(),
    openAnother: async () => {
      const other = await openDatabase({ databaseUrl: url.toString(), dataDir: 'memory', poolSize: 5 });
      others.push(other);
      return other;
    },
    drop: async () => {
      await Promise.all(others.map((o) => o.close().catch(() => {})));
      await db.close();
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}
