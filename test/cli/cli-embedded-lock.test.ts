// The embedded data directory's one holder, seen from the CLI: a second server is refused, CLI
// commands beside a busy server are all kept, a holder that does not answer is refused without
// opening the database, and a killed server's lock is taken over. (What the CLI does through a
// running server: test/cli/cli-embedded-server.test.ts.)
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { embeddedCliHarness } from '../helpers/embedded-cli.js';
import { entryPointArgs } from '../helpers/spawn-server.js';
import { usingRealPostgres } from '../helpers/test-db.js';

const LOCK_MODULE = path.resolve('src/db/data-dir-lock.ts');

describe.skipIf(usingRealPostgres)(
  'one holder of the embedded directory, from the CLI (PGlite only: skipped with DATABASE_URL, where nothing is locked)',
  () => {
    const { holders, eventually, freshDir, cliEnv, cli, serve, stop, decide, mode } = embeddedCliHarness();

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
  },
);
