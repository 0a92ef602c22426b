// The relevance benchmark's core: an in-process Sidenote on the demo catalog, a standard envelope
// per case, the judgement of each answer against its label, and the metric arithmetic. run.ts
// is the command line around it; test/eval/relevance-runner.test.ts tests it.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { parseConfig } from '../../src/config/config.js';
import { readDemoCatalog } from '../../src/catalog/demo-catalog.js';
import { FAMILIES, LANGS, isSameOrDescendant, taxonomyOf, type Expect, type LabelledCase, type RelevanceCase, type Split, type Taxonomy } from './cases.js';

/** The clock the benchmark runs at unless told otherwise: the day the set was labelled. Campaign
 *  windows (starts_at / ends_at) are read against it, so a campaign ending next spring does not
 *  change the figures by itself. */
export const DEFAULT_EVAL_NOW = '2026-11-23T03:00:00.000Z';

// ---------------------------------------------------------------------------------------------
// The service under test

export interface Harness {
  app: FastifyInstance;
  key: string;
  taxonomy: Taxonomy;
  nowMs: number;
  /** Snapshot id → the catalog offer it froze (what the served offer targets). */
  snapshot(id: string): Promise<SnapshotInfo | null>;
  close(): Promise<void>;
}

export interface SnapshotInfo {
  offerId: string;
  campaignId: string;
  categoryIds: string[];
  entityIds: string[];
}

export interface HarnessOptions {
  /** ISO time the service's clock is pinned to (campaign windows, digest freshness). */
  now?: string;
  logLevel?: 'silent' | 'error' | 'warn' | 'info';
}

/** A budget no run of the benchmark can spend (a thousand billion micro-units). */
const UNSPENDABLE_MICROS = 1e15;

/** Sidenote in this process on an in-memory PGlite with the demo catalog, the decide budget, the
 *  rate limit and every campaign's spend budget raised so that neither timing, the limit nor a
 *  budget ever decides an outcome, and a live serving key made through the admin API. */
export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const nowMs = Date.parse(opts.now ?? DEFAULT_EVAL_NOW);
  if (!Number.isFinite(nowMs)) throw new Error(`--now ${opts.now} is not an ISO time`);
  const adminKey = `eval-admin-${randomBytes(16).toString('hex')}`;
  const config = parseConfig({
    port: 0,
    host: '127.0.0.1',
    baseUrl: 'http://sidenote.eval',
    dataDir: 'memory',
    logLevel: opts.logLevel ?? 'error',
    loadDemoCatalog: true,
    adminKey,
    decideTimeBudgetMs: 2_000,
    decideRateLimitPerMinute: 1_000_000,
    catalogPollMs: 600_000,
    spendSettleMs: 20,
  });
  const app = await buildApp(config, { now: () => nowMs });
  try {
    await app.ready();
    const created = await app.inject({
      method: 'POST',
      url: '/admin/apps',
      headers: { authorization: `Bearer ${adminKey}` },
      payload: { name: 'relevance benchmark' },
    });
    if (created.statusCode !== 201) throw new Error(`creating the benchmark app: HTTP ${created.statusCode} ${created.body}`);
    const key = created.json().serving_key as string;
    const catalog = (await readDemoCatalog()) as Parameters<typeof taxonomyOf>[0] & { campaigns: { id: string }[] };
    // Every decide of a run falls on the pinned clock's one day: the demo budgets would run out
    // over a set of thousands of serving turns, and a budget must never decide an answer here.
    for (const { id } of catalog.campaigns) {
      const raised = await app.inject({
        method: 'PATCH',
        url: `/admin/campaigns/${encodeURIComponent(id)}/control`,
        headers: { authorization: `Bearer ${adminKey}` },
        payload: { budget: { total_micros: UNSPENDABLE_MICROS, daily_micros: UNSPENDABLE_MICROS }, changed_by: 'relevance benchmark' },
      });
      if (raised.statusCode !== 200) throw new Error(`raising the budget of ${id}: HTTP ${raised.statusCode} ${raised.body}`);
    }
    const taxonomy = taxonomyOf(catalog);
    const snapshots = new Map<string, SnapshotInfo | null>();
    return {
      app,
      key,
      taxonomy,
      nowMs,
      async snapshot(id) {
        if (!snapshots.has(id)) {
          // Snapshots are immutable: the row is what was served.
          const r = await app.db.query<{
            content: { offer: { id: string; campaign_id: string; targeting?: { category_ids?: string[]; entity_ids?: string[] } } };
          }>('SELECT content FROM offer_snapshots WHERE id = $1', [id]);
          const offer = r.rows[0]?.content.offer;
          snapshots.set(
            id,
            offer
              ? {
                  offerId: offer.id,
                  campaignId: offer.campaign_id,
                  categoryIds: offer.targeting?.category_ids ?? [],
                  entityIds: offer.targeting?.entity_ids ?? [],
                }
              : null,
          );
        }
        return snapshots.get(id)!;
      },
      close: () => app.close(),
    };
  } catch (err) {
    await app.close().catch(() => {});
    throw err;
  }
}

/** The standard envelope of a case: its language's locale and country, consent, 18_plus, both
 *  surface flags, a fresh session token, and the case's digest (fresh: one minute old). */
export function envelopeFor(c: RelevanceCase, nowMs: number, sessionToken: string) {
  const ko = c.lang === 'ko';
  return {
    message: c.message,
    session: {
      token: sessionToken,
      ...(c.digest ? { digest: { ...c.digest, generated_at: new Date(nowMs - 60_000).toISOString() } } : {}),
    },
    locale: ko ? 'ko-KR' : 'en-US',
    country: ko ? 'KR' : 'US',
    audience: { age_band: '18_plus', contextual_offer_consent: true },
    native_surface: { clickable: true, disclosure_capable: true },
  };
}

// ---------------------------------------------------------------------------------------------
// One case

/** What the service answered, as far as the judgement needs it. */
export interface Outcome {
  status: number;
  serve: boolean;
  reasonCodes: string[];
  decisionId: string | null;
  /** Served: the catalog offer behind the snapshot and the categories it targets. */
  offerId: string | null;
  servedCategories: string[];
  /** From the decision record (GET /v1/decisions/{id}), for reading failures: the effective
   *  intent, and the matched ids (a served decision records the winner's matches, a no-fill the
   *  turn's signals). */
  intentType: string | null;
  matchedCategoryIds: string[];
  matchedEntityIds: string[];
  /** A POLICY_BLOCK's reasons, from the decision's explanation (`sensitive:<family>`, or
   *  `sensitive` alone when only the learned classifier fired): which gate over-blocks. */
  policyReasons: string[];
  /** Why this answer cannot be judged (not a 200, or a no-fill that timing or money decided). */
  instrumentError: string | null;
}

/** No-fills the benchmark must never see: they would mean timing, budgets or frequency decided
 *  an outcome, not matching. */
export const INSTRUMENT_CODES = ['TIMEOUT', 'BUDGET_EXHAUSTED', 'FREQUENCY_CAPPED'];

export async function decideCase(h: Harness, c: RelevanceCase): Promise<Outcome> {
  const auth = { authorization: `Bearer ${h.key}` };
  const res = await h.app.inject({
    method: 'POST',
    url: '/v1/offers/decide',
    headers: auth,
    payload: envelopeFor(c, h.nowMs, `eval-${c.id}-${randomBytes(6).toString('hex')}`),
  });
  const out: Outcome = {
    status: res.statusCode,
    serve: false,
    reasonCodes: [],
    decisionId: null,
    offerId: null,
    servedCategories: [],
    intentType: null,
    matchedCategoryIds: [],
    matchedEntityIds: [],
    policyReasons: [],
    instrumentError: null,
  };
  if (res.statusCode !== 200) {
    out.instrumentError = `HTTP ${res.statusCode}: ${res.body.slice(0, 200)}`;
    return out;
  }
  const body = res.json() as { serve: boolean; reason_codes: string[]; decision_id: string; offer_id?: string };
  out.serve = body.serve === true;
  out.reasonCodes = body.reason_codes ?? [];
  out.decisionId = body.decision_id ?? null;
  const instrument = out.reasonCodes.filter((r) => INSTRUMENT_CODES.includes(r));
  if (instrument.length > 0) out.instrumentError = `no-fill decided by ${instrument.join(', ')}`;
  if (out.serve) {
    const snap = body.offer_id ? await h.snapshot(body.offer_id) : null;
    if (!snap) out.instrumentError = `served snapshot ${body.offer_id} not found`;
    else {
      out.offerId = snap.offerId;
      out.servedCategories = snap.categoryIds;
    }
  }
  if (out.decisionId) {
    const d = await h.app.inject({ method: 'GET', url: `/v1/decisions/${out.decisionId}`, headers: auth });
    if (d.statusCode === 200) {
      const m = d.json() as { intent_type: string | null; matched_category_ids: string[]; matched_entity_ids: string[] };
      out.intentType = m.intent_type;
      out.matchedCategoryIds = m.matched_category_ids ?? [];
      out.matchedEntityIds = m.matched_entity_ids ?? [];
    }
    if (out.reasonCodes.includes('POLICY_BLOCK')) {
      const e = await h.app.inject({ method: 'GET', url: `/v1/decisions/${out.decisionId}/explanation`, headers: auth });
      if (e.statusCode === 200) out.policyReasons = (e.json() as { parameters: { policy: string[] } }).parameters.policy ?? [];
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Judgement

export interface CaseResult {
  case: LabelledCase;
  outcome: Outcome;
  served: boolean;
  blocked: boolean;
  /** serve cases that were served: did the offer target an acceptable category? */
  rightCategory: boolean | null;
  correct: boolean;
}

/** serve: served, and the offer targets an expected category or a descendant of one.
 *  silent: any no-fill (a POLICY_BLOCK too; it is counted separately). block: POLICY_BLOCK.
 *  An answer with an instrument error is never right (the command line refuses such a run). */
export function judge(c: LabelledCase, o: Outcome, tax: Taxonomy): CaseResult {
  const served = o.serve;
  const blocked = !served && o.reasonCodes.includes('POLICY_BLOCK');
  const rightCategory =
    c.expect === 'serve' && served ? o.servedCategories.some((got) => (c.categories ?? []).some((want) => isSameOrDescendant(tax, got, want))) : null;
  // An answer that timing or money decided says nothing about matching: never counted right.
  const correct = o.instrumentError === null && (c.expect === 'serve' ? served && rightCategory === true : c.expect === 'silent' ? !served : blocked);
  return { case: c, outcome: o, served, blocked, rightCategory, correct };
}

/** Runs cases through decide with at most `concurrency` in flight; results keep input order. */
export async function runCases(h: Harness, cases: LabelledCase[], concurrency = 8): Promise<CaseResult[]> {
  const results: CaseResult[] = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const i = next++;
      results[i] = judge(cases[i], await decideCase(h, cases[i]), h.taxonomy);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, cases.length)) }, worker));
  return results;
}

// ---------------------------------------------------------------------------------------------
// Metrics

export interface Ratio {
  num: number;
  den: number;
  /** num / den, or null when there is nothing to divide. */
  rate: number | null;
}

export interface Metrics {
  n: number;
  /** Outcome right (and, for serve, the right category). */
  accuracy: Ratio;
  /** Served, among serve cases. */
  fill: Ratio;
  /** Right category, among serve cases that were served. */
  rightCategory: Ratio;
  /** Served, among silent + block cases (lower is better). */
  falseServe: Ratio;
  /** POLICY_BLOCK, among block cases. */
  sensitiveBlock: Ratio;
  /** POLICY_BLOCK on silent cases: right, but reported. */
  silentBlocked: Ratio;
}

const ratio = (num: number, den: number): Ratio => ({ num, den, rate: den === 0 ? null : num / den });

export function computeMetrics(results: CaseResult[]): Metrics {
  const of = (e: Expect) => results.filter((r) => r.case.expect === e);
  const serve = of('serve');
  const silent = of('silent');
  const block = of('block');
  const fills = serve.filter((r) => r.served);
  const negatives = [...silent, ...block];
  return {
    n: results.length,
    accuracy: ratio(results.filter((r) => r.correct).length, results.length),
    fill: ratio(fills.length, serve.length),
    rightCategory: ratio(fills.filter((r) => r.rightCategory).length, fills.length),
    falseServe: ratio(negatives.filter((r) => r.served).length, negatives.length),
    sensitiveBlock: ratio(block.filter((r) => r.blocked).length, block.length),
    silentBlocked: ratio(silent.filter((r) => r.blocked).length, silent.length),
  };
}

export interface Breakdown {
  all: Metrics;
  byLanguage: Record<string, Metrics>;
  byFamily: Record<string, Metrics>;
  byFamilyLanguage: Record<string, Metrics>;
}

export function breakdown(results: CaseResult[]): Breakdown {
  const byLanguage: Record<string, Metrics> = {};
  const byFamily: Record<string, Metrics> = {};
  const byFamilyLanguage: Record<string, Metrics> = {};
  for (const lang of LANGS) byLanguage[lang] = computeMetrics(results.filter((r) => r.case.lang === lang));
  for (const fam of FAMILIES) {
    const inFam = results.filter((r) => r.case.family === fam);
    byFamily[fam] = computeMetrics(inFam);
    for (const lang of LANGS) byFamilyLanguage[`${fam}/${lang}`] = computeMetrics(inFam.filter((r) => r.case.lang === lang));
  }
  return { all: computeMetrics(results), byLanguage, byFamily, byFamilyLanguage };
}

/** Per split present in the results, and over all of them. */
export function report(results: CaseResult[]): Partial<Record<Split | 'all', Breakdown>> {
  const out: Partial<Record<Split | 'all', Breakdown>> = {};
  for (const split of ['dev', 'held-out'] as const) {
    const r = results.filter((x) => x.case.split === split);
    if (r.length > 0) out[split] = breakdown(r);
  }
  out.all = breakdown(results);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Floors

/** Whole percents. `false_serve_max` is a ceiling (lower is better); every other figure a floor. */
export interface FloorFigures {
  accuracy?: number;
  fill?: number;
  right_category?: number;
  false_serve_max?: number;
  sensitive_block?: number;
}

export interface Floors {
  split: Split;
  overall: FloorFigures;
  by_language?: Record<string, FloorFigures>;
  by_family?: Record<string, FloorFigures>;
}

export interface FloorViolation {
  where: string;
  figure: keyof FloorFigures;
  bound: number;
  measured: number | null;
}

const pct = (r: Ratio) => (r.rate === null ? null : r.rate * 100);
const EPS = 1e-9;

function checkFigures(where: string, m: Metrics, f: FloorFigures, out: FloorViolation[]) {
  const floor = (figure: keyof FloorFigures, r: Ratio) => {
    const bound = f[figure];
    if (bound === undefined) return;
    const measured = pct(r);
    if (measured === null || measured + EPS < bound) out.push({ where, figure, bound, measured });
  };
  floor('accuracy', m.accuracy);
  floor('fill', m.fill);
  floor('right_category', m.rightCategory);
  floor('sensitive_block', m.sensitiveBlock);
  if (f.false_serve_max !== undefined) {
    const measured = pct(m.falseServe);
    if (measured === null || measured - EPS > f.false_serve_max) out.push({ where, figure: 'false_serve_max', bound: f.false_serve_max, measured });
  }
}

/** Every figure of the floors' split that is below its floor (or above its ceiling). */
export function checkFloors(b: Breakdown, floors: Floors): FloorViolation[] {
  const out: FloorViolation[] = [];
  checkFigures('overall', b.all, floors.overall, out);
  for (const [lang, f] of Object.entries(floors.by_language ?? {})) {
    const m = b.byLanguage[lang];
    if (!m) out.push({ where: `language ${lang}`, figure: 'accuracy', bound: f.accuracy ?? 0, measured: null });
    else checkFigures(`language ${lang}`, m, f, out);
  }
  for (const [fam, f] of Object.entries(floors.by_family ?? {})) {
    const m = b.byFamily[fam];
    if (!m) out.push({ where: `family ${fam}`, figure: 'accuracy', bound: f.accuracy ?? 0, measured: null });
    else checkFigures(`family ${fam}`, m, f, out);
  }
  return out;
}

/** Floors for these figures: each rounded down to the whole percent (the ceiling up). */
export function floorsFrom(b: Breakdown, split: Split): Floors {
  const figures = (m: Metrics): FloorFigures => {
    const f: FloorFigures = {};
    const down = (r: Ratio) => (r.rate === null ? undefined : Math.floor(r.rate * 100 + EPS));
    if (m.accuracy.den) f.accuracy = down(m.accuracy);
    if (m.fill.den) f.fill = down(m.fill);
    if (m.rightCategory.den) f.right_category = down(m.rightCategory);
    if (m.falseServe.rate !== null) f.false_serve_max = Math.ceil(m.falseServe.rate * 100 - EPS);
    if (m.sensitiveBlock.den) f.sensitive_block = down(m.sensitiveBlock);
    return f;
  };
  return {
    split,
    overall: figures(b.all),
    by_language: Object.fromEntries(Object.entries(b.byLanguage).map(([k, m]) => [k, figures(m)])),
    by_family: Object.fromEntries(Object.entries(b.byFamily).map(([k, m]) => [k, figures(m)])),
  };
}

// ---------------------------------------------------------------------------------------------
// Rendering

export function formatRatio(r: Ratio): string {
  return r.rate === null ? '–' : `${(r.rate * 100).toFixed(1)}% (${r.num}/${r.den})`;
}

export function markdownTable(b: Breakdown): string {
  const head = '| group | n | accuracy | fill rate (serve) | right category (fills) | false serve (silent+block) | sensitive block (block) |';
  const rule = '|---|---:|---:|---:|---:|---:|---:|';
  const row = (name: string, m: Metrics) =>
    `| ${name} | ${m.n} | ${formatRatio(m.accuracy)} | ${formatRatio(m.fill)} | ${formatRatio(m.rightCategory)} | ${formatRatio(m.falseServe)} | ${formatRatio(m.sensitiveBlock)} |`;
  const rows = [row('**all**', b.all)];
  for (const [lang, m] of Object.entries(b.byLanguage)) rows.push(row(lang, m));
  for (const [fam, m] of Object.entries(b.byFamily)) rows.push(row(`**${fam}**`, m));
  for (const [key, m] of Object.entries(b.byFamilyLanguage)) rows.push(row(key.replace('/', ' · '), m));
  return [head, rule, ...rows].join('\n');
}

const cell = (s: string) =>
  s
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/\r?\n/g, ' ')
    .replace(/\u200b/g, '\\u200b');

export function describeExpected(c: RelevanceCase): string {
  return c.expect === 'serve' ? `serve ${(c.categories ?? []).join(', ')}` : c.expect;
}

export function describeGot(r: CaseResult): string {
  const o = r.outcome;
  if (o.instrumentError) return `INSTRUMENT ERROR: ${o.instrumentError}`;
  if (o.serve) return `served ${o.offerId} (${o.servedCategories.join(', ')})`;
  const policy = o.policyReasons.length > 0 ? ` (${o.policyReasons.join(', ')})` : '';
  return `${o.reasonCodes.join(', ')}${policy}`;
}

/** The failing cases, one table row each, with the signals the decision record names. */
export function failuresTable(results: CaseResult[]): string {
  const failing = results.filter((r) => !r.correct);
  if (failing.length === 0) return '_none_';
  const lines = ['| id | split | lang | family | expected | got | intent · matched ids (decision record) | message |', '|---|---|---|---|---|---|---|---|'];
  for (const r of failing) {
    const o = r.outcome;
    const signals = [...o.matchedCategoryIds, ...o.matchedEntityIds].join(', ') || '–';
    lines.push(
      `| ${r.case.id} | ${r.case.split} | ${r.case.lang} | ${r.case.family} | ${cell(describeExpected(r.case))} | ${cell(describeGot(r))} | ${o.intentType ?? '–'} · ${cell(signals)} | ${cell(r.case.message)}${r.case.digest ? ` _(digest ${cell(JSON.stringify(r.case.digest))})_` : ''} |`,
    );
  }
  return lines.join('\n');
}
