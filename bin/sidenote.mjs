#!/usr/bin/env node
// `npx sidenote …`, a symlinked `sidenote`, `npm run cli -- …`: runs the compiled CLI when built,
// else the TypeScript source, and exits with its code (`sidenote --help` lists them).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const compiled = path.join(root, 'dist/cli/sidenote-cli.js');
let cli;
if (existsSync(compiled)) {
  cli = await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import(pathToFileURL(path.join(root, 'src/cli/sidenote-cli.ts')).href);
}
process.exitCode = await cli.runCli(process.argv.slice(2));
