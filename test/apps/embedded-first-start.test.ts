// The embedded default's first and later starts, as a newcomer meets them (the real server
// process): the first banner shows the demo keys and an admin key made for this data directory,
// with the addresses of /docs and /dashboard; the admin key opens the admin API; a later start
// names where the keys are kept instead of printing them again, and its printed curl still works.
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type ServerProcess } from '../helpers/spawn-server.js';

const EMBEDDED = { DATABASE_URL: '', REDIS_URL: '', ADMIN_KEY: '' };

async function banner(server: ServerProcess): Promise<string> {
  for (let i = 0; i < 200 && !server.output().includes('Try: curl'); i++) await new Promise((r) => setTimeout(r, 50));
  const out = server.output();
  return out.slice(out.indexOf('Sidenote is serving on'));
}

async function stop(server: ServerProcess) {
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
}

describe('the embedded default, first start and later ones', () => {
  let dir: string;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('shows the keys once, opens the admin API with a key of its own, and then says where they are', { timeout: 120_000 }, async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sidenote-first-start-'));
    const dataDir = path.join(dir, 'pglite');
    const first = await startServer({ ...EMBEDDED, SIDENOTE_DATA_DIR: dataDir });
    const shown = await banner(first);
    const live = /Demo serving key, live: (sk_live_\S+)/.exec(shown)?.[1];
    const admin = /Admin key: (adm_\S+)/.exec(shown)?.[1];
    expect(live).toBeDefined();
    expect(admin).toBeDefined();
    expect(shown).toMatch(/API reference: http:\/\/\S+\/docs\s+Dashboard: http:\/\/\S+\/dashboard/);
    const apps = await fetch(`${first.url}/admin/apps`, { headers: { authorization: `Bearer ${admin}` } });
    expect(apps.status).toBe(200);
    expect((await fetch(`${first.url}/admin/apps`, { headers: { authorization: 'Bearer adm_not-the-key-0123456789abcdef' } })).status).toBe(401);
    await stop(first);

    const again = await startServer({ ...EMBEDDED, SIDENOTE_DATA_DIR: dataDir });
    const later = await banner(again);
    expect(later).not.toContain(live!);
    expect(later).not.toContain(admin!);
    expect(later).toContain(path.join(dataDir, 'demo-keys.json'));
    expect(later).toContain(path.join(dataDir, 'admin-key'));
    expect((await fetch(`${again.url}/admin/apps`, { headers: { authorization: `Bearer ${admin}` } })).status).toBe(200);
    // The printed curl, as a shell runs it: it reads the live key from the file.
    const curl = /Try: (curl[^\n]*\\\n[^\n]*)/.exec(later)![1].replace('\\\n', ' ');
    const answer = JSON.parse(execFileSync('bash', ['-c', curl], { encoding: 'utf8' }));
    expect(answer).toMatchObject({ serve: expect.any(Boolean), request_id: expect.any(String) });
    expect(answer.reason_codes ?? []).not.toContain('INVALID_API_KEY');
    await stop(again);
  });
});
