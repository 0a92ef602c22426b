// A new embedded database restores a kept copy of an empty cluster instead of running initdb
// (src/db/pglite-template.ts): it must start as empty as initdb would leave it, whatever the
// database that made the copy went on to hold, and a copy someone else could have written is
// never read.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { clusterTemplate, templateDirectory } from '../../src/db/pglite-template.js';
import { DataDirLockedError, LOCK_FILE } from '../../src/db/data-dir-lock.js';

/** The archive's entry names, as GNU tar reads them (an implementation of its own). */
const entries = (file: string) =>
  spawnSync('tar', ['-tf', file], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .map((e) => e.replace(/^\/+/, ''));

const opened: Database[] = [];
const dirs: string[] = [];

function scratch(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'sidenote-template-'));
  dirs.push(dir);
  return dir;
}

async function open(dataDir: string, cacheDir: string): Promise<Database> {
  const db = await openDatabase({ dataDir, cacheDir });
  opened.push(db);
  return db;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the embedded database template', () => {
  it('is kept by the first new database, private, and a later one starts from it as empty as initdb leaves a cluster', async () => {
    const cache = path.join(scratch(), 'cache');
    const first = await open('memory', cache);
    const kept = readdirSync(cache);
    expect(kept).toHaveLength(1);
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(cache, kept[0]!)).mode & 0o777).toBe(0o600);
    await migrate(first);
    await first.query("INSERT INTO apps (id, name) VALUES ('app_writtenAfterTheCopy', 'kept out of the template')");

    expect(clusterTemplate(cache)).toBeDefined();
    const dataDir = path.join(scratch(), 'data');
    const second = await open(dataDir, cache);
    expect(existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true);
    const tables = await second.query("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'");
    expect(tables.rows[0]).toEqual({ n: 0 });
    await migrate(second);
    expect((await second.query('SELECT id FROM apps')).rows).toEqual([]);
  });

  it('is not read when others may write it, nor kept when switched off', async () => {
    const cache = path.join(scratch(), 'cache');
    await open('memory', cache);
    const [file] = readdirSync(cache);
    chmodSync(path.join(cache, file!), 0o666);
    expect(clusterTemplate(cache)).toBeUndefined();
    chmodSync(path.join(cache, file!), 0o600);
    chmodSync(cache, 0o777);
    expect(clusterTemplate(cache)).toBeUndefined();
    chmodSync(cache, 0o700);
    expect(clusterTemplate(cache)).toBeDefined();

    expect(templateDirectory('none')).toBeNull();
    const before = readdirSync(cache);
    const db = await open('memory', 'none');
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    expect(readdirSync(cache)).toEqual(before);
  });

  it("never carries a data directory's lock: a database restored from it holds its own, and a second opener is refused", async () => {
    // The first new database on a machine opens a data directory, which holds its lock.
    const cache = path.join(scratch(), 'cache');
    await open(path.join(scratch(), 'first'), cache);
    const [file] = readdirSync(cache);
    const kept = entries(path.join(cache, file!));
    expect(kept).toContain('PG_VERSION');
    expect(kept.filter((e) => e.startsWith(LOCK_FILE))).toEqual([]);

    // A copy kept by an older version holds a dead process' lock: it is left out when read.
    const stale = scratch();
    writeFileSync(path.join(stale, LOCK_FILE), JSON.stringify({ pid: 2 ** 22 - 1, host: 'elsewhere', token: 'f'.repeat(32), command: 'old' }));
    expect(spawnSync('tar', ['-rf', path.join(cache, file!), '-C', stale, LOCK_FILE]).status).toBe(0);
    expect(entries(path.join(cache, file!))).toContain(LOCK_FILE);

    const dataDir = path.join(scratch(), 'second');
    await open(dataDir, cache);
    expect(JSON.parse(readFileSync(path.join(dataDir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
    await expect(openDatabase({ dataDir, cacheDir: cache })).rejects.toBeInstanceOf(DataDirLockedError);
  });
});
