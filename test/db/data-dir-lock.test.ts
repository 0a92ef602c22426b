// One process per embedded data directory (src/db/data-dir-lock.ts), and a data directory whose
// parents do not exist yet (a fresh clone has no `.data/`). PGlite only: nothing is locked on Postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/db/database.js';
import { DataDirLockedError, LOCK_FILE } from '../../src/db/data-dir-lock.js';

const LOCK_MODULE = path.resolve('src/db/data-dir-lock.ts');

/** A pid that belonged to a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '']);
  return r.pid!;
}

function writeLock(dir: string, owner: Record<string, unknown>) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, LOCK_FILE),
    JSON.stringify({ host: hostname(), started: null, token: 'f'.repeat(32), command: 'test', since: new Date().toISOString(), ...owner }),
  );
}

const lockOf = (dir: string) => JSON.parse(readFileSync(path.join(dir, LOCK_FILE), 'utf8'));

describe('embedded data directory', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'sidenote-lock-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('keeps a directory that already existed private: others can neither read nor write what it holds', async () => {
    // As an operator's `mkdir`, a volume or an older version leaves it: open to everyone.
    const dir = path.join(root, 'shared-volume');
    mkdirSync(path.join(dir, 'base'), { recursive: true });
    chmodSync(dir, 0o777);
    chmodSync(path.join(dir, 'base'), 0o777);
    writeFileSync(path.join(dir, 'base', 'left-over'), 'x');
    chmodSync(path.join(dir, 'base', 'left-over'), 0o666);
    const db = await openDatabase({ dataDir: dir });
    try {
      await db.query('CREATE TABLE secrets (v text)');
      await db.query("INSERT INTO secrets VALUES ('whsec_canary')");
    } finally {
      await db.close();
    }
    // The directory is what keeps others out (PGlite creates files 0666 while it runs).
    expect(statSync(dir).mode & 0o077).toBe(0);
    const open: string[] = [];
    const walk = (p: string) => {
      const mode = statSync(p).mode;
      if (mode & 0o077) open.push(`${path.relative(dir, p) || '.'} ${(mode & 0o777).toString(8)}`);
      if (statSync(p).isDirectory()) for (const name of readdirSync(p)) walk(path.join(p, name));
    };
    walk(dir);
    expect(open).toEqual([]);
    // Tried as another local user would, where this machine has one (CI runs as root).
    if (process.getuid?.() === 0 && spawnSync('id', ['nobody']).status === 0) {
      for (const attempt of [
        ['cat', path.join(dir, 'PG_VERSION')],
        ['ls', dir],
        ['touch', path.join(dir, 'base', 'planted')],
      ]) {
        expect(spawnSync('runuser', ['-u', 'nobody', '--', ...attempt]).status, attempt.join(' ')).not.toBe(0);
      }
    }
  });

  it('refuses a data directory holding an entry of another user, which it cannot make private', async () => {
    if (process.getuid?.() !== 0) return;
    const dir = path.join(root, 'planted');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'foreign'), 'x');
    chownSync(path.join(dir, 'foreign'), 65534, 65534);
    await expect(openDatabase({ dataDir: dir })).rejects.toThrow('belongs to user 65534');
  });

  it('opens a database at a nested path that does not exist yet', async () => {
    const dir = path.join(root, 'fresh-clone', '.data', 'pglite');
    const db = await openDatabase({ dataDir: dir });
    try {
      expect((await db.query<{ x: number }>('SELECT 1 AS x')).rows).toEqual([{ x: 1 }]);
    } finally {
      await db.close();
    }
  }, 60_000);

  it('is held by its one opener: a second open is refused naming the pid, and close releases it', async () => {
    const dir = path.join(root, 'held');
    const db = await openDatabase({ dataDir: dir });
    try {
      expect(lockOf(dir)).toMatchObject({ pid: process.pid });
      const second = openDatabase({ dataDir: dir });
      await expect(second).rejects.toBeInstanceOf(DataDirLockedError);
      await expect(second).rejects.toThrow(new RegExp(`in use by process ${process.pid} .*Stop that process first`));
    } finally {
      await db.close();
    }
    expect(existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    const again = await openDatabase({ dataDir: dir });
    await again.close();
  }, 60_000);

  it('refuses a lock whose owner is alive in another process', async () => {
    const dir = path.join(root, 'alive');
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      writeLock(dir, { pid: sleeper.pid });
      await expect(openDatabase({ dataDir: dir })).rejects.toThrow(`in use by process ${sleeper.pid}`);
      expect(lockOf(dir).pid).toBe(sleeper.pid);
    } finally {
      sleeper.kill('SIGKILL');
    }
  }, 60_000);

  it('takes over a stale lock: its pid is dead, or alive but started later (a reused pid)', async () => {
    const dead = path.join(root, 'stale-dead');
    writeLock(dead, { pid: deadPid() });
    const db = await openDatabase({ dataDir: dead });
    expect(lockOf(dead)).toMatchObject({ pid: process.pid, host: hostname() });
    expect(lockOf(dead).token).not.toBe('f'.repeat(32));
    await db.close();

    // Our own pid, recorded with another start time: the process that wrote it is gone.
    const reused = path.join(root, 'stale-reused');
    writeLock(reused, { pid: process.pid, started: '1' });
    const db2 = await openDatabase({ dataDir: reused });
    expect(lockOf(reused).pid).toBe(process.pid);
    expect(lockOf(reused).started).not.toBe('1');
    await db2.close();
  }, 60_000);

  it('lets exactly one of several processes racing for a stale lock take it', async () => {
    const dir = path.join(root, 'race');
    writeLock(dir, { pid: deadPid() });
    // All of them try at the same instant, once every child has loaded, and each holds on
    // (the winner keeps its lock) until every one has answered and its stdin is closed. Each
    // sleeps until just before that instant and spins only the last 20 ms (six children spinning
    // for seconds took the CPU the others needed to load).
    const at = Date.now() + 4000;
    const script = `
      import { acquireDataDirLock } from ${JSON.stringify(LOCK_MODULE)};
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, ${at} - 20 - Date.now())));
      while (Date.now() < ${at});
      try { acquireDataDirLock(${JSON.stringify(dir)}); console.log('got'); }
      catch (err) { console.log(err.code === 'DATA_DIR_LOCKED' ? 'locked' : 'error ' + err.message); }
      process.stdin.resume().on('end', () => process.exit(0));`;
    const children = Array.from({ length: 6 }, () =>
      spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] }),
    );
    const results = await Promise.all(
      children.map(
        (child) =>
          new Promise<string>((resolve) => {
            let out = '';
            child.stdout.on('data', (d) => {
              out += d;
              if (out.includes('\n')) resolve(out.trim());
            });
            child.on('exit', () => resolve(out.trim()));
          }),
      ),
    );
    const exited = children.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.on('exit', resolve))));
    for (const child of children) child.stdin.end();
    await Promise.all(exited);
    expect(results.sort()).toEqual(['got', 'locked', 'locked', 'locked', 'locked', 'locked']);
    // The winner exited normally: its exit handler removed the lock, and no take-over marker is left.
    expect(existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  }, 60_000);

  it('releases the lock when the process exits without closing', async () => {
    const dir = path.join(root, 'exit');
    mkdirSync(dir);
    const r = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { acquireDataDirLock } from ${JSON.stringify(LOCK_MODULE)}; acquireDataDirLock(${JSON.stringify(dir)}); process.exit(0);`,
      ],
      { encoding: 'utf8' },
    );
    expect(r.status).toBe(0);
    expect(existsSync(path.join(dir, LOCK_FILE))).toBe(false);
  }, 60_000);
});
