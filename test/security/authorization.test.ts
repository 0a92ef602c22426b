// Who may do what: every authenticated route refuses
// missing, malformed, unknown, setup and revoked keys with the documented 401, and no app can
// read or write through another app's ids (BOLA): decisions, explanations, events on another
// app's decisions, conversions, idempotency keys and click intents.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { ADMIN, bearer, createTestApp, usingRealPostgres, usingRealRedis, type TestApp, createHost } from '../helpers/test-env.js';
import { miniCatalogWithAffiliates } from '../helpers/mini-catalog.js';
import { signConversion } from '../../src/conversions/conversion-signature.js';
import { koreanTurn } from '../helpers/envelopes.js';

const stores = `${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'in-process counters'}`;
const envelope = (message = '제주도 호텔 최저가 알려줘') => koreanTurn(message);
type Host = { app_id: string; serving_key: string; serving_key_id: string; conversion_secret: string };
type Served = { decision_id: string; offer_id: string; link: string };

describe(`authorization: keys on every route and no cross-app access (${stores})`, () => {
  let t: TestApp;
  let hostA: Host;
  let hostB: Host;
  let n = 0;
  const idem = () => `sec-${randomBytes(4).toString('hex')}-${++n}`;
  const post = (url: string, payload: unknown, host: Host, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, headers: { ...bearer(host.serving_key), ...headers }, payload: payload as object });
  const serve = async (host: Host): Promise<Served> => {
    const body = (await post('/v1/offers/decide', envelope(), host)).json();
    expect(body.serve).toBe(true);
    return body;
  };
  const signed = (host: Host, b: { offer_snapshot_id: string; decision_id?: string }) => {
    const body = { ...b, timestamp: Math.floor(Date.now() / 1000), nonce: `nonce-${idem()}` };
    return { ...body, signature: signConversion(host.conversion_secret, body) };
  };

  beforeAll(async () => {
    // A roomy decide budget: these tests need fills, and a loaded CI machine must not turn them into TIMEOUTs.
    t = await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 100_000, apiKeyCacheMs: 100, decideTimeBudgetMs: 5000 });
    const imported = await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalogWithAffiliates() });
    expect(imported.statusCode, imported.body).toBe(200);
    hostA = await createHost(t.app, 'Host A');
    hostB = await createHost(t.app, 'Host B');
  });
  afterAll(() => t?.close());

  describe('401 on every authenticated route', () => {
    // Every route that takes a serving key, with a body that would otherwise be accepted.
    const routes = (d: Served, host: Host) =>
      [
        ['POST', '/v1/offers/decide', envelope()],
        ['POST', '/v1/offers/affiliate', envelope('도쿄 항공권 최저가')],
        ['POST', '/v1/events/rendered', { offer_snapshot_id: d.offer_id, decision_id: d.decision_id }],
        ['POST', '/v1/events/qualified-impression', { offer_snapshot_id: d.offer_id, decision_id: d.decision_id }],
        ['POST', '/v1/events/impression', { offer_snapshot_id: d.offer_id, decision_id: d.decision_id }],
        ['POST', '/v1/events/conversion', signed(host, { offer_snapshot_id: d.offer_id, decision_id: d.decision_id })],
        ['GET', `/v1/decisions/${d.decision_id}`, undefined],
        ['GET', `/v1/decisions/${d.decision_id}/explanation`, undefined],
      ] as const;
    const call = (method: string, url: string, payload: unknown, authorization?: string) =>
      t.app.inject({
        method: method as 'GET' | 'POST',
        url,
        headers: { ...(authorization === undefined ? {} : { authorization }), 'idempotency-key': idem() },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });

    it('refuses missing, malformed, unknown and setup credentials with the documented error', async () => {
      const d = await serve(hostA);
      const setup = (await t.app.inject({ method: 'POST', url: `/admin/apps/${hostA.app_id}/keys`, headers: ADMIN, payload: { kind: 'setup' } })).json();
      expect(setup.key).toMatch(/^st_/);
      const cases: Array<[string | undefined, string]> = [
        [undefined, 'missing_api_key'],
        ['', 'missing_api_key'],
        [hostA.serving_key, 'invalid_api_key'], // no "Bearer"
        [`Basic ${hostA.serving_key}`, 'invalid_api_key'],
        [`Bearer ${hostA.serving_key}x`, 'invalid_api_key'],
        [`Bearer ${hostA.serving_key.slice(0, -1)}`, 'invalid_api_key'],
        [`Bearer sk_live_${'A'.repeat(40)}`, 'invalid_api_key'],
        ['Bearer ADMIN-key-for-tests-0123456789', 'invalid_api_key'],
        [ADMIN.authorization, 'invalid_api_key'], // the operator key is not a serving key
        [`Bearer ${setup.key}`, 'setup_token_not_allowed'],
      ];
      for (const [method, url, payload] of routes(d, hostA)) {
        for (const [authorization, error] of cases) {
          const res = await call(method, url, payload, authorization);
          expect(res.statusCode, `${method} ${url} with ${authorization}`).toBe(401);
          expect(res.json()).toEqual({ ok: false, error });
        }
      }
    });

    it('refuses a revoked key on every route, and a new key of the same app keeps working', async () => {
      const host: Host = await createHost(t.app, 'Soon revoked');
      const d = await serve(host);
      const fresh = (await t.app.inject({ method: 'POST', url: `/admin/apps/${host.app_id}/keys`, headers: ADMIN, payload: {} })).json();
      expect((await t.app.inject({ method: 'POST', url: `/admin/keys/${host.serving_key_id}/revoke`, headers: ADMIN })).statusCode).toBe(200);
      await new Promise((r) => setTimeout(r, 250)); // past the key cache (apiKeyCacheMs: 100)
      for (const [method, url, payload] of routes(d, host)) {
        const res = await call(method, url, payload, `Bearer ${host.serving_key}`);
        expect(res.statusCode, `${method} ${url}`).toBe(401);
        expect(res.json()).toEqual({ ok: false, error: 'revoked_api_key' });
        // Same app, new key: the decision is still the app's own.
        const ok = await call(method, url, payload, `Bearer ${fresh.key}`);
        expect(ok.statusCode, `${method} ${url} with the new key: ${ok.body}`).toBe(200);
      }
    });
  });

  describe("app B cannot reach app A's records (BOLA)", () => {
    it("404 not_found for A's decision and its explanation", async () => {
      const d = await serve(hostA);
      for (const url of [`/v1/decisions/${d.decision_id}`, `/v1/decisions/${d.decision_id}/explanation`]) {
        expect((await t.app.inject({ method: 'GET', url, headers: bearer(hostA.serving_key) })).statusCode).toBe(200);
        const res = await t.app.inject({ method: 'GET', url, headers: bearer(hostB.serving_key) });
        expect(res.statusCode, url).toBe(404);
        expect(res.json()).toEqual({ ok: false, error: 'not_found' });
      }
    });

    it("404 unknown_snapshot for impressions on A's decision, and nothing is written", async () => {
      const d = await serve(hostA);
      for (const url of ['/v1/events/rendered', '/v1/events/qualified-impression', '/v1/events/impression']) {
        const res = await post(url, { offer_snapshot_id: d.offer_id, decision_id: d.decision_id }, hostB, { 'idempotency-key': idem() });
        expect(res.statusCode, url).toBe(404);
        expect(res.json()).toEqual({ ok: false, error: 'unknown_snapshot' });
      }
      const rows = await t.db.query('SELECT id FROM events WHERE decision_id = $1', [d.decision_id]);
      expect(rows.rows).toHaveLength(0);
      const lookup = (await t.app.inject({ method: 'GET', url: `/v1/decisions/${d.decision_id}`, headers: bearer(hostA.serving_key) })).json();
      expect(lookup.events).toMatchObject({ offer_rendered: 0, qualified_impression: 0 });
    });

    it("refuses a conversion on A's decision signed by B, and by A's secret under B's key", async () => {
      const d = await serve(hostA);
      const byB = await post('/v1/events/conversion', signed(hostB, { offer_snapshot_id: d.offer_id, decision_id: d.decision_id }), hostB);
      expect(byB.statusCode).toBe(404);
      expect(byB.json()).toEqual({ ok: false, error: 'unknown_snapshot' });
      // Holding A's secret does not help B: the signature is checked against B's secrets.
      const stolen = await post('/v1/events/conversion', signed(hostA, { offer_snapshot_id: d.offer_id, decision_id: d.decision_id }), hostB);
      expect(stolen.statusCode).toBe(401);
      expect(stolen.json()).toEqual({ ok: false, error: 'invalid_signature' });
      expect((await t.db.query('SELECT id FROM conversions WHERE decision_id = $1', [d.decision_id])).rows).toHaveLength(0);
    });

    it("scopes idempotency keys per app: B's key equal to A's neither collides nor returns A's event", async () => {
      const a = await serve(hostA);
      const b = await serve(hostB);
      const key = idem();
      const first = await post('/v1/events/rendered', { offer_snapshot_id: a.offer_id, decision_id: a.decision_id }, hostA, { 'idempotency-key': key });
      const second = await post('/v1/events/rendered', { offer_snapshot_id: b.offer_id, decision_id: b.decision_id }, hostB, { 'idempotency-key': key });
      expect(first.json().inserted).toBe(true);
      expect(second.statusCode).toBe(200);
      expect(second.json().inserted).toBe(true);
      expect(second.json().event_id).not.toBe(first.json().event_id);
    });

    it("a click intent on A's impression token is not visible to B, and a guessed token is 404", async () => {
      const fill = (await post('/v1/offers/affiliate', envelope('도쿄 항공권 최저가'), hostA)).json();
      expect(fill.serve).toBe(true);
      const ok = await t.app.inject({ method: 'POST', url: '/v1/events/click-intent', payload: { impression_token: fill.impression_token, event_id: 'c-1' } });
      expect(ok.statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: `/v1/decisions/${fill.decision_id}`, headers: bearer(hostB.serving_key) })).statusCode).toBe(404);
      // One character changed, truncated, or padded: not a capability.
      const tok: string = fill.impression_token;
      const flipped = `${tok.slice(0, -1)}${tok.endsWith('A') ? 'B' : 'A'}`;
      for (const guess of [flipped, tok.slice(0, -1), `${tok}A`, tok.toLowerCase() === tok ? tok.toUpperCase() : tok.toLowerCase()]) {
        const res = await t.app.inject({ method: 'POST', url: '/v1/events/click-intent', payload: { impression_token: guess, event_id: 'c-2' } });
        expect(res.statusCode, guess).toBe(404);
        expect(res.json()).toEqual({ ok: false, error: 'unknown_impression' });
      }
    });
  });

  describe('conversions cannot be replayed or forged', () => {
    it('an exact replay is not a second conversion; a replayed nonce with other content is refused', async () => {
      const d = await serve(hostA);
      const body = signed(hostA, { offer_snapshot_id: d.offer_id, decision_id: d.decision_id });
      const first = (await post('/v1/events/conversion', body, hostA)).json();
      expect(first.inserted).toBe(true);
      for (let i = 0; i < 3; i++) expect((await post('/v1/events/conversion', body, hostA)).json()).toEqual({ ...first, inserted: false });
      // Same nonce, re-signed over another snapshot/decision by the rightful secret.
      const other = await serve(hostA);
      const reused = { offer_snapshot_id: other.offer_id, decision_id: other.decision_id, timestamp: body.timestamp, nonce: body.nonce };
      const res = await post('/v1/events/conversion', { ...reused, signature: signConversion(hostA.conversion_secret, reused) }, hostA);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ ok: false, error: 'invalid_conversion' });
      expect((await t.db.query('SELECT id FROM conversions WHERE nonce = $1', [body.nonce])).rows).toHaveLength(1);
    });

    it('a captured conversion replayed after the 300 s window is expired, even with a valid signature', async () => {
      const d = await serve(hostA);
      const old = { offer_snapshot_id: d.offer_id, decision_id: d.decision_id, timestamp: Math.floor(Date.now() / 1000) - 3600, nonce: `nonce-${idem()}` };
      const res = await post('/v1/events/conversion', { ...old, signature: signConversion(hostA.conversion_secret, old) }, hostA);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ ok: false, error: 'expired_conversion' });
    });

    it('a signature made with a wrong secret, or in another encoding, is invalid_signature', async () => {
      const d = await serve(hostA);
      const body = signed(hostA, { offer_snapshot_id: d.offer_id, decision_id: d.decision_id });
      const upper = body.signature.toUpperCase();
      const base64 = Buffer.from(body.signature, 'hex').toString('base64');
      for (const signature of [
        signConversion('whsec_wrong', body),
        signConversion(hostA.conversion_secret.slice(0, -1), body),
        upper,
        base64,
        `${body.signature} `,
      ]) {
        if (signature === body.signature) continue; // an all-digit signature has no case
        const res = await post('/v1/events/conversion', { ...body, signature }, hostA);
        expect([400, 401], signature).toContain(res.statusCode);
        expect(['invalid_signature', 'invalid_conversion']).toContain(res.json().error);
      }
      expect((await t.db.query('SELECT id FROM conversions WHERE nonce = $1', [body.nonce])).rows).toHaveLength(0);
    });
  });
});
