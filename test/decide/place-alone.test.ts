// A place names where, not what to buy. An offer that met the turn only through a place the
// turn named (a Tokyo flight beside "a metro card for Tokyo") answers a question nobody asked,
// so it does not serve; the same place beside the offer's own category does (relevance slice 13).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp, createHost } from '../helpers/test-env.js';
import { adultOnSurface } from '../helpers/envelopes.js';

describe('a place alone is not an ask (demo catalog)', () => {
  let t: TestApp;
  let key: string;
  let n = 0;
  const decide = async (message: string, locale = 'en-US') =>
    (
      await t.app.inject({
        method: 'POST',
        url: '/v1/offers/decide',
        headers: bearer(key),
        payload: {
          message,
          locale,
          country: locale === 'ko-KR' ? 'KR' : 'US',
          ...adultOnSurface(),
          session: { token: `place-${++n}` },
        },
      })
    ).json();

  beforeAll(async () => {
    t = await createTestApp({ decideRateLimitPerMinute: 10_000 });
    key = (await createHost(t.app, 'Places')).serving_key;
  });
  afterAll(() => t?.close());

  it('stays silent when the turn asks for something the catalog does not sell, in a place it does', async () => {
    for (const [message, locale] of [
      ['where do I buy a prepaid metro card for Tokyo, cheapest option?', 'en-US'],
      ['I want to buy museum passes for Paris, which one is worth it?', 'en-US'],
      ['도쿄에서 쓸 교통카드 어디서 사는 게 제일 싸?', 'ko-KR'],
    ]) {
      const answer = await decide(message, locale);
      expect([message, answer.serve, answer.reason_codes]).toEqual([message, false, ['NO_ELIGIBLE_OFFER']]);
    }
  });

  it('still serves the place beside the category asked for, and "fly to" as a flight once a place confirms it', async () => {
    for (const [message, locale, category] of [
      ['looking for a cheap hotel in Tokyo for three nights', 'en-US', 'travel.hotels'],
      ['도쿄 가는 항공권 최저가 찾아줘', 'ko-KR', 'travel.flights'],
      ['what is the cheapest way to fly to Tokyo in March? want to book this week', 'en-US', 'travel.flights'],
    ]) {
      const answer = await decide(message, locale);
      expect([message, answer.serve]).toEqual([message, true]);
      const lookup = (await t.app.inject({ method: 'GET', url: `/v1/decisions/${answer.decision_id}`, headers: bearer(key) })).json();
      expect(lookup.matched_category_ids).toContain(category);
    }
  });

  it('does not read "fly" as a flight without a place or a flight word to confirm it', async () => {
    const answer = await decide('fruit fly everywhere in my kitchen, which trap should I buy?');
    expect(answer.serve).toBe(false);
  });
});
