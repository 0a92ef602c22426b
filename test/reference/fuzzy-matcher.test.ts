// The TypeScript fuzzy matcher: the rules on the cases the core's unit tests use, and a
// differential check against the core itself (crates/sidenote-core/examples/fuzzy.rs) on a few
// thousand random perturbed messages.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FuzzyMatcher, loadCommonWords, singleEdit, type ByteSpan, type FuzzyHit } from '../../testkit/matching-reference/fuzzy-matcher.js';
import { normalize } from '../../testkit/matching-reference/reference-matcher.js';

const CATALOG = [
  'laptop',
  'iphone',
  'iphone 16',
  'headphones',
  'earbuds',
  'antivirus',
  'airpods',
  'airpods pro',
  'macbook',
  'macbook pro',
  'hotel',
  'train',
  'paris',
  'apple',
  'watch',
  'speaker',
  'galaxy s25',
  'ipad',
  'sony',
  'car pet',
  '제주도',
  'wh-1000xm5',
];

const matcher = (aliases: string[]) => new FuzzyMatcher(aliases.map((a, i) => [a, i] as const));
const catalog = matcher(CATALOG);
const found = (text: string) => catalog.find(text, []).map(([, , id]) => CATALOG[id]);

describe('fuzzy matcher (TypeScript twin)', () => {
  it('finds an alias one typo away: substitution, insertion, deletion, transposition', () => {
    expect(found('is this labtop any good')).toEqual(['laptop']);
    expect(found('iphoone')).toEqual(['iphone']);
    expect(found('headphnes for running')).toEqual(['headphones']);
    expect(found('the new macbok')).toEqual(['macbook']);
    expect(found('one airpod is lost')).toEqual(['airpods']);
    expect(found('iphnoe or pixel?')).toEqual(['iphone']);
    expect(found('best antivirsu')).toEqual(['antivirus']);
  });

  it('joins split words and splits joined ones', () => {
    expect(found('a lap top for school')).toEqual(['laptop']);
    expect(found('head phones')).toEqual(['headphones']);
    expect(found('anti virus software')).toEqual(['antivirus']);
    expect(found('ear buds')).toEqual(['earbuds']);
    expect(found('airpodspro case')).toEqual(['airpods pro']);
    expect(found('iphone16')).toEqual(['iphone 16']);
  });

  it('takes plurals, even when they are common words', () => {
    expect(found('laptops under $1000')).toEqual(['laptop']);
    expect(found('cheap hotels')).toEqual(['hotel']);
    expect(found('smart watches')).toEqual(['watch']);
    expect(found('speakers')).toEqual(['speaker']);
  });

  it('finds two words with one typo, leftmost-longest', () => {
    expect(found('iphnoe 16 deals')).toEqual(['iphone 16']);
    expect(found('macbok pro vs air')).toEqual(['macbook pro']);
    expect(found('airpods por')).toEqual(['airpods pro']);
  });

  it('never takes a common English word for a typo', () => {
    for (const text of ['use your brain', 'two pairs of socks', 'how to apply', 'a cheap motel', 'white sneaker', 'match the colors', 'a new carpet']) {
      expect(found(text), text).toEqual([]);
    }
    expect(loadCommonWords().has('brain')).toBe(true);
    expect(loadCommonWords().has('labtop')).toBe(false);
  });

  it('never matches short aliases fuzzily', () => {
    for (const text of ['ipda mini', 'ipads', 'sonny']) expect(found(text), text).toEqual([]);
  });

  it('keeps digits exact', () => {
    for (const text of ['iphone 15', 'iphone 166', 'iphone 16s', 'galaxy s24', 'galaxy a25', '1phone', '16 pro', '2024']) {
      expect(found(text), text).toEqual([]);
    }
  });

  it('leaves exact matches and known aliases to the exact matcher', () => {
    for (const text of ['laptop', 'iphone 16', 'airpods pro']) expect(found(text), text).toEqual([]);
    expect(matcher(['laptop', 'labtop']).find('labtop', [])).toEqual([]);
  });

  it('skips tokens inside covered spans', () => {
    expect(catalog.find('my labtop', [[3, 9]])).toEqual([]);
    expect(catalog.find('my labtop', [[5, 6]])).toEqual([]);
    expect(catalog.find('my labtop', [[0, 2]])).toEqual([[3, 9, 0]]);
    expect(catalog.find('lap top', [[4, 7]])).toEqual([]);
  });

  it('treats Hangul and other letters as word characters, and counts UTF-8 bytes', () => {
    for (const text of ['labtop을 추천해줘', '노트북labtop', 'labtopé', '제주도 호텔']) expect(found(text), text).toEqual([]);
    expect(catalog.find('제주 labtop 추천', [])).toEqual([[7, 13, 0]]);
    expect(catalog.find('(labtop)', [])).toEqual([[1, 7, 0]]);
    expect(catalog.find('😀 labtop', [])).toEqual([[5, 11, 0]]);
  });

  it('lets a common word be the typo in a two-word alias that names a thing, not in a cue', () => {
    const m = new FuzzyMatcher([
      ['password manager', 0, true],
      ['already booked', 1, false],
      ['note taking', 2, true],
    ]);
    expect(m.find('password manger for my family', [])).toEqual([[0, 15, 0]]);
    expect(m.find('i already looked at it', [])).toEqual([]);
    expect(m.find('nose taking', [])).toEqual([]);
    expect(matcher(['password manager']).find('password manger', [])).toEqual([]);
  });

  it('only inserts or deletes spaces', () => {
    expect(found('la top')).toEqual([]);
  });

  it('reports every alias at the chosen span', () => {
    const m = new FuzzyMatcher([
      ['laptop', 7],
      ['laptop', 3],
      ['labtops', 9],
    ]);
    expect(m.find('labtop', [])).toEqual([
      [0, 6, 3],
      [0, 6, 7],
      [0, 6, 9],
    ]);
  });

  it('finds a single edit exactly when the optimal string alignment distance is 1', () => {
    const osa = (a: string, b: string) => {
      const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
      for (let i = 1; i <= a.length; i++) {
        for (let j = 1; j <= b.length; j++) {
          d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
          if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
      return d[a.length][b.length];
    };
    const strings = [''];
    for (let len = 1, level = ['']; len <= 4; len++) {
      level = level.flatMap((s) => ['a', 'b', 'c'].map((c) => s + c));
      strings.push(...level);
    }
    for (const a of strings) for (const b of strings) expect(singleEdit(a, b) !== null, `${a} ${b}`).toBe(osa(a, b) === 1);
  });
});

describe('fuzzy matcher: TypeScript and Rust agree', () => {
  it('on a few thousand random perturbed messages', () => {
    let state = 0x2545f491;
    const rand = (n: number) => {
      // xorshift32: reproducible.
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return (state >>> 0) % n;
    };
    const pick = <T>(xs: readonly T[]) => xs[rand(xs.length)];

    // The demo catalog's English aliases, as the core would normalise them, and invented ones.
    const demo = JSON.parse(readFileSync(path.resolve('catalog/demo.json'), 'utf8')).taxonomy;
    const demoAliases: string[] = [...demo.categories, ...demo.entities, ...demo.sensitive_topics].flatMap((x: { aliases: { en: string[]; ko: string[] } }) => [
      ...x.aliases.en,
      ...x.aliases.ko,
    ]);
    demoAliases.push(...demo.intent_cues.purchase.en, ...demo.intent_cues.compare.en);
    const syllables = ['zen', 'tra', 'ko', 'rav', 'lum', 'bri', 'sto', 'vex', 'mar', 'quo', 'pel', 'dri'];
    const invented = Array.from({ length: 150 }, () => {
      const brand = Array.from({ length: 2 + rand(2) }, () => pick(syllables)).join('');
      return [brand, `${brand} ${pick(['pro', 'air', 'max', 'mini', 'watch', 'buds'])}`, `${brand} ${1 + rand(20)}`, `${brand}s`, `${brand}ch`][rand(5)];
    });
    const aliasTexts = [...new Set([...demoAliases.map(normalize), ...CATALOG, ...invented, 'glass', 'box', 'brush'])].filter(Boolean);
    const aliases: [string, number][] = aliasTexts.map((a, i) => [a, i]);

    const common = [...loadCommonWords()];
    const fillers = ['the', 'a', 'my', 'for', 'is', 'i', 'and', 'to', '16', 's25', 'top', 'lap', 'es', 's', '2024', 'x'];
    const alphabet = 'aeiostnrp 1605'.split('');
    const perturb = (word: string) => {
      let w = word;
      for (let k = 0, edits = rand(4) === 0 ? 2 : 1; k < edits; k++) {
        const p = rand(w.length + 1);
        const c = pick(alphabet);
        switch (rand(6)) {
          case 0:
            if (p < w.length) w = w.slice(0, p) + c + w.slice(p + 1);
            break;
          case 1:
            w = w.slice(0, p) + c + w.slice(p);
            break;
          case 2:
            if (p < w.length) w = w.slice(0, p) + w.slice(p + 1);
            break;
          case 3:
            if (p + 1 < w.length) w = w.slice(0, p) + w[p + 1] + w[p] + w.slice(p + 2);
            break;
          case 4:
            w += pick(['s', 'es']);
            break;
          default:
            w = w.replace(' ', '');
        }
      }
      return w;
    };
    const separators = [' ', ' ', ' ', ' ', ', ', '. ', '을 ', '-', ' 😀 ', 'é ', '? ', ' (', ') '];
    const messages: { text: string; covered: ByteSpan[] }[] = [];
    for (let m = 0; m < 3000; m++) {
      let text = '';
      for (let k = 0, n = 1 + rand(12); k < n; k++) {
        const source = rand(10);
        const word = source < 6 ? pick(aliasTexts) : source < 8 ? pick(common) : pick(fillers);
        text += (rand(3) === 0 ? word : perturb(word)) + pick(separators);
      }
      if (rand(10) === 0) text = text.toUpperCase();
      const bytes = Buffer.byteLength(text);
      const covered: ByteSpan[] = [];
      for (let k = rand(3); k > 0; k--) {
        const s = rand(bytes + 1);
        covered.push([s, s + rand(12)]);
      }
      messages.push({ text, covered });
    }

    // About half the aliases name a thing: a common word may then be their typo in a pair.
    const things = aliases.filter(() => rand(2) === 0).map(([, id]) => id);
    const thingSet = new Set(things);
    const ts = new FuzzyMatcher(aliases.map(([a, id]) => [a, id, thingSet.has(id)] as const));
    const expected = messages.map((m) => ts.find(m.text, m.covered));
    const output = execFileSync('cargo', ['run', '--release', '-q', '-p', 'sidenote-core', '--example', 'fuzzy'], {
      input: JSON.stringify({ aliases, things, messages }),
      maxBuffer: 256 * 1024 * 1024,
      encoding: 'utf8',
    });
    const actual: FuzzyHit[][] = JSON.parse(output);
    const differences = messages.flatMap((m, i) =>
      JSON.stringify(actual[i]) === JSON.stringify(expected[i]) ? [] : [{ ...m, rust: actual[i], ts: expected[i] }],
    );
    expect(differences.slice(0, 5)).toEqual([]);
    expect(actual).toHaveLength(messages.length);
    // The random edits reach enough hits for the comparison to mean something (about a third of
    // the messages; the share moves a little with the demo catalog's aliases, which the words are
    // drawn from).
    expect(expected.filter((h) => h.length > 0).length).toBeGreaterThan(messages.length / 4);
  }, 600_000);
});
