// POST /v1/offers/affiliate and POST /v1/events/click-intent through HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bearer, createTestApp, usingRealPostgres, usingRealRedis, type TestApp, createHost } from '../helpers/test-env.js';
import { miniCatalogWithAffiliates } from '../helpers/mini-catalog.js';
import { template } from '../../src/affiliate/networks/template.js';
import { koreanTurn } from '../helpers/envelopes.js';

const stores = `${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'in-process counters'}`;
const envelope = (message: string, locale = 'ko-KR') => koreanTurn(message, { locale });

describe(`affiliate decisions and click intents (${stores})`, () => {
  let t: TestApp;
  let key: string;
  let otherKey: string;
  const affiliate = (payload: unknown, k = key) =>
    t.app.inject({ method: 'POST', url: '/v1/offers/affiliate', headers: bearer(k), payload: payload as object });
  const clickIntent = (payload: unknown) => t.app.inject({ method: 'POST', url: '/v1/events/click-intent', payload: payload as object });

  beforeAll(async () => {
    t = await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 100_000 });
    const imported = await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalogWithAffiliates() });
    expect(imported.statusCode, imported.body).toBe(200);
    key = (await createHost(t.app, 'Aff')).serving_key;
    otherKey = (await createHost(t.app, 'Aff2')).serving_key;
  });
  afterAll(() => t?.close());

  it('fills a Korean flight question with a TripNet tracking URL carrying marker, sub id and destination', async () => {
    const res = await affiliate(envelope('다음 주 도쿄 항공권 최저가 알려줘'));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ serve: true, network: 'TripNet', advertiser: 'SkyFare', disclosure: '제휴 링크', reason_codes: ['MATCHED'] });
    expect(body.decision_id).toMatch(/^dec_/);
    expect(body.impression_token.length).toBeGreaterThanOrEqual(43); // 256 bits in base64url
    expect(body).not.toHaveProperty('link');
    const url = new URL(body.affiliate_url);
    expect(url.origin).toBe('https://c.tripnet.example');
    expect(url.searchParams.get('marker')).toBe('482913');
    expect(url.searchParams.get('sub_id')).toBe(body.decision_id);
    expect(url.searchParams.get('u')).toBe('https://www.skyfare.example/flights/ICN-NRT?lang=ko');
    expect(body.affiliate_url).not.toContain('/r/');
  });

  it('fills an English message, and a hotel with a StayLink parameter link', async () => {
    const en = (await affiliate(envelope('cheapest flights to tokyo next week?', 'en-US'))).json();
    expect(new URL(en.affiliate_url).searchParams.get('u')).toBe('https://www.skyfare.example/flights/ICN-NRT?lang=en');
    const hotel = (await affiliate(envelope('제주도 호텔 예약 최저가'))).json();
    expect(hotel).toMatchObject({ serve: true, network: 'StayLink' });
    const url = new URL(hotel.affiliate_url);
    expect(url.origin + url.pathname).toBe('https://www.staylink-hotels.example/hotel/kr/jeju-ocean.ko.html');
    expect(url.searchParams.get('aid')).toBe('aid-77120');
    expect(url.searchParams.get('label')).toBe(`sidenote-${hotel.decision_id}`);
  });

  it('never serves sponsored offers here, nor affiliate offers on decide', async () => {
    const decide = await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(key), payload: envelope('항공권 최저가') });
    expect(decide.json().reason_codes).toEqual(['NO_ELIGIBLE_OFFER']);
    // Electronics has only sponsored offers.
    const aff = await affiliate(envelope('cheapest iphone 16', 'en'));
    expect(aff.json().reason_codes).toEqual(['NO_ELIGIBLE_OFFER']);
  });

  it('answers each no-fill reason', async () => {
    const codes = async (payload: unknown) => (await affiliate(payload)).json().reason_codes;
    expect(await codes({ ...envelope('도쿄 항공권'), native_surface: { clickable: false, disclosure_capable: true } })).toEqual(['CAPABILITY_UNMET']);
    expect(await codes({ ...envelope('도쿄 항공권'), audience: { age_band: '13_17', contextual_offer_consent: true } })).toEqual(['POLICY_BLOCK']);
    expect(await codes(envelope('도쿄 도박 항공권'))).toEqual(['POLICY_BLOCK']);
    expect(await codes(envelope('도쿄 항공권', 'ja-JP'))).toEqual(['LOCALE_NOT_LIVE']);
    expect(await codes(envelope('안녕하세요'))).toEqual(['LOW_INTENT']);
    expect(await codes({ ...envelope('항공권 최저가'), session: { digest: { excluded_entity_ids: ['place.tokyo'] } } })).toEqual(['NO_ELIGIBLE_OFFER']);
  });

  it('validates the envelope and the key exactly like decide', async () => {
    expect((await affiliate({ ...envelope('도쿄'), email: 'x@y.z' })).json()).toMatchObject({ error: 'FORBIDDEN_IDENTITY_FIELD' });
    expect((await affiliate({ ...envelope('도쿄'), extra: 1 })).json()).toMatchObject({ error: 'INVALID_ENVELOPE' });
    const noKey = await t.app.inject({ method: 'POST', url: '/v1/offers/affiliate', payload: envelope('도쿄') });
    expect(noKey.statusCode).toBe(401);
    expect(noKey.json()).toEqual({ ok: false, error: 'missing_api_key' });
    expect((await affiliate(envelope('도쿄'), `st_${'C'.repeat(33)}`)).json()).toEqual({ ok: false, error: 'setup_token_not_allowed' });
  });

  it('never builds a URL for a destination off the network allowlist', async () => {
    const c = miniCatalogWithAffiliates();
    c.affiliate_networks![0].destinations = ['https://tours.jejutrip.example/'];
    const rejected = await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: c });
    expect(rejected.statusCode).toBe(400);
    expect(rejected.json().problems.join('\n')).toContain('not on the allowlist of network "tripnet"');
    // A network template that would let the destination escape is refused on import.
    expect(template.validate({ partner_marker: 'x', link_template: 'https://{destination}/click?m={marker}&s={sub_id}' })).toContain(
      'link_template: placeholders may not appear in the scheme or host',
    );
    // Every fill's URL points at an allowlisted destination.
    for (const m of ['도쿄 항공권 최저가', '제주도 호텔 예약', 'tokyo flights deal']) {
      const body = (await affiliate(envelope(m, /[a-z]/.test(m) ? 'en' : 'ko'))).json();
      if (!body.serve) continue;
      const u = new URL(body.affiliate_url);
      const dest = u.searchParams.get('u') ?? `${u.origin}${u.pathname}`;
      expect(dest.startsWith('https://www.skyfare.example/') || dest.startsWith('https://www.staylink-hotels.example/hotel/')).toBe(true);
    }
  });

  describe('click intent', () => {
    it('records once per (token, event id), is analytics only, and shows in the decision lookup', async () => {
      const fill = (await affiliate(envelope('도쿄 항공권 최저가'))).json();
      const first = await clickIntent({ impression_token: fill.impression_token, event_id: 'click-1', occurred_at: new Date().toISOString() });
      expect(first.statusCode).toBe(200);
      expect(first.json()).toMatchObject({ ok: true, inserted: true, billable: false });
      expect(first.json().click_intent_id).toMatch(/^cli_/);
      const again = await clickIntent({ impression_token: fill.impression_token, event_id: 'click-1' });
      expect(again.json()).toEqual({ ...first.json(), inserted: false });
      expect((await clickIntent({ impression_token: fill.impression_token, event_id: 'click-2' })).json().inserted).toBe(true);
      const lookup = await t.app.inject({ method: 'GET', url: `/v1/decisions/${fill.decision_id}`, headers: bearer(key) });
      expect(lookup.json()).toMatchObject({ kind: 'affiliate', serve: true, events: { click_intents: 2 } });
      expect((await t.app.inject({ method: 'GET', url: `/v1/decisions/${fill.decision_id}`, headers: bearer(otherKey) })).statusCode).toBe(404);
    });

    it('404 unknown_impression for unknown and expired tokens', async () => {
      const unknown = await clickIntent({ impression_token: 'A'.repeat(43), event_id: 'e1' });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ ok: false, error: 'unknown_impression' });
      const fill = (await affiliate(envelope('도쿄 항공권 최저가'))).json();
      await t.db.query("UPDATE affiliate_impressions SET expires_at = now() - interval '1 second' WHERE decision_id = $1", [fill.decision_id]);
      expect((await clickIntent({ impression_token: fill.impression_token, event_id: 'e1' })).json()).toEqual({ ok: false, error: 'unknown_impression' });
    });

    it('400 invalid_click_intent for malformed bodies', async () => {
      for (const body of [
        {},
        { impression_token: 'x' },
        { event_id: 'x' },
        { impression_token: 'x', event_id: '' },
        { impression_token: 'x', event_id: 'e', extra: 1 },
        { impression_token: 'x', event_id: 'e', occurred_at: 'noon' },
        'text',
        ['x'],
      ]) {
        const res =
          typeof body === 'string'
            ? await t.app.inject({
                method: 'POST',
                url: '/v1/events/click-intent',
                headers: { 'content-type': 'application/json' },
                payload: JSON.stringify(body),
              })
            : await clickIntent(body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json().error).toBe('invalid_click_intent');
      }
    });
  });
});
