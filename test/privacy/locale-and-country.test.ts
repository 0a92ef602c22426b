// `locale` and `country` are hints the host types, not free text: a decision record keeps the
// canonical language tag and region code, or nothing (src/decide/locale-tags.ts). A canary sent
// in either field is in no database row, and a well-formed hint in any spelling is stored as
// BCP 47 and ISO 3166 write it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpDatabase } from '../helpers/dump.js';
import { bearer, createTestApp, type TestApp, createHost } from '../helpers/test-env.js';

const adult = { age_band: '18_plus', contextual_offer_consent: true };
const surface = { clickable: true, disclosure_capable: true };

describe('locale and country as stored', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await createHost(t.app, 'Hints')).serving_key;
  });
  afterAll(() => t?.close());

  const decide = async (locale: string, country: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/offers/decide',
      headers: bearer(key),
      payload: { message: '제주도 호텔 최저가 추천해줘', locale, country, audience: adult, native_surface: surface },
    });
    expect(res.statusCode).toBe(200);
    return res.json() as { decision_id: string; reason_codes: string[] };
  };
  const stored = async (decisionId: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/v1/decisions/${decisionId}`, headers: bearer(key) });
    expect(res.statusCode).toBe(200);
    const { locale, country } = res.json();
    return { locale, country };
  };

  it('keeps the canonical form of a real tag and code, whatever its spelling', async () => {
    for (const [locale, country, expected] of [
      ['ko_kr', 'kr', { locale: 'ko-KR', country: 'KR' }],
      ['EN-us', 'us', { locale: 'en-US', country: 'US' }],
      ['ko-KR-x-private', 'KR', { locale: 'ko-KR', country: 'KR' }],
      ['ja-JP', 'JP', { locale: 'ja-JP', country: 'JP' }],
      ['zh-Hant-TW', 'TW', { locale: 'zh-Hant-TW', country: 'TW' }],
      // ICU canonicalises this made-up variant to a made-up script, "ko-Qedd": four letters of
      // free text that were stored (a random canary in the test below hit it).
      ['ko-qedd5e', 'KR', { locale: 'ko', country: 'KR' }],
    ] as const) {
      expect(await stored((await decide(locale, country)).decision_id), `${locale} ${country}`).toEqual(expected);
    }
  });

  it('stores nothing of free text sent as a locale or a country, and still decides as before', async () => {
    const canary = `q${randomBytes(3).toString('hex')}z`; // 8 letters and digits: fits both fields
    const answer = await decide(canary, canary.slice(0, 8));
    expect(answer.reason_codes).toContain('LOCALE_NOT_LIVE');
    expect(await stored(answer.decision_id)).toEqual({ locale: null, country: null });
    // A live language with a made-up region or variant serves as before; only its tag is kept.
    const ko = await decide(`ko-${canary.slice(0, 6)}`, 'QQ');
    expect(ko.reason_codes).not.toContain('LOCALE_NOT_LIVE');
    expect(await stored(ko.decision_id)).toEqual({ locale: 'ko', country: null });
    await new Promise((r) => setTimeout(r, 200));
    expect(await dumpDatabase(t.db)).not.toContain(canary.slice(0, 6));
  });
});
