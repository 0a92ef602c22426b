// Memory of the offer index (docs/scaling.md): builds the Rust index from a generated catalog
// (testkit/generated-catalog.ts, entities = offers / 10) in a fresh process per size and reports
// what the process holds after the build: the native index (resident memory outside the V8 heap)
// and the index document on the V8 heap, which stands in for the serving view each instance
// keeps beside the index (src/catalog/serving-catalog.ts holds every live snapshot's content).
//
//   npm run bench:index-memory -- [--offers 100000,300000,1000000]
//
// Writes bench/out/index-memory.{json,md}.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

if (args[0] === '--one') {
  // The child: one size, measured in a process that has done nothing else.
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
  const { generateDocument } = await import('../testkit/generated-catalog.js');
  const { LiveOfferIndex } = await import('../src/native/offer-index.js');
  const offers = Number(args[1]);
  const index = new LiveOfferIndex();
  gc();
  const before = process.memoryUsage();
  const doc = generateDocument(42, offers, Math.max(300, Math.round(offers / 10)));
  const json = JSON.stringify(doc);
  gc();
  const withDoc = process.memoryUsage();
  const started = performance.now();
  index.loadSync(json);
  const buildMs = Math.round(performance.now() - started);
  gc();
  const after = process.memoryUsage();
  // Resident memory that is not V8 heap grew by the index (the document is on the heap).
  const outside = (m: NodeJS.MemoryUsage) => m.rss - m.heapTotal;
  const result = {
    offers,
    buildMs,
    nativeIndexBytes: outside(after) - outside(withDoc),
    documentHeapBytes: withDoc.heapUsed - before.heapUsed,
    documentJsonBytes: Buffer.byteLength(json),
    stats: index.stats(),
  };
  void doc;
  console.log(JSON.stringify(result));
  process.exit(0);
}

const sizes = (args[args.indexOf('--offers') + 1] && args.includes('--offers') ? args[args.indexOf('--offers') + 1] : '100000,300000,1000000')
  .split(',')
  .map(Number);
const results = sizes.map((offers) => {
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), '--one', String(offers)], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  const r = JSON.parse(out.trim().split('\n').pop()!);
  console.log(
    `${offers} offers: native index ${(r.nativeIndexBytes / 1e6).toFixed(0)} MB, document on heap ${(r.documentHeapBytes / 1e6).toFixed(0)} MB, build ${r.buildMs} ms`,
  );
  return r;
});
const perOffer = (k: 'nativeIndexBytes' | 'documentHeapBytes') => {
  const last = results[results.length - 1];
  return Math.round(last[k] / last.offers);
};
const md = [
  '# Offer index memory (generated catalog, entities = offers / 10)',
  '',
  '| offers | native index | index document on V8 heap | document JSON | build |',
  '|---:|---:|---:|---:|---:|',
  ...results.map(
    (r) =>
      `| ${r.offers} | ${(r.nativeIndexBytes / 1e6).toFixed(0)} MB | ${(r.documentHeapBytes / 1e6).toFixed(0)} MB | ${(r.documentJsonBytes / 1e6).toFixed(0)} MB | ${r.buildMs} ms |`,
  ),
  '',
  `At the largest size: ${perOffer('nativeIndexBytes')} B of native index and ${perOffer('documentHeapBytes')} B of heap per offer.`,
].join('\n');
mkdirSync(path.join(ROOT, 'bench/out'), { recursive: true });
writeFileSync(path.join(ROOT, 'bench/out/index-memory.json'), `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(path.join(ROOT, 'bench/out/index-memory.md'), `${md}\n`);
console.log(md);
