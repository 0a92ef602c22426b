#!/usr/bin/env node
// Fills in package-lock.json entries for other platforms' optional packages (the prebuilt
// binaries of @napi-rs/cli's dependencies: `@napi-rs/lzma-darwin-arm64` …) when npm left them
// out. npm does that when the registry it resolved against lacks those versions (a partial
// mirror, like the one this project is developed against), and `npm ci` then refuses the lock
// as out of sync. Each entry is what npm writes for a package it will never install here: its
// version and the os / cpu / libc that select it. Run after `npm install` changes the lock:
//   node scripts/complete-lockfile.mjs && npm ci
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;
const PLATFORM = /-((?:android|darwin|freebsd|linux|win32|openharmony|wasm32)[-a-z0-9]*)$/;
const added = [];
for (const [key, entry] of Object.entries(packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = key.includes('node_modules/') ? key.slice(0, key.lastIndexOf('node_modules/')) : '';
    if (packages[`${base}node_modules/${name}`] || packages[`node_modules/${name}`]) continue;
    const m = PLATFORM.exec(name);
    if (!m) throw new Error(`${name}: not a platform package; resolve it with npm install`);
    const [os, cpu, abi] = m[1].split('-');
    const stub = { version: range.replace(/^[\^~]/, ''), ...(entry.dev ? { dev: true } : {}), optional: true };
    if (os === 'wasm32') stub.cpu = ['wasm32'];
    else {
      stub.os = [os];
      if (cpu) stub.cpu = [cpu];
      if (abi && /^(gnu|gnueabihf|musl|musleabihf)$/.test(abi)) stub.libc = [abi.startsWith('musl') ? 'musl' : 'glibc'];
    }
    packages[`node_modules/${name}`] = stub;
    added.push(name);
  }
}
const { '': root, ...rest } = packages;
lock.packages = { '': root, ...Object.fromEntries(Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) };
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added.length} platform entries added`);
