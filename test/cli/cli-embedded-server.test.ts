// The CLI beside a running embedded server. The PGlite directory belongs to the server process
// (src/db/data-dir-lock.ts), so the CLI's commands go through the server's local admin channel
// (src/admin/local-admin-channel.ts), and an operator's writes survive the server's restart.
// Embedded only: with DATABASE_URL the CLI writes to Postgres directly (test/cli/cli.test.ts).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { entryPointArgs, startServer, type ServerProcess } from '../helpers/spawn-server.js';
import { usingRealPostgres } from '../helpers/test-db.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { adultOnSurface } from '../helpers/envelopes.js';

const execFileP = promisify(execFile);
const BIN = path.resolve('bin/sidenote.mjs');
const LOCK_MODULE = path.resolve('src/db/data-dir-lock.ts');

const ENVELOPE = JSON.stringify({
  message: '제주도 호텔 최저가 추천해줘',
  locale: 'ko-KR',
  country: 'KR',
  ...adultOnSurface(),
});

describe.skipIf(usingRealPostgres)('CLI beside a running embedded server (PGlite only: skipped with DATABASE_URL, where nothing is locked)', () => {
  let root: string;
  let n = 0;
  const servers: ServerProcess[] = [];
  const holders: ChildProcess[] = [];

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'sn-cli-srv-'));
  });
  afterEach(() => {
    for (const s of servers.splice(0)) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    for (const h of holders.splice(0)) if (h.exitCode === null) h.kill('SIGKILL');
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  /** Polls until ok (revocation reaches a server within API_KEY_CACHE_MS, 500 ms). */
  const eventually = async <T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms = 3000) => {
    const until = Date.now() + ms;
    let v = await probe();
    while (!ok(v) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      v = await probe();
    }
    return v;
  };
  const freshDir = () => path.join(root, `d${++n}`, 'db');
  const cliEnv = (dataDir: string) => {
    const env: NodeJS.ProcessEnv = { ...process.env, SIDENOTE_DATA_DIR: dataDir };
    delete env.DATABASE_URL;
    return env;
  };
  const cli = async (dataDir: string, ...args: string[]) => {
    try {
      const r = await execFileP(process.execPath, [BIN, ...args], { env: cliEnv(dataDir), timeout: 60_000 });
      return { code: 0, stdout: r.stdout, stderr: r.stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  const serve = async (dataDir: string) => {
    const s = await startServer({
      SIDENOTE_DATA_DIR: dataDir,
      DATABASE_URL: '',
      LOAD_DEMO_CATALOG: 'true',
      DECIDE_RATE_LIMIT_PER_MINUTE: '1000000',
      DECIDE_TIME_BUDGET_MS: '5000',
    });
    servers.push(s);
    // The admin channel starts just after the HTTP listener; its key file is written last.
    await eventually(
      async () => existsSync(path.join(dataDir, 'admin.key')),
      (x) => x,
      20_000,
    );
    return s;
  };
  const stop = async (s: ServerProcess) => {
    s.child.kill('SIGTERM');
    return s.exited;
  };
  const decide = async (s: ServerProcess, key: string) => {
    const res = await fetch(`${s.url}/v1/offers/decide`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: ENVELOPE,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const mode = (file: string) => statSync(file).mode & 0o777;

  it('performs app create and key revoke through the server, and both survive a restart', async () => {
    const dir = freshDir();
    let server = await serve(dir);
    const created = await cli(dir, 'app', 'create', 'Through the server', '--json');
    expect(created.code, created.stderr).toBe(0);
    const app = JSON.parse(created.stdout);
    // The server sees the new key at once: it wrote it.
    expect(await decide(server, app.serving_key)).toMatchObject({ status: 200, body: { serve: true } });

    const revoked = await cli(dir, 'key', 'revoke', app.serving_key_id);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`^key ${app.serving_key_id} revoked at \\d{4}-`));
    expect(
      await eventually(
        () => decide(server, app.serving_key),
        (r) => r.status === 401,
      ),
    ).toMatchObject({ status: 401, body: { error: 'revoked_api_key' } });
    // Only the operator's user may talk to the channel or read its key, or the database.
    expect(mode(path.join(dir, 'admin.sock'))).toBe(0o600);
    expect(mode(path.join(dir, 'admin.key'))).toBe(0o600);
    expect(mode(dir)).toBe(0o700);

    expect(await stop(server)).toBe(0);
    for (const f of ['sidenote.lock', 'admin.sock', 'admin.key']) expect(existsSync(path.join(dir, f)), f).toBe(false);

    server = await serve(dir);
    expect(await decide(server, app.serving_key)).toMatchObject({ status: 401, body: { error: 'revoked_api_key' } });
    expect(await decide(server, app.test_key)).toMatchObject({ status: 200 });
    const listed = await cli(dir, 'app', 'list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const mine = JSON.parse(listed.stdout).find((a: { id: string }) => a.id === app.app_id);
    expect(mine).toMatchObject({ name: 'Through the server' });
    expect(mine.keys.find((k: { id: string }) => k.id === app.serving_key_id).revoked_at).not.toBeNull();
    expect(await stop(server)).toBe(0);
  }, 180_000);

  it('prints the same through the server as directly, for every command, with the same exit codes', async () => {
    const dir = freshDir();
    const catalogFile = path.join(root, `catalog-${n}.json`);
    writeFileSync(catalogFile, JSON.stringify(miniCatalog()));
    const server = await serve(dir);
    const through = {
      import: await cli(dir, 'catalog', 'import', catalogFile, '--json'),
      app: await cli(dir, 'app', 'create', 'Same Output', '--json'),
    };
    expect(through.import.code, through.import.stderr).toBe(0);
    expect(JSON.parse(through.import.stdout)).toMatchObject({ changed: true, snapshots_created: 3 });
    const appId = JSON.parse(through.app.stdout).app_id;
    const setup = await cli(dir, 'key', 'create', appId, '--kind', 'setup', '--json');
    expect(JSON.parse(setup.stdout).key).toMatch(/^st_/);
    const rotated = await cli(dir, 'secret', 'rotate', appId);
    expect(rotated.stdout).toMatch(/^new conversion secret csec_\w+ \(shown once\): whsec_/);
    const blocked = await cli(
      dir,
      'app',
      'brand-safety',
      appId,
      '--block-category',
      'travel',
      '--block-category',
      'dating',
      '--block-advertiser',
      'adv.haneul-stay',
    );
    expect(blocked.code, blocked.stderr).toBe(0);
    expect(blocked.stdout).toContain('blocked categories:  dating, travel');
    expect(blocked.stdout).toContain('not in the live catalog (kept; they apply once a catalog has them): dating');
    const viaServer = {
      brandSafety: await cli(dir, 'app', 'brand-safety', appId),
      brandSafetyJson: await cli(dir, 'app', 'brand-safety', appId, '--json'),
      list: await cli(dir, 'app', 'list'),
      listJson: await cli(dir, 'app', 'list', '--json'),
      export: await cli(dir, 'catalog', 'export'),
      unchanged: await cli(dir, 'catalog', 'import', catalogFile),
      unknownKey: await cli(dir, 'key', 'revoke', 'key_nothere'),
      unknownApp: await cli(dir, 'secret', 'rotate', 'app_nothere'),
      malformedId: await cli(dir, 'key', 'create', 'not an id'),
      migrate: await cli(dir, 'migrate'),
    };
    const bad = miniCatalog();
    bad.campaigns![0].bid_micros = -1;
    writeFileSync(catalogFile, JSON.stringify(bad));
    const badViaServer = await cli(dir, 'catalog', 'import', catalogFile);
    expect(await stop(server)).toBe(0);

    const direct = {
      brandSafety: await cli(dir, 'app', 'brand-safety', appId),
      brandSafetyJson: await cli(dir, 'app', 'brand-safety', appId, '--json'),
      list: await cli(dir, 'app', 'list'),
      listJson: await cli(dir, 'app', 'list', '--json'),
      export: await cli(dir, 'catalog', 'export'),
      unknownKey: await cli(dir, 'key', 'revoke', 'key_nothere'),
      unknownApp: await cli(dir, 'secret', 'rotate', 'app_nothere'),
      malformedId: await cli(dir, 'key', 'create', 'not an id'),
    };
    for (const k of Object.keys(direct) as Array<keyof typeof direct>) expect(viaServer[k], k).toEqual(direct[k]);
    expect(direct.unknownKey).toMatchObject({ code: 1, stderr: 'no key key_nothere\n' });
    expect(viaServer.unchanged.stdout).toMatch(/^catalog unchanged/);
    expect(viaServer.migrate.code).toBe(1);
    expect(viaServer.migrate.stderr).toContain('applied its migrations when it started');
    expect(badViaServer.code).toBe(1);
    expect(badViaServer.stderr).toContain('campaigns[0].bid_micros');
    expect(await cli(dir, 'catalog', 'import', catalogFile)).toEqual(badViaServer);
  }, 180_000);

  it('pauses and resumes a campaign through the server, which serves the change at once', async () => {
    const dir = freshDir();
    const server = await serve(dir);
    const app = JSON.parse((await cli(dir, 'app', 'create', 'Campaign Host', '--json')).stdout);
    // The demo catalog's Jeju ocean-view offer, of cmp.haneul-korea-stays, serves this turn.
    const served = await decide(server, app.serving_key);
    expect(served.body).toMatchObject({ serve: true, title: '제주 오션뷰 호텔 최대 30% 할인' });
    const paused = await cli(dir, 'campaign', 'pause', 'cmp.haneul-korea-stays', '--by', 'ops', '--json');
    expect(paused.code).toBe(0);
    expect(JSON.parse(paused.stdout)).toMatchObject({ effective: { status: 'paused' }, changes: [{ changed_by: 'ops' }] });
    expect((await decide(server, app.serving_key)).body.offer_id).not.toBe(served.body.offer_id);
    expect((await cli(dir, 'campaign', 'resume', 'cmp.haneul-korea-stays')).code).toBe(0);
    expect((await decide(server, app.serving_key)).body.offer_id).toBe(served.body.offer_id);
  }, 120_000);

  it('refuses a second server on the same directory, naming the pid; the first keeps serving', async () => {
    const dir = freshDir();
    const first = await serve(dir);
    const pid = first.child.pid!;
    const second = spawn(process.execPath, entryPointArgs('server'), {
      env: { ...cliEnv(dir), PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    second.stdout.on('data', (d) => (out += d));
    second.stderr.on('data', (d) => (out += d));
    const code = await new Promise((resolve) => second.on('exit', resolve));
    expect(code).not.toBe(0);
    // server.js when dist/ is current, server.ts through tsx otherwise (entryPointArgs).
    expect(out).toMatch(new RegExp(`is in use by process ${pid} \\(server\\.[jt]s`));
    expect(out).toContain('Stop that process first');
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
    const created = await cli(dir, 'app', 'create', 'Still Serving', '--json');
    expect(created.code, created.stderr).toBe(0);
    expect(await decide(first, JSON.parse(created.stdout).serving_key)).toMatchObject({ status: 200, body: { serve: true } });
    expect(await stop(first)).toBe(0);
  }, 180_000);

  it('runs 20 CLI commands under decide load without a crash, and every one of them is kept', async () => {
    const dir = freshDir();
    let server = await serve(dir);
    // Printed just after the server starts listening.
    const demoLine = await eventually(
      async () => /Demo serving key, live: (\S+)/.exec(server.output()),
      (m) => m !== null,
      10_000,
    );
    const demoKey = demoLine![1];
    let stopLoad = false;
    const statuses = new Map<number, number>();
    const load = async () => {
      while (!stopLoad) {
        const r = await decide(server, demoKey);
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      }
    };
    const loops = [load(), load(), load()];
    const names = Array.from({ length: 20 }, (_, i) => `Load ${i}`);
    const results: Array<{ code: number; stdout: string; stderr: string }> = [];
    for (let i = 0; i < names.length; i += 4)
      results.push(...(await Promise.all(names.slice(i, i + 4).map((name) => cli(dir, 'app', 'create', name, '--json')))));
    stopLoad = true;
    await Promise.all(loops);
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    expect([...statuses.keys()]).toEqual([200]);
    expect(statuses.get(200)).toBeGreaterThan(20);

    expect(await stop(server)).toBe(0);
    server = await serve(dir);
    const listed = JSON.parse((await cli(dir, 'app', 'list', '--json')).stdout).map((a: { name: string }) => a.name);
    expect(listed).toEqual(expect.arrayContaining(names));
    for (const r of results) expect(await decide(server, JSON.parse(r.stdout).serving_key)).toMatchObject({ status: 200 });
    expect(await stop(server)).toBe(0);
  }, 240_000);

  it('refuses with exit 1, without opening the database, when the holder does not answer', async () => {
    const dir = freshDir();
    expect((await cli(dir, 'migrate')).code).toBe(0); // creates the database
    // Another process holds the directory and serves no admin channel (as a second CLI would).
    const holder = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { acquireDataDirLock } from ${JSON.stringify(LOCK_MODULE)}; acquireDataDirLock(${JSON.stringify(dir)}); console.log('held'); process.stdin.resume().on('end', () => process.exit(0));`,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    holders.push(holder);
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    const lockBefore = readFileSync(path.join(dir, 'sidenote.lock'), 'utf8');

    const started = Date.now();
    const refused = await cli(dir, 'app', 'create', 'Never Written');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`is held by process ${holder.pid}`);
    expect(refused.stderr).toContain('does not answer on');
    expect(refused.stderr).toContain('Nothing was changed.');
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(readFileSync(path.join(dir, 'sidenote.lock'), 'utf8')).toBe(lockBefore);

    const exited = new Promise((resolve) => holder.on('exit', resolve));
    holder.stdin.end();
    await exited;
    const list = await cli(dir, 'app', 'list', '--json');
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([]);
  }, 120_000);

  it('takes over the lock of a killed server: the CLI works directly, and the next server starts', async () => {
    const dir = freshDir();
    let server = await serve(dir);
    server.child.kill('SIGKILL');
    await server.exited;
    // The killed server's lock, socket and key file are all still there.
    for (const f of ['sidenote.lock', 'admin.sock', 'admin.key']) expect(existsSync(path.join(dir, f)), f).toBe(true);
    const created = await cli(dir, 'app', 'create', 'After a Crash', '--json');
    expect(created.code, created.stderr).toBe(0);

    // A stale lock of another dead process (a pid that has exited), as a crash would leave.
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(
      path.join(dir, 'sidenote.lock'),
      JSON.stringify({ pid: dead, host: hostname(), started: null, token: 'a'.repeat(32), command: 'server.js', since: new Date().toISOString() }),
    );
    server = await serve(dir);
    expect(JSON.parse(readFileSync(path.join(dir, 'sidenote.lock'), 'utf8')).pid).toBe(server.child.pid);
    expect(mode(path.join(dir, 'admin.sock'))).toBe(0o600);
    expect(await decide(server, JSON.parse(created.stdout).serving_key)).toMatchObject({ status: 200, body: { serve: true } });
    expect(await stop(server)).toBe(0);
  }, 180_000);
});
