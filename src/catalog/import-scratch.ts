// Scratch directories of catalog imports (an upload's copy, up to CATALOG_IMPORT_MAX_BYTES, and
// the importer's spool) live in the OS temporary directory and are removed when their import
// ends. A process killed mid-import leaves them behind, and nothing else would ever remove them,
// so each carries the pid of the process that made it, and every start removes those whose
// process is gone (same host: the temporary directory is local). A pid that is alive again
// (reused) keeps its directories until it too is gone; directories of the older, pid-less
// naming are removed once a day old.
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export type ScratchKind = 'upload' | 'import';

const WITH_PID = /^sidenote-(?:upload|import)-(\d+)-[A-Za-z0-9]+$/;
const WITHOUT_PID = /^sidenote-(?:upload|import)-[A-Za-z0-9]{6}$/;
const PIDLESS_MAX_AGE_MS = 24 * 3600_000;

/** A new scratch directory of this process. */
export function makeScratchDir(kind: ScratchKind, dir = tmpdir()): Promise<string> {
  return mkdtemp(path.join(dir, `sidenote-${kind}-${process.pid}-`));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, as another user's process.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the scratch directories in `dir` that no running process owns; returns their names. */
export async function sweepAbandonedScratch(dir = tmpdir(), nowMs = Date.now()): Promise<string[]> {
  const uid = process.getuid?.();
  const removed: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const withPid = WITH_PID.exec(name);
    if (!withPid && !WITHOUT_PID.test(name)) continue;
    const full = path.join(dir, name);
    const info = await stat(full).catch(() => null);
    if (!info?.isDirectory() || (uid !== undefined && info.uid !== uid)) continue;
    const abandoned = withPid ? Number(withPid[1]) !== process.pid && !alive(Number(withPid[1])) : nowMs - info.mtimeMs > PIDLESS_MAX_AGE_MS;
    if (!abandoned) continue;
    await rm(full, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
