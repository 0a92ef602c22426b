// The published document is the contract hosts and operators code against: every operation is
// summarised, shows examples (Korean and English where it carries text), describes every field,
// and lists the errors it can answer with. Schemathesis (npm run test:contract) then checks the
// running service against this same document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineComponents } from '../helpers/openapi.js';
import { ADMIN, bearer, createTestApp, type TestApp, createHost } from '../helpers/test-env.js';
import { adultOnSurface } from '../helpers/envelopes.js';

type Json = Record<string, any>;
interface Operation {
  id: string;
  op: Json;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
/** Operations whose bodies carry text in the user's language: they show a Korean and an English example. */
const BILINGUAL = ['POST /v1/offers/decide', 'POST /v1/offers/affiliate', 'GET /v1/decisions/{id}/explanation'];

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: Json;
  let operations: Operation[];
  beforeAll(async () => {
    t = await createTestApp();
    // Read with the component schemas in place, as the operations use them.
    doc = inlineComponents((await t.app.inject('/openapi.json')).json());
    operations = Object.entries(doc.paths as Json).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => ({ id: `${m.toUpperCase()} ${path}`, op: item[m] })),
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  it('covers the public operations, admin, reference and health', () => {
    const ids = operations.map((o) => o.id);
    for (const id of [
      'POST /v1/offers/decide',
      'POST /v1/offers/affiliate',
      'POST /v1/events/rendered',
      'POST /v1/events/qualified-impression',
      'POST /v1/events/impression',
      'POST /v1/events/conversion',
      'POST /v1/events/click-intent',
      'GET /r/{token}',
      'GET /v1/decisions/{id}',
      'GET /v1/decisions/{id}/explanation',
      'GET /v1/reference/reason-codes',
      'GET /healthz',
      'GET /readyz',
      'POST /admin/apps',
      'GET /admin/apps',
      'POST /admin/apps/{id}/keys',
      'POST /admin/keys/{id}/revoke',
      'POST /admin/apps/{id}/conversion-secrets',
      'GET /admin/catalog',
      'PUT /admin/catalog',
      'GET /admin/reports',
      'GET /dashboard',
    ]) {
      expect(ids, id).toContain(id);
    }
  });

  it('summarises every operation and tags it', () => {
    for (const { id, op } of operations) {
      expect(op.summary, id).toMatch(/\S/);
      expect(op.tags?.length, id).toBeGreaterThan(0);
    }
  });

  it('gives every request body and every 2xx response named examples', () => {
    for (const { id, op } of operations) {
      const body = op.requestBody?.content?.['application/json'];
      if (op.requestBody) expect(Object.keys(body?.examples ?? {}).length, `${id} request`).toBeGreaterThan(0);
      for (const [status, res] of Object.entries(op.responses as Json)) {
        if (!status.startsWith('2')) continue;
        // JSON everywhere but the dashboard's HTML page.
        const media = res.content?.['application/json'] ?? res.content?.['text/html'];
        expect(media, `${id} ${status} has a body`).toBeDefined();
        expect(Object.keys(media.examples ?? {}).length, `${id} ${status} examples`).toBeGreaterThan(0);
      }
    }
  });

  it('shows Korean and English examples where the body carries text', () => {
    for (const id of BILINGUAL) {
      const { op } = operations.find((o) => o.id === id)!;
      const ok = Object.entries(op.responses as Json).find(([s]) => s.startsWith('2'))![1];
      expect(Object.keys(ok.content['application/json'].examples), `${id} response`).toEqual(expect.arrayContaining(['ko', 'en']));
      if (op.requestBody) {
        expect(Object.keys(op.requestBody.content['application/json'].examples), `${id} request`).toEqual(expect.arrayContaining(['ko', 'en']));
      }
    }
  });

  it('describes every field of every body and every parameter', () => {
    const undescribed: string[] = [];
    for (const { id, op } of operations) {
      for (const p of op.parameters ?? []) {
        if (!p.description && !p.schema?.description) undescribed.push(`${id} ${p.in} ${p.name}`);
        walk(p.schema, `${id} ${p.in} ${p.name}`, undescribed);
      }
      walk(op.requestBody?.content?.['application/json']?.schema, `${id} request`, undescribed);
      for (const [status, res] of Object.entries(op.responses as Json)) {
        for (const media of Object.values((res.content ?? {}) as Json)) walk(media.schema, `${id} ${status}`, undescribed);
      }
    }
    expect(undescribed).toEqual([]);
  });

  it('documents the 4xx answers of every operation that takes input or a key', () => {
    for (const { id, op } of operations) {
      const statuses = Object.keys(op.responses);
      // Only a GET with no parameters, body or key (reference, health) has no 4xx to give.
      if (op.security?.length || op.requestBody || op.parameters?.length) {
        expect(
          statuses.some((s) => s.startsWith('4')),
          `${id} documents a 4xx`,
        ).toBe(true);
      }
      if (op.security?.length) expect(statuses, `${id} requires a key`).toContain('401');
      if (op.requestBody) expect(statuses, `${id} takes a body`).toEqual(expect.arrayContaining(['400', '413', '415']));
      for (const s of statuses.filter((x) => x.startsWith('4'))) {
        const media = op.responses[s].content?.['application/json'];
        expect(media?.schema?.properties?.error, `${id} ${s} uses the error body`).toBeDefined();
        expect(Object.keys(media.examples ?? {}).length, `${id} ${s} examples`).toBeGreaterThan(0);
      }
    }
  });

  it('states the SPEC limits, enums and headers', () => {
    const decide = operations.find((o) => o.id === 'POST /v1/offers/decide')!.op;
    const envelope = decide.requestBody.content['application/json'].schema;
    expect(Object.keys(decide.responses).sort()).toEqual(['200', '400', '401', '413', '415', '429']);
    const digest = envelope.properties.session.properties.digest.properties;
    expect(digest.category_ids).toMatchObject({ maxItems: 20, items: { maxLength: 64 } });
    expect(digest.intent_type.enum).toEqual(['purchase', 'compare', 'browse', 'low', 'unknown']);
    expect(digest.budget_bucket.enum).toEqual(['unknown', 'low', 'mid', 'high']);
    expect(digest.safety.enum).toEqual(['clear', 'unknown', 'blocked']);
    expect(digest.generated_at).toMatchObject({ maxLength: 40, format: 'date-time' });
    expect(envelope.properties.country).toMatchObject({ minLength: 2, maxLength: 8 });
    expect(envelope.properties.session.properties.token.maxLength).toBe(128);
    expect(envelope.properties.audience.properties.age_band.enum).toEqual(['under_13', '13_17', '18_plus', 'unknown']);
    expect(envelope.properties.native_surface.required).toEqual(['clickable', 'disclosure_capable']);

    for (const path of ['/v1/events/rendered', '/v1/events/qualified-impression']) {
      const header = doc.paths[path].post.parameters.find((p: Json) => p.in === 'header' && p.name === 'idempotency-key');
      expect(header, path).toMatchObject({ required: true, schema: { minLength: 8, maxLength: 80 } });
    }
    const alias = doc.paths['/v1/events/impression'].post;
    expect(alias.deprecated).toBe(true);
    expect(alias.parameters.find((p: Json) => p.name === 'idempotency-key').required).toBe(false);
    expect(alias.requestBody.content['application/json'].schema.properties.idempotency_key).toMatchObject({ minLength: 8, maxLength: 80 });

    const conversion = doc.paths['/v1/events/conversion'].post.requestBody.content['application/json'].schema;
    expect(conversion.required.sort()).toEqual(['nonce', 'offer_snapshot_id', 'signature', 'timestamp']);
    expect(conversion.properties.nonce).toMatchObject({ minLength: 8, maxLength: 80 });
    expect(conversion.properties.signature.minLength).toBe(16);
    expect(conversion.properties.timestamp.type).toBe('integer');

    const clickIntent = doc.paths['/v1/events/click-intent'].post;
    expect(clickIntent.security ?? []).toEqual([]);
    expect(clickIntent.requestBody.content['application/json'].schema.required.sort()).toEqual(['event_id', 'impression_token']);
    expect(Object.keys(doc.paths['/r/{token}'].get.responses)).toEqual(expect.arrayContaining(['302', '400']));
    expect(doc.paths['/r/{token}'].get.security ?? []).toEqual([]);
    expect(Object.keys(doc.paths['/v1/decisions/{id}'].get.responses)).toEqual(expect.arrayContaining(['200', '401', '404']));
    expect(doc.info.version).toBe('1.0.0');
  });
});

describe('answers the document gives for requests outside it', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await createHost(t.app, 'Contract')).serving_key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers 405 with Allow for a known path and a method it does not take, before reading any body', async () => {
    for (const [method, url, allow] of [
      ['GET', '/v1/offers/decide', 'POST'],
      ['TRACE', '/v1/events/rendered', 'POST'],
      ['DELETE', '/v1/decisions/dec_abc', 'GET, HEAD'],
      ['POST', '/r/v1.abc.def', 'GET, HEAD'],
      ['PATCH', '/v1/offers/decide/', 'POST'],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: { 'content-type': 'text/plain' }, payload: 'not json' });
      expect(res.statusCode, `${method} ${url}`).toBe(405);
      expect(res.headers.allow, `${method} ${url}`).toBe(allow);
      expect(res.json()).toEqual({ ok: false, error: 'method_not_allowed' });
    }
    expect((await t.app.inject({ method: 'GET', url: '/v1/nothing-here' })).statusCode).toBe(404);
  });

  it('keeps a switched-off admin API invisible: 404, not 405', async () => {
    const off = await createTestApp({ adminKey: undefined });
    try {
      expect((await off.app.inject({ method: 'DELETE', url: '/admin/apps' })).statusCode).toBe(404);
      expect((await off.app.inject({ method: 'GET', url: '/admin/apps' })).statusCode).toBe(404);
    } finally {
      await off.close();
    }
  });

  it('refuses NUL characters in stored text as bad input, not as a failed write', async () => {
    const envelope = {
      locale: 'en\u0000',
      ...adultOnSurface(),
    };
    const decide = await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(key), payload: envelope });
    expect(decide.statusCode).toBe(400);
    expect(decide.json().error).toBe('INVALID_ENVELOPE');
    const event = await t.app.inject({
      method: 'POST',
      url: '/v1/events/impression',
      headers: bearer(key),
      payload: { offer_snapshot_id: 'snp_abc', idempotency_key: 'key\u0000-12345' },
    });
    expect(event.json()).toMatchObject({ error: 'invalid_event' });
    const app = await t.app.inject({ method: 'POST', url: '/admin/apps', headers: ADMIN, payload: { name: 'A\u0000' } });
    expect(app.statusCode).toBe(400);
    const click = await t.app.inject({ method: 'POST', url: '/v1/events/click-intent', payload: { impression_token: 'x', event_id: 'e\u0000' } });
    expect(click.json()).toMatchObject({ error: 'invalid_click_intent' });
  });

  it('counts lengths in characters, as JSON Schema does', async () => {
    const envelope = {
      locale: 'en-😀😀😀😀😀😀😀😀😀😀😀😀😀',
      ...adultOnSurface(),
    };
    expect([...envelope.locale].length).toBe(16);
    const res = await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(key), payload: envelope });
    expect(res.statusCode).toBe(200);
  });

  it('takes the key-creation body as optional, but not as null', async () => {
    const appId = (await createHost(t.app, 'Keys')).app_id;
    expect((await t.app.inject({ method: 'POST', url: `/admin/apps/${appId}/keys`, headers: ADMIN })).statusCode).toBe(201);
    const nullBody = await t.app.inject({
      method: 'POST',
      url: `/admin/apps/${appId}/keys`,
      headers: { ...ADMIN, 'content-type': 'application/json' },
      payload: 'null',
    });
    expect(nullBody.statusCode).toBe(400);
  });
});

/** Collects every object property without a description, at any depth. */
function walk(schema: Json | undefined, where: string, out: string[]) {
  if (!schema || typeof schema !== 'object') return;
  for (const [name, prop] of Object.entries((schema.properties ?? {}) as Json)) {
    if (!prop.description) out.push(`${where}.${name}`);
    walk(prop, `${where}.${name}`, out);
  }
  if (schema.items) walk(schema.items, `${where}[]`, out);
  for (const key of ['anyOf', 'oneOf', 'allOf']) for (const [i, s] of (schema[key] ?? []).entries()) walk(s, `${where}(${key}${i})`, out);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, `${where}{}`, out);
}
