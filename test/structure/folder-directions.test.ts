// Which top-level folder may import which. The service (src/) imports nothing outside itself,
// so `dist/` holds no test code; test/ and bench/ share what both need through testkit/, which
// imports neither; bench/ never imports test/ (test/soak runs the soak harness of bench/, so
// the reverse would be a cycle). Inside src/, the feature folders form no cycle: each can be
// read, changed and tested from its own imports down.
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

/** src/ folder → the src/ folders its files import (src/*.ts at the top count as '.'). */
function srcFolderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  const srcRoot = path.join(ROOT, 'src');
  const folderOf = (file: string) => {
    const rel = path.relative(srcRoot, file).split(path.sep);
    return rel.length > 1 ? rel[0] : '.';
  };
  for (const file of tsFiles(srcRoot)) {
    const from = folderOf(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = path.resolve(path.dirname(file), m[1]);
      if (path.relative(srcRoot, target).startsWith('..')) continue;
      const to = folderOf(target);
      if (to !== from) graph.set(from, (graph.get(from) ?? new Set()).add(to));
    }
  }
  return graph;
}

/** Every cycle's folders, found by depth-first search (one path per cycle is enough to fix it). */
function cycles(graph: Map<string, Set<string>>): string[] {
  const found: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (node: string, trail: string[]) => {
    state.set(node, 'open');
    for (const next of graph.get(node) ?? []) {
      const path = [...trail, node];
      if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), next].join(' → '));
      else if (!state.has(next)) visit(next, path);
    }
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node, []);
  return found;
}

describe('src/ folders', () => {
  it('import each other without cycles', () => {
    expect(cycles(srcFolderGraph())).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const graph = new Map([
      ['events', new Set(['decisions'])],
      ['decisions', new Set(['http'])],
      ['http', new Set(['events'])],
    ]);
    expect(cycles(graph)).toEqual(['decisions → http → events → decisions']);
  });
});
