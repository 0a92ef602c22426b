#!/usr/bin/env node
// Builds the Rust binding (crates/sidenote-napi) with @napi-rs/cli into native/. Run by
// `npm install` (postinstall), and before `npm test` and `npm start`. Skips the build when the
// addon is newer than every Rust source, or when a prebuilt package for this platform was built
// from these very sources; `--force` rebuilds anyway.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nativeSourceHash, platformPackageName } from './native-source.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const nativeDir = path.join(root, 'native');
const force = process.argv.includes('--force');

function newestMtime(p) {
  if (!existsSync(p)) return 0;
  const s = statSync(p);
  if (!s.isDirectory()) return s.mtimeMs;
  let newest = 0;
  for (const f of readdirSync(p)) {
    if (f === 'target' || f === 'node_modules') continue;
    newest = Math.max(newest, newestMtime(path.join(p, f)));
  }
  return newest;
}

const addons = existsSync(nativeDir) ? readdirSync(nativeDir).filter((f) => f.endsWith('.node')) : [];
const addonMtime = Math.min(...addons.map((f) => statSync(path.join(nativeDir, f)).mtimeMs), Infinity);
const sourceMtime = Math.max(newestMtime(path.join(root, 'crates')), newestMtime(path.join(root, 'Cargo.toml')), newestMtime(path.join(root, 'Cargo.lock')));
if (!force && addons.length > 0 && addonMtime >= sourceMtime) {
  process.exit(0);
}

// A prebuilt package of the core for this platform (npm/<platform>/, installed from a registry
// or a tarball that `npm run package:native` made) serves instead of a build when it was built
// from exactly these sources; native/index.js loads it when native/ holds no addon of its own,
// so a stale one there is removed.
const prebuilt = path.join(root, 'node_modules', platformPackageName(root), 'package.json');
if (!force && existsSync(prebuilt)) {
  const manifest = JSON.parse(readFileSync(prebuilt, 'utf8'));
  if (manifest.sidenote?.sourceHash === nativeSourceHash(root)) {
    for (const f of addons) rmSync(path.join(nativeDir, f), { force: true });
    console.log(`using the prebuilt matching core ${manifest.name}@${manifest.version} (built from these sources)`);
    process.exit(0);
  }
  console.log(`${manifest.name} was built from other sources: building from source`);
}

// A production install (`npm ci --omit=dev`, `npm prune --omit=dev`) has no @napi-rs/cli: it
// runs on the addon `npm run build` made, and cannot make one.
const napiCli = path.join(root, 'node_modules/@napi-rs/cli/dist/cli.js');
if (!existsSync(napiCli)) {
  if (addons.length > 0) process.exit(0);
  console.error(
    [
      '',
      "Sidenote's matching core is not built, and this install has no dev dependencies to build it with.",
      'Build first, then drop the dev dependencies:',
      '  npm ci && npm run build && npm prune --omit=dev',
      '(README, "Production install").',
      '',
    ].join('\n'),
  );
  process.exit(1);
}

const cargo = spawnSync('cargo', ['--version'], { encoding: 'utf8' });
if (cargo.error || cargo.status !== 0) {
  console.error(
    [
      '',
      'Sidenote needs a Rust toolchain to build its matching core (crates/), and `cargo` was not found.',
      'Install Rust with rustup (https://rustup.rs):',
      "  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh",
      'then open a new shell and run `npm install` (or `npm run build:native`) again.',
      '',
    ].join('\n'),
  );
  process.exit(1);
}

console.log(`building the Rust matching core with ${cargo.stdout.trim()} …`);
try {
  execFileSync(
    process.execPath,
    [
      napiCli,
      'build',
      '--platform',
      '--release',
      '--esm',
      '--manifest-path',
      'crates/sidenote-napi/Cargo.toml',
      '--package-json-path',
      'package.json',
      '--output-dir',
      'native',
      '--js',
      'index.js',
      '--dts',
      'index.d.ts',
    ],
    { cwd: root, stdio: 'inherit' },
  );
} catch {
  console.error('\nThe Rust build failed; see the cargo output above.');
  process.exit(1);
}
