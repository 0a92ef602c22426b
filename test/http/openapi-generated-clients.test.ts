// The published /openapi.json as a client generator sees it: Redocly's recommended rules pass
// with 0 errors, and the TypeScript types openapi-typescript generates from it type-check a host
// flow that narrows decide's answer on `serve` and names the public shapes; `?booleans=plain`
// serves it for generators that cannot read a boolean const.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { createTestApp, type TestApp } from '../helpers/test-env.js';
import { OPERATION_IDS } from '../../src/openapi/openapi-document.js';

const run = promisify(execFile);
const ROOT = path.resolve('.');

const HOST = `
import type { components, operations } from './schema';
type Decided = operations['decide']['responses'][200]['content']['application/json'];
export function surface(answer: Decided): string | null {
  // Narrowed on \`serve\` alone: the served offer's is \`true\`, the no-fill's \`false\`.
  if (answer.serve) {
    const offer: components['schemas']['ServedOffer'] = answer;
    return \`\${offer.disclosure} · \${offer.advertiser} → \${offer.link}\`;
  }
  const noFill: components['schemas']['NoFill'] = answer;
  return noFill.reason_codes.length > 0 ? null : null;
}
export const envelope: components['schemas']['Envelope'] = {
  message: 'cheapest flights to Tokyo',
  locale: 'en-US',
  native_surface: { clickable: true, disclosure_capable: true },
};
`;

describe('/openapi.json for client generators', () => {
  let t: TestApp;
  let dir: string;
  let doc: Record<string, any>;
  beforeAll(async () => {
    t = await createTestApp();
    doc = (await t.app.inject('/openapi.json')).json();
    dir = await mkdtemp(path.join(tmpdir(), 'sidenote-openapi-'));
    await writeFile(path.join(dir, 'openapi.json'), JSON.stringify(doc));
  });
  afterAll(async () => {
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('names every operation and every public shape, and says which operations are public', () => {
    const ops = Object.entries(doc.paths).flatMap(([p, item]) =>
      Object.entries(item as object).map(([m, op]) => ({ key: `${m.toUpperCase()} ${p}`, op: op as any })),
    );
    expect(ops.map((o) => o.op.operationId)).toEqual(ops.map((o) => OPERATION_IDS[o.key]));
    expect(new Set(ops.map((o) => o.op.operationId)).size).toBe(ops.length);
    for (const { op } of ops) expect(Array.isArray(op.security)).toBe(true);
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['Envelope', 'ServedOffer', 'NoFill', 'ImpressionEvent', 'Error']));
    // The booleans the spec fixes are literals, so that generated types narrow on them.
    expect(doc.components.schemas.ServedOffer.properties.serve).toMatchObject({ type: 'boolean', const: true });
    expect(doc.components.schemas.NoFill.properties.serve).toMatchObject({ type: 'boolean', const: false });
  });

  it('serves the same document with plain booleans for generators that cannot read a boolean const', async () => {
    // openapi-generator's Python client reads `const: true` as the string enum 'true'.
    const plain = (await t.app.inject('/openapi.json?booleans=plain')).json();
    expect(JSON.stringify(plain)).not.toMatch(/"const":(true|false)|"enum":\[(true|false)\]/);
    expect(plain.components.schemas.ServedOffer.properties.serve).toMatchObject({ type: 'boolean', description: expect.stringContaining('true') });
    expect(Object.keys(plain.paths)).toEqual(Object.keys(doc.paths));
    expect((await t.app.inject('/openapi.json?booleans=maybe')).statusCode).toBe(400);
  });

  it('passes Redocly lint with 0 errors', async () => {
    const redocly = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
    const { stdout } = await run(process.execPath, [redocly, 'lint', path.join(dir, 'openapi.json'), '--format=json'], {
      cwd: dir,
      maxBuffer: 64 * 1024 * 1024,
    }).catch((err: { stdout: string }) => ({ stdout: err.stdout }));
    const report = JSON.parse(stdout.slice(stdout.indexOf('{')));
    const errors = report.problems.filter((p: { severity: string }) => p.severity === 'error');
    expect(errors.map((e: { ruleId: string; message: string }) => `${e.ruleId}: ${e.message}`)).toEqual([]);
  }, 60_000);

  it('generates TypeScript types with openapi-typescript that type-check a host flow', async () => {
    await writeFile(path.join(dir, 'schema.ts'), astToString(await openapiTS(doc as never)));
    await writeFile(path.join(dir, 'host.ts'), HOST);
    await writeFile(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', types: [] },
        files: ['host.ts'],
      }),
    );
    await run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir });
  }, 60_000);
});
