// Which top-level folder may import which. The service (src/) imports nothing outside itself,
// so `dist/` holds no test code; test/ and bench/ share what both need through testkit/, which
// imports neither; bench/ never imports test/ (test/soak runs the soak harness of bench/, so
// the reverse would be a cycle).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return name === 'node_modules' ? [] : tsFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** Top-level folders a folder's files import from (relative imports only; packages are not folders). */
function importedFolders(folder: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of tsFiles(path.join(ROOT, folder))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = path.relative(ROOT, path.resolve(path.dirname(file), m[1])).split(path.sep)[0];
      if (target === folder) continue;
      out.set(target, [...(out.get(target) ?? []), path.relative(ROOT, file)]);
    }
  }
  return out;
}

// native/ is the generated N-API binding (src/native/offer-index.ts is its only importer);
// examples/ are the host integration examples the client test runs.
const allowed: Record<string, string[]> = {
  src: ['native'],
  testkit: ['src'],
  bench: ['src', 'testkit'],
  test: ['src', 'testkit', 'bench', 'scripts', 'eval', 'examples'],
};

describe('folder directions', () => {
  for (const [folder, may] of Object.entries(allowed)) {
    it(`${folder}/ imports only from ${may.length ? may.map((f) => `${f}/`).join(', ') : 'itself'}`, () => {
      const found = importedFolders(folder);
      const forbidden = [...found].filter(([target]) => !may.includes(target)).map(([target, files]) => `${target}/ ← ${[...new Set(files)].join(', ')}`);
      expect(forbidden).toEqual([]);
    });
  }
});
