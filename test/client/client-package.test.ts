// The typed client as an integrator gets it: the packed tarball of clients/typescript installed
// into an empty project, whose only other package is zod, running the host flow (decide, render,
// qualified impression, signed conversion) against a started server, and type-checked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestApp, type TestApp, createHost } from '../helpers/test-env.js';

const run = promisify(execFile);
const ROOT = path.resolve('.');
const PACKAGE = path.join(ROOT, 'clients/typescript');

const HOST_FLOW = `
import { SidenoteClient } from '@sidenote/client';
const client = new SidenoteClient({ baseUrl: process.env.SIDENOTE_URL, apiKey: process.env.SIDENOTE_KEY, conversionSecret: process.env.SIDENOTE_SECRET, decideTimeoutMs: 3000 });
const outcome = await client.decide({ message: '제주도 오션뷰 호텔 최저가 알려줘', locale: 'ko-KR', country: 'KR', audience: { age_band: '18_plus', contextual_offer_consent: true }, native_surface: { clickable: true, disclosure_capable: true } });
if (!outcome.render) { console.log(JSON.stringify({ render: false, why: outcome.why })); process.exit(0); }
const ids = { offerSnapshotId: outcome.offer.offer_id, decisionId: outcome.offer.decision_id };
const rendered = await client.rendered(ids);
const qualified = await client.qualifiedImpression(ids);
const conversion = await client.conversion(ids);
console.log(JSON.stringify({ render: true, disclosure: outcome.offer.disclosure, rendered: rendered.ok, qualified: qualified.ok, conversion: conversion.ok }));
`;

const TYPED_HOST = `
import { SidenoteClient, type DecideOutcome, type Envelope } from '@sidenote/client';
const client = new SidenoteClient({ baseUrl: 'http://localhost:3000', apiKey: 'sk_test_x' });
export async function turn(message: string): Promise<string | null> {
  const envelope: Envelope = { message, locale: 'en-US', native_surface: { clickable: true, disclosure_capable: true } };
  const outcome: DecideOutcome = await client.decide(envelope);
  return outcome.render ? outcome.offer.link : null;
}
`;

// The same flow from CommonJS: require() gets the same client.
const COMMONJS_HOST = `
const { SidenoteClient } = require('@sidenote/client');
const client = new SidenoteClient({ baseUrl: process.env.SIDENOTE_URL, apiKey: process.env.SIDENOTE_KEY, decideTimeoutMs: 3000 });
client.decide({ message: '제주도 오션뷰 호텔 최저가 알려줘', locale: 'ko-KR', country: 'KR', audience: { age_band: '18_plus', contextual_offer_consent: true }, native_surface: { clickable: true, disclosure_capable: true } })
  .then((outcome) => console.log(JSON.stringify({ render: outcome.render })));
`;

describe('the client package, installed from its tarball', () => {
  let scratch: string;
  let t: TestApp;
  let url: string;
  let app: { serving_key: string; conversion_secret: string };

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'sidenote-client-pkg-'));
    await run(process.execPath, [path.join(ROOT, 'scripts/build-client.mjs')], { cwd: ROOT });
    const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', scratch], { cwd: PACKAGE });
    const tarball = path.join(scratch, stdout.trim().split('\n').at(-1)!);
    await writeFile(path.join(scratch, 'package.json'), JSON.stringify({ name: 'host', private: true, type: 'module' }));
    await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: scratch, timeout: 120_000 });
    t = await createTestApp({ decideTimeBudgetMs: 2_000 });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    app = await createHost(t.app, 'Package');
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('brings only zod with it', async () => {
    const installed = (await readdir(path.join(scratch, 'node_modules'))).filter((n) => !n.startsWith('.'));
    expect(installed.sort()).toEqual(['@sidenote', 'zod']);
  });

  it('runs the host flow against a started server', async () => {
    await writeFile(path.join(scratch, 'host.mjs'), HOST_FLOW);
    const { stdout } = await run(process.execPath, ['host.mjs'], {
      cwd: scratch,
      env: { ...process.env, SIDENOTE_URL: url, SIDENOTE_KEY: app.serving_key, SIDENOTE_SECRET: app.conversion_secret },
    });
    expect(JSON.parse(stdout)).toEqual({ render: true, disclosure: expect.any(String), rendered: true, qualified: true, conversion: true });
  }, 60_000);

  it('is required from CommonJS as well', async () => {
    await writeFile(path.join(scratch, 'host.cjs'), COMMONJS_HOST);
    const { stdout } = await run(process.execPath, ['host.cjs'], { cwd: scratch, env: { ...process.env, SIDENOTE_URL: url, SIDENOTE_KEY: app.serving_key } });
    expect(JSON.parse(stdout)).toEqual({ render: true });
  }, 60_000);

  it('type-checks a TypeScript host against its declarations', async () => {
    await writeFile(path.join(scratch, 'host.ts'), TYPED_HOST);
    await writeFile(
      path.join(scratch, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, skipLibCheck: false, types: [] },
        files: ['host.ts'],
      }),
    );
    await run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', scratch], { cwd: scratch });
  }, 60_000);
});
