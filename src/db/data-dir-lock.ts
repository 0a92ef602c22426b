// One process per embedded (PGlite) data directory. PGlite is Postgres compiled to WASM running
// inside one process, with its own buffers: a second process opening the same directory writes
// over the first one's files, so acknowledged writes vanish and PGlite can abort under load.
// openDatabase takes this lock before PGlite opens a directory, so the server, the CLI and any
// script share it.
//
// The lock is `sidenote.lock` in the data directory: JSON naming its owner (pid, host, the
// process' start time, a random token). It is created atomically with its content (written to a
// private temporary file, then hard-linked into place: link fails if the lock exists), released on
// close and on process exit. A lock whose pid is not alive (or alive but started later: a reused
// pid) is stale and is taken over. Only one process may replace a given stale lock: it must first
// create `sidenote.lock.takeover-<stale token>`, itself a lock of this same kind.
//
// Why not proper-lockfile: it decides staleness by a timer refreshing the lock's mtime. PGlite
// runs queries on the main thread, so a long statement (a large catalog import's write) can starve that
// timer past the stale threshold, and another process would then take a live lock: the very
// corruption this prevents. It also records no pid to name in the error, and after a crash the
// next start must wait out the threshold. A pid check is exact on one host, and a PGlite
// directory can only be used on one host anyway.
import { linkSync, readFileSync, readdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import path from 'node:path';

export const LOCK_FILE = 'sidenote.lock';

export interface LockOwner {
  pid: number;
  host: string;
  /** The owner's start time from /proc (clock ticks since boot), to recognise a reused pid. */
  started: string | null;
  /** Random per acquisition: release removes only its own lock, take-over names the one it replaces. */
  token: string;
  command: string;
  since: string;
}

export class DataDirLockedError extends Error {
  readonly code = 'DATA_DIR_LOCKED';
  constructor(
    readonly dataDir: string,
    readonly lockFile: string,
    readonly owner: LockOwner,
  ) {
    const who =
      owner.host === hostname()
        ? `process ${owner.pid} (${owner.command}, since ${owner.since})`
        : `process ${owner.pid} on host ${owner.host} (${owner.command}, since ${owner.since}), which cannot be checked from here`;
    super(
      `the data directory ${dataDir} is in use by ${who}: an embedded (PGlite) database belongs to one process. ` +
        `Stop that process first, or use another SIDENOTE_DATA_DIR, or set DATABASE_URL to share a Postgres database. ` +
        `The lock (${lockFile}) is taken over automatically once that process has exited.`,
    );
  }
}

export interface DataDirLock {
  readonly file: string;
  readonly owner: LockOwner;
  release(): void;
}

/** Takes the directory's lock or throws DataDirLockedError naming its live owner. */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  const file = path.join(path.resolve(dataDir), LOCK_FILE);
  const me: LockOwner = {
    pid: process.pid,
    host: hostname(),
    started: startTime(process.pid),
    token: randomBytes(16).toString('hex'),
    command: path.basename(process.argv[1] ?? process.argv0),
    since: new Date().toISOString(),
  };
  acquire(file, me, dataDir, 0);
  sweepTakeoverMarkers(file);
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.off('exit', release);
    const current = readOwner(file);
    if (current && current !== 'invalid' && current.token === me.token) unlinkQuiet(file);
  };
  // Exit handlers must be synchronous, which this is. A SIGKILL leaves the file: stale, taken over.
  process.on('exit', release);
  return { file, owner: me, release };
}

/** The live owner of a directory's lock, or null when it is free or stale. */
export function lockOwner(dataDir: string): LockOwner | null {
  const owner = readOwner(path.join(path.resolve(dataDir), LOCK_FILE));
  if (!owner || owner === 'invalid') return null;
  return isAlive(owner) ? owner : null;
}

function acquire(file: string, me: LockOwner, dataDir: string, depth: number): void {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (createExclusive(file, me)) return;
    const owner = readOwner(file);
    if (owner === null) continue; // released in between: try again
    if (owner === 'invalid') throw new Error(`${file} is not a Sidenote lock file; if no Sidenote process uses ${dataDir}, remove it`);
    if (isAlive(owner)) throw new DataDirLockedError(dataDir, file, owner);
    // Stale. Whoever creates the marker for this stale token is the only one allowed to replace it.
    if (depth >= 3) throw new Error(`cannot take over the stale lock ${file}; if no Sidenote process uses ${dataDir}, remove ${file}*`);
    const marker = `${file}.takeover-${owner.token}`;
    try {
      acquire(marker, me, dataDir, depth + 1);
    } catch (err) {
      // A live process is replacing this stale lock right now: look again once it has.
      if (err instanceof DataDirLockedError) {
        sleep(10);
        continue;
      }
      throw err;
    }
    try {
      const current = readOwner(file);
      if (current && current !== 'invalid' && current.token === owner.token) {
        const tmp = writeTemp(file, me);
        renameSync(tmp, file); // atomic replace: there is never a moment without a lock
        return;
      }
    } finally {
      unlinkQuiet(marker);
    }
  }
  throw new Error(`cannot take the lock ${file}: it keeps changing hands`);
}

/** Creates the lock with its content in one step: link(2) fails with EEXIST if it exists. */
function createExclusive(file: string, me: LockOwner): boolean {
  const tmp = writeTemp(file, me);
  try {
    linkSync(tmp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    unlinkQuiet(tmp);
  }
}

function writeTemp(file: string, me: LockOwner): string {
  const tmp = `${file}.${me.token}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(me)}\n`, { flag: 'wx', mode: 0o600 });
  return tmp;
}

function readOwner(file: string): LockOwner | null | 'invalid' {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const o = JSON.parse(text) as LockOwner;
    return Number.isInteger(o.pid) && typeof o.token === 'string' && typeof o.host === 'string' ? o : 'invalid';
  } catch {
    return 'invalid';
  }
}

function isAlive(owner: LockOwner): boolean {
  // Another host's pid means nothing here: never take that lock over.
  if (owner.host !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    // EPERM: it exists, under another user.
  }
  const started = startTime(owner.pid);
  return !(owner.started && started && started !== owner.started);
}

/** Field 22 of /proc/<pid>/stat (Linux); null elsewhere. */
function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses; fields after it are plain.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** Markers left by a process that died mid take-over. Safe once we hold the lock: a marker only
 *  lets its holder replace a lock carrying its stale token, and the lock now carries ours. */
function sweepTakeoverMarkers(file: string) {
  const prefix = `${path.basename(file)}.takeover-`;
  // Markers only: a name with more after the token is another process' temporary file, which it
  // is about to link into place and removes itself (sweeping it made that process fail).
  for (const name of readdirSync(path.dirname(file))) {
    if (name.startsWith(prefix) && /^[A-Za-z0-9_-]+$/.test(name.slice(prefix.length))) unlinkQuiet(path.join(path.dirname(file), name));
  }
}

function unlinkQuiet(file: string) {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

function sleep(ms: number) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
