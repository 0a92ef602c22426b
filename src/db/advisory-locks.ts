// Every Postgres advisory lock id Sidenote takes, in one place so no two jobs share one: an
// instance that holds one lock for its lifetime must never block another job of its own.
// The values are arbitrary and fixed: every instance of every version agrees on them.
import type { Database, Queryable } from './database.js';

export const ADVISORY_LOCKS = {
  /** Session lock while migrations run: instances starting together migrate one at a time. */
  migrations: 7_316_449_021,
  /** Session lock held for an instance's lifetime when it counts in process memory (no Redis). */
  inProcessCounters: 7_316_449_022,
  /** Transaction lock of a catalog import: one import at a time across instances. */
  catalogImport: 7_316_449_023,
  /** Session lock of a history maintenance run (day partitions made ahead, expired ones dropped):
   *  one instance does it; the others skip that run. */
  historyMaintenance: 7_316_449_024,
  /** Session lock held for the whole of a catalog import (a job, `PUT /admin/catalog`, the CLI):
   *  one at a time across instances, and its holder's backend tells every instance that a job
   *  is still running (src/catalog/catalog-import-jobs.ts). */
  catalogImportRunning: 7_316_449_025,
} as const;

/** A session advisory lock held on a connection of its own until `release()`. */
export interface HeldSessionLock {
  /** The Postgres backend holding it; null on PGlite. */
  readonly holderPid: number | null;
  release(): Promise<void>;
}

/** Takes session lock `id` if no other session holds it, and holds it until `release()`; null
 *  when another session holds it. PGlite is one session, where advisory locks are re-entrant, so
 *  there it always succeeds: callers keep their own guard within the process. */
export function trySessionLock(db: Database, id: number): Promise<HeldSessionLock | null> {
  return new Promise((resolve, reject) => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const held = db.withConnection(async (conn) => {
      const r = await conn.query<{ ok: boolean; pid: number }>('SELECT pg_try_advisory_lock($1) AS ok, pg_backend_pid() AS pid', [id]);
      if (!r.rows[0]?.ok) {
        resolve(null);
        return;
      }
      resolve({
        holderPid: db.engine === 'postgres' ? r.rows[0].pid : null,
        release: async () => {
          release();
          await held.catch(() => {});
        },
      });
      await released;
      await conn.query('SELECT pg_advisory_unlock($1)', [id]).catch(() => {});
    });
    held.catch(reject);
  });
}

/** Whether Postgres backend `pid` holds session lock `id` in this database now. */
export async function holdsSessionLock(db: Queryable, id: number, pid: number): Promise<boolean> {
  const r = await db.query<{ held: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND pid = $2
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND ((classid::bigint << 32) | objid::bigint) = $1) AS held`,
    [id, pid],
  );
  return r.rows[0]?.held === true;
}
