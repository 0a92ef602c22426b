#!/usr/bin/env node
// `npx sidenote …` / `npm run cli -- …`: runs the compiled CLI when built, else the TypeScript source.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const compiled = path.join(root, 'dist/cli/sidenote-cli.js');
if (existsSync(compiled)) {
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(path.join(root, 'src/cli/sidenote-cli.ts')).href);
}
