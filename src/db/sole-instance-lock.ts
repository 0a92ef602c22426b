// One instance at a time on a database, for the deployments that need it. An instance that keeps
// its counters in process memory (no REDIS_URL) counts budgets and frequency caps alone; a second
// such instance on the same Postgres would count them again and overspend. It holds a session
// advisory lock for its lifetime, and a second one refuses to start.
import { ADVISORY_LOCKS } from './advisory-locks.js';
import type { Database } from './database.js';

const IN_PROCESS_COUNTERS_LOCK_ID = ADVISORY_LOCKS.inProcessCounters;

export class SoleInstanceLockHeld extends Error {
  constructor() {
    super(
      'another Sidenote instance uses this database with in-process counters (no REDIS_URL); a second one would count budgets and caps again. Set REDIS_URL on every instance to run more than one.',
    );
    this.name = 'SoleInstanceLockHeld';
  }
}

/** Holds the lock on a dedicated connection until `release()`. Rejects with SoleInstanceLockHeld
 *  when another instance holds it. */
export function holdInProcessCountersLock(db: Database): Promise<{ release(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const held = db.withConnection(async (conn) => {
      const ok = (await conn.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [IN_PROCESS_COUNTERS_LOCK_ID])).rows[0]?.ok;
      if (!ok) throw new SoleInstanceLockHeld();
      resolve({
        release: async () => {
          release();
          await held.catch(() => {});
        },
      });
      await released;
      await conn.query('SELECT pg_advisory_unlock($1)', [IN_PROCESS_COUNTERS_LOCK_ID]).catch(() => {});
    });
    held.catch(reject);
  });
}
