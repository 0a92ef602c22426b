// The service shell through HTTP: health, readiness, OpenAPI, admin API, and key revocation
// seen by a second instance sharing the same database and counters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineComponents } from '../helpers/openapi.js';
import { ADMIN, bearer, createTestApp, usingRealPostgres, usingRealRedis, type TestApp, createHost } from '../helpers/test-env.js';
import type { TestDatabase } from '../helpers/test-db.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { koreanTurn } from '../helpers/envelopes.js';

const stores = `${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'in-process counters'}`;
const envelope = koreanTurn('제주도 호텔 최저가 알려줘');

describe(`service shell (${stores})`, () => {
  let a: TestApp & { testDb: TestDatabase };
  let b: TestApp;
  beforeAll(async () => {
    a = await createTestApp({ apiKeyCacheMs: 500 });
    b = await createTestApp({ apiKeyCacheMs: 500 }, { testDb: a.testDb, counters: a.counters });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('answers liveness and readiness', async () => {
    expect((await a.app.inject('/healthz')).json()).toEqual({ ok: true });
    const ready = await a.app.inject('/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ ok: true, checks: { database: 'ok', counters: 'ok', offer_index: 'ok' } });
    expect(ready.json().offers).toBeGreaterThan(0);
  });

  it('publishes an OpenAPI document generated from the schemas', async () => {
    const res = await a.app.inject('/openapi.json');
    expect(res.statusCode).toBe(200);
    const doc = inlineComponents(res.json());
    expect(doc.openapi).toBe('3.1.0');
    const decide = doc.paths['/v1/offers/decide'].post;
    const body = decide.requestBody.content['application/json'].schema;
    expect(body.additionalProperties).toBe(false);
    expect(body.required).toEqual(['native_surface']);
    expect(body.properties.message.maxLength).toBe(4000);
    expect(body.properties.locale).toMatchObject({ minLength: 2, maxLength: 16 });
    expect(Object.keys(decide.responses).sort()).toEqual(['200', '400', '401', '413', '415', '429']);
    for (const path of [
      '/v1/events/rendered',
      '/v1/events/qualified-impression',
      '/v1/events/impression',
      '/v1/events/conversion',
      '/r/{token}',
      '/v1/decisions/{id}',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
  });

  it('serves the document as a browsable page at /docs', async () => {
    const page = await a.app.inject('/docs');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect((await a.app.inject('/docs/static/swagger-ui.css')).statusCode).toBe(200);
    expect((await a.app.inject('/docs/json')).json().paths['/v1/offers/decide']).toBeDefined();
  });

  it('protects the admin API with the admin key', async () => {
    expect((await a.app.inject({ method: 'GET', url: '/admin/apps' })).statusCode).toBe(401);
    expect((await a.app.inject({ method: 'GET', url: '/admin/apps', headers: bearer('wrong-admin-key-0000000000000') })).json()).toEqual({
      ok: false,
      error: 'invalid_admin_key',
    });
    expect((await a.app.inject({ method: 'GET', url: '/admin/apps', headers: ADMIN })).statusCode).toBe(200);
  });

  it('creates apps and keys, rotates secrets and imports the catalog over the admin API', async () => {
    const created = await a.app.inject({ method: 'POST', url: '/admin/apps', headers: ADMIN, payload: { name: 'Admin-made' } });
    expect(created.statusCode).toBe(201);
    const { app_id, serving_key } = created.json();
    expect(serving_key).toMatch(/^sk_live_/);
    const setup = await a.app.inject({ method: 'POST', url: `/admin/apps/${app_id}/keys`, headers: ADMIN, payload: { kind: 'setup' } });
    expect(setup.json().key).toMatch(/^st_/);
    const rotated = await a.app.inject({ method: 'POST', url: `/admin/apps/${app_id}/conversion-secrets`, headers: ADMIN });
    expect(rotated.statusCode).toBe(201);
    expect((await a.app.inject({ method: 'POST', url: '/admin/apps', headers: ADMIN, payload: { name: '' } })).statusCode).toBe(400);
    expect((await a.app.inject({ method: 'POST', url: '/admin/apps', headers: ADMIN, payload: { name: 'x', email: 'a@b' } })).statusCode).toBe(400);
    expect((await a.app.inject({ method: 'POST', url: '/admin/apps/app_nope/conversion-secrets', headers: ADMIN })).statusCode).toBe(404);

    const bad = await a.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: { ...miniCatalog(), offers: [{ id: 'x' }] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('invalid_catalog');
    expect(bad.json().problems.join('\n')).toContain('offers[0].campaign_id');
    const exported = await a.app.inject({ method: 'GET', url: '/admin/catalog', headers: ADMIN });
    const again = await a.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: exported.json() });
    expect(again.json()).toMatchObject({ changed: false, snapshots_created: 0 });
  });

  it('reaches the native core from decide with a serving key', async () => {
    const { serving_key } = await createHost(a.app, 'Host');
    const res = await a.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(serving_key), payload: envelope });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ serve: true, reason_codes: ['MATCHED'] });
  });

  it('rejects a revoked key on every instance within one second', async () => {
    const { serving_key, serving_key_id } = await createHost(a.app, 'Revoked');
    for (const inst of [a, b]) {
      expect((await inst.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(serving_key), payload: envelope })).statusCode).toBe(200);
    }
    const revokedAt = Date.now();
    expect((await a.app.inject({ method: 'POST', url: `/admin/keys/${serving_key_id}/revoke`, headers: ADMIN })).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() - revokedAt)));
    for (const inst of [a, b]) {
      const res = await inst.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(serving_key), payload: envelope });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ ok: false, error: 'revoked_api_key' });
    }
  });

  it('answers unknown routes and malformed JSON with clear 4xx bodies', async () => {
    expect((await a.app.inject('/nope')).json()).toEqual({ ok: false, error: 'not_found' });
    const res = await a.app.inject({
      method: 'POST',
      url: '/admin/apps',
      headers: { ...ADMIN, 'content-type': 'application/json' },
      payload: '{"name": "CANARY-9f3e',
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).not.toContain('CANARY');
  });
});
