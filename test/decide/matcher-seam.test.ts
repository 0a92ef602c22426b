// Decide runs whatever matcher it is given (src/native/offer-index.ts `Matcher`; the decide
// feature's `matcher` option), on the very queries real decides make, through the whole HTTP
// pipeline: a matcher wrapped around the native index sees every decide, and what it answers is
// what decide acts on (its reading withheld, the turn no longer fills).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Matcher, MatchQuery, MatchResult } from '../../src/native/offer-index.js';
import { bearer, createTestApp, type TestApp, createHost } from '../helpers/test-env.js';
import { adultOnSurface } from '../helpers/envelopes.js';

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

describe('a matcher given to decide', () => {
  let t: TestApp;
  let withhold = false;
  const seen: { query: MatchQuery; result: MatchResult }[] = [];
  const wrapped: Matcher = {
    match(query) {
      const result = t.app.catalogRuntime.index.match(query);
      seen.push({ query, result });
      return withhold ? { ...result, candidates: [] } : result;
    },
  };

  beforeAll(async () => {
    t = await createTestApp({}, undefined, { matcher: wrapped });
  });
  afterAll(() => t?.close());

  const decide = async (key: string, locale: string, message: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/offers/decide',
      headers: bearer(key),
      payload: {
        message,
        locale,
        country: locale.slice(3),
        ...adultOnSurface(),
      },
    });
    expect(res.statusCode).toBe(200);
    return res.json() as { serve: boolean; reason_codes: string[] };
  };

  it('sees every decide, with the envelope the turn sent', async () => {
    const host = await createHost(t.app, 'Wrapped');
    for (const [locale, message] of TURNS) await decide(host.serving_key, locale, message);
    expect(seen.map((s) => [s.query.language, s.query.message])).toEqual(TURNS.map(([locale, message]) => [locale.slice(0, 2), message]));
    // The turns exercise fills, not only empty readings.
    expect(seen.filter((s) => s.result.candidates.length > 0).length).toBeGreaterThanOrEqual(3);
  });

  it('what it answers is what decide acts on', async () => {
    const host = await createHost(t.app, 'Withheld');
    const [locale, message] = TURNS[0];
    expect((await decide(host.serving_key, locale, message)).serve).toBe(true);
    withhold = true;
    const answer = await decide(host.serving_key, locale, message);
    withhold = false;
    expect(answer.serve).toBe(false);
    expect(answer.reason_codes).toEqual(['NO_ELIGIBLE_OFFER']);
  });
});
