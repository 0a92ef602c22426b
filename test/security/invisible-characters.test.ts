// Invisible characters (Unicode Default_Ignorable_Code_Point) inside a word do not hide it from
// matching (sensitive-topic detection runs after removing invisible characters). A self-harm term split by a zero width space next to a hotel request is still a
// POLICY_BLOCK, not an ad beside it; a commercial message with its aliases split the same way
// still matches the same offer. Terms are real aliases of the demo catalog.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, usingRealPostgres, usingRealRedis, type TestApp, createHost } from '../helpers/test-env.js';
import { adultOnSurface } from '../helpers/envelopes.js';

const stores = `${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'in-process counters'}`;

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i));

/** Each class of invisible character, with every code point of the class. */
const CLASSES: Array<[string, string[]]> = [
  ['U+200B zero width space', ['\u200B']],
  ['U+200C/U+200D zero width non-joiner and joiner', ['\u200C', '\u200D']],
  ['U+2060 word joiner', ['\u2060']],
  ['U+FEFF zero width no-break space', ['\uFEFF']],
  ['U+00AD soft hyphen', ['\u00AD']],
  ['U+034F combining grapheme joiner', ['\u034F']],
  ['U+180E Mongolian vowel separator', ['\u180E']],
  ['U+2061–U+2064 invisible operators', range(0x2061, 0x2064)],
  ['U+206A–U+206F deprecated format characters', range(0x206a, 0x206f)],
  ['Hangul fillers U+115F, U+1160, U+3164, U+FFA0', ['\u115F', '\u1160', '\u3164', '\uFFA0']],
  ['variation selectors U+FE00–U+FE0F and Mongolian U+180B–U+180D, U+180F', [...range(0xfe00, 0xfe0f), ...range(0x180b, 0x180d), '\u180F']],
  ['variation selectors supplement U+E0100–U+E01EF', range(0xe0100, 0xe01ef)],
  ['tag characters U+E0000–U+E007F', range(0xe0000, 0xe007f)],
  ['bidi controls U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069', ['\u061C', '\u200E', '\u200F', ...range(0x202a, 0x202e), ...range(0x2066, 0x2069)]],
  [
    'other default-ignorables (U+17B4, U+17B5, U+2065, U+FFF0–U+FFF8, U+1BCA0–U+1BCA3, U+1D173–U+1D17A, U+E0080–U+E00FF)',
    [...range(0x17b4, 0x17b5), '\u2065', ...range(0xfff0, 0xfff8), ...range(0x1bca0, 0x1bca3), ...range(0x1d173, 0x1d17a), ...range(0xe0080, 0xe00ff)],
  ],
];

/** `word` with one member of `members` between every two of its characters, cycling. */
function splitEach(word: string, members: string[]): string {
  const chars = [...word];
  return chars.map((c, i) => (i === 0 ? c : members[(i - 1) % members.length] + c)).join('');
}

/** `word` with every member of `members` at once in its middle. */
function splitAll(word: string, members: string[]): string {
  const chars = [...word];
  const mid = Math.ceil(chars.length / 2);
  return chars.slice(0, mid).join('') + members.join('') + chars.slice(mid).join('');
}

const ko = () => adultOnSurface({ locale: 'ko-KR', country: 'KR' });
const en = () => ({ ...ko(), locale: 'en-US' });

// A commercial request that serves on its own, so a missed sensitive term means an ad is served
// beside it. `{}` is where the (split) sensitive term goes.
const SENSITIVE: Array<{ lang: 'ko' | 'en'; term: string; message: string }> = [
  // (Not "요즘 {} 생각만 나": without the term, "all I think about these days is …" reads as a
  // veiled moment to the classifier retrained in session 48, and blocks on its own.)
  { lang: 'ko', term: '자살', message: '제주도 호텔 최저가 알려줘. 요즘 {} 뉴스만 봐' },
  // (Not "{} 때문에 … 가고 싶어": without the term, "because of [nothing], I want to get away"
  // reads as an escape to the classifier retrained in session 14, and blocks on its own.)
  { lang: 'ko', term: '우울증', message: '{} 있는데 다음 달 제주도 호텔 최저가 알려줘' },
  { lang: 'ko', term: '카지노', message: '제주도 {} 근처 호텔 최저가 알려줘' },
  // (Not "I keep thinking about {}": without the term, the classifier reads that as a veiled
  // moment on its own and blocks it, biased to block since relevance slice 14.)
  { lang: 'en', term: 'suicide', message: 'cheapest Jeju hotel next month, been reading about {}' },
  // Not "my {} is bad": with the word taken out, "my is bad" still reads as a complaint about
  // one's health to the classifier (recall first), so it would not serve either way.
  { lang: 'en', term: 'depression', message: 'cheapest Jeju hotel next month, asking for my {} support group' },
  { lang: 'en', term: 'casino', message: 'cheapest Jeju hotel near a {}' },
];

// Category (호텔/hotel), entity (제주도/Jeju) and purchase cue (최저가/cheapest) aliases.
const COMMERCIAL: Array<{ lang: 'ko' | 'en'; words: string[]; message: string }> = [
  { lang: 'ko', words: ['제주도', '호텔', '최저가'], message: '다음 달 {0} {1} {2} 알려줘' },
  { lang: 'en', words: ['cheapest', 'hotel', 'Jeju'], message: '{0} {1} in {2} next month?' },
];

/** `message` with `{}` (or `{0}`, `{1}`, …) replaced by `parts`. */
const fill = (message: string, parts: string[]) => parts.reduce((m, p, i) => m.replace('{}', p).replace(`{${i}}`, p), message);

describe(`invisible characters inside words (${stores})`, () => {
  let t: TestApp;
  let key: string;
  const decide = async (payload: object) => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(key), payload });
    expect(res.statusCode).toBe(200);
    return res.json() as { serve: boolean; reason_codes: string[]; advertiser?: string; title?: string };
  };

  beforeAll(async () => {
    t = await createTestApp({ decideRateLimitPerMinute: 100_000 });
    key = (await createHost(t.app, 'Invisible')).serving_key;
  });
  afterAll(() => t?.close());

  it('the messages serve without the sensitive term and block with it in plain text', async () => {
    for (const s of SENSITIVE) {
      const envelope = s.lang === 'ko' ? ko() : en();
      expect(await decide({ ...envelope, message: fill(s.message, ['']) }), `${s.term}: without`).toMatchObject({ serve: true });
      expect((await decide({ ...envelope, message: fill(s.message, [s.term]) })).reason_codes, `${s.term}: plain`).toEqual(['POLICY_BLOCK']);
    }
  });

  for (const [name, members] of CLASSES) {
    it(`POLICY_BLOCK for a sensitive term split by ${name}`, async () => {
      for (const s of SENSITIVE) {
        const envelope = s.lang === 'ko' ? ko() : en();
        for (const split of [splitEach(s.term, members), splitAll(s.term, members)]) {
          const body = await decide({ ...envelope, message: fill(s.message, [split]) });
          expect(body.reason_codes, `${s.term} split by ${name}`).toEqual(['POLICY_BLOCK']);
          expect(body.serve).toBe(false);
        }
      }
    });

    it(`a commercial message with its aliases split by ${name} serves the same offer`, async () => {
      for (const c of COMMERCIAL) {
        const envelope = c.lang === 'ko' ? ko() : en();
        const plain = await decide({ ...envelope, message: fill(c.message, c.words) });
        expect(plain, c.message).toMatchObject({ serve: true, reason_codes: ['MATCHED'] });
        for (const split of [c.words.map((w) => splitEach(w, members)), c.words.map((w) => splitAll(w, members))]) {
          const body = await decide({ ...envelope, message: fill(c.message, split) });
          expect(body, `${c.words.join(', ')} split by ${name}`).toMatchObject({
            serve: true,
            reason_codes: ['MATCHED'],
            advertiser: plain.advertiser,
            title: plain.title,
          });
        }
      }
    });
  }

  it("every code point of the runtime's Default_Ignorable_Code_Point property is removed", async () => {
    // Node's own ICU tables, independent of the core's range table: a code point the core
    // missed leaves the term split and the message served.
    const ignorable = /^\p{Default_Ignorable_Code_Point}$/u;
    const all: string[] = [];
    for (let u = 0; u <= 0x10ffff; u++) {
      if (ignorable.test(String.fromCodePoint(u))) all.push(String.fromCodePoint(u));
    }
    expect(all.length).toBeGreaterThanOrEqual(4174);
    // Messages are at most 4000 code points.
    for (let i = 0; i < all.length; i += 1500) {
      const chunk = all.slice(i, i + 1500);
      for (const s of [SENSITIVE[0], SENSITIVE[3]]) {
        const envelope = s.lang === 'ko' ? ko() : en();
        const body = await decide({ ...envelope, message: fill(s.message, [splitAll(s.term, chunk)]) });
        expect(body.reason_codes, `${s.term} split by U+${chunk[0].codePointAt(0)!.toString(16)}…`).toEqual(['POLICY_BLOCK']);
      }
    }
  });
});
