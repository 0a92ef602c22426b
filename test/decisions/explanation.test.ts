// "Why this offer": a user-presentable explanation in the decision's language, for the
// calling app's decisions only, built from the record and never from the message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bearer, createTestApp, type TestApp, createHost } from '../helpers/test-env.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { koreanTurn } from '../helpers/envelopes.js';

const envelope = (message: string, locale: string, country: string) => koreanTurn(message, { locale, country });

describe('decision explanation', () => {
  let t: TestApp;
  let a: string;
  let b: string;
  const decide = async (payload: object, key = a) => (await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(key), payload })).json();
  const explain = (id: string, key = a) => t.app.inject({ method: 'GET', url: `/v1/decisions/${id}/explanation`, headers: bearer(key) });

  beforeAll(async () => {
    t = await createTestApp({ loadDemoCatalog: false });
    await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
    a = (await createHost(t.app, 'A')).serving_key;
    b = (await createHost(t.app, 'B')).serving_key;
  });
  afterAll(() => t?.close());

  it('explains a served Korean decision in Korean, naming advertiser and topics', async () => {
    const d = await decide(envelope('제주도 호텔 최저가 CANARY-whyoffer', 'ko-KR', 'KR'));
    expect(d.serve).toBe(true);
    const res = await explain(d.decision_id);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ decision_id: d.decision_id, locale: 'ko', sponsored: true, advertiser: 'Haneul Stay' });
    expect(body.explanation).toContain('Haneul Stay의 광고');
    expect(body.explanation).toContain('제주도');
    expect(body.explanation).toContain('개인정보');
    expect(body.parameters).toMatchObject({ country: 'KR', personal_data_used: false, conversation_history_used: false });
    expect(body.parameters.topics).toEqual(expect.arrayContaining(['제주도', '호텔']));
    expect(res.body).not.toContain('CANARY');
  });

  it('names the evidence that won: the place named, and the category it implies for the offer', async () => {
    // No category asked for: the Jeju hotel won on the place, and on the hotels category only
    // as implied by the place. Recorded without the implied categories, it named Jeju alone.
    // The place comes from the host's digest: read from the message alone, a place is not an
    // ask (relevance slice 13), and the same turn would be a no-fill.
    const digest = { intent_type: 'purchase', entity_ids: ['place.jeju'], generated_at: new Date().toISOString() };
    const d = await decide({ ...envelope('제주도 최저가 알려줘', 'ko-KR', 'KR'), session: { digest } });
    expect(d.serve).toBe(true);
    const body = (await explain(d.decision_id)).json();
    expect(body.parameters.topics).toEqual(['제주도', '호텔']);
    expect(body.explanation).toContain('제주도, 호텔');
  });

  it('explains an English decision in English', async () => {
    const d = await decide(envelope('cheapest iphone 16?', 'en-US', 'US'));
    const body = (await explain(d.decision_id)).json();
    expect(body.locale).toBe('en');
    expect(body.explanation).toMatch(/^This is sponsored content from Gadget Harbor\./);
    expect(body.explanation).toContain('iPhone 16');
    expect(body.explanation).toContain('No personal data');
  });

  it('says nothing was shown for a no-fill', async () => {
    const d = await decide(envelope('오늘 날씨 어때', 'ko', 'KR'));
    const body = (await explain(d.decision_id)).json();
    expect(body).toMatchObject({ sponsored: false, advertiser: null, locale: 'ko' });
    expect(body.explanation).toContain('광고가 표시되지 않았습니다');
  });

  it('names the sensitive family a POLICY_BLOCK stood on, never the words that fired', async () => {
    const d = await decide(envelope('우울증 때문에 제주도 호텔 최저가 CANARY-policy', 'ko-KR', 'KR'));
    expect(d.reason_codes).toEqual(['POLICY_BLOCK']);
    const res = await explain(d.decision_id);
    const body = res.json();
    expect(body.parameters.policy).toEqual(['health']);
    expect(body.explanation).toContain('건강 관련 대화에는 광고를 표시하지 않습니다');
    expect(res.body).not.toContain('우울증');
    expect(res.body).not.toContain('CANARY');
    const en = (await explain((await decide(envelope('best casino hotel in tokyo, cheapest price', 'en-US', 'US'))).decision_id)).json();
    expect(en.parameters.policy).toEqual(['gambling']);
    expect(en.explanation).toContain('never shown beside conversations about gambling');
  });

  it('names the core policy pattern by its family, and the classifier alone as a sensitive conversation', async () => {
    // An age read as the user's own (the core's minor_age pattern): no catalog word fires.
    const minor = (await explain((await decide(envelope("i'm 14, what's the cheapest iphone 16", 'en-US', 'US'))).decision_id)).json();
    expect(minor.parameters.policy).toEqual(['minors']);
    expect(minor.explanation).toContain('about minors');
    // A veiled goodbye: no word of the catalog and no pattern, only the learned classifier.
    const veiled = await decide(
      envelope("i've given away most of my things and written letters to everyone. it won't matter after this weekend", 'en-US', 'US'),
    );
    expect(veiled.reason_codes).toEqual(['POLICY_BLOCK']);
    const body = (await explain(veiled.decision_id)).json();
    expect(body.parameters.policy).toEqual(['sensitive']);
    expect(body.explanation).toContain('never shown beside sensitive conversations');
  });

  it("says when the envelope's audience stopped it, and leaves policy empty otherwise", async () => {
    const d = await decide({ ...envelope('제주도 호텔 최저가', 'ko-KR', 'KR'), audience: { age_band: '13_17', contextual_offer_consent: true } });
    const body = (await explain(d.decision_id)).json();
    expect(body.parameters.policy).toEqual(['audience']);
    expect(body.explanation).toContain('성인에게만 표시됩니다');
    const low = (await explain((await decide(envelope('오늘 날씨 어때', 'ko', 'KR'))).decision_id)).json();
    expect(low.parameters).toMatchObject({ policy: [], reading_budget_exceeded: false });
  });

  it("is 404 for another app's decision and unknown ids, 401 without a key", async () => {
    const d = await decide(envelope('제주도 호텔 최저가', 'ko-KR', 'KR'));
    expect((await explain(d.decision_id, b)).json()).toEqual({ ok: false, error: 'not_found' });
    expect((await explain('dec_nothing')).statusCode).toBe(404);
    expect((await explain('bogus')).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/v1/decisions/${d.decision_id}/explanation` })).statusCode).toBe(401);
  });

  it('serves the reason-code reference publicly', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/reference/reason-codes' });
    expect(res.statusCode).toBe(200);
    const codes = res.json().reason_codes.map((r: { code: string }) => r.code);
    expect(codes).toEqual(expect.arrayContaining(['MATCHED', 'TIMEOUT', 'invalid_signature', 'unknown_impression']));
  });
});
