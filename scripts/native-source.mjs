// What identifies a build of the Rust matching core: the platform package napi-rs names for this
// machine (its standard layout, npm/<platform>/), and a hash of the sources a build reads
// (crates/ without build output, Cargo.toml, Cargo.lock). A prebuilt package records the hash it
// was built from; scripts/build-native.mjs uses it only when this checkout's sources hash the same.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** napi-rs' platform name for this process: linux-x64-gnu, darwin-arm64, win32-x64-msvc, … */
export function nativePlatform() {
  const { platform, arch } = process;
  if (platform === 'linux') {
    const glibc = process.report?.getReport?.().header?.glibcVersionRuntime;
    return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`;
  }
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

/** The platform package's name, as native/index.js requires it: `<package name>-<platform>`. */
export function platformPackageName(root) {
  const { name } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  return `${name}-${nativePlatform()}`;
}

function files(dir, out = []) {
  for (const entry of readdirSync(dir).sort()) {
    if (entry === 'target' || entry === 'node_modules') continue;
    const p = path.join(dir, entry);
    if (statSync(p).isDirectory()) files(p, out);
    else out.push(p);
  }
  return out;
}

/** sha256 over every source file's path (relative, `/`-separated) and content. */
export function nativeSourceHash(root) {
  const hash = createHash('sha256');
  const sources = [...files(path.join(root, 'crates')), ...['Cargo.toml', 'Cargo.lock'].map((f) => path.join(root, f)).filter((f) => existsSync(f))];
  for (const file of sources) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    const content = readFileSync(file);
    hash.update(`${rel}\0${content.length}\0`).update(content);
  }
  return hash.digest('hex');
}
