// Decide runs whatever matcher it is given (src/native/offer-index.ts `Matcher`; the decide
// feature's `matcher` option). Here the plain TypeScript reference matcher runs beside the
// native index on the very queries real decides make, through the whole HTTP pipeline, and
// reads every turn the same way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Matcher, MatchQuery, MatchResult } from '../../src/native/offer-index.js';
import { ReferenceMatcher } from '../../testkit/matching-reference/reference-matcher.js';
import { demoIndexDocument } from '../../testkit/generated-catalog.js';
import { ADMIN, bearer, createTestApp, type TestApp } from '../helpers/test-env.js';

const TURNS: [locale: string, message: string][] = [
  ['ko-KR', '다음 달 제주도 호텔 최저가 추천해줘'],
  ['ko-KR', '도쿄 항공권 싸게 사려고 하는데 어디서 사?'],
  ['ko-KR', '요즘 너무 불안해서 잠이 안 와'],
  ['ko-KR', '노트북 추천 좀, 예산은 100만원'],
  ['en-US', 'Which noise cancelling headphones should I buy for flights?'],
  ['en-US', 'What year did the first iPhone come out?'],
  ['en-US', 'looking for a cheap hotel in Tokyo next week'],
  ['en-US', 'write a poem about a train at night'],
];

/** What a turn reads as, apart from offer snapshot ids (the reference names offers by offer id). */
const reading = (r: MatchResult) => ({
  messageIntent: r.messageIntent,
  intent: [r.intent, r.commercialIntent],
  sensitive: [r.modelSensitive, [...r.sensitiveTopicIds].sort()],
  categories: [...r.signalCategoryIds].sort(),
  entities: [...r.signalEntityIds].sort(),
  offers: r.candidates.map((c) => c.offerId).sort(),
});

describe('a second matcher beside the native index', () => {
  let t: TestApp;
  const reference = new ReferenceMatcher(demoIndexDocument());
  const compared: { query: MatchQuery; native: unknown; reference: unknown }[] = [];
  const beside: Matcher = {
    match(query) {
      const native = t.app.catalogRuntime.index.match(query);
      compared.push({ query, native: reading(native), reference: reading(reference.match(query)) });
      return native;
    },
  };

  beforeAll(async () => {
    t = await createTestApp({}, undefined, { matcher: beside });
  });
  afterAll(() => t?.close());

  it('sees every decide and agrees with the native index on each', async () => {
    const host = (await t.app.inject({ method: 'POST', url: '/admin/apps', headers: ADMIN, payload: { name: 'Beside' } })).json();
    for (const [locale, message] of TURNS) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/offers/decide',
        headers: bearer(host.serving_key),
        payload: {
          message,
          locale,
          country: locale.slice(3),
          audience: { age_band: '18_plus', contextual_offer_consent: true },
          native_surface: { clickable: true, disclosure_capable: true },
        },
      });
      expect(res.statusCode).toBe(200);
    }
    expect(compared).toHaveLength(TURNS.length);
    for (const c of compared) expect(c.reference, c.query.message).toEqual(c.native);
    // The turns exercise fills, not only empty readings.
    expect(compared.filter((c) => (c.native as { offers: string[] }).offers.length > 0).length).toBeGreaterThanOrEqual(3);
  });
});
