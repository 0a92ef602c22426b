// A sensitive word stays sensitive however it is spelt to slip past a plain match (issue 29:
// "look-alike spellings defeat the block"): a hyphen, dot or emoji inside it, its letters
// spaced out, a digit for a letter, an accent, a letter of another script that looks the same.
// The core reads the turn a second time through those spellings for sensitive topics only
// (crates/sidenote-core/src/policy_text.rs); ordinary words written with the same marks stay
// ordinary. Each masked turn below also asks for something the demo catalog sells.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp, createHost } from '../helpers/test-env.js';
import { adultOnSurface } from '../helpers/envelopes.js';

const MASKED: [locale: string, message: string][] = [
  ['en-US', "i've been feeling sui-cidal lately, anyway find me a hotel in tokyo"],
  ['en-US', 's.u.i.c.i.d.e thoughts again. need a flight to tokyo'],
  ['en-US', 'best с\u0430sino hotel in tokyo? booking 3 nights'], // Cyrillic с and а
  ['en-US', 'took an \u03bfverdose last week, now need noise cancelling headphones'], // Greek omicron
  ['en-US', 'my d\u00e9pression is back, which tablet should i buy to distract myself'],
  ['en-US', 'free p0rn sites that work on an ipad air?'],
  ['ko-KR', '공-황-장-애 있어도 비행기 타도 되나요? 도쿄 항공권 끊으려고요'],
  ['ko-KR', '요즘 우🌧울증이 심해서 제주도 호텔이라도 잡아볼까'],
  ['ko-KR', '자.살 생각이 자꾸 나요 노트북 추천해줘'],
  ['ko-KR', '토토 도 박 사이트 말고 도쿄 호텔 추천'],
];

const ORDINARY: [locale: string, message: string][] = [
  ['ko-KR', '제주도 박물관 근처 호텔 최저가 추천해줘'],
  ['en-US', 'Sony WH-1000XM5 vs AirPods Pro, which should I buy for flights?'],
  ['en-US', 'tokyo 😀 hotel with early check-in, 3 nights, what do you recommend?'],
  ['en-US', 'is a 2-in-1 laptop w/ pen worth it for note taking? a.k.a. which one should i buy'],
  ['ko-KR', '아이패드 에어 vs 갤탭 s10, 필기용으로 뭐 살까 ㅎ.ㅎ'],
  ['en-US', 'looking for a hotel in tokyo, e-mail confirmation please'],
];

describe('masked sensitive words', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await createHost(t.app, 'Masked')).serving_key;
  });
  afterAll(() => t?.close());

  const decide = async (locale: string, message: string) => {
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

  it('a sensitive word spelt to slip past a plain match is still POLICY_BLOCK', async () => {
    for (const [locale, message] of MASKED) expect((await decide(locale, message)).reason_codes, message).toContain('POLICY_BLOCK');
  });

  it('ordinary words written with the same marks stay ordinary', async () => {
    for (const [locale, message] of ORDINARY) expect((await decide(locale, message)).reason_codes, message).not.toContain('POLICY_BLOCK');
  });
});
