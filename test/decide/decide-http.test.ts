// POST /v1/offers/decide through HTTP: every reason code, every 400 and 401 of the spec, the
// rate limit, the time budget, and fail-open when a store breaks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bearer, createTestApp, usingRealPostgres, usingRealRedis, type TestApp, createHost } from '../helpers/test-env.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { FORBIDDEN_KEYS } from '../../src/decide/envelope.js';
import type { CounterStore } from '../../src/counters/counter-store.js';
import { DatabaseUnavailable } from '../../src/db/database.js';
import { adultOnSurface } from '../helpers/envelopes.js';

const stores = `${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'in-process counters'}`;

const base = () => adultOnSurface({ locale: 'ko-KR', country: 'KR' });

describe(`decide (${stores})`, () => {
  let t: TestApp;
  let key: string;
  let testKey: string;
  const decide = (payload: unknown, headers: Record<string, string> = bearer(key)) =>
    t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers, payload: payload as object });

  beforeAll(async () => {
    t = await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 100_000 });
    const imported = await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
    expect(imported.statusCode).toBe(200);
    const created = await createHost(t.app, 'Decide');
    key = created.serving_key;
    testKey = created.test_key;
  });
  afterAll(() => t?.close());

  describe('serving', () => {
    it('serves the matching Korean offer with every required field', async () => {
      const res = await decide({ ...base(), message: '다음 달 제주도에서 묵을 호텔 최저가 알려줘' });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({
        serve: true,
        disclosure: '광고',
        advertiser: 'Haneul Stay',
        title: '제주 오션뷰 호텔 특가',
        cta: '예약하기',
        reason_codes: ['MATCHED'],
      });
      expect(body.decision_id).toMatch(/^dec_[0-9A-Za-z]+$/);
      expect(body.offer_id).toMatch(/^snp_[0-9A-Za-z]+$/);
      expect(body.link).toMatch(/^http:\/\/sidenote\.test\/r\/v2\.[\w-]+$/);
      expect(Date.parse(body.expires_at) - Date.now()).toBeGreaterThan(14 * 60_000);
      expect(Date.parse(body.expires_at) - Date.now()).toBeLessThanOrEqual(15 * 60_000);
    });

    it('serves the English offer for an English message', async () => {
      const res = await decide({ ...base(), locale: 'en-US', country: 'US', message: 'What is the cheapest iPhone 16 deal right now?' });
      expect(res.json()).toMatchObject({ serve: true, advertiser: 'Gadget Harbor', title: 'iPhone 16 deals at Gadget Harbor', disclosure: 'Sponsored' });
    });

    it('serves from the digest alone, without a message', async () => {
      const res = await decide({
        ...base(),
        session: { digest: { intent_type: 'purchase', entity_ids: ['place.jeju'], generated_at: new Date().toISOString() } },
      });
      expect(res.json()).toMatchObject({ serve: true, advertiser: 'Haneul Stay' });
    });

    it('records the decision without the message', async () => {
      const res = await decide({ ...base(), message: '제주 호텔 최저가 CANARY-decide-record' });
      const row = await t.db.query<Record<string, unknown>>('SELECT * FROM decisions WHERE id = $1', [res.json().decision_id]);
      expect(row.rows).toHaveLength(1);
      expect(row.rows[0]).toMatchObject({ serve: true, reason_codes: ['MATCHED'], locale: 'ko-KR', country: 'KR', kind: 'offer' });
      expect(JSON.stringify(row.rows[0])).not.toContain('CANARY');
    });
  });

  describe('no-fill reason codes', () => {
    const codes = async (payload: unknown) => {
      const res = await decide(payload);
      expect(res.statusCode).toBe(200);
      expect(res.json().serve).toBe(false);
      expect(res.json().decision_id).toMatch(/^dec_/);
      return res.json().reason_codes as string[];
    };
    const msg = '제주도 호텔 최저가';

    it('CAPABILITY_UNMET when either surface flag is false', async () => {
      expect(await codes({ ...base(), message: msg, native_surface: { clickable: false, disclosure_capable: true } })).toEqual(['CAPABILITY_UNMET']);
      expect(await codes({ ...base(), message: msg, native_surface: { clickable: true, disclosure_capable: false } })).toEqual(['CAPABILITY_UNMET']);
    });

    it('POLICY_BLOCK for age, consent, digest safety and sensitive topics', async () => {
      for (const age_band of ['under_13', '13_17', 'unknown', undefined]) {
        expect(await codes({ ...base(), message: msg, audience: { age_band, contextual_offer_consent: true } })).toEqual(['POLICY_BLOCK']);
      }
      for (const contextual_offer_consent of [false, undefined]) {
        expect(await codes({ ...base(), message: msg, audience: { age_band: '18_plus', contextual_offer_consent } })).toEqual(['POLICY_BLOCK']);
      }
      expect(await codes({ ...base(), message: msg, audience: undefined })).toEqual(['POLICY_BLOCK']);
      for (const safety of ['unknown', 'blocked']) {
        expect(await codes({ ...base(), message: msg, session: { digest: { safety } } })).toEqual(['POLICY_BLOCK']);
      }
      expect(await codes({ ...base(), message: '우울증 때문에 제주도 호텔 가고 싶어' })).toEqual(['POLICY_BLOCK']);
      expect(await codes({ ...base(), locale: 'en', message: 'cheapest jeju hotel near a casino' })).toEqual(['POLICY_BLOCK']);
      // Patterns the core reads in its one pass: a school year, a generic medicine name by its
      // stem, an adult venue whose name begins ordinary words.
      expect(await codes({ ...base(), message: '중2인데 제주도 호텔 최저가 알려줘' })).toEqual(['POLICY_BLOCK']);
      expect(await codes({ ...base(), locale: 'en', message: 'on desvenlafaxine, cheapest jeju hotel for next week?' })).toEqual(['POLICY_BLOCK']);
      expect(await codes({ ...base(), message: '제주도 호텔 잡고 밤에 안마방도 가보려고' })).toEqual(['POLICY_BLOCK']);
    });

    it('LOCALE_NOT_LIVE for other or missing locales, case-insensitively live for ko/en', async () => {
      expect(await codes({ ...base(), message: msg, locale: 'ja-JP' })).toEqual(['LOCALE_NOT_LIVE']);
      expect(await codes({ ...base(), message: msg, locale: undefined })).toEqual(['LOCALE_NOT_LIVE']);
      expect(await codes({ ...base(), message: msg, locale: 'kok' })).toEqual(['LOCALE_NOT_LIVE']);
      expect((await decide({ ...base(), message: msg, locale: 'KO' })).json().serve).toBe(true);
    });

    it('lists every failing gate, in order', async () => {
      expect(
        await codes({
          message: msg,
          locale: 'fr',
          audience: { age_band: '13_17' },
          native_surface: { clickable: false, disclosure_capable: false },
        }),
      ).toEqual(['CAPABILITY_UNMET', 'POLICY_BLOCK', 'LOCALE_NOT_LIVE']);
    });

    it('LOW_INTENT with weak intent and no category or entity signal', async () => {
      expect(await codes({ ...base(), message: '오늘 날씨 어때?' })).toEqual(['LOW_INTENT']);
      expect(await codes({ ...base() })).toEqual(['LOW_INTENT']);
      expect(await codes({ ...base(), session: { digest: { intent_type: 'low', category_ids: ['not.in.taxonomy'] } } })).toEqual(['LOW_INTENT']);
    });

    it('NO_ELIGIBLE_OFFER when signals match nothing servable', async () => {
      // Electronics in Korean: the only phone offer is an English creative.
      expect(await codes({ ...base(), message: '아이폰 16 최저가 어디야?' })).toEqual(['NO_ELIGIBLE_OFFER']);
      // The Jeju campaign runs in KR only.
      expect(await codes({ ...base(), country: 'JP', message: msg })).toEqual(['NO_ELIGIBLE_OFFER']);
      // Excluding the advertiser's own brand excludes its offers.
      expect(
        await codes({
          ...base(),
          locale: 'en',
          message: 'cheapest iphone 16',
          session: { digest: { excluded_entity_ids: ['brand.gadget-harbor'] } },
        }),
      ).toEqual(['NO_ELIGIBLE_OFFER']);
    });

    it('FREQUENCY_CAPPED per session token, with retry_after_seconds', async () => {
      const session = { token: `freq-${Date.now()}` };
      expect((await decide({ ...base(), message: msg, session })).json().serve).toBe(true);
      expect((await decide({ ...base(), message: msg, session })).json().serve).toBe(true);
      const third = (await decide({ ...base(), message: msg, session })).json();
      expect(third).toMatchObject({ serve: false, reason_codes: ['FREQUENCY_CAPPED'] });
      expect(third.retry_after_seconds).toBeGreaterThan(3500);
      expect(third.retry_after_seconds).toBeLessThanOrEqual(3600);
      // Another session is not capped.
      expect((await decide({ ...base(), message: msg, session: { token: `other-${Date.now()}` } })).json().serve).toBe(true);
    });
  });

  describe('test keys', () => {
    it('serve from the same catalog without moving live counters', async () => {
      const session = { token: `testkey-${Date.now()}` };
      for (let i = 0; i < 4; i++) {
        const res = await decide({ ...base(), message: '제주도 호텔 최저가', session }, bearer(testKey));
        expect(res.json().serve).toBe(true);
      }
      const row = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM decisions WHERE test');
      expect(row.rows[0].n).toBeGreaterThanOrEqual(4);
    });

    // Test-key events are stored uncounted; the lookup still shows that they arrived, as it
    // shows a conversion: an integrator checking its test integration sees every call it made.
    it('show in the decision lookup every event they sent', async () => {
      const served = (await decide({ ...base(), message: '제주도 호텔 최저가', session: { token: `lookup-${Date.now()}` } }, bearer(testKey))).json();
      expect(served.serve).toBe(true);
      const ids = { offer_snapshot_id: served.offer_id, decision_id: served.decision_id };
      for (const [url, key] of [
        ['/v1/events/rendered', 'r'],
        ['/v1/events/qualified-impression', 'q'],
      ]) {
        const res = await t.app.inject({
          method: 'POST',
          url,
          headers: { ...bearer(testKey), 'idempotency-key': `lookup-${key}-${served.decision_id}` },
          payload: ids,
        });
        expect(res.statusCode).toBe(200);
      }
      const lookup = (await t.app.inject({ method: 'GET', url: `/v1/decisions/${served.decision_id}`, headers: bearer(testKey) })).json();
      expect(lookup.events).toMatchObject({ offer_rendered: 1, qualified_impression: 1 });
    });
  });

  describe('400 INVALID_ENVELOPE and FORBIDDEN_IDENTITY_FIELD', () => {
    const expect400 = async (payload: unknown, error: string) => {
      const res = await decide(payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 200)).toBe(400);
      expect(res.json()).toMatchObject({ ok: false, error, reason_codes: [error] });
      return res.json();
    };

    it('rejects every forbidden key at the top level, nested, and inside arrays, naming paths not values', async () => {
      for (const k of FORBIDDEN_KEYS) {
        const top = await expect400({ ...base(), [k]: 'CANARY-value' }, 'FORBIDDEN_IDENTITY_FIELD');
        expect(top.paths).toEqual([`$.${k}`]);
        expect(JSON.stringify(top)).not.toContain('CANARY');
        const nested = await expect400({ ...base(), session: { digest: { [k]: 'x' } } }, 'FORBIDDEN_IDENTITY_FIELD');
        expect(nested.paths).toEqual([`$.session.digest.${k}`]);
        const inArray = await expect400({ ...base(), extra: [{ deep: [{ [k]: 1 }] }] }, 'FORBIDDEN_IDENTITY_FIELD');
        expect(inArray.paths).toEqual([`$.extra[0].deep[0].${k}`]);
      }
    });

    it('forbidden keys win over other failures, and every path is named', async () => {
      const body = await expect400(
        { ...base(), locale: 'x', audience: { age_band: 'adult', email: 'a@b.c' }, phone: '010', unknown_key: 1 },
        'FORBIDDEN_IDENTITY_FIELD',
      );
      expect(body.paths).toEqual(['$.audience.email', '$.phone']);
    });

    it('does not echo a key name that could carry text', async () => {
      const body = await expect400({ ...base(), ['내 메시지 CANARY']: { email: 1 } }, 'FORBIDDEN_IDENTITY_FIELD');
      expect(body.paths).toEqual(['$.*.email']);
      expect(JSON.stringify(body)).not.toContain('CANARY');
    });

    it('rejects unknown keys at every level', async () => {
      await expect400({ ...base(), extra: 1 }, 'INVALID_ENVELOPE');
      await expect400({ ...base(), session: { token: 'a', other: 1 } }, 'INVALID_ENVELOPE');
      await expect400({ ...base(), session: { digest: { mood: 'x' } } }, 'INVALID_ENVELOPE');
      await expect400({ ...base(), audience: { age_band: '18_plus', contextual_offer_consent: true, gender: 'x' } }, 'INVALID_ENVELOPE');
      await expect400({ ...base(), native_surface: { clickable: true, disclosure_capable: true, color: 'red' } }, 'INVALID_ENVELOPE');
    });

    it('checks types and enums without coercion', async () => {
      await expect400({ ...base(), native_surface: undefined }, 'INVALID_ENVELOPE');
      await expect400({ ...base(), native_surface: { clickable: 'true', disclosure_capable: true } }, 'INVALID_ENVELOPE');
      await expect400({ ...base(), native_surface: { clickable: true } }, 'INVALID_ENVELOPE');
      await expect400({ ...base(), audience: { age_band: 'adult' } }, 'INVALID_ENVELOPE');
      await expect400({ ...base(), audience: { contextual_offer_consent: 1 } }, 'INVALID_ENVELOPE');
      await expect400({ ...base(), message: 42 }, 'INVALID_ENVELOPE');
      await expect400({ ...base(), session: { digest: { intent_type: 'buy' } } }, 'INVALID_ENVELOPE');
      await expect400({ ...base(), session: { digest: { budget_bucket: '$$$' } } }, 'INVALID_ENVELOPE');
      await expect400({ ...base(), session: { digest: { safety: 'ok' } } }, 'INVALID_ENVELOPE');
      await expect400({ ...base(), session: { digest: { category_ids: ['Free Text!'] } } }, 'INVALID_ENVELOPE');
      await expect400({ ...base(), session: { digest: { generated_at: 'yesterday' } } }, 'INVALID_ENVELOPE');
      await expect400({ ...base(), session: 'token' }, 'INVALID_ENVELOPE');
      await expect400([base()], 'INVALID_ENVELOPE');
      const str = await t.app.inject({
        method: 'POST',
        url: '/v1/offers/decide',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        payload: JSON.stringify('just a string'),
      });
      expect(str.statusCode).toBe(400);
      expect(str.json().error).toBe('INVALID_ENVELOPE');
    });

    it('enforces each limit at its boundary', async () => {
      const ok = async (payload: unknown) => {
        const res = await decide(payload);
        expect(res.statusCode, `${JSON.stringify(payload).slice(0, 120)} → ${res.body.slice(0, 200)}`).toBe(200);
      };
      await ok({ ...base(), message: '가'.repeat(4000) });
      await expect400({ ...base(), message: '가'.repeat(4001) }, 'INVALID_ENVELOPE');
      await ok({ ...base(), message: '😀'.repeat(4000) }); // 4000 characters, 8000 UTF-16 units
      await ok({ ...base(), session: { token: 't'.repeat(128) } });
      await expect400({ ...base(), session: { token: 't'.repeat(129) } }, 'INVALID_ENVELOPE');
      const ids = (n: number, len = 10) => Array.from({ length: n }, (_, i) => `${String(i).padStart(len, 'a')}`);
      for (const field of ['category_ids', 'entity_ids', 'excluded_entity_ids']) {
        await ok({ ...base(), session: { digest: { [field]: ids(20) } } });
        await expect400({ ...base(), session: { digest: { [field]: ids(21) } } }, 'INVALID_ENVELOPE');
        await ok({ ...base(), session: { digest: { [field]: ['a'.repeat(64)] } } });
        await expect400({ ...base(), session: { digest: { [field]: ['a'.repeat(65)] } } }, 'INVALID_ENVELOPE');
      }
      const at = (fraction: number) => `2026-11-22T10:00:00.${'0'.repeat(fraction)}+09:00`;
      expect(at(14)).toHaveLength(40);
      await ok({ ...base(), session: { digest: { generated_at: at(14) } } });
      await expect400({ ...base(), session: { digest: { generated_at: at(15) } } }, 'INVALID_ENVELOPE');
      await ok({ ...base(), locale: 'ko' });
      await expect400({ ...base(), locale: 'k' }, 'INVALID_ENVELOPE');
      await ok({ ...base(), locale: 'en-US-x-sidenote' });
      await expect400({ ...base(), locale: 'en-US-x-sidenote1' }, 'INVALID_ENVELOPE');
      await ok({ ...base(), country: 'KR' });
      await expect400({ ...base(), country: 'K' }, 'INVALID_ENVELOPE');
      await ok({ ...base(), country: 'KR-SEOUL' });
      await expect400({ ...base(), country: 'KR-SEOUL1' }, 'INVALID_ENVELOPE');
    });

    it('ignores a stale or future digest, as if absent', async () => {
      const stale = new Date(Date.now() - 31 * 60_000).toISOString();
      const future = new Date(Date.now() + 6 * 60_000).toISOString();
      const fresh = new Date(Date.now() - 29 * 60_000).toISOString();
      const digest = (generated_at: string) => ({ intent_type: 'purchase', entity_ids: ['place.jeju'], generated_at });
      expect((await decide({ ...base(), session: { digest: digest(stale) } })).json().reason_codes).toEqual(['LOW_INTENT']);
      expect((await decide({ ...base(), session: { digest: digest(future) } })).json().reason_codes).toEqual(['LOW_INTENT']);
      expect((await decide({ ...base(), session: { digest: digest(fresh) } })).json().serve).toBe(true);
      // A stale digest's safety claim is ignored too.
      expect((await decide({ ...base(), message: '제주도 호텔 최저가', session: { digest: { safety: 'blocked', generated_at: stale } } })).json().serve).toBe(
        true,
      );
    });

    it('maps unparsable JSON to a fixed message that never quotes the input', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/offers/decide',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        payload: '{"message": "CANARY-json-9c1 제주',
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ ok: false, error: 'INVALID_ENVELOPE', reason_codes: ['INVALID_ENVELOPE'] });
      expect(res.body).not.toContain('CANARY');
      expect(t.logs.text).not.toContain('CANARY-json-9c1');
    });

    it('rejects deeply nested bodies without a stack overflow', async () => {
      const deep = '['.repeat(5000) + ']'.repeat(5000);
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/offers/decide',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        payload: `{"native_surface":{"clickable":true,"disclosure_capable":true},"x":${deep}}`,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('INVALID_ENVELOPE');
    });

    it('refuses other content types and oversized bodies with 4xx', async () => {
      const text = await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: { ...bearer(key), 'content-type': 'text/plain' }, payload: 'hi' });
      expect(text.statusCode).toBe(415);
      const big = await t.app.inject({
        method: 'POST',
        url: '/v1/offers/decide',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        payload: JSON.stringify({ ...base(), message: 'x'.repeat(100_000) }),
      });
      expect(big.statusCode).toBe(413);
      expect(big.json()).toEqual({ ok: false, error: 'payload_too_large' });
    });
  });

  describe('401', () => {
    it('answers every authentication failure with its documented error', async () => {
      const payload = { ...base(), message: '제주도 호텔' };
      const cases: Array<[Record<string, string>, string]> = [
        [{}, 'missing_api_key'],
        [{ authorization: '' }, 'missing_api_key'],
        [{ authorization: key }, 'invalid_api_key'],
        [{ authorization: `Token ${key}` }, 'invalid_api_key'],
        [bearer('sk_live_short'), 'invalid_api_key'],
        [bearer(`sk_live_${'A'.repeat(40)}`), 'invalid_api_key'],
        [bearer(`st_${'A'.repeat(33)}`), 'setup_token_not_allowed'],
      ];
      for (const [headers, error] of cases) {
        const res = await decide(payload, headers);
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ ok: false, error });
      }
      const created = await createHost(t.app, 'Setup');
      const setup = (await t.app.inject({ method: 'POST', url: `/admin/apps/${created.app_id}/keys`, headers: ADMIN, payload: { kind: 'setup' } })).json();
      expect((await decide(payload, bearer(setup.key))).json()).toEqual({ ok: false, error: 'setup_token_not_allowed' });
    });
  });
});

describe(`decide limits and failure modes (${stores})`, () => {
  it('429 rate_limited past the per-IP limit, with retry-after and x-ratelimit headers', async () => {
    const t = await createTestApp({ decideRateLimitPerMinute: 5 });
    try {
      const { serving_key } = await createHost(t.app, 'RL');
      const statuses: number[] = [];
      let last: Awaited<ReturnType<typeof t.app.inject>> | undefined;
      for (let i = 0; i < 7; i++) {
        last = await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(serving_key), payload: base(), remoteAddress: '10.9.8.7' });
        statuses.push(last.statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
      expect(last!.json()).toMatchObject({ ok: false, error: 'rate_limited' });
      expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
      expect(last!.headers['x-ratelimit-limit']).toBe('5');
      // Another client IP has its own window; X-Forwarded-For is not believed without a trusted proxy.
      const other = await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(serving_key), payload: base(), remoteAddress: '10.9.8.6' });
      expect(other.statusCode).toBe(200);
      const spoofed = await t.app.inject({
        method: 'POST',
        url: '/v1/offers/decide',
        headers: { ...bearer(serving_key), 'x-forwarded-for': '1.2.3.4' },
        payload: base(),
        remoteAddress: '10.9.8.7',
      });
      expect(spoofed.statusCode).toBe(429);
    } finally {
      await t.close();
    }
  });

  it('TIMEOUT (fail open, 200) when a dependency is slower than the time budget', async () => {
    // A budget a decide meets on a loaded machine too (the recovery below needs it to), and a
    // dependency ten times slower than it.
    const t = await createTestApp({ decideTimeBudgetMs: 300, loadDemoCatalog: false });
    try {
      await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
      const { serving_key } = await createHost(t.app, 'Slow');
      const counters = t.counters as CounterStore & { claimFirst: CounterStore['claimFirst'] };
      const original = counters.claimFirst.bind(counters);
      // The answer comes before the slow dependency does: the budget, not the dependency,
      // ended the request (an order, not a wall-clock bound, so a loaded machine cannot fail it).
      let dependencyAnswered = false;
      counters.claimFirst = async (c) => {
        await new Promise((r) => setTimeout(r, 3000));
        dependencyAnswered = true;
        return original(c);
      };
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/offers/decide',
        headers: bearer(serving_key),
        payload: { ...base(), message: '제주도 호텔 최저가' },
      });
      expect(dependencyAnswered).toBe(false);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ serve: false, reason_codes: ['TIMEOUT'], retry_after_seconds: 2 });
      counters.claimFirst = async () => {
        throw Object.assign(new Error('READONLY You can not write'), { code: 'COUNTER_STORE_UNAVAILABLE' });
      };
      const failing = await t.app.inject({
        method: 'POST',
        url: '/v1/offers/decide',
        headers: bearer(serving_key),
        payload: { ...base(), message: '제주도 호텔 최저가' },
      });
      expect(failing.statusCode).toBe(200);
      expect(failing.json()).toMatchObject({ serve: false, reason_codes: ['TIMEOUT'] });
      expect(failing.body).not.toContain('READONLY');
      counters.claimFirst = original;
      // Serves again once the store answers (a few tries: recovery, not one request's timing).
      let recovered = false;
      for (let i = 0; i < 5 && !recovered; i++) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/v1/offers/decide',
          headers: bearer(serving_key),
          payload: { ...base(), message: '제주도 호텔 최저가' },
        });
        recovered = res.json().serve === true;
      }
      expect(recovered).toBe(true);
    } finally {
      await t.close();
    }
  });
});

describe(`decide budgets and database failure (${stores})`, () => {
  it('fails open with TIMEOUT, fast, when Redis cannot be reached at all', async () => {
    const { createCounterStore } = await import('../../src/counters/index.js');
    // Nothing listens on port 1: a Redis that is down, not a mock of one.
    const deadRedis = createCounterStore({ redisUrl: 'redis://127.0.0.1:1/0', commandTimeoutMs: 100 });
    const t = await createTestApp({ loadDemoCatalog: false });
    const app2 = await (await import('../../src/app.js')).buildApp((await import('../helpers/test-env.js')).testConfig({ loadDemoCatalog: false }), {
      db: t.db,
      counters: deadRedis,
    });
    try {
      await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
      await app2.catalogRuntime.reload();
      const { serving_key } = await createHost(app2, 'NoRedis');
      const started = Date.now();
      const res = await app2.inject({
        method: 'POST',
        url: '/v1/offers/decide',
        headers: bearer(serving_key),
        payload: { ...base(), message: '제주도 호텔 최저가' },
      });
      expect(Date.now() - started).toBeLessThan(1000);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ serve: false, reason_codes: ['TIMEOUT'], retry_after_seconds: 2 });
      // No-fills that need no counters still answer normally.
      const gated = await app2.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(serving_key), payload: { ...base(), locale: 'ja' } });
      expect(gated.json().reason_codes).toEqual(['LOCALE_NOT_LIVE']);
      const ready = await app2.inject('/readyz');
      expect(ready.statusCode).toBe(503);
      expect(ready.json().checks.counters).toBe('unavailable');
    } finally {
      await app2.close();
      await deadRedis.close();
      await t.close();
    }
  });

  it('BUDGET_EXHAUSTED once the daily budget is spent, with retry_after_seconds to the day end', async () => {
    const t = await createTestApp({ loadDemoCatalog: false });
    try {
      const c = miniCatalog();
      c.campaigns![0].budget = { total_micros: 100_000_000, daily_micros: 4_000_000 }; // two serves at 2,000,000
      await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: c });
      const { serving_key } = await createHost(t.app, 'Budget');
      const ask = () =>
        t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(serving_key), payload: { ...base(), message: '제주도 호텔 최저가' } });
      expect((await ask()).json().serve).toBe(true);
      expect((await ask()).json().serve).toBe(true);
      const third = (await ask()).json();
      expect(third).toMatchObject({ serve: false, reason_codes: ['BUDGET_EXHAUSTED'] });
      const now = new Date();
      const toMidnight = (Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000;
      expect(third.retry_after_seconds).toBeGreaterThan(toMidnight - 5);
      expect(third.retry_after_seconds).toBeLessThanOrEqual(Math.ceil(toMidnight) + 3600);
    } finally {
      await t.close();
    }
  });

  it('fails open with TIMEOUT when the database refuses writes, and serves again after', async () => {
    const t = await createTestApp({ loadDemoCatalog: false });
    try {
      await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
      const { serving_key } = await createHost(t.app, 'DbDown');
      const ask = () =>
        t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(serving_key), payload: { ...base(), message: '제주도 호텔 최저가' } });
      expect((await ask()).json().serve).toBe(true); // the key is known from now on
      const original = t.db.query.bind(t.db);
      (t.db as { query: typeof original }).query = async () => {
        // What the database adapter throws for a refused connection (src/db/database.ts).
        throw new DatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
      };
      await new Promise((r) => setTimeout(r, 600)); // past the key cache
      const down = await ask();
      expect(down.statusCode).toBe(200);
      expect(down.json()).toMatchObject({ serve: false, reason_codes: ['TIMEOUT'] });
      expect(down.body).not.toContain('ECONNREFUSED');
      (t.db as { query: typeof original }).query = original;
      expect((await ask()).json().serve).toBe(true);
    } finally {
      await t.close();
    }
  });
});
