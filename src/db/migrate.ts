// Applies the SQL files in ./migrations in name order, each once, each in its own transaction.
// Safe when several instances start at once: they serialise on a Postgres advisory lock and
// every instance after the first finds nothing left to do.
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { Database } from './database.js';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
// Arbitrary, fixed: the lock id every Sidenote instance agrees on.
const MIGRATION_LOCK_ID = 7_316_449_021;

// Within one process (PGlite, or several app instances on one handle) the advisory lock is
// re-entrant for the shared session, so runs on the same handle are also chained here.
const running = new WeakMap<Database, Promise<unknown>>();

export function migrate(db: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  const previous = running.get(db) ?? Promise.resolve();
  const next = previous.catch(() => {}).then(() => migrateLocked(db, dir));
  running.set(db, next);
  return next;
}

async function migrateLocked(db: Database, dir: string): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => /^\d+_[\w-]+\.sql$/.test(f)).sort();
  return db.withConnection(async (conn) => {
    await conn.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      await conn.exec(
        `CREATE TABLE IF NOT EXISTS schema_migrations (
           name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const done = new Set(
        (await conn.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name),
      );
      const applied: string[] = [];
      for (const file of files) {
        if (done.has(file)) continue;
        const sql = await readFile(path.join(dir, file), 'utf8');
        await conn.exec(`BEGIN;\n${sql}\n;INSERT INTO schema_migrations (name) VALUES ('${file}');\nCOMMIT;`).catch(
          async (err) => {
            await conn.exec('ROLLBACK').catch(() => {});
            throw new Error(`migration ${file} failed: ${(err as Error).message}`);
          },
        );
        applied.push(file);
      }
      return applied;
    } finally {
      await conn.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  });
}
