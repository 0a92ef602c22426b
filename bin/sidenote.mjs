#!/usr/bin/env node
// `npx sidenote …`, a symlinked `sidenote`, `npm run cli -- …`: runs the compiled CLI when the
// build is current (an image or a production install has no src/ at all), else the TypeScript
// source, and exits with its code (`sidenote --help` lists them).
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { isCurrent } from './compiled-build.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const compiled = path.join(root, 'dist/cli/sidenote-cli.js');
const source = path.join(root, 'src');

let cli;
if (isCurrent(compiled, source)) {
  cli = await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import(pathToFileURL(path.join(source, 'cli/sidenote-cli.ts')).href);
}
process.exitCode = await cli.runCli(process.argv.slice(2));
