// Where a service process spends its CPU, by layer: reads `perf script` output (a `perf record -g
// -p <pid>` of the service under load, Node run with --perf-basic-prof so JIT frames have names)
// on stdin and charges each sample to one layer. A sample whose innermost frame is the kernel's
// is kernel work (TCP, epoll, scheduling) whoever asked for it; otherwise the first layer below
// whose frames appear anywhere in its stack takes it, so a garbage collection inside a zod parse
// is GC, and a socket write made by `pg` is the Postgres client's.
//
//   perf record -g -F 999 -p <service pid> -o /tmp/perf.data -- sleep 8
//   perf script -i /tmp/perf.data | npx tsx bench/perf-layers.ts
import { createInterface } from 'node:readline';

const LAYERS: Array<[string, RegExp]> = [
  ['GC', /Scavenge|MarkCompact|ConcurrentMarking|Sweeper|MinorMC|Heap::|GCTracer|IncrementalMarking|MarkingVisitor/],
  ['V8 compiler', /v8::internal::compiler|[Mm]aglev|Baseline|CompileLazy|Turbofan|v8::internal::Compiler/],
  ['native match (N-API + core)', /sidenote\.linux|(?<!_)napi_|sidenote_core/],
  [
    'Postgres client (pg, group commit, repositories)',
    /node_modules\/pg|pg-protocol|pg-pool|dist\/persistence\/|repository\.js|decision-recorder|click-recorder/,
  ],
  ['Redis client (ioredis, counter store)', /ioredis|dist\/counters\/|redis-parser|denque/],
  ['validation (zod)', /node_modules\/zod|dist\/http\/validation/],
  ['metrics and logging', /prom-client|pino|dist\/observability/],
  ['crypto (tokens, address hashes)', /node:crypto|internal\/crypto|EVP_|sha256|aes|HMAC|OPENSSL/],
  ['service code (decide, gates, links, events)', /\/dist\//],
  ['Fastify', /node_modules\/fastify|node_modules\/@fastify|find-my-way|avvio|fast-json/],
  ["Node's HTTP (parse, write, streams)", /_http_|llhttp|node:net|stream_base|streams\/|Parser::|LibuvStreamWrap|uv__/],
];
const KERNEL = 'kernel (TCP send/receive, epoll, scheduling)';
const OTHER = 'other (V8 runtime, allocator, promises)';

const counts = new Map<string, number>();
let total = 0;
let frames: string[] = [];
const charge = (layer: string) => counts.set(layer, (counts.get(layer) ?? 0) + 1);

function endSample() {
  if (frames.length === 0) return;
  total++;
  if (frames[0].includes('kernel.kallsyms')) charge(KERNEL);
  else {
    const stack = frames.join('\n');
    charge(LAYERS.find(([, re]) => re.test(stack))?.[0] ?? OTHER);
  }
  frames = [];
}

for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') endSample();
  else if (/^\s/.test(line)) frames.push(line.trim());
}
endSample();

console.log('| layer | share of the service’s samples |\n|---|---:|');
for (const [layer, n] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`| ${layer} | ${((100 * n) / total).toFixed(1)}% |`);
console.log(`\n${total} samples`);
