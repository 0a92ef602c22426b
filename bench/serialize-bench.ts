// Compiled serialization (fast-json-stringify, Fastify's own) against JSON.stringify, on decide's
// answers: the question issues 15 and 16 ask is whether it pays on the hot path.
//
//   npm run bench:serialize
//
// The decide answer is a union (served or no-fill), which fast-json-stringify writes by trying
// each branch; the branch-only serializers show what a route with one answer shape would get.
import fastJsonStringify from 'fast-json-stringify';
import { Bench } from 'tinybench';
import { z } from 'zod';
import { NO_FILL_EXAMPLE, SERVED_EXAMPLES } from '../src/decide/decide-examples.js';
import { NoFillSchema, ServedOfferSchema } from '../src/decide/decide-schemas.js';
import { toJsonSchema } from '../src/http/openapi.js';

const compile = (schema: z.ZodType) => fastJsonStringify(toJsonSchema(schema) as unknown as Parameters<typeof fastJsonStringify>[0]);
const union = compile(z.union([ServedOfferSchema, NoFillSchema]));
const servedOnly = compile(ServedOfferSchema);
const noFillOnly = compile(NoFillSchema);
const served = SERVED_EXAMPLES.ko.value;
const noFill = NO_FILL_EXAMPLE.value;
// Same JSON, whatever the key order.
for (const [answer, text] of [
  [served, union(served)],
  [noFill, union(noFill)],
] as const) {
  if (!sameJson(JSON.parse(text), answer)) throw new Error('fast-json-stringify wrote another answer');
}

function sameJson(a: unknown, b: unknown): boolean {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .sort(([x], [y]) => x.localeCompare(y))
              .map(([k, x]) => [k, sort(x)]),
          )
        : v;
  return JSON.stringify(sort(a)) === JSON.stringify(sort(b));
}

const bench = new Bench({ time: 1000 });
bench
  .add('served: JSON.stringify', () => JSON.stringify(served))
  .add('served: fast-json-stringify, decide union', () => union(served))
  .add('served: fast-json-stringify, served schema only', () => servedOnly(served))
  .add('no-fill: JSON.stringify', () => JSON.stringify(noFill))
  .add('no-fill: fast-json-stringify, decide union', () => union(noFill))
  .add('no-fill: fast-json-stringify, no-fill schema only', () => noFillOnly(noFill));
await bench.run();
console.log('| answer, serializer | ns per answer (mean) | ±% |\n|---|---:|---:|');
for (const t of bench.tasks) {
  const r = t.result as { latency?: { mean: number; rme: number }; mean?: number; rme?: number } | undefined;
  const mean = r?.latency?.mean ?? r?.mean ?? Number.NaN;
  const rme = r?.latency?.rme ?? r?.rme ?? Number.NaN;
  console.log(`| ${t.name} | ${Math.round(mean * 1e6)} | ${rme.toFixed(1)} |`);
}
