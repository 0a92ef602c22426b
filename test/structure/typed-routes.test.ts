// Route handlers read the request as its route's zod schemas parsed it (the ZodSchemas type
// provider, src/http/validation.ts) and the caller through callerOf: a cast would let a handler
// and its schema drift apart with nothing to say so.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

// `request.body as X`, `req.params as X`, `(request.query as X)`, `request.principal!`.
const CAST = /\b(?:req|request)\.(?:body|params|query)\s+as\b|\b(?:req|request)\.principal!/;

describe('typed route handlers', () => {
  it('cast no request part and assert no caller anywhere in src/', () => {
    const found = tsFiles(SRC).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (CAST.test(line) ? [`${path.relative(SRC, file)}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  it('finds the casts it looks for', () => {
    for (const line of ['const b = request.body as Envelope;', 'f(req.params as Id)', 'request.principal!.appId']) expect(CAST.test(line)).toBe(true);
    expect(CAST.test('const b = request.body;')).toBe(false);
  });
});
