// Whether a compiled file of dist/ is at least as new as every file under src/: the one test the
// CLI launcher (bin/sidenote.mjs) and `npm start`'s build step (scripts/ensure-built.mjs) make
// before they run or compile. (src/util/compiled-build.ts makes the same test for code that runs
// from src/, which may not import from here.)
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Newest modification time under `dir`: a source file edited after the build makes it stale. */
function newest(dir) {
  return readdirSync(dir, { withFileTypes: true }).reduce(
    (m, e) => Math.max(m, e.isDirectory() ? newest(path.join(dir, e.name)) : statSync(path.join(dir, e.name)).mtimeMs),
    0,
  );
}

/** `compiled` exists and no file under `source` is newer (an install without src/ is current). */
export function isCurrent(compiled, source) {
  return existsSync(compiled) && (!existsSync(source) || statSync(compiled).mtimeMs >= newest(source));
}
