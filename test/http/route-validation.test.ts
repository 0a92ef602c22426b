// Requests are validated by their route's zod schema (src/http/validation.ts) before the handler
// runs, in each route's own error vocabulary, and after the key check: a request without a valid
// key is a 401 whatever its body. Handlers never validate by hand.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bearer, createTestApp, type TestApp, createHost } from '../helpers/test-env.js';

function routeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    if (statSync(p).isDirectory()) return routeFiles(p);
    return p.endsWith('-routes.ts') ? [p] : [];
  });
}

describe('route validation', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await createHost(t.app, 'Validation')).serving_key;
  });
  afterAll(() => t?.close());

  it('is never done by hand in a route handler', () => {
    const offenders = routeFiles(path.resolve('src')).filter((f) => /\.safeParse\(/.test(readFileSync(f, 'utf8')));
    expect(offenders.map((f) => path.relative(process.cwd(), f))).toEqual([]);
  });

  it('answers each route in its own vocabulary, naming paths and never values', async () => {
    const cases = [
      { url: '/v1/events/rendered', headers: { 'idempotency-key': 'validation-0001' }, error: 'invalid_event' },
      { url: '/v1/events/conversion', headers: {}, error: 'invalid_conversion' },
      { url: '/v1/events/click-intent', headers: {}, error: 'invalid_click_intent' },
    ];
    for (const c of cases) {
      const res = await t.app.inject({
        method: 'POST',
        url: c.url,
        headers: { ...bearer(key), ...c.headers },
        payload: { offer_snapshot_id: 'value-marker-5521', extra_field: 1 },
      });
      expect(res.statusCode, c.url).toBe(400);
      expect(res.json()).toMatchObject({ ok: false, error: c.error, message: expect.stringMatching(/^body failed validation: /) });
      expect(res.body).not.toContain('value-marker-5521');
    }
    const decide = await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(key), payload: { message: 1 } });
    expect(decide.statusCode).toBe(400);
    expect(decide.json()).toMatchObject({
      error: 'INVALID_ENVELOPE',
      reason_codes: ['INVALID_ENVELOPE'],
      issues: expect.arrayContaining(['$.message: expected string']),
    });
    const report = await t.app.inject({ method: 'GET', url: '/admin/reports?range=5y', headers: ADMIN });
    expect(report.json()).toEqual({ ok: false, error: 'invalid_request', message: 'query failed validation: range' });
    // A malformed decision id is as unknown as any other.
    const lookup = await t.app.inject({ method: 'GET', url: '/v1/decisions/not-an-id', headers: bearer(key) });
    expect([lookup.statusCode, lookup.json()]).toEqual([404, { ok: false, error: 'not_found' }]);
  });

  it('checks the key before the body', async () => {
    for (const url of ['/v1/offers/decide', '/v1/events/rendered', '/v1/events/conversion']) {
      const res = await t.app.inject({ method: 'POST', url, headers: { 'idempotency-key': 'validation-0002' }, payload: { not: 'valid' } });
      expect([url, res.statusCode, res.json().error]).toEqual([url, 401, 'missing_api_key']);
    }
    const lookup = await t.app.inject({ method: 'GET', url: '/v1/decisions/not-an-id' });
    expect(lookup.statusCode).toBe(401);
  });
});
