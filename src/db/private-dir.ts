// The embedded database's files hold every app's key hashes, every conversion secret and the
// link-signing secret, so nobody but the service's own user may reach them, whatever existed
// before: an operator's `mkdir`, a mounted volume, an older version's directory. The directory
// itself is made 0700, which is what keeps others out: PGlite (Emscripten's file system) creates
// its files 0666 whatever the umask, and goes on creating them (WAL segments) while it runs, so
// the files' own modes cannot be relied on; they are narrowed too (0600, directories 0700) when
// the database opens and once it has, as a second line. An entry that belongs to another user
// cannot be repaired, and is refused rather than used.
import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';

export class DataDirNotPrivate extends Error {
  constructor(entry: string, owner: number) {
    super(`${entry} in the data directory belongs to user ${owner}, not to this process' user ${process.getuid?.()}: refusing to keep secrets there`);
    this.name = 'DataDirNotPrivate';
  }
}

/** Makes `dataDir` and everything in it private to this process' user (symbolic links are left
 *  alone, never followed), and narrows the process' umask to 077 for what it creates itself. */
export function makeDataDirPrivate(dataDir: string): void {
  // Only the main thread may set the umask (a worker's call throws); it is the process' own.
  if (isMainThread) process.umask(process.umask() | 0o077);
  const uid = process.getuid?.();
  const repair = (entry: string) => {
    const stat = lstatSync(entry);
    if (uid !== undefined && stat.uid !== uid) throw new DataDirNotPrivate(entry, stat.uid);
    if (stat.isSymbolicLink()) return;
    if (stat.isDirectory()) {
      if (stat.mode & 0o077) chmodSync(entry, 0o700);
      for (const name of readdirSync(entry)) goneIsFine(() => repair(path.join(entry, name)));
    } else if (stat.mode & 0o077) {
      chmodSync(entry, 0o600);
    }
  };
  repair(dataDir);
}

/** An entry removed while the walk reaches it (another process' temporary lock file, a WAL
 *  segment PGlite recycled) holds nothing any more: ENOENT there is not an error. A CLI command
 *  beside a running server crashed on one ("ENOENT … lstat sidenote.lock.<token>.tmp"). */
function goneIsFine(step: () => void): void {
  try {
    step();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
