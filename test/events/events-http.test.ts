// Events, conversions, tracked links and decision lookup through HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bearer, createTestApp, usingRealPostgres, usingRealRedis, type TestApp, type TestDatabase, createHost } from '../helpers/test-env.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { signConversion } from '../../src/conversions/conversion-signature.js';
import { DatabaseUnavailable } from '../../src/db/database.js';
import { koreanTurn } from '../helpers/envelopes.js';

const stores = `${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'in-process counters'}`;
const envelope = (message = '제주도 호텔 최저가 알려줘') => koreanTurn(message);
const BROWSER_UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';

describe(`events, links and lookup (${stores})`, () => {
  let t: TestApp & { testDb: TestDatabase };
  let hostA: { app_id: string; serving_key: string; conversion_secret: string };
  let hostB: { app_id: string; serving_key: string; conversion_secret: string };
  let key = 0;
  const newKey = () => `idem-${Date.now()}-${++key}`;

  const serve = async (host = hostA, instance: TestApp = t) => {
    const res = await instance.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(host.serving_key), payload: envelope() });
    const body = res.json();
    expect(body.serve).toBe(true);
    return body as { decision_id: string; offer_id: string; link: string };
  };
  const post = (url: string, payload: unknown, headers: Record<string, string> = {}, host = hostA) =>
    t.app.inject({ method: 'POST', url, headers: { ...bearer(host.serving_key), ...headers }, payload: payload as object });
  const signed = (secret: string, body: { offer_snapshot_id: string; decision_id?: string; timestamp?: number; nonce?: string }) => {
    const b = { timestamp: Math.floor(Date.now() / 1000), nonce: `nonce-${Date.now()}-${++key}`, ...body };
    return { ...b, signature: signConversion(secret, b) };
  };

  beforeAll(async () => {
    t = await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 100_000 });
    await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
    hostA = await createHost(t.app, 'Host A');
    hostB = await createHost(t.app, 'Host B');
  });
  afterAll(() => t?.close());

  describe('impression events', () => {
    it('records rendered and qualified impressions, idempotently', async () => {
      const d = await serve();
      const k = newKey();
      const first = await post('/v1/events/rendered', { offer_snapshot_id: d.offer_id, decision_id: d.decision_id }, { 'idempotency-key': k });
      expect(first.statusCode).toBe(200);
      expect(first.json()).toMatchObject({ ok: true, inserted: true, offer_snapshot_id: d.offer_id, type: 'offer_rendered', billable: false });
      expect(first.json().event_id).toMatch(/^evt_/);
      const again = await post('/v1/events/rendered', { offer_snapshot_id: d.offer_id, decision_id: d.decision_id }, { 'idempotency-key': k });
      expect(again.json()).toEqual({ ...first.json(), inserted: false });
      const reused = await post('/v1/events/rendered', { offer_snapshot_id: d.offer_id }, { 'idempotency-key': k });
      expect(reused.statusCode).toBe(422);
      expect(reused.json()).toEqual({ ok: false, error: 'idempotency_key_reused' });
      const q = await post(
        '/v1/events/qualified-impression',
        { offer_snapshot_id: d.offer_id, decision_id: d.decision_id, type: 'qualified_impression' },
        { 'idempotency-key': newKey() },
      );
      expect(q.json()).toMatchObject({ ok: true, inserted: true, type: 'qualified_impression', billable: false });
    });

    it('accepts the alias with type selection and a body idempotency key', async () => {
      const d = await serve();
      const k = newKey();
      const r = await post('/v1/events/impression', { offer_snapshot_id: d.offer_id, type: 'qualified_impression', idempotency_key: k });
      expect(r.json()).toMatchObject({ inserted: true, type: 'qualified_impression' });
      const same = await post('/v1/events/impression', { offer_snapshot_id: d.offer_id, type: 'qualified_impression' }, { 'idempotency-key': k });
      expect(same.json()).toMatchObject({ inserted: false, event_id: r.json().event_id });
      const dflt = await post('/v1/events/impression', { offer_snapshot_id: d.offer_id }, { 'idempotency-key': newKey() });
      expect(dflt.json().type).toBe('offer_rendered');
      const disagree = await post(
        '/v1/events/impression',
        { offer_snapshot_id: d.offer_id, idempotency_key: 'body-key-123' },
        { 'idempotency-key': 'header-key-123' },
      );
      expect(disagree.statusCode).toBe(400);
      expect(disagree.json().error).toBe('invalid_event');
    });

    it('answers every invalid request with 400 invalid_event', async () => {
      const d = await serve();
      const cases: Array<[string, unknown, Record<string, string>]> = [
        ['/v1/events/rendered', { offer_snapshot_id: d.offer_id }, {}],
        ['/v1/events/rendered', { offer_snapshot_id: d.offer_id }, { 'idempotency-key': 'short77' }],
        ['/v1/events/rendered', { offer_snapshot_id: d.offer_id }, { 'idempotency-key': 'k'.repeat(81) }],
        ['/v1/events/rendered', { offer_snapshot_id: d.offer_id, type: 'qualified_impression' }, { 'idempotency-key': newKey() }],
        ['/v1/events/qualified-impression', { offer_snapshot_id: d.offer_id, type: 'offer_rendered' }, { 'idempotency-key': newKey() }],
        ['/v1/events/rendered', { offer_snapshot_id: 'off_123' }, { 'idempotency-key': newKey() }],
        ['/v1/events/rendered', { offer_snapshot_id: d.offer_id, decision_id: 'xyz' }, { 'idempotency-key': newKey() }],
        ['/v1/events/rendered', { offer_snapshot_id: d.offer_id, type: 'click' }, { 'idempotency-key': newKey() }],
        ['/v1/events/rendered', { offer_snapshot_id: d.offer_id, email: 'a@b.c' }, { 'idempotency-key': newKey() }],
        ['/v1/events/rendered', {}, { 'idempotency-key': newKey() }],
        ['/v1/events/impression', { offer_snapshot_id: d.offer_id, idempotency_key: 'short' }, {}],
        ['/v1/events/rendered', [d.offer_id], { 'idempotency-key': newKey() }],
      ];
      for (const [url, body, headers] of cases) {
        const res = await post(url, body, headers);
        expect(res.statusCode, `${url} ${JSON.stringify(body)} ${JSON.stringify(headers)}`).toBe(400);
        expect(res.json()).toMatchObject({ ok: false, error: 'invalid_event' });
      }
      const raw = await t.app.inject({
        method: 'POST',
        url: '/v1/events/rendered',
        headers: { ...bearer(hostA.serving_key), 'idempotency-key': newKey(), 'content-type': 'application/json' },
        payload: '{"offer_snapshot_id": "CANARY',
      });
      expect(raw.statusCode).toBe(400);
      expect(raw.json().error).toBe('invalid_event');
      expect(raw.body).not.toContain('CANARY');
    });

    it('404 unknown_snapshot for unknown snapshots and for decisions that did not serve them to this app', async () => {
      const d = await serve();
      const other = await serve(hostB);
      for (const body of [
        { offer_snapshot_id: 'snp_doesNotExist123' },
        { offer_snapshot_id: d.offer_id, decision_id: 'dec_doesNotExist123' },
        { offer_snapshot_id: other.offer_id, decision_id: other.decision_id }, // app B's decision
      ]) {
        const res = await post('/v1/events/rendered', body, { 'idempotency-key': newKey() });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ ok: false, error: 'unknown_snapshot' });
      }
    });

    it('401 for every authentication failure', async () => {
      for (const [headers, error] of [
        [{}, 'missing_api_key'],
        [{ authorization: 'Bearer nope' }, 'invalid_api_key'],
        [{ authorization: `Bearer st_${'B'.repeat(33)}` }, 'setup_token_not_allowed'],
      ] as const) {
        for (const url of ['/v1/events/rendered', '/v1/events/qualified-impression', '/v1/events/impression', '/v1/events/conversion']) {
          const res = await t.app.inject({ method: 'POST', url, headers: { ...headers, 'idempotency-key': newKey() }, payload: {} });
          expect(res.statusCode, url).toBe(401);
          expect(res.json()).toEqual({ ok: false, error });
        }
        const res = await t.app.inject({ method: 'GET', url: '/v1/decisions/dec_abc', headers });
        expect(res.json()).toEqual({ ok: false, error });
      }
    });

    it('inserts exactly once when 50 identical requests race across two instances', async () => {
      const second = await createTestApp({ loadDemoCatalog: false }, { testDb: (t as TestApp & { testDb: never }).testDb, counters: t.counters });
      try {
        const d = await serve();
        const k = newKey();
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            (i % 2 ? second : t).app.inject({
              method: 'POST',
              url: '/v1/events/rendered',
              headers: { ...bearer(hostA.serving_key), 'idempotency-key': k },
              payload: { offer_snapshot_id: d.offer_id, decision_id: d.decision_id },
            }),
          ),
        );
        expect(results.map((r) => r.statusCode)).toEqual(Array(50).fill(200));
        expect(results.filter((r) => r.json().inserted).length).toBe(1);
        expect(new Set(results.map((r) => r.json().event_id)).size).toBe(1);
        const rows = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE idempotency_key = $1', [k]);
        expect(rows.rows[0].n).toBe(1);
      } finally {
        await second.close();
      }
    });
  });

  describe('conversions', () => {
    it('records a signed conversion once and answers an exact retry with the original', async () => {
      const d = await serve();
      const body = signed(hostA.conversion_secret, { offer_snapshot_id: d.offer_id, decision_id: d.decision_id });
      const first = await post('/v1/events/conversion', body);
      expect(first.statusCode).toBe(200);
      expect(first.json()).toMatchObject({ ok: true, inserted: true, offer_snapshot_id: d.offer_id, billable: false, ledger_written: false });
      expect(first.json().conversion_id).toMatch(/^cnv_/);
      const retry = await post('/v1/events/conversion', body);
      expect(retry.json()).toEqual({ ...first.json(), inserted: false });
      const reuse = await post('/v1/events/conversion', signed(hostA.conversion_secret, { offer_snapshot_id: d.offer_id, nonce: body.nonce }));
      expect(reuse.statusCode).toBe(400);
      expect(reuse.json()).toEqual({ ok: false, error: 'invalid_conversion' });
    });

    it('verifies the signature against both active secrets, in constant time, and refuses others', async () => {
      const d = await serve();
      const rotated = (await t.app.inject({ method: 'POST', url: `/admin/apps/${hostA.app_id}/conversion-secrets`, headers: ADMIN })).json();
      await new Promise((r) => setTimeout(r, 1100)); // past the secret cache
      expect((await post('/v1/events/conversion', signed(rotated.secret, { offer_snapshot_id: d.offer_id }))).statusCode).toBe(200);
      expect((await post('/v1/events/conversion', signed(hostA.conversion_secret, { offer_snapshot_id: d.offer_id }))).statusCode).toBe(200);
      for (const body of [
        signed(hostB.conversion_secret, { offer_snapshot_id: d.offer_id }),
        { ...signed(hostA.conversion_secret, { offer_snapshot_id: d.offer_id }), signature: 'ab'.repeat(31) },
        { ...signed(hostA.conversion_secret, { offer_snapshot_id: d.offer_id }), signature: 'Z'.repeat(64) },
        { ...signed(hostA.conversion_secret, { offer_snapshot_id: d.offer_id }), signature: 'a'.repeat(200) },
      ]) {
        const res = await post('/v1/events/conversion', body);
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ ok: false, error: 'invalid_signature' });
      }
      // Tampering with any signed field breaks the signature.
      const good = signed(hostA.conversion_secret, { offer_snapshot_id: d.offer_id, decision_id: d.decision_id });
      expect((await post('/v1/events/conversion', { ...good, decision_id: undefined })).json().error).toBe('invalid_signature');
      expect((await post('/v1/events/conversion', { ...good, nonce: `${good.nonce}x` })).json().error).toBe('invalid_signature');
    });

    it('expired_conversion outside the 300 s tolerance; invalid_conversion for bad bodies; unknown_snapshot', async () => {
      const d = await serve();
      const now = Math.floor(Date.now() / 1000);
      // 30 s outside: the check reads its own clock a moment later, on a machine that may be loaded.
      for (const timestamp of [now - 330, now + 330]) {
        const res = await post('/v1/events/conversion', signed(hostA.conversion_secret, { offer_snapshot_id: d.offer_id, timestamp }));
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ ok: false, error: 'expired_conversion' });
      }
      expect((await post('/v1/events/conversion', signed(hostA.conversion_secret, { offer_snapshot_id: d.offer_id, timestamp: now - 290 }))).statusCode).toBe(
        200,
      );
      const ok = signed(hostA.conversion_secret, { offer_snapshot_id: d.offer_id });
      for (const body of [
        { ...ok, signature: 'tooshort' },
        { ...ok, nonce: 'short' },
        { ...ok, nonce: 'n'.repeat(81) },
        { ...ok, timestamp: String(ok.timestamp) },
        { ...ok, timestamp: 1.5 },
        { ...ok, extra: true },
        { ...ok, offer_snapshot_id: 'nope' },
        { nonce: ok.nonce, signature: ok.signature },
      ]) {
        const res = await post('/v1/events/conversion', body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json().error).toBe('invalid_conversion');
      }
      const unknown = await post('/v1/events/conversion', signed(hostA.conversion_secret, { offer_snapshot_id: 'snp_unknown000' }));
      expect(unknown.statusCode).toBe(404);
      const foreign = await serve(hostB);
      const bola = await post(
        '/v1/events/conversion',
        signed(hostA.conversion_secret, { offer_snapshot_id: foreign.offer_id, decision_id: foreign.decision_id }),
      );
      expect(bola.statusCode).toBe(404);
    });

    it('expired_conversion for a decision older than the attribution window', async () => {
      // Made 31 days ago, by an instance whose clock reads then (a decision's time is in its id).
      const past = await createTestApp(
        { loadDemoCatalog: false, decideRateLimitPerMinute: 100_000 },
        { testDb: t.testDb, counters: t.counters, now: () => Date.now() - 31 * 86_400_000 },
      );
      try {
        const d = await serve(hostA, past);
        const res = await post('/v1/events/conversion', signed(hostA.conversion_secret, { offer_snapshot_id: d.offer_id, decision_id: d.decision_id }));
        expect(res.json()).toEqual({ ok: false, error: 'expired_conversion' });
      } finally {
        await past.close();
      }
    });
  });

  describe('tracked redirect', () => {
    // Each test clicks from its own address: per-address click rates would otherwise apply.
    let address = 0;
    const follow = (link: string, headers: Record<string, string> = { 'user-agent': BROWSER_UA }, remoteAddress = `10.20.0.${++address}`) =>
      t.app.inject({ method: 'GET', url: new URL(link).pathname, headers, remoteAddress });
    const clicks = async (decisionId: string) =>
      (
        await t.db.query<{ counted: boolean; not_counted_reason: string | null; ip_hash: string | null }>(
          'SELECT counted, not_counted_reason, ip_hash FROM clicks WHERE decision_id = $1 ORDER BY created_at',
          [decisionId],
        )
      ).rows;
    const settle = async (decisionId: string, n: number) => {
      for (let i = 0; i < 50 && (await clicks(decisionId)).length < n; i++) await new Promise((r) => setTimeout(r, 20));
      return clicks(decisionId);
    };

    it('redirects 302 to the destination with no-store and a deliberate referrer policy, and records the click', async () => {
      const d = await serve();
      const res = await follow(d.link);
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('https://www.haneulstay.example/jeju?src=sidenote');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      const rows = await settle(d.decision_id, 1);
      expect(rows).toHaveLength(1);
      expect(rows[0].counted).toBe(true);
      expect(rows[0].ip_hash).toMatch(/^[\w-]{16}$/);
      expect(rows[0].ip_hash).not.toContain('127.0.0.1');
    });

    it('counts a decision once, and flags bots, while still redirecting them', async () => {
      const d = await serve();
      expect((await follow(d.link, undefined, '10.30.0.1')).statusCode).toBe(302);
      expect((await follow(d.link, undefined, '10.30.0.2')).statusCode).toBe(302);
      expect((await follow(d.link, { 'user-agent': 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)' })).statusCode).toBe(302);
      const rows = await settle(d.decision_id, 3);
      expect(rows.map((r) => [r.counted, r.not_counted_reason]).sort()).toEqual([
        [false, 'bot'],
        [false, 'duplicate'],
        [true, null],
      ]);
    });

    it('400 for tampered, truncated and forged tokens', async () => {
      const d = await serve();
      const token = new URL(d.link).pathname.slice(3);
      const body = token.slice('v2.'.length);
      const raw = Buffer.from(body, 'base64url');
      raw[raw.length >> 1] ^= 1; // one bit of the sealed claims
      for (const bad of [
        token.slice(0, -3),
        `v2.${raw.toString('base64url')}`,
        `v2.${body}.${body}`,
        `v1.${body}`,
        `v3.${body}`,
        'nonsense',
        'a'.repeat(5000),
      ]) {
        const res = await t.app.inject({ method: 'GET', url: `/r/${bad}` });
        expect(res.statusCode).toBe(400);
        expect(res.headers.location).toBeUndefined();
        expect(res.json()).toEqual({ ok: false, error: 'invalid_link' });
      }
    });

    it('re-checks the allowlist at click time', async () => {
      const d = await serve();
      const c = miniCatalog();
      c.advertisers![0].destinations = ['https://www.haneulstay.example/en/'];
      c.offers = c.offers!.filter((o) => o.id !== 'off.jeju-hotel-ko');
      const imported = await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: c });
      expect(imported.statusCode).toBe(200);
      const res = await follow(d.link);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ ok: false, error: 'invalid_destination' });
      await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
      expect((await follow(d.link)).statusCode).toBe(302);
    });
  });

  describe('decision lookup', () => {
    it("returns the app's decision with event counts", async () => {
      const d = await serve();
      await post('/v1/events/rendered', { offer_snapshot_id: d.offer_id, decision_id: d.decision_id }, { 'idempotency-key': newKey() });
      const res = await t.app.inject({ method: 'GET', url: `/v1/decisions/${d.decision_id}`, headers: bearer(hostA.serving_key) });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        decision_id: d.decision_id,
        serve: true,
        reason_codes: ['MATCHED'],
        offer_snapshot_id: d.offer_id,
        locale: 'ko-KR',
        country: 'KR',
        intent_type: 'purchase',
        events: { offer_rendered: 1, qualified_impression: 0, clicks: 0, conversions: 0 },
      });
      expect(res.json().matched_entity_ids).toContain('place.jeju');
    });

    it('is 404 not_found for another app, an unknown id or a malformed id', async () => {
      const d = await serve();
      for (const [id, host] of [
        [d.decision_id, hostB],
        ['dec_unknown123', hostA],
        ['not-a-decision', hostA],
        ['dec_' + 'a'.repeat(100), hostA],
      ] as const) {
        const res = await t.app.inject({ method: 'GET', url: `/v1/decisions/${id}`, headers: bearer(host.serving_key) });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ ok: false, error: 'not_found' });
      }
    });
  });

  it('answers 503 with retry-after while the database is unreachable, and writes nothing half-way', async () => {
    const d = await serve();
    const original = t.db.query.bind(t.db);
    const down = async () => {
      // What the database adapter throws for a refused connection (src/db/database.ts).
      throw new DatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    };
    (t.db as { query: unknown }).query = down;
    try {
      const k = newKey();
      for (const res of [
        await post('/v1/events/rendered', { offer_snapshot_id: d.offer_id, decision_id: d.decision_id }, { 'idempotency-key': k }),
        await post('/v1/events/conversion', signed(hostA.conversion_secret, { offer_snapshot_id: d.offer_id })),
        await t.app.inject({ method: 'GET', url: `/v1/decisions/${d.decision_id}`, headers: bearer(hostA.serving_key) }),
      ]) {
        expect(res.statusCode).toBe(503);
        expect(res.headers['retry-after']).toBe('5');
        expect(res.json()).toEqual({ ok: false, error: 'service_unavailable' });
        expect(res.body).not.toContain('ECONNREFUSED');
      }
      // The redirect does not need the database.
      const click = await t.app.inject({ method: 'GET', url: new URL(d.link).pathname, headers: { 'user-agent': BROWSER_UA }, remoteAddress: '10.50.0.1' });
      expect(click.statusCode).toBe(302);
      (t.db as { query: unknown }).query = original;
      const retried = await post('/v1/events/rendered', { offer_snapshot_id: d.offer_id, decision_id: d.decision_id }, { 'idempotency-key': k });
      expect(retried.json()).toMatchObject({ inserted: true });
      // The click made while the database was down is written once it is back.
      let n = 0;
      for (let i = 0; i < 100 && n === 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        n = (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM clicks WHERE decision_id = $1', [d.decision_id])).rows[0].n;
      }
      expect(n).toBe(1);
    } finally {
      (t.db as { query: unknown }).query = original;
    }
  });

  it('runs the whole host flow: decide → rendered → qualified → click → conversion → lookup', async () => {
    const d = await serve();
    expect((await post('/v1/events/rendered', { offer_snapshot_id: d.offer_id, decision_id: d.decision_id }, { 'idempotency-key': newKey() })).statusCode).toBe(
      200,
    );
    expect(
      (await post('/v1/events/qualified-impression', { offer_snapshot_id: d.offer_id, decision_id: d.decision_id }, { 'idempotency-key': newKey() }))
        .statusCode,
    ).toBe(200);
    expect(
      (await t.app.inject({ method: 'GET', url: new URL(d.link).pathname, headers: { 'user-agent': BROWSER_UA }, remoteAddress: '10.40.0.1' })).statusCode,
    ).toBe(302);
    expect(
      (await post('/v1/events/conversion', signed(hostA.conversion_secret, { offer_snapshot_id: d.offer_id, decision_id: d.decision_id }))).statusCode,
    ).toBe(200);
    let events: Record<string, number> | undefined;
    for (let i = 0; i < 50; i++) {
      events = (await t.app.inject({ method: 'GET', url: `/v1/decisions/${d.decision_id}`, headers: bearer(hostA.serving_key) })).json().events;
      if (events?.clicks === 1) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(events).toEqual({ offer_rendered: 1, qualified_impression: 1, clicks: 1, conversions: 1, click_intents: 0 });
  });
});
