// The repository stands alone for its users: code, comments, docs and the published API
// document point to the project's own docs (README, docs/, /openapi.json), never to documents
// that are not in it (a spec or design file kept elsewhere, a path outside the checkout).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// "SPEC 4.1", "SPEC §5", "SPEC.md", "DESIGN.md", "../shared/…".
const OUTSIDE = /\bSPEC(?:\.md|\s*§?\s*\d)|\bDESIGN\.md\b|\.\.\/shared\//;
const SELF = 'test/structure/stands-alone.test.ts';

function trackedTextFiles(): string[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  return files.filter((f) => f !== SELF && /\.(ts|mjs|js|rs|md|py|sql|sh|toml|ya?ml|json)$/.test(f) && !f.startsWith('eval/relevance/'));
}

describe('the repository stands alone', () => {
  it('cites no document outside it', () => {
    const found = trackedTextFiles().flatMap((file) =>
      readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (OUTSIDE.test(line) ? [`${file}:${i + 1}: ${line.trim().slice(0, 120)}`] : [])),
    );
    expect(found).toEqual([]);
  });

  it('recognises the citations it looks for', () => {
    for (const s of ['(SPEC 4.1)', 'SPEC §5', 'See SPEC.md.', 'DESIGN.md §2', '[x](../shared/SPEC.md)']) expect(OUTSIDE.test(s), s).toBe(true);
    for (const s of ['INSPECT 4', 'the spec of the API', 'a SPECIAL case']) expect(OUTSIDE.test(s), s).toBe(false);
  });
});
