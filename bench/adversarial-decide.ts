// What a crafted message can cost a decide, against what ordinary ones cost: every message of
// the core's corpus of slow inputs (crates/sidenote-core/tests/slow-inputs/: the attacks that
// once stalled the service for 12–28 s, and the costliest messages the search found) in a
// Korean and an English envelope, beside the decide benchmark's bodies (bench/decide-bodies.ts,
// the "bench mix"), measured in the same run on an in-process service (embedded store, demo
// catalog). Two figures for each: the server CPU of a whole decide (process CPU time over many
// `inject`ed requests, Fastify and the writers included), and the core alone (`match` through
// N-API). The report is the worst adversarial message against the bench mix's median, as a
// ratio and in absolute time.
//
//   npx tsx bench/adversarial-decide.ts [--rounds 40] [--smoke]
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config/config.js';
import { LiveOfferIndex } from '../src/native/offer-index.js';
import { demoIndexDocument } from '../testkit/generated-catalog.js';
import { bodiesForDecide, SESSION_PLACEHOLDER } from './decide-bodies.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '40' }, smoke: { type: 'boolean', default: false } } });
const rounds = values.smoke ? 2 : Number(values.rounds);
const CORPUS = fileURLToPath(new URL('../crates/sidenote-core/tests/slow-inputs/', import.meta.url));

type Body = { message?: string; locale?: string; country?: string; session?: { token?: string; digest?: Record<string, unknown> } };
const adult = { age_band: '18_plus', contextual_offer_consent: true };
const surface = { clickable: true, disclosure_capable: true };
const mix = bodiesForDecide() as Body[];
const crafted: { name: string; body: Body }[] = readdirSync(CORPUS)
  .filter((f) => f.endsWith('.txt'))
  .sort()
  .flatMap((file) => {
    const message = readFileSync(`${CORPUS}${file}`, 'utf8');
    return [
      { name: `${file} (ko-KR)`, body: { message, locale: 'ko-KR', country: 'KR', audience: adult, native_surface: surface } as Body },
      { name: `${file} (en-US)`, body: { message, locale: 'en-US', country: 'US', audience: adult, native_surface: surface } as Body },
    ];
  });

// The decide benchmark's clock: every demo campaign is live then.
const NOW_MS = Date.parse('2026-11-23T03:00:00Z');
const ADMIN_KEY = `bench-admin-${randomBytes(16).toString('hex')}`;
/** The service in this process on the embedded store and the demo catalog, its budget and rate
 *  limit raised so that neither decides an outcome. */
async function inProcessService() {
  const app = await buildApp(
    parseConfig({
      port: 0,
      host: '127.0.0.1',
      baseUrl: 'http://bench.test',
      dataDir: 'memory',
      logLevel: 'error',
      loadDemoCatalog: true,
      adminKey: ADMIN_KEY,
      decideTimeBudgetMs: 2_000,
      decideRateLimitPerMinute: 1_000_000_000,
      spendSettleMs: 20,
    }),
    { now: () => NOW_MS },
  );
  await app.ready();
  const created = await app.inject({ method: 'POST', url: '/admin/apps', headers: { authorization: `Bearer ${ADMIN_KEY}` }, payload: { name: 'bench' } });
  return { app, key: created.json().serving_key as string, nowMs: NOW_MS };
}
const harness = await inProcessService();
let session = 0;
const withSession = (b: Body): Body => (b.session?.token === SESSION_PLACEHOLDER ? { ...b, session: { ...b.session, token: `bench-${session++}` } } : b);
async function decide(body: Body): Promise<number> {
  const r = await harness.app.inject({
    method: 'POST',
    url: '/v1/offers/decide',
    headers: { authorization: `Bearer ${harness.key}` },
    payload: withSession(body),
  });
  if (r.statusCode !== 200) throw new Error(`decide answered HTTP ${r.statusCode}`);
  const codes: string[] = r.json().reason_codes ?? [];
  if (codes.includes('TIMEOUT')) throw new Error('a decide answered TIMEOUT: the figures would not be CPU');
  return r.statusCode;
}

/** Server CPU per decide of one body, in µs: process CPU over `rounds` decides of it, sent
 *  `rounds` at a time as a loaded server sees them (the decision writer commits them in groups,
 *  as it does under traffic, rather than once per decide). */
async function decideCpu(body: Body): Promise<number> {
  await decide(body);
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: rounds }, () => decide(body)));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / rounds;
}

const index = new LiveOfferIndex();
index.loadSync(JSON.stringify(demoIndexDocument()));
/** Core CPU per match of one body, in µs (the least of `rounds` timings: the core is
 *  single-threaded and synchronous, so its least wall time is its CPU). */
function coreCpu(b: Body): number {
  const q = {
    message: b.message,
    language: (b.locale ?? 'en').slice(0, 2),
    country: b.country,
    categoryIds: b.session?.digest?.category_ids as string[] | undefined,
    intentType: b.session?.digest?.intent_type as string | undefined,
    kind: 'sponsored' as const,
    nowMs: harness.nowMs,
    topK: 8,
  };
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < Math.max(rounds, 5); i++) {
    const start = process.hrtime.bigint();
    index.match(q);
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1000);
  }
  return best;
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
// Interleaved: the bench mix, then the crafted messages, twice, keeping each body's least.
const mixDecide = mix.map(() => Number.POSITIVE_INFINITY);
const craftedDecide = crafted.map(() => Number.POSITIVE_INFINITY);
for (let pass = 0; pass < 2; pass++) {
  for (const [i, b] of mix.entries()) mixDecide[i] = Math.min(mixDecide[i], await decideCpu(b));
  for (const [i, c] of crafted.entries()) craftedDecide[i] = Math.min(craftedDecide[i], await decideCpu(c.body));
}
const mixCore = mix.map(coreCpu);
const craftedCore = crafted.map((c) => coreCpu(c.body));
await harness.app.close();

const mixDecideMedian = median(mixDecide);
const mixCoreMedian = median(mixCore);
const f = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
console.log(`adversarial decide, demo catalog, embedded store, ${rounds} decides per body per pass, least of 2 passes`);
console.log(`bench mix (${mix.length} bodies): decide ${f(mixDecideMedian)} µs server CPU median, core ${f(mixCoreMedian)} µs median\n`);
console.log('| message | decide µs | × mix median | core µs | × mix core median |');
console.log('|---|---|---|---|---|');
const rows = crafted.map((c, i) => ({ name: c.name, decide: craftedDecide[i], core: craftedCore[i] })).sort((a, b) => b.decide - a.decide);
for (const r of rows) {
  console.log(`| ${r.name} | ${f(r.decide)} | ${(r.decide / mixDecideMedian).toFixed(1)} | ${f(r.core)} | ${(r.core / mixCoreMedian).toFixed(1)} |`);
}
const worstDecide = Math.max(...craftedDecide);
const worstCore = Math.max(...craftedCore);
console.log(
  `\nworst crafted decide: ${f(worstDecide)} µs = ${(worstDecide / mixDecideMedian).toFixed(1)}× the bench mix's median decide (target ≤ 20×); ` +
    `worst core: ${f(worstCore)} µs (target ≤ 5,000 µs)`,
);
