// Gates that need no message run before the message is read (issue 16: a refused turn should
// not pay for matching). Still, every failing gate is listed: a sensitive message beside an
// unmet surface or an unlive locale still adds POLICY_BLOCK, read without ranking any offer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Matcher, MatchQuery } from '../../src/native/offer-index.js';
import { bearer, createTestApp, type TestApp, createHost } from '../helpers/test-env.js';
import { adultOnSurface } from '../helpers/envelopes.js';

describe('gates before matching', () => {
  let t: TestApp;
  let key: string;
  const queries: MatchQuery[] = [];
  const spy: Matcher = {
    match(query) {
      queries.push(query);
      return t.app.catalogRuntime.index.match(query);
    },
  };
  const decide = async (overrides: Record<string, unknown>) => {
    queries.length = 0;
    const payload = {
      message: '제주도 호텔 최저가 추천해줘',
      locale: 'ko-KR',
      country: 'KR',
      ...adultOnSurface(),
      ...overrides,
    };
    const res = await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(key), payload });
    expect(res.statusCode).toBe(200);
    return res.json() as { serve: boolean; reason_codes: string[] };
  };

  beforeAll(async () => {
    t = await createTestApp({}, undefined, { matcher: spy });
    key = (await createHost(t.app, 'Gates')).serving_key;
  });
  afterAll(() => t?.close());

  it('does not read the message once the audience alone blocks the turn', async () => {
    const answer = await decide({
      audience: { age_band: '18_plus', contextual_offer_consent: false },
      native_surface: { clickable: false, disclosure_capable: true },
    });
    expect(answer.reason_codes.sort()).toEqual(['CAPABILITY_UNMET', 'POLICY_BLOCK']);
    expect(queries).toHaveLength(0);
  });

  it('reads it for sensitivity alone (no ranking) when another gate already fails', async () => {
    const sensitive = await decide({ message: '요즘 너무 우울하고 죽고 싶어요', native_surface: { clickable: false, disclosure_capable: true } });
    expect(sensitive.reason_codes.sort()).toEqual(['CAPABILITY_UNMET', 'POLICY_BLOCK']);
    expect(queries.map((q) => q.topK)).toEqual([0]);
    const plain = await decide({ locale: 'fr-FR' });
    expect(plain.reason_codes).toEqual(['LOCALE_NOT_LIVE']);
    expect(queries.map((q) => q.topK)).toEqual([0]);
  });

  it('ranks offers when every gate passes', async () => {
    const answer = await decide({});
    expect(answer.serve).toBe(true);
    expect(queries).toHaveLength(1);
    expect(queries[0].topK).toBeGreaterThan(0);
  });
});
