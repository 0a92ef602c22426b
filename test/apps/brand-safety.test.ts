// Brand safety a host sets for its own app: blocked categories (and everything below them) and
// blocked advertisers never serve beside that app's answers, the decision's explanation says an
// exclusion of the app's left an offer out, and other apps are untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bearer, createTestApp, type TestApp, createHost } from '../helpers/test-env.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { englishTurn, koreanTurn } from '../helpers/envelopes.js';

describe('brand safety per app', () => {
  let t: TestApp;
  let a: { app_id: string; serving_key: string };
  let b: { app_id: string; serving_key: string };
  const decide = async (turn: object, key: string) =>
    (await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(key), payload: turn })).json();
  const explain = async (id: string, key: string) =>
    (await t.app.inject({ method: 'GET', url: `/v1/decisions/${id}/explanation`, headers: bearer(key) })).json();
  const put = (appId: string, payload: unknown) =>
    t.app.inject({ method: 'PUT', url: `/admin/apps/${appId}/brand-safety`, headers: ADMIN, payload: payload as object });
  const hotel = koreanTurn('제주도 호텔 최저가 알려줘');
  // The mini catalog's phone offer is in English only.
  const phone = englishTurn('cheapest iphone 16?');

  beforeAll(async () => {
    // No key cache: a change is seen by the next decide (in service, within API_KEY_CACHE_MS).
    t = await createTestApp({ loadDemoCatalog: false, apiKeyCacheMs: 0 });
    await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
    a = await createHost(t.app, 'A');
    b = await createHost(t.app, 'B');
  });
  afterAll(() => t?.close());

  it('starts empty, and stores what is set, sorted and without duplicates', async () => {
    const empty = await t.app.inject({ method: 'GET', url: `/admin/apps/${a.app_id}/brand-safety`, headers: ADMIN });
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual({
      app_id: a.app_id,
      blocked_category_ids: [],
      blocked_advertiser_ids: [],
      updated_at: null,
      not_in_catalog: { category_ids: [], advertiser_ids: [] },
    });
    const set = await put(a.app_id, { blocked_category_ids: ['travel', 'dating', 'travel'], blocked_advertiser_ids: ['adv.rival', 'adv.gadget-harbor'] });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({
      blocked_category_ids: ['dating', 'travel'],
      blocked_advertiser_ids: ['adv.gadget-harbor', 'adv.rival'],
      // Kept, and named: the catalog has no such category or advertiser (yet).
      not_in_catalog: { category_ids: ['dating'], advertiser_ids: ['adv.rival'] },
    });
    expect(Date.parse(set.json().updated_at)).toBeGreaterThan(0);
    const read = await t.app.inject({ method: 'GET', url: `/admin/apps/${a.app_id}/brand-safety`, headers: ADMIN });
    expect(read.json()).toEqual(set.json());
    await put(a.app_id, { blocked_category_ids: [], blocked_advertiser_ids: [] });
  });

  it('refuses bad bodies and unknown apps in the API error format, without echoing input, and changes nothing', async () => {
    await put(b.app_id, { blocked_category_ids: ['electronics'], blocked_advertiser_ids: [] });
    const bad = [
      {},
      { blocked_category_ids: ['Travel <script>'], blocked_advertiser_ids: [] },
      { blocked_category_ids: 'travel', blocked_advertiser_ids: [] },
      { blocked_category_ids: [], blocked_advertiser_ids: [], extra: 1 },
      { blocked_category_ids: Array.from({ length: 501 }, (_, i) => `c${i}`), blocked_advertiser_ids: [] },
    ];
    for (const body of bad) {
      const res = await put(b.app_id, body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.json().error).toBe('invalid_request');
      expect(res.body).not.toContain('<script>');
    }
    expect((await put('app_nothere', { blocked_category_ids: [], blocked_advertiser_ids: [] })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/admin/apps/app_nothere/brand-safety', headers: ADMIN })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/admin/apps/${b.app_id}/brand-safety`, headers: bearer(b.serving_key) })).statusCode).toBe(401);
    const kept = (await t.app.inject({ method: 'GET', url: `/admin/apps/${b.app_id}/brand-safety`, headers: ADMIN })).json();
    expect(kept.blocked_category_ids).toEqual(['electronics']);
    await put(b.app_id, { blocked_category_ids: [], blocked_advertiser_ids: [] });
  });

  it("keeps a blocked category's offers, and those below it, away from that app alone, and says why", async () => {
    expect((await decide(hotel, a.serving_key)).serve).toBe(true);
    // `travel` is the hotel offer's parent category: blocking it blocks hotels.
    await put(a.app_id, { blocked_category_ids: ['travel'], blocked_advertiser_ids: [] });
    const blocked = await decide(hotel, a.serving_key);
    expect(blocked).toMatchObject({ serve: false, reason_codes: ['NO_ELIGIBLE_OFFER'] });
    const why = await explain(blocked.decision_id, a.serving_key);
    expect(why.parameters.app_exclusions_applied).toBe(true);
    expect(why.explanation).toContain('이용 중인 서비스가 표시하지 않기로 정한 분야나 광고주의 광고는 제외되었습니다.');
    // Another app is untouched; so is another category for this app.
    expect((await decide(hotel, b.serving_key)).serve).toBe(true);
    expect((await decide(phone, a.serving_key)).serve).toBe(true);
    // A turn no blocked offer would have answered does not claim the exclusion.
    const plain = await decide(koreanTurn('오늘 날씨 어때'), a.serving_key);
    expect((await explain(plain.decision_id, a.serving_key)).parameters.app_exclusions_applied).toBe(false);
    await put(a.app_id, { blocked_category_ids: [], blocked_advertiser_ids: [] });
    expect((await decide(hotel, a.serving_key)).serve).toBe(true);
  });

  it("keeps a blocked advertiser's offers away, whatever they are about", async () => {
    const served = await decide(phone, a.serving_key);
    expect(served).toMatchObject({ serve: true, advertiser: 'Gadget Harbor' });
    await put(a.app_id, { blocked_category_ids: [], blocked_advertiser_ids: ['adv.gadget-harbor'] });
    const blocked = await decide(phone, a.serving_key);
    expect(blocked).toMatchObject({ serve: false, reason_codes: ['NO_ELIGIBLE_OFFER'] });
    expect((await explain(blocked.decision_id, a.serving_key)).parameters.app_exclusions_applied).toBe(true);
    expect((await decide(hotel, a.serving_key)).serve).toBe(true);
    await put(a.app_id, { blocked_category_ids: [], blocked_advertiser_ids: [] });
  });

  it('is in the OpenAPI document with its operation ids', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.paths['/admin/apps/{id}/brand-safety'].get.operationId).toBe('getBrandSafety');
    expect(doc.paths['/admin/apps/{id}/brand-safety'].put.operationId).toBe('setBrandSafety');
  });
});
