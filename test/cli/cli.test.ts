// The operator CLI end to end, on its own database (PGlite directory or a fresh Postgres database).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, usingRealPostgres, type TestDatabase } from '../helpers/test-db.js';
import { miniCatalog } from '../helpers/mini-catalog.js';

const run = promisify(execFile);
const BIN = path.resolve('bin/sidenote.mjs');

describe(`sidenote CLI (${usingRealPostgres ? 'Postgres' : 'PGlite'})`, () => {
  let dir: string;
  let testDb: TestDatabase | undefined;
  let env: NodeJS.ProcessEnv;
  const cli = async (...args: string[]) => {
    try {
      const r = await run(process.execPath, [BIN, ...args], { env, timeout: 60_000 });
      return { code: 0, stdout: r.stdout, stderr: r.stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sidenote-cli-'));
    env = { ...process.env, SIDENOTE_DATA_DIR: path.join(dir, 'db') };
    if (usingRealPostgres) {
      testDb = await createTestDatabase();
      env.DATABASE_URL = testDb.url;
    } else {
      delete env.DATABASE_URL;
    }
  });
  afterAll(async () => {
    await testDb?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates an app and prints its keys once, as JSON on request', async () => {
    const r = await cli('app', 'create', 'CLI Host', '--json');
    expect(r.code).toBe(0);
    const created = JSON.parse(r.stdout);
    expect(created.serving_key).toMatch(/^sk_live_/);
    const list = await cli('app', 'list', '--json');
    const apps = JSON.parse(list.stdout);
    expect(apps[0].name).toBe('CLI Host');
    expect(list.stdout).not.toContain(created.serving_key);

    const setup = JSON.parse((await cli('key', 'create', created.app_id, '--kind', 'setup', '--json')).stdout);
    expect(setup.key).toMatch(/^st_/);
    expect((await cli('key', 'revoke', created.serving_key_id)).stdout).toContain('revoked');
    const rotated = JSON.parse((await cli('secret', 'rotate', created.app_id, '--json')).stdout);
    expect(rotated.secret).toMatch(/^whsec_/);
  }, 120_000);

  it("shows and changes an app's brand-safety exclusions, naming ids the catalog lacks", async () => {
    const created = JSON.parse((await cli('app', 'create', 'Careful Host', '--json')).stdout);
    const empty = await cli('app', 'brand-safety', created.app_id);
    expect(empty).toMatchObject({ code: 0 });
    expect(empty.stdout).toContain('(never set)');
    const set = JSON.parse(
      (
        await cli(
          'app',
          'brand-safety',
          created.app_id,
          '--block-category',
          'gambling',
          '--block-category',
          'dating',
          '--block-advertiser',
          'adv.rival',
          '--json',
        )
      ).stdout,
    );
    expect(set).toMatchObject({ blocked_category_ids: ['dating', 'gambling'], blocked_advertiser_ids: ['adv.rival'] });
    expect(set.not_in_catalog.advertiser_ids).toEqual(['adv.rival']);
    const after = JSON.parse((await cli('app', 'brand-safety', created.app_id, '--unblock-category', 'dating', '--json')).stdout);
    expect(after).toMatchObject({ blocked_category_ids: ['gambling'], blocked_advertiser_ids: ['adv.rival'] });
    expect(await cli('app', 'brand-safety', created.app_id, '--block-category', 'Not An Id')).toMatchObject({ code: 2 });
    expect(await cli('app', 'brand-safety', 'app_nothere')).toMatchObject({ code: 1, stderr: 'no app app_nothere\n' });
  }, 120_000);

  it('imports and exports the catalog, idempotently, and names the bad field of a bad file', async () => {
    const file = path.join(dir, 'catalog.json');
    await writeFile(file, JSON.stringify(miniCatalog()));
    const first = await cli('catalog', 'import', file, '--json');
    expect(JSON.parse(first.stdout)).toMatchObject({ changed: true, snapshots_created: 3 });
    const second = await cli('catalog', 'import', file);
    expect(second.stdout).toContain('catalog unchanged');
    const out = path.join(dir, 'export.json');
    expect((await cli('catalog', 'export', out)).code).toBe(0);
    expect(JSON.parse(await readFile(out, 'utf8')).offers).toHaveLength(3);

    const bad = miniCatalog();
    bad.campaigns![0].bid_micros = -1;
    await writeFile(file, JSON.stringify(bad));
    const rejected = await cli('catalog', 'import', file);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain('campaigns[0].bid_micros');
    await writeFile(file, '{"version": 1, "taxonomy": ');
    const notJson = await cli('catalog', 'import', file);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('is not valid JSON');
  }, 120_000);

  it("pauses, resumes, rebudgets and clears a campaign's controls, recording who did it", async () => {
    // The catalog the test above imported.
    const shown = await cli('campaign', 'show', 'cmp.jeju-hotels');
    expect(shown).toMatchObject({ code: 0 });
    expect(shown.stdout).toContain('controls:  (none: follows the catalog)');
    const paused = JSON.parse((await cli('campaign', 'pause', 'cmp.jeju-hotels', '--by', 'ops: Mina', '--json')).stdout);
    expect(paused).toMatchObject({ effective: { status: 'paused' }, catalog: { status: 'active' }, overrides: { status: 'paused' } });
    expect(paused.changes[0]).toMatchObject({ changed_by: 'ops: Mina', channel: 'cli' });
    const set = await cli('campaign', 'set', 'cmp.jeju-hotels', '--budget-daily', '5000000', '--ends-at', 'never');
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('controls:  status paused, budget.daily_micros 5000000, ends_at never');
    expect(JSON.parse((await cli('campaign', 'resume', 'cmp.jeju-hotels', '--json')).stdout).effective.status).toBe('active');
    const cleared = JSON.parse((await cli('campaign', 'clear', 'cmp.jeju-hotels', '--json')).stdout);
    expect(cleared.overrides).toEqual({});
    expect(cleared.changes.map((c: { after: { status: string } }) => c.after.status)).toEqual(['active', 'active', 'paused', 'paused']);
    expect(await cli('campaign', 'set', 'cmp.jeju-hotels')).toMatchObject({ code: 2 });
    expect(await cli('campaign', 'set', 'cmp.jeju-hotels', '--budget-daily', 'lots')).toMatchObject({ code: 2 });
    expect(await cli('campaign', 'set', 'cmp.jeju-hotels', '--ends-at', 'soon')).toMatchObject({ code: 2 });
    expect(await cli('campaign', 'pause', 'cmp.nothere')).toMatchObject({ code: 1, stderr: 'no campaign cmp.nothere\n' });
    expect(await cli('campaign', 'pause', 'Not An Id')).toMatchObject({ code: 1, stderr: 'no campaign Not An Id\n' });
  }, 120_000);

  it('prints help for every way of asking, with exit 0 and without opening a database', async () => {
    // A database that cannot be reached: any attempt to open it would fail the command.
    const saved = env;
    env = { ...env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
    try {
      for (const args of [['--help'], ['-h'], ['help'], [], ['key', '--help'], ['help', 'catalog'], ['catalog', 'import', '--help']]) {
        const r = await cli(...args);
        expect({ args, code: r.code }).toEqual({ args, code: 0 });
        expect(r.stdout).toContain('usage:');
        expect(r.stdout).toContain('exit codes:');
      }
      const one = await cli('key', 'create', '--help');
      expect(one.stdout).toContain('sidenote key create <app_id>');
      expect(one.stdout).not.toContain('catalog import');
    } finally {
      env = saved;
    }
  }, 60_000);

  // npx and `npm link` start the CLI through a symlink named `sidenote`, not `sidenote.mjs`.
  it('runs when started through a symlink of another name', async () => {
    const link = path.join(dir, 'sidenote');
    await symlink(BIN, link);
    const r = await run(process.execPath, [link, '--help'], { env, timeout: 60_000 });
    expect(r.stdout).toContain('usage:');
  }, 60_000);

  it('explains usage errors', async () => {
    const r = await cli('frobnicate');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('usage:');
    const flag = await cli('app', 'list', '--frob');
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("Unknown option '--frob'");
    expect((await cli('key', 'revoke', 'key_nothere')).code).toBe(1);
  }, 60_000);
});
