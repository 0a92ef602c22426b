// Postgres advisory locks Sidenote takes: each job has its own id. The catalog import and the
// sole-instance lock of in-process counters once shared one, so an instance on Postgres without
// Redis (which holds that lock for its lifetime) blocked its own catalog imports until the
// query timed out, and `PUT /admin/catalog` answered 500.
import { describe, expect, it } from 'vitest';
import { ADVISORY_LOCKS } from '../../src/db/advisory-locks.js';
import { createCounterStore } from '../../src/counters/index.js';
import { ADMIN, createTestApp, createTestDatabase, usingRealPostgres } from '../helpers/test-env.js';
import { miniCatalog } from '../helpers/mini-catalog.js';

describe('advisory lock ids', () => {
  it('are distinct, one per job', () => {
    const ids = Object.values(ADVISORY_LOCKS);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

// PGlite is one process on one connection: it takes no advisory locks (src/db/sole-instance-lock.ts).
describe.skipIf(!usingRealPostgres)('an instance on Postgres with in-process counters', () => {
  it('imports a catalog while it holds the sole-instance lock', { timeout: 30_000 }, async () => {
    const testDb = await createTestDatabase();
    const counters = createCounterStore({ keyPrefix: 'sn:lock-test:' }); // in process: takes the sole-instance lock
    const t = await createTestApp({ loadDemoCatalog: false }, { testDb, counters });
    try {
      // The old shared lock made this import wait for its query timeout and answer 500: the
      // status says it, where a wall-clock bound failed on a busy machine (5,041 ms in CI).
      const res = await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
      expect(res.statusCode).toBe(200);
    } finally {
      await t.close();
      await counters.close();
      await testDb.drop();
    }
  });
});
