// A new embedded database starts from a copy of an empty, initialised cluster instead of running
// initdb. initdb is most of a PGlite start (2.5–4 s on two cores; restoring the copy takes about
// 0.5 s), and a new database is made more often than it seems: the first start in a data
// directory, every `SIDENOTE_DATA_DIR=memory` start (tests, the contract run), every CLI command
// on a fresh directory. The copy holds nothing of anyone's: it is what initdb wrote, taken before
// any migration ran, so migrations and everything after run exactly as on a cluster initdb made.
//
// It is made on the first start that has none (that start runs initdb as before, then dumps its
// still-empty cluster) and kept in the user's cache directory (`~/.cache/sidenote`, or
// `SIDENOTE_CACHE_DIR`), one file per PGlite version (40 MB,
// uncompressed: a gzipped one restores no faster than initdb runs). It is read from disk at each
// new database, not held in memory for the process' life. The file is used only when it and its directory belong to this user and nobody
// else may write them: whoever could replace it could plant a database. When the cache cannot be
// written (a read-only home) or is switched off (`SIDENOTE_CACHE_DIR=none`), every new database
// runs initdb.
//
// The data directory's lock (data-dir-lock.ts) lives among PGlite's files, so a dump holds the
// lock of the process that made it; restored, it would overwrite the new owner's lock with a
// dead process' and let a second process take the directory over. The lock and its takeover
// markers are left out of the copy when it is kept, and again when it is read (a copy kept by
// an older version holds them).
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { LOCK_FILE } from './data-dir-lock.js';

/** The installed PGlite's version (its package.json, found above its entry point: the package
 *  does not export the file): a template is only ever restored by the PGlite that made it. */
function pgliteVersion(): string {
  let dir = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
      if (name === '@electric-sql/pglite' && version) return version;
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error('the installed @electric-sql/pglite has no package.json');
    dir = up;
  }
}

/** Where the template lives (the configured cache directory, else `~/.cache/sidenote`), or null
 *  when there is to be none (`none`). */
export function templateDirectory(configured?: string): string | null {
  if (configured === 'none') return null;
  return configured || path.join(homedir(), '.cache', 'sidenote');
}

function templateFile(dir: string): string {
  return path.join(dir, `pglite-${pgliteVersion()}-empty-cluster.tar`);
}

/** This user's, and not writable by anyone else: the only file or directory a template is read from. */
function ownedAndPrivate(entry: string): boolean {
  try {
    const stat = lstatSync(entry);
    const uid = process.getuid?.();
    return !stat.isSymbolicLink() && (uid === undefined || stat.uid === uid) && (stat.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** The template, when one was kept; undefined when a new database has to run initdb. */
export function clusterTemplate(dir: string | null): Blob | undefined {
  if (!dir) return undefined;
  const file = templateFile(dir);
  if (!ownedAndPrivate(dir) || !ownedAndPrivate(file)) return undefined;
  try {
    return new Blob([withoutLocks(readFileSync(file))]);
  } catch {
    return undefined;
  }
}

/** Keeps the cluster `db` as the template, when none is kept yet: `db` must be one initdb has
 *  just made, before anything (a migration) wrote to it. Never fails a start: a template that
 *  cannot be kept only means the next new database runs initdb too. */
export async function keepAsTemplate(db: PGlite, dir: string | null): Promise<void> {
  if (!dir) return;
  const file = templateFile(dir);
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.partial`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!ownedAndPrivate(dir)) return;
    const dump = await db.dumpDataDir('none');
    // Written whole, then renamed: a reader never sees half a file, and two first starts racing
    // each leave a complete one.
    writeFileSync(partial, withoutLocks(new Uint8Array(await dump.arrayBuffer())), { mode: 0o600, flag: 'wx' });
    renameSync(partial, file);
  } catch {
    rmSync(partial, { force: true });
  }
}

const BLOCK = 512;
const ASCII = new TextDecoder();

/** The tar archive without the data directory's lock files (at its top level: `sidenote.lock`
 *  and its `.takeover-` markers). Only headers are read; an entry is its header, any extended
 *  headers before it (pax `x`, GNU `L`/`K`) and its data blocks. An archive that cannot be read
 *  as tar is returned as it is: PGlite then refuses it, as it would have. */
export function withoutLocks(tar: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  const kept: Uint8Array<ArrayBuffer>[] = [];
  let entryStart = 0;
  let dropped = false;
  for (let at = 0; at + BLOCK <= tar.length; ) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break;
    const size = Number.parseInt(ASCII.decode(header.subarray(124, 136)).replace(/\0.*$/s, '').trim() || '0', 8);
    if (!Number.isFinite(size)) return tar;
    const next = at + BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    const type = String.fromCharCode(header[156]);
    at = next;
    // Extended headers describe the entry after them: they go with it.
    if (type === 'x' || type === 'L' || type === 'K') continue;
    const name = ASCII.decode(header.subarray(0, 100)).replace(/\0.*$/s, '');
    const topLevel = name.replace(/^(\.?\/)+/, '');
    if (topLevel === LOCK_FILE || topLevel.startsWith(`${LOCK_FILE}.takeover-`)) dropped = true;
    else kept.push(tar.subarray(entryStart, next));
    entryStart = next;
  }
  if (!dropped) return tar;
  // Two zero blocks end an archive.
  return Buffer.concat([...kept, new Uint8Array(2 * BLOCK)]);
}
