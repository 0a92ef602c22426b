#!/usr/bin/env node
// `npx sidenote …`, a symlinked `sidenote`, `npm run cli -- …`: runs the compiled CLI when the
// build is current (an image or a production install has no src/ at all), else the TypeScript
// source, and exits with its code (`sidenote --help` lists them).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const compiled = path.join(root, 'dist/cli/sidenote-cli.js');
const source = path.join(root, 'src');

/** Newest modification time under `dir`: a source file edited after the build makes it stale. */
function newest(dir) {
  return readdirSync(dir, { withFileTypes: true }).reduce(
    (m, e) => Math.max(m, e.isDirectory() ? newest(path.join(dir, e.name)) : statSync(path.join(dir, e.name)).mtimeMs),
    0,
  );
}

let cli;
if (existsSync(compiled) && (!existsSync(source) || statSync(compiled).mtimeMs >= newest(source))) {
  cli = await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import(pathToFileURL(path.join(source, 'cli/sidenote-cli.ts')).href);
}
process.exitCode = await cli.runCli(process.argv.slice(2));
