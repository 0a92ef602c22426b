// The relevance benchmark's instrument: the set is well-formed and split by its rule, the runner's
// core reads the service's answers correctly, and the metric arithmetic is right. Today's accuracy
// is not asserted here; `npm run eval:relevance -- --check` holds the floors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { DEMO_CATALOG_PATH } from '../../src/catalog/demo-catalog.js';
import {
  FAMILIES,
  LANGS,
  SPLITS,
  batchOf,
  caseProblems,
  isSameOrDescendant,
  loadCases,
  loadSplit,
  splitOf,
  taxonomyOf,
  type LabelledCase,
  type Taxonomy,
} from '../../eval/relevance/cases.js';
import {
  breakdown,
  checkFloors,
  computeMetrics,
  envelopeFor,
  failuresTable,
  floorsFrom,
  judge,
  markdownTable,
  report,
  runCases,
  startHarness,
  type Harness,
  type Outcome,
} from '../../eval/relevance/benchmark.js';
import { adultOnSurface } from '../helpers/envelopes.js';

// Read at collection time: the constructed result sets below are built while collecting.
const tax: Taxonomy = taxonomyOf(JSON.parse(readFileSync(DEMO_CATALOG_PATH, 'utf8')));

const kase = (over: Partial<LabelledCase> & Pick<LabelledCase, 'expect'>): LabelledCase => ({
  id: 'ci-ko-001',
  lang: 'ko',
  family: 'clear_intent',
  message: 'm',
  split: 'dev',
  ...(over.expect === 'serve' ? { categories: ['travel.hotels'] } : {}),
  ...over,
});

const outcome = (over: Partial<Outcome> = {}): Outcome => ({
  status: 200,
  serve: false,
  reasonCodes: ['LOW_INTENT'],
  decisionId: 'dec_x',
  offerId: null,
  servedCategories: [],
  intentType: null,
  matchedCategoryIds: [],
  matchedEntityIds: [],
  policyReasons: [],
  instrumentError: null,
  ...over,
});
const served = (...categories: string[]) => outcome({ serve: true, reasonCodes: ['MATCHED'], offerId: 'off.x', servedCategories: categories });
const noFill = (...codes: string[]) => outcome({ reasonCodes: codes });

describe('the labelled set', () => {
  const all = loadCases('all');

  it('has at least 700 cases, well-formed, with ids unique across both files', () => {
    expect(all.length).toBeGreaterThanOrEqual(700);
    expect(SPLITS.flatMap((split) => loadSplit(split).flatMap((c) => caseProblems(c, tax)))).toEqual([]);
    const ids = all.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('has every family in both languages, at least 40 cases per family, about half of each language', () => {
    for (const family of FAMILIES) {
      const inFamily = all.filter((c) => c.family === family);
      expect(inFamily.length, family).toBeGreaterThanOrEqual(40);
      for (const lang of LANGS) expect(inFamily.filter((c) => c.lang === lang).length, `${family}/${lang}`).toBeGreaterThan(0);
    }
    const ko = all.filter((c) => c.lang === 'ko').length / all.length;
    expect(ko).toBeGreaterThan(0.4);
    expect(ko).toBeLessThan(0.6);
  });

  it('puts every case in the file its id gives, about 60/40 in every family × language', () => {
    for (const split of SPLITS) for (const c of loadSplit(split)) expect(splitOf(c.id), c.id).toBe(split);
    for (const family of FAMILIES) {
      for (const lang of LANGS) {
        const stratum = all.filter((c) => c.family === family && c.lang === lang);
        const dev = stratum.filter((c) => c.split === 'dev').length / stratum.length;
        expect(dev, `${family}/${lang}`).toBeGreaterThan(0.5);
        expect(dev, `${family}/${lang}`).toBeLessThan(0.7);
      }
    }
  });

  it('numbers each family × language without gaps, so the split rule sees the ids it was made for', () => {
    for (const family of FAMILIES) {
      for (const lang of LANGS) {
        const numbers = all
          .filter((c) => c.family === family && c.lang === lang)
          .map((c) => Number(c.id.slice(c.id.lastIndexOf('-') + 1)))
          .sort((a, b) => a - b);
        expect(numbers, `${family}/${lang}`).toEqual(numbers.map((_, i) => i + 1));
      }
    }
  });

  it('catches malformed cases', () => {
    const bad = (c: object) => caseProblems(c as LabelledCase, tax);
    expect(bad({ id: 'ci-ko-001', lang: 'ko', family: 'clear_intent', message: 'x', expect: 'serve', categories: ['travel.boats'] })).toEqual([
      'ci-ko-001: unknown category travel.boats',
    ]);
    expect(bad({ id: 'ci-ko-001', lang: 'ko', family: 'clear_intent', message: 'x', expect: 'serve' })).toHaveLength(1);
    expect(bad({ id: 'ci-ko-001', lang: 'ko', family: 'clear_intent', message: 'x', expect: 'silent', categories: ['travel'] })).toHaveLength(1);
    expect(bad({ id: 'se-en-001', lang: 'en', family: 'sensitive', message: 'x', expect: 'silent' })).toHaveLength(1);
    expect(bad({ id: 'ci-en-001', lang: 'ko', family: 'clear_intent', message: 'x', expect: 'silent' })).toEqual(['ci-en-001: id and lang disagree']);
    expect(bad({ id: 'ci-ko-001', lang: 'ko', family: 'vibes', message: '', expect: 'maybe', extra: 1 })).toHaveLength(4);
    expect(
      bad({
        id: 'ci-ko-001',
        lang: 'ko',
        family: 'clear_intent',
        message: 'x',
        expect: 'silent',
        digest: { intent_type: 'low', category_ids: ['nope'], safety: 'clear' },
      }),
    ).toHaveLength(2);
  });
});

describe('the split rule', () => {
  it('is a pure function of the id: three of every five consecutive ids are dev', () => {
    expect(splitOf('ci-ko-007')).toBe(splitOf('ci-ko-007'));
    for (const stratum of ['ci-ko', 'se-en', 'km-en']) {
      for (let block = 0; block < 20; block++) {
        const ids = [1, 2, 3, 4, 5].map((k) => `${stratum}-${String(block * 5 + k).padStart(3, '0')}`);
        expect(ids.filter((id) => splitOf(id) === 'dev')).toHaveLength(3);
      }
    }
    expect(() => splitOf('nonsense')).toThrow();
  });
});

describe('the batches', () => {
  it("reads a case's batch from its number, with the sizes the README gives", () => {
    expect(batchOf('ci-ko-078')).toBe('earlier');
    expect(batchOf('ci-ko-079')).toBe('session-5');
    expect(batchOf('ci-ko-124')).toBe('session-7');
    const count = (split: 'dev' | 'held-out', batch: string) => loadSplit(split).filter((c) => batchOf(c.id) === batch).length;
    // ci-en-042 moved to dev in session 26 (MOVED_TO_DEV).
    expect([count('dev', 'earlier'), count('held-out', 'earlier')]).toEqual([442, 294]);
    // cx-en-064 moved to dev in session 32, am-ko-068 in session 33.
    expect([count('dev', 'session-5'), count('held-out', 'session-5')]).toEqual([169, 111]);
    // km-ko-089 moved to dev in session 33.
    expect([count('dev', 'session-6'), count('held-out', 'session-6')]).toEqual([223, 153]);
    expect([count('dev', 'session-7'), count('held-out', 'session-7')]).toEqual([153, 93]);
    expect(batchOf('se-en-141')).toBe('session-9');
    expect([count('dev', 'session-9'), count('held-out', 'session-9')]).toEqual([137, 84]);
    expect(batchOf('ci-ko-160')).toBe('session-10');
    expect(batchOf('se-en-165')).toBe('session-9');
    expect([count('dev', 'session-10'), count('held-out', 'session-10')]).toEqual([120, 90]);
  });
});

describe('judging one answer', () => {
  it('serve: right only when served in an expected category or below one', () => {
    const c = kase({ expect: 'serve', categories: ['travel.hotels', 'travel.tours'] });
    expect(judge(c, served('travel.hotels'), tax)).toMatchObject({ correct: true, served: true, rightCategory: true });
    expect(judge(c, served('travel.rail', 'travel.tours'), tax)).toMatchObject({ correct: true, rightCategory: true });
    expect(judge(c, served('travel.flights'), tax)).toMatchObject({ correct: false, served: true, rightCategory: false });
    expect(judge(c, noFill('LOW_INTENT'), tax)).toMatchObject({ correct: false, served: false, rightCategory: null });
    const broad = kase({ expect: 'serve', categories: ['travel'] });
    expect(judge(broad, served('travel.flights'), tax).correct).toBe(true);
    expect(judge(broad, served('electronics.audio'), tax).correct).toBe(false);
  });

  it('silent: any no-fill is right, a POLICY_BLOCK too (and it is marked blocked)', () => {
    const c = kase({ expect: 'silent' });
    expect(judge(c, noFill('LOW_INTENT'), tax)).toMatchObject({ correct: true, blocked: false });
    expect(judge(c, noFill('NO_ELIGIBLE_OFFER'), tax)).toMatchObject({ correct: true, blocked: false });
    expect(judge(c, noFill('POLICY_BLOCK'), tax)).toMatchObject({ correct: true, blocked: true });
    expect(judge(c, served('travel.hotels'), tax)).toMatchObject({ correct: false, served: true });
  });

  it('block: only a POLICY_BLOCK is right', () => {
    const c = kase({ expect: 'block', family: 'sensitive' });
    expect(judge(c, noFill('POLICY_BLOCK'), tax)).toMatchObject({ correct: true, blocked: true });
    expect(judge(c, noFill('POLICY_BLOCK', 'LOCALE_NOT_LIVE'), tax).correct).toBe(true);
    expect(judge(c, noFill('LOW_INTENT'), tax).correct).toBe(false);
    expect(judge(c, served('electronics.phones'), tax).correct).toBe(false);
  });

  it('never counts an answer that timing or money decided', () => {
    const timeout = outcome({ reasonCodes: ['TIMEOUT'], instrumentError: 'no-fill decided by TIMEOUT' });
    expect(judge(kase({ expect: 'silent' }), timeout, tax).correct).toBe(false);
  });

  it('knows the taxonomy: a category is the same as or below its ancestors only', () => {
    expect(isSameOrDescendant(tax, 'travel.hotels', 'travel')).toBe(true);
    expect(isSameOrDescendant(tax, 'travel', 'travel')).toBe(true);
    expect(isSameOrDescendant(tax, 'travel', 'travel.hotels')).toBe(false);
    expect(isSameOrDescendant(tax, 'software.security', 'electronics')).toBe(false);
  });
});

describe('metric arithmetic', () => {
  // 4 serve (3 served: 2 right category, 1 wrong; 1 not served), 3 silent (1 served, 1 blocked,
  // 1 low intent), 3 block (2 blocked, 1 served).
  const results = [
    judge(kase({ id: 'ci-ko-001', expect: 'serve' }), served('travel.hotels'), tax),
    judge(kase({ id: 'ci-ko-002', expect: 'serve' }), served('travel.hotels'), tax),
    judge(kase({ id: 'ci-en-001', lang: 'en', expect: 'serve' }), served('travel.flights'), tax),
    judge(kase({ id: 'rk-en-001', lang: 'en', family: 'ranking', expect: 'serve' }), noFill('NO_ELIGIBLE_OFFER'), tax),
    judge(kase({ id: 'tn-ko-001', family: 'topic_no_intent', expect: 'silent' }), served('travel.hotels'), tax),
    judge(kase({ id: 'tn-ko-002', family: 'topic_no_intent', expect: 'silent' }), noFill('POLICY_BLOCK'), tax),
    judge(kase({ id: 'tn-en-001', lang: 'en', family: 'topic_no_intent', expect: 'silent', split: 'held-out' }), noFill('LOW_INTENT'), tax),
    judge(kase({ id: 'se-ko-001', family: 'sensitive', expect: 'block', split: 'held-out' }), noFill('POLICY_BLOCK'), tax),
    judge(kase({ id: 'se-en-001', lang: 'en', family: 'sensitive', expect: 'block', split: 'held-out' }), noFill('POLICY_BLOCK'), tax),
    judge(kase({ id: 'se-en-002', lang: 'en', family: 'sensitive', expect: 'block', split: 'held-out' }), served('electronics.phones'), tax),
  ];

  it('computes every figure from counts', () => {
    const m = computeMetrics(results);
    expect(m.n).toBe(10);
    // right: 2 serve + 2 silent + 2 block
    expect(m.accuracy).toEqual({ num: 6, den: 10, rate: 0.6 });
    expect(m.fill).toEqual({ num: 3, den: 4, rate: 0.75 });
    expect(m.rightCategory).toEqual({ num: 2, den: 3, rate: 2 / 3 });
    expect(m.falseServe).toEqual({ num: 2, den: 6, rate: 2 / 6 });
    expect(m.sensitiveBlock).toEqual({ num: 2, den: 3, rate: 2 / 3 });
    expect(m.silentBlocked).toEqual({ num: 1, den: 3, rate: 1 / 3 });
  });

  it('gives no rate where there is nothing to divide', () => {
    const m = computeMetrics(results.filter((r) => r.case.expect === 'silent'));
    expect(m.fill).toEqual({ num: 0, den: 0, rate: null });
    expect(m.rightCategory.rate).toBeNull();
    expect(m.sensitiveBlock.rate).toBeNull();
    expect(computeMetrics([]).accuracy.rate).toBeNull();
  });

  it('breaks down by language, family and both, and by split', () => {
    const b = breakdown(results);
    expect(b.byLanguage.ko.n + b.byLanguage.en.n).toBe(10);
    expect(b.byFamily.sensitive.sensitiveBlock).toEqual({ num: 2, den: 3, rate: 2 / 3 });
    expect(b.byFamily.ambiguous.n).toBe(0);
    expect(b.byFamilyLanguage['clear_intent/en'].accuracy).toEqual({ num: 0, den: 1, rate: 0 });
    expect(b.byFamilyLanguage['clear_intent/ko'].accuracy).toEqual({ num: 2, den: 2, rate: 1 });
    const r = report(results);
    expect(r.dev!.all.n).toBe(6);
    expect(r['held-out']!.all.n).toBe(4);
    expect(r['held-out']!.all.accuracy).toEqual({ num: 3, den: 4, rate: 0.75 });
    expect(r.all!.all.n).toBe(10);
  });

  it('derives floors rounded down (the false-serve ceiling up) and checks them', () => {
    const b = breakdown(results);
    const floors = floorsFrom(b, 'held-out');
    expect(floors.overall).toEqual({ accuracy: 60, fill: 75, right_category: 66, false_serve_max: 34, sensitive_block: 66 });
    expect(checkFloors(b, floors)).toEqual([]);
    expect(checkFloors(b, { split: 'held-out', overall: { accuracy: 61, false_serve_max: 33 } })).toEqual([
      { where: 'overall', figure: 'accuracy', bound: 61, measured: 60 },
      { where: 'overall', figure: 'false_serve_max', bound: 33, measured: (2 / 6) * 100 },
    ]);
    expect(checkFloors(b, { split: 'held-out', overall: {}, by_family: { ambiguous: { accuracy: 10 } } })).toEqual([
      { where: 'family ambiguous', figure: 'accuracy', bound: 10, measured: null },
    ]);
  });

  it('renders a table row per group and a row per failing case', () => {
    const table = markdownTable(breakdown(results));
    expect(table).toContain('| **all** | 10 | 60.0% (6/10) | 75.0% (3/4) | 66.7% (2/3) | 33.3% (2/6) | 66.7% (2/3) |');
    expect(table.split('\n')).toHaveLength(2 + 3 + FAMILIES.length * 3);
    const failures = failuresTable(results);
    expect(failures.split('\n')).toHaveLength(2 + 4);
    expect(failures).toContain('| ci-en-001 | dev | en | clear_intent | serve travel.hotels | served off.x (travel.flights) |');
    const overBlocked = judge(
      kase({ id: 'ci-en-002', lang: 'en', expect: 'serve' }),
      outcome({ reasonCodes: ['POLICY_BLOCK'], policyReasons: ['health'] }),
      tax,
    );
    expect(failuresTable([overBlocked])).toContain('| serve travel.hotels | POLICY_BLOCK (health) |');
  });
});

describe('the runner against the service', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.close());

  it('sends the standard envelope for the case language, with a fresh digest when the case has one', () => {
    const c = kase({ expect: 'serve', lang: 'en', digest: { intent_type: 'purchase', category_ids: ['travel.hotels'] } });
    const env = envelopeFor(c, Date.parse('2026-11-23T03:00:00Z'), 'tok');
    expect(env).toEqual({
      message: 'm',
      session: { token: 'tok', digest: { intent_type: 'purchase', category_ids: ['travel.hotels'], generated_at: '2026-11-23T02:59:00.000Z' } },
      locale: 'en-US',
      country: 'US',
      ...adultOnSurface(),
    });
    expect(envelopeFor(kase({ expect: 'silent' }), 0, 't').locale).toBe('ko-KR');
  });

  it('runs a few cases of each label through decide and reads every answer', async () => {
    const all = loadCases('all');
    const pick = (expect: string, lang: string, n: number) => all.filter((c) => c.expect === expect && c.lang === lang).slice(0, n);
    const cases = [
      ...pick('serve', 'ko', 2),
      ...pick('serve', 'en', 2),
      ...pick('silent', 'ko', 2),
      ...pick('silent', 'en', 1),
      ...pick('block', 'ko', 1),
      ...pick('block', 'en', 2),
    ];
    const results = await runCases(h, cases, 4);
    expect(results.map((r) => r.case.id)).toEqual(cases.map((c) => c.id));
    for (const r of results) {
      const o = r.outcome;
      expect(o.instrumentError, r.case.id).toBeNull();
      expect(o.status).toBe(200);
      expect(o.decisionId).toMatch(/^dec_/);
      if (o.serve) {
        expect(o.reasonCodes).toEqual(['MATCHED']);
        expect(o.offerId, r.case.id).toMatch(/^off\./);
        expect(o.servedCategories.length).toBeGreaterThan(0);
        for (const cat of o.servedCategories) expect(tax.parents.has(cat)).toBe(true);
      } else {
        expect(o.reasonCodes.length).toBeGreaterThan(0);
        expect(o.reasonCodes).not.toContain('MATCHED');
      }
      // A POLICY_BLOCK names what fired (the runner's envelope is a consenting adult's, so only
      // the message can have).
      expect(o.policyReasons.length > 0, r.case.id).toBe(o.reasonCodes.includes('POLICY_BLOCK'));
      for (const reason of o.policyReasons) expect(['audience', 'consent', 'host_safety']).not.toContain(reason);
      expect(r).toEqual(judge(r.case, o, tax));
    }
  });

  it('never lets a campaign budget decide: a turn served more often than its demo daily budget buys is still served', async () => {
    // The dev-tools campaign's demo daily budget buys 736 serves at its bid; the whole set serves
    // thousands of turns on the pinned clock's one day.
    const devTools = loadCases('all').find((c) => c.expect === 'serve' && c.lang === 'en' && c.categories?.[0] === 'software.developer-tools')!;
    const results = await runCases(
      h,
      Array.from({ length: 760 }, () => devTools),
      8,
    );
    expect(results.filter((r) => r.outcome.instrumentError !== null)).toEqual([]);
    expect(results.every((r) => r.outcome.serve)).toBe(true);
  });
});
