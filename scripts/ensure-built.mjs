#!/usr/bin/env node
// Before `npm start`: compiles src/ to dist/ only when dist/ is missing or older than a source
// file, so a built install starts without writing anything (a read-only filesystem, a container
// image) and a fresh clone's `npm install && npm start` still works.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isCurrent } from '../bin/compiled-build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

if (isCurrent(path.join(root, 'dist/server.js'), path.join(root, 'src'))) process.exit(0);
if (!existsSync(path.join(root, 'node_modules/typescript'))) {
  console.error('dist/ is missing or older than src/, and this install has no TypeScript to build it: run `npm run build` first.');
  process.exit(1);
}
console.error('compiling src/ to dist/ …');
execFileSync('npm', ['run', '--silent', 'build:ts'], { cwd: root, stdio: 'inherit' });
