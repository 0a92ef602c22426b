// The demo app's keys on the embedded default: the same live and test key at every start, a new
// pair when a kept one stops working, and never a file when there is no data directory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AppRepository } from '../../src/apps/app-repository.js';
import { ensureDemoKeys } from '../../src/apps/demo-keys.js';
import { embeddedAdminKey } from '../../src/admin/embedded-admin-key.js';
import { hashKey } from '../../src/apps/keys.js';
import { createTestDatabase, usingRealPostgres, type TestDatabase } from '../helpers/test-db.js';

describe(`demo keys (${usingRealPostgres ? 'Postgres' : 'PGlite'})`, () => {
  let t: TestDatabase;
  let dir: string;
  let apps: AppRepository;
  beforeAll(async () => {
    t = await createTestDatabase();
    apps = new AppRepository(t.db);
    dir = await mkdtemp(path.join(tmpdir(), 'sidenote-demo-keys-'));
  });
  afterAll(async () => {
    await t.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps the same live and test key across starts, in an owner-only file', async () => {
    const first = await ensureDemoKeys(apps, dir);
    expect(first.liveKey).toMatch(/^sk_live_/);
    expect(first.testKey).toMatch(/^sk_test_/);
    expect(first.conversionSecret).toMatch(/^whsec_/);
    expect(first.created).toBe(true);
    const again = await ensureDemoKeys(apps, dir);
    expect(again).toEqual({ ...first, created: false });
    expect((await stat(path.join(dir, 'demo-keys.json'))).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(path.join(dir, 'demo-keys.json'), 'utf8')).live_key).toBe(first.liveKey);
  });

  it('makes a new pair when a kept key was revoked', async () => {
    const before = await ensureDemoKeys(apps, dir);
    const live = await apps.findKeyByHash(hashKey(before.liveKey));
    await apps.revokeKey(live!.key_id);
    const after = await ensureDemoKeys(apps, dir);
    expect(after.appId).toBe(before.appId);
    expect(after.liveKey).not.toBe(before.liveKey);
    expect(after.created).toBe(true);
    expect(await ensureDemoKeys(apps, dir)).toEqual({ ...after, created: false });
  });

  it('makes the embedded admin key once, owner-only, and keeps it', async () => {
    const adminDir = path.join(dir, 'fresh', 'pglite');
    const first = await embeddedAdminKey(adminDir);
    expect(first).toMatchObject({ created: true, file: path.join(adminDir, 'admin-key') });
    expect(first.key).toMatch(/^adm_[0-9A-Za-z]{24,}$/);
    expect((await stat(first.file)).mode & 0o777).toBe(0o600);
    expect((await stat(adminDir)).mode & 0o777).toBe(0o700);
    expect(await embeddedAdminKey(adminDir)).toEqual({ ...first, created: false });
  });

  it('writes nothing for an in-memory database', async () => {
    const a = await ensureDemoKeys(apps, 'memory');
    const b = await ensureDemoKeys(apps, 'memory');
    expect(a.liveKey).not.toBe(b.liveKey);
  });
});
