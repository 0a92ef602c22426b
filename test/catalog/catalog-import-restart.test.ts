// An import job cut off by a crash does not read as running for ever: kill -9 the server while a
// job reads or writes a catalog, start it again on the same database, and the job reads as failed
// (import_interrupted) with nothing of it written; a new import then runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type ServerProcess } from '../helpers/spawn-server.js';
import { createTestDatabase, usingRealPostgres, type TestDatabase } from '../helpers/test-db.js';
import { generatedCatalog } from '../../bench/catalogs.js';
import { miniCatalog } from '../helpers/mini-catalog.js';

const ADMIN_KEY = 'restart-admin-key-0123456789abcdef';
const admin = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };

describe(`an import job cut off by a crash (${usingRealPostgres ? 'Postgres' : 'PGlite'})`, () => {
  let dataDir: string;
  let testDb: TestDatabase | undefined;
  let env: Record<string, string>;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'sidenote-import-kill-'));
    env = { ADMIN_KEY, LOAD_DEMO_CATALOG: 'true' };
    if (usingRealPostgres) {
      testDb = await createTestDatabase();
      env.DATABASE_URL = testDb.url!;
    } else {
      env.SIDENOTE_DATA_DIR = dataDir;
      env.DATABASE_URL = '';
    }
  });
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await testDb?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('reads as failed after a restart, and wrote nothing', { timeout: 240_000 }, async () => {
    server = await startServer(env);
    const before = (await (await fetch(`${server.url}/admin/catalog`, { headers: admin })).json()).offers.length;
    const started = await fetch(`${server.url}/admin/catalog/imports`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify(generatedCatalog(30_000, 3_000).catalog),
    });
    expect(started.status).toBe(202);
    const location = started.headers.get('location')!;
    // Killed while it runs: once it has started reading.
    for (;;) {
      const job = await (await fetch(`${server.url}${location}`, { headers: admin })).json();
      expect(job.state).not.toMatch(/succeeded|failed/);
      if (job.state !== 'queued') break;
      await new Promise((r) => setTimeout(r, 10));
    }
    server.child.kill('SIGKILL');
    await server.exited;

    server = await startServer(env);
    // Postgres ends the dead process' session (and its lock) once it sees the socket closed.
    let job: Record<string, any> = {};
    for (let i = 0; i < 200; i++) {
      job = await (await fetch(`${server.url}${location}`, { headers: admin })).json();
      if (job.state === 'failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(job).toMatchObject({ state: 'failed', error: { ok: false, error: 'import_interrupted' }, report: null });
    expect((await (await fetch(`${server.url}/admin/catalog`, { headers: admin })).json()).offers.length).toBe(before);
    // The import lock went with the dead process: the next import runs.
    const next = await fetch(`${server.url}/admin/catalog`, { method: 'PUT', headers: admin, body: JSON.stringify(miniCatalog()) });
    expect(next.status).toBe(200);
  });
});
