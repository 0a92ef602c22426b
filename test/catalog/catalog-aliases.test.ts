// Catalog import refuses aliases that would match (nearly) every message: empty, punctuation or
// symbols only, one letter or one Hangul syllable, a number of fewer than 3 digits. Every alias
// list is checked (categories, entities, sensitive topics, intent cues), and every problem of a
// file is reported by its JSON path, not only the first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, usingRealPostgres, usingRealRedis, type TestApp } from '../helpers/test-env.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { CatalogValidationError, MAX_LISTED_PROBLEMS, validateCatalog } from '../../src/catalog/catalog-validation.js';
import type { CatalogInput } from '../../src/catalog/catalog-schema.js';

const stores = `${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'in-process counters'}`;

function problemsOf(c: CatalogInput): string[] {
  try {
    validateCatalog(c);
  } catch (err) {
    expect(err).toBeInstanceOf(CatalogValidationError);
    return (err as CatalogValidationError).problems;
  }
  return [];
}

/** The mini catalog with one bad alias in every alias list, and the path each must be named by. */
function catalogWithBadAliases(): { catalog: CatalogInput; expected: Array<[string, RegExp]> } {
  const c = miniCatalog();
  const t = c.taxonomy;
  t.categories![2].aliases!.en = ['electronics', 'a']; // one Latin letter
  t.categories![0].aliases!.ko = ['여행', '   ']; // empty after trimming
  t.categories![1].aliases!.en = ['hotel', 'Ｈ']; // full-width: still one letter
  t.entities![0].aliases!.en = ['jeju', '...']; // punctuation only
  t.entities![1].weak_aliases = { ko: ['폰'], en: [] }; // one Hangul syllable, continued by design in a weak alias
  t.entities![2].aliases!.en = ['🙂']; // an emoji
  t.sensitive_topics![0].aliases!.en = ['depression', '5']; // one digit
  t.sensitive_topics![1].aliases!.ko = ['\u200b\u200b']; // invisible characters only
  t.intent_cues!.purchase!.en = ['buy', '$'];
  t.intent_cues!.compare!.en = ['16', 'compare']; // a two-digit number
  return {
    catalog: c,
    expected: [
      ['taxonomy.categories[2].aliases.en[1]', /at least 2 letters or digits/],
      ['taxonomy.categories[0].aliases.ko[1]', /must not be empty/],
      ['taxonomy.categories[1].aliases.en[1]', /at least 2 letters or digits/],
      ['taxonomy.entities[0].aliases.en[1]', /must contain a letter or digit/],
      ['taxonomy.entities[1].weak_aliases.ko[0]', /at least 2 letters or digits/],
      ['taxonomy.entities[2].aliases.en[0]', /must contain a letter or digit/],
      ['taxonomy.sensitive_topics[0].aliases.en[1]', /at least 3 digits/],
      ['taxonomy.sensitive_topics[1].aliases.ko[0]', /must contain a letter or digit/],
      ['taxonomy.intent_cues.purchase.en[1]', /must contain a letter or digit/],
      ['taxonomy.intent_cues.compare.en[0]', /at least 3 digits/],
    ],
  };
}

describe('catalog aliases', () => {
  it('refuses every alias that matches nearly everything, in every alias list, each named by its path', () => {
    const { catalog, expected } = catalogWithBadAliases();
    const problems = problemsOf(catalog);
    for (const [path, rule] of expected) {
      const line = problems.find((p) => p.startsWith(`${path}: `));
      expect(line, `${path} in ${JSON.stringify(problems)}`).toBeDefined();
      expect(line).toMatch(rule);
    }
    // One problem per bad alias, nothing else.
    expect(problems).toHaveLength(expected.length);
  });

  it('accepts short aliases that are still specific', () => {
    const c = miniCatalog();
    c.taxonomy.entities![1].aliases!.en = ['iphone', 'lg', 'x1', '5g', 'ｉｐｈｏｎｅ', 'iphone 16'];
    // One Hangul syllable names a thing as a word of its own (text_match.rs): 폰, 괌.
    c.taxonomy.entities![1].aliases!.ko = ['아이폰', '제주', 'ㅇㅇ폰', '폰'];
    c.taxonomy.categories![0].aliases!.ko = ['괌'];
    c.taxonomy.intent_cues!.compare!.en = ['vs', 'compare'];
    c.taxonomy.categories![0].aliases!.en = ['travel', '747', '2026'];
    expect(problemsOf(c)).toEqual([]);
  });

  it('lists every problem of a file with many, up to the cap, and says how many more there are', () => {
    const many = miniCatalog();
    many.taxonomy.categories![0].aliases!.en = Array.from({ length: 120 }, (_, i) => String.fromCharCode(97 + (i % 26)));
    const problems = problemsOf(many);
    expect(problems).toHaveLength(120);
    expect(new Set(problems).size).toBe(120);
    expect(problems[119]).toMatch(/^taxonomy\.categories\[0\]\.aliases\.en\[119\]: /);

    const tooMany = miniCatalog();
    tooMany.taxonomy.categories![0].aliases!.en = Array.from({ length: 200 }, () => 'x');
    tooMany.taxonomy.categories![1].aliases!.en = Array.from({ length: 200 }, () => '!');
    tooMany.taxonomy.sensitive_topics![0].aliases!.ko = Array.from({ length: 50 }, () => '가');
    const capped = problemsOf(tooMany);
    expect(capped).toHaveLength(MAX_LISTED_PROBLEMS + 1);
    expect(capped[MAX_LISTED_PROBLEMS]).toBe(`… and ${450 - MAX_LISTED_PROBLEMS} more problems not listed`);
  });
});

describe(`catalog aliases over the admin API (${stores})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ loadDemoCatalog: false });
    expect((await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() })).statusCode).toBe(200);
  });
  afterAll(() => t?.close());

  it('400 invalid_catalog listing every bad alias, and the live catalog is unchanged', async () => {
    const before = (await t.app.inject({ method: 'GET', url: '/admin/catalog', headers: ADMIN })).json();
    const { catalog, expected } = catalogWithBadAliases();
    const res = await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: catalog });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_catalog');
    const problems: string[] = res.json().problems;
    for (const [path] of expected)
      expect(
        problems.some((p) => p.startsWith(`${path}: `)),
        path,
      ).toBe(true);
    expect((await t.app.inject({ method: 'GET', url: '/admin/catalog', headers: ADMIN })).json()).toEqual(before);
  });
});
