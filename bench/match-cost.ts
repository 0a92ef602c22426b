// What matching costs a decide: the Rust core through N-API (`LiveOfferIndex.match`), on the
// demo catalog, for every body of the decide benchmark (ko/en, 50–4000 characters, serves and
// each no-fill). This is the part of decide's server CPU that matching changes move, measured
// alone, so a change of a few microseconds shows through the noise of an HTTP benchmark.
//
//   npx tsx bench/match-cost.ts [--rounds 3000]
//
// Run it on two builds (two worktrees, each after `npm run build:native`) to compare them; it
// prints the mean and p99 per body length and over all bodies.
import { parseArgs } from 'node:util';
import { LiveOfferIndex, type MatchQuery } from '../src/native/offer-index.js';
import { demoIndexDocument } from '../testkit/generated-catalog.js';
import { bodiesForDecide } from './decide-bodies.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3000' } } });
const rounds = Number(values.rounds);

const index = new LiveOfferIndex();
index.loadSync(JSON.stringify(demoIndexDocument()));

type Body = { message?: string; locale?: string; country?: string; session?: { digest?: Record<string, unknown> } };
const queries: MatchQuery[] = (bodiesForDecide() as Body[]).map((b) => {
  const d = b.session?.digest ?? {};
  return {
    message: b.message,
    language: (b.locale ?? 'en').slice(0, 2),
    country: b.country,
    categoryIds: d.category_ids as string[] | undefined,
    entityIds: d.entity_ids as string[] | undefined,
    excludedEntityIds: d.excluded_entity_ids as string[] | undefined,
    budgetBucket: d.budget_bucket as string | undefined,
    intentType: d.intent_type as string | undefined,
    kind: 'sponsored',
    nowMs: Date.parse('2026-11-23T03:00:00Z'),
    topK: 8,
  };
});

// Warm-up, then every query `rounds` times, interleaved so drift hits all lengths alike.
for (let i = 0; i < 200; i++) for (const q of queries) index.match(q);
const times = new Map<number, number[]>();
for (let r = 0; r < rounds; r++) {
  for (const q of queries) {
    const start = process.hrtime.bigint();
    index.match(q);
    const micros = Number(process.hrtime.bigint() - start) / 1000;
    const length = [50, 200, 1000, 4000].find((l) => (q.message?.length ?? 0) <= l) ?? 4000;
    (times.get(length) ?? times.set(length, []).get(length)!).push(micros);
  }
}
const stats = (list: number[]) => {
  const sorted = [...list].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return `${mean.toFixed(2)} µs mean, ${sorted[Math.floor(sorted.length * 0.99)].toFixed(2)} µs p99`;
};
console.log(`match through N-API, demo catalog, ${queries.length} decide bodies × ${rounds} rounds`);
for (const [length, list] of [...times].sort((a, b) => a[0] - b[0])) console.log(`  messages ≤ ${length} chars: ${stats(list)}`);
console.log(`  all bodies: ${stats([...times.values()].flat())}`);
