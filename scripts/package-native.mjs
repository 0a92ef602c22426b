#!/usr/bin/env node
// npm run package:native: the prebuilt package of the Rust matching core for this platform, in
// napi-rs' standard layout (npm/<platform>/, package `sidenote-<platform>`), packed as a tarball
// into dist-native/. It records the hash of the sources it was built from, so an install uses it
// only for exactly those sources (scripts/build-native.mjs) and builds from source otherwise.
// Publishing (one package per platform, each built on its platform, then the root's
// optionalDependencies) is a release step: README, "Prebuilt matching core".
//
//   node scripts/package-native.mjs [--no-build] [--out <dir>]
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nativePlatform, nativeSourceHash, platformPackageName } from './native-source.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const outIndex = args.indexOf('--out');
const out = path.resolve(outIndex >= 0 ? args[outIndex + 1] : path.join(root, 'dist-native'));
const platform = nativePlatform();
const layout = path.join(root, 'npm', platform);
if (!existsSync(layout)) {
  console.error(`no npm/${platform}/: this platform is not among package.json's napi.targets`);
  process.exit(1);
}
if (!args.includes('--no-build')) execFileSync(process.execPath, [path.join(root, 'scripts/build-native.mjs'), '--force'], { stdio: 'inherit' });
const binary = `sidenote.${platform}.node`;
const built = path.join(root, 'native', binary);
if (!existsSync(built)) {
  console.error(`native/${binary} is not built: run without --no-build`);
  process.exit(1);
}
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const manifest = JSON.parse(readFileSync(path.join(layout, 'package.json'), 'utf8'));
if (manifest.name !== platformPackageName(root)) throw new Error(`npm/${platform}/package.json names ${manifest.name}`);
// Staged outside the repository: the committed layout never holds a binary or a hash.
const stage = mkdtempSync(path.join(tmpdir(), 'sidenote-native-package-'));
try {
  cpSync(layout, stage, { recursive: true });
  copyFileSync(built, path.join(stage, binary));
  writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify({ ...manifest, version, sidenote: { sourceHash: nativeSourceHash(root) } }, null, 2)}\n`);
  mkdirSync(out, { recursive: true });
  const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', out], { cwd: stage, encoding: 'utf8' }).trim().split('\n').at(-1);
  console.log(path.join(out, packed));
} finally {
  rmSync(stage, { recursive: true, force: true });
}
