// Applies the SQL files in ./migrations in name order, each once, each in its own transaction.
// Safe when several instances start at once: they serialise on a Postgres advisory lock and
// every instance after the first finds nothing left to do. Each applied file's SHA-256 is
// recorded, and a service whose migration file differs from the one applied refuses to start:
// an edited migration never runs again, so its edit would silently never reach the database.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { Database } from './database.js';
import { ADVISORY_LOCKS } from './advisory-locks.js';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
// Arbitrary, fixed: the lock id every Sidenote instance agrees on.
const MIGRATION_LOCK_ID = ADVISORY_LOCKS.migrations;

// Within one process (PGlite, or several app instances on one handle) the advisory lock is
// re-entrant for the shared session, so runs on the same handle are also chained here.
const running = new WeakMap<Database, Promise<unknown>>();

export class MigrationChanged extends Error {}

/** The file's SHA-256, line endings normalised (a Windows checkout is not an edit). */
function checksum(sql: string): string {
  return createHash('sha256').update(sql.replace(/\r\n/g, '\n')).digest('hex');
}

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
           name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
         ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text`,
      );
      const done = new Map(
        (await conn.query<{ name: string; checksum: string | null }>('SELECT name, checksum FROM schema_migrations')).rows.map((r) => [r.name, r.checksum]),
      );
      const applied: string[] = [];
      for (const file of files) {
        const sql = await readFile(path.join(dir, file), 'utf8');
        const sum = checksum(sql);
        if (done.has(file)) {
          const recorded = done.get(file) ?? null;
          // Applied by a version that did not record checksums: the file as it is now is taken as
          // the one applied.
          if (recorded === null) await conn.query('UPDATE schema_migrations SET checksum = $1 WHERE name = $2', [sum, file]);
          else if (recorded !== sum) {
            throw new MigrationChanged(
              `migration ${file} was edited after it was applied (applied sha256 ${recorded.slice(0, 12)}…, file ${sum.slice(0, 12)}…): ` +
                'an applied migration never runs again, so the edit would not reach the database. Restore the file and put the change in a new migration.',
            );
          }
          continue;
        }
        await conn.exec(`BEGIN;\n${sql}\n;INSERT INTO schema_migrations (name, checksum) VALUES ('${file}', '${sum}');\nCOMMIT;`).catch(async (err) => {
          await conn.exec('ROLLBACK').catch(() => {});
          throw new Error(`migration ${file} failed: ${(err as Error).message}`);
        });
        applied.push(file);
      }
      return applied;
    } finally {
      await conn.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  });
}
