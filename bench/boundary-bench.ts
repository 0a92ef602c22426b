// Across the N-API boundary, in one process (tinybench): the Rust core called through the
// binding on chat-like messages, and the cost of the boundary itself. (Until session 12 it also
// timed a TypeScript twin of the reader, since removed: bench/RESULTS.md keeps those figures.)
//
//   npm run bench:boundary -- [--offers 100000] [--time 2000]
//
// The index is a generated one (testkit/generated-catalog.ts) with `--offers` offers and one
// entity per ten offers. Writes bench/out/boundary.{json,md}.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { LiveOfferIndex, discardStagedIndex, type MatchQuery } from '../src/native/offer-index.js';
import { generateDocument, Rng } from '../testkit/generated-catalog.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const OFFERS = Number(arg('offers', '100000'));
const TIME_MS = Number(arg('time', '2000'));

const KO_FILLER = '이번 주말에 가족이랑 어디 갈지 고민 중인데 날씨도 좋고 맛있는 것도 먹고 싶어. ';
const EN_FILLER = 'We are planning a long weekend and want something relaxing with good food nearby. ';

const doc = generateDocument(42, OFFERS, Math.max(300, Math.round(OFFERS / 10)));
const started = performance.now();
const native = new LiveOfferIndex();
native.loadSync(JSON.stringify(doc));
const nativeBuildMs = performance.now() - started;

/** A chat-like message naming two entities among ordinary sentences. */
function message(lang: 'ko' | 'en', length: number, seed: number): string {
  const rng = new Rng(seed);
  const alias = () => {
    const e = rng.pick(doc.taxonomy.entities);
    return rng.pick(lang === 'ko' ? e.aliases.ko : e.aliases.en);
  };
  let out =
    lang === 'ko' ? `${alias()}랑 ${alias()} 중에 뭐가 나아? 최저가도 알려줘.` : `Should I get the ${alias()} or the ${alias()}? Cheapest price please.`;
  while (out.length < length) out += ` ${lang === 'ko' ? KO_FILLER : EN_FILLER}`;
  return out.slice(0, length);
}

const cells: { lang: 'ko' | 'en'; length: number; queries: MatchQuery[] }[] = [];
for (const lang of ['en', 'ko'] as const) {
  for (const length of [50, 500, 4000]) {
    const queries = Array.from(
      { length: 32 },
      (_, i): MatchQuery => ({ message: message(lang, length, i + 1), language: lang, country: 'KR', kind: 'sponsored', nowMs: 1_790_000_000_000, topK: 8 }),
    );
    cells.push({ lang, length, queries });
  }
}

const bench = new Bench({ time: TIME_MS, warmupTime: 300 });
for (const c of cells) {
  let i = 0;
  bench.add(`rust ${c.lang} ${c.length}`, () => void native.match(c.queries[i++ % c.queries.length]));
}
// The boundary itself: a call that does nothing, and a match with nothing to match.
const empty: MatchQuery = { language: 'en', kind: 'sponsored', nowMs: 0, topK: 0 };
// discardStagedIndex of a token never issued: a call with one integer argument that finds
// nothing to free (setPacing([]) measured this until session 15 deleted it, unused).
const NOTHING_STAGED = { token: 0, offers: 0, buildMillis: 0, memoryBytes: 0 };
bench.add('napi: discardStagedIndex(unknown) (an almost empty call)', () => discardStagedIndex(NOTHING_STAGED));
bench.add('napi: match, no message, topK 0 (call + query conversion + decode)', () => void native.match(empty));
await bench.run();

// tinybench 2 reports per-task sample statistics in milliseconds.
const byName = new Map(bench.tasks.map((t) => [t.name, { latency: { mean: t.result!.mean, p99: t.result!.p99 } }]));
const us = (ms: number) => (ms * 1000).toFixed(ms < 0.01 ? 2 : 1);
const rows: string[] = [];
const json: Record<string, unknown>[] = [];
for (const c of cells) {
  const r = byName.get(`rust ${c.lang} ${c.length}`)!;
  rows.push(`| ${c.lang} ${c.length} chars | ${us(r.latency.mean)} | ${us(r.latency.p99)} |`);
  json.push({ lang: c.lang, chars: c.length, rust_mean_us: r.latency.mean * 1000, rust_p99_us: r.latency.p99 * 1000 });
}
const overhead = ['napi: discardStagedIndex(unknown) (an almost empty call)', 'napi: match, no message, topK 0 (call + query conversion + decode)'].map(
  (n) => `| ${n} | ${us(byName.get(n)!.latency.mean)} |`,
);
const md = [
  `${OFFERS.toLocaleString('en')} offers, ${doc.taxonomy.entities.length.toLocaleString('en')} entities; index built in ${nativeBuildMs.toFixed(0)} ms; ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}; tinybench ${TIME_MS} ms per task.`,
  '',
  '| message | Rust via N-API mean µs | p99 µs |',
  '|---|---|---|',
  ...rows,
  '',
  '| boundary cost | mean µs |',
  '|---|---|',
  ...overhead,
].join('\n');
mkdirSync(path.join(ROOT, 'bench/out'), { recursive: true });
writeFileSync(
  path.join(ROOT, 'bench/out/boundary.json'),
  JSON.stringify(
    {
      offers: OFFERS,
      cells: json,
      overhead: Object.fromEntries(
        ['napi: discardStagedIndex(unknown) (an almost empty call)', 'napi: match, no message, topK 0 (call + query conversion + decode)'].map((n) => [
          n,
          byName.get(n)!.latency.mean * 1000,
        ]),
      ),
    },
    null,
    2,
  ),
);
writeFileSync(path.join(ROOT, 'bench/out/boundary.md'), `${md}\n`);
console.log(md);
