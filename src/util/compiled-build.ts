// Whether dist/ holds a build of the current TypeScript sources. Code that runs from src/ (the
// tests, `npm run cli` before a build) starts its worker threads and child processes from the
// compiled files when they are current: the same code, without compiling it again in every
// thread. A source file edited after the build makes dist/ stale, and the source is used.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root (this file is src/util/ or dist/util/). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

let current: boolean | undefined;

/** dist/server.js is at least as new as every file under src/ (checked once per process). */
export function compiledBuildIsCurrent(): boolean {
  if (current === undefined) {
    const built = path.join(ROOT, 'dist/server.js');
    const src = path.join(ROOT, 'src');
    current = existsSync(built) && (!existsSync(src) || statSync(built).mtimeMs >= newestMtime(src));
  }
  return current;
}
