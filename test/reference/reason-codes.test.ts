// The reason-code reference lists exactly the codes and error strings the code can emit.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { REFERENCE, renderReferenceMarkdown } from '../../src/reference/reason-codes.js';
import { ReasonCodeSchema } from '../../src/decide/decide-schemas.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    // The server's own code: the registry, the reference and the host client (whose `error`
    // strings are client-side outcomes, not server answers) are not sources of emitted codes.
    if (statSync(p).isDirectory()) return ['reference', 'client', 'errors'].includes(f) ? [] : sources(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

describe('reason-code reference', () => {
  const code = sources(path.resolve('src'))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');

  // The compiler already refuses an error string that is not registered (sendError, Refusal and
  // the route configs take an ErrorCode); this also finds registered strings nothing answers with.
  it('lists every error string the code can answer with, and nothing else', () => {
    const emitted = new Set<string>();
    for (const m of code.matchAll(/(?:sendError\([^,]+,\s*|errorBody\(|new Refusal\(|\berror:\s*)'([A-Za-z_]+)'/g)) emitted.add(m[1]);
    // Authentication errors are a union type in the authenticator.
    const authUnion = /export type AuthError =([^;]+);/.exec(code)![1];
    for (const m of authUnion.matchAll(/'([a-z_]+)'/g)) emitted.add(m[1]);
    const listed = new Set(REFERENCE.filter((e) => e.kind === 'error').map((e) => e.code));
    expect([...emitted].filter((c) => !listed.has(c)).sort()).toEqual([]);
    expect([...listed].filter((c) => !emitted.has(c)).sort()).toEqual([]);
  });

  it('lists exactly the reason codes a decide answer can carry', () => {
    const reasonCodes = REFERENCE.filter((e) => e.kind === 'reason_code').map((e) => e.code);
    const spec = ReasonCodeSchema.options.filter((c) => !['INVALID_ENVELOPE', 'FORBIDDEN_IDENTITY_FIELD'].includes(c));
    expect(reasonCodes.sort()).toEqual([...spec].sort());
    // The two 400 reason codes are listed as errors with the same name.
    expect(REFERENCE.filter((e) => ['INVALID_ENVELOPE', 'FORBIDDEN_IDENTITY_FIELD'].includes(e.code)).map((e) => e.status)).toEqual([400, 400]);
  });

  it('gives retry guidance consistent with what responses carry', () => {
    const timeout = REFERENCE.find((e) => e.code === 'TIMEOUT')!;
    expect(timeout.retry_after_seconds).toBe(Number(/TIMEOUT_RETRY_AFTER_SECONDS = (\d+)/.exec(code)![1]));
    // What a 503 carries in retry-after is checked on a real answer in test/http/error-answers.test.ts.
    for (const e of REFERENCE) if (!e.retry) expect(e.retry_after_seconds).toBeNull();
  });

  it('is rendered into docs/reason-codes.md', () => {
    expect(readFileSync(path.resolve('docs/reason-codes.md'), 'utf8')).toBe(renderReferenceMarkdown());
  });
});
