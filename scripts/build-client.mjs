#!/usr/bin/env node
// Builds the typed client (clients/typescript) for both module systems from the service's own
// sources: ES modules in dist/esm, CommonJS in dist/cjs (marked as such by its own package.json,
// since the package is `"type": "module"`). package.json's `exports` sends `import` and `require`
// to each, with its declarations.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const client = path.join(root, 'clients/typescript');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync(path.join(client, 'dist'), { recursive: true, force: true });
for (const config of ['tsconfig.json', 'tsconfig.cjs.json']) {
  execFileSync(process.execPath, [tsc, '-p', path.join(client, config)], { stdio: 'inherit' });
}
mkdirSync(path.join(client, 'dist/cjs'), { recursive: true });
writeFileSync(path.join(client, 'dist/cjs/package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
