// Memory of the offer index (docs/scaling.md): builds the Rust index from a generated catalog
// (testkit/generated-catalog.ts, entities = offers / 10) in a fresh process per size and way, and
// reports the process' peak and final resident memory and the native index (resident memory
// outside the V8 heap) after the build. Two ways:
//
// - whole: the index document as one JSON string, built by `LiveOfferIndex.loadSync` (how the
//   service loaded a catalog before the catalog loader, and how tests still do);
// - chunks: the taxonomy, then the offers 2,000 at a time through `OfferIndexBuilder` (how the
//   catalog loader's worker builds it). The offers are generated chunk by chunk too, so neither
//   the document nor its JSON is ever whole.
//
//   npm run bench:index-memory -- [--offers 100000,300000,1000000] [--ways whole,chunks]
//
// Writes bench/out/index-memory.{json,md}.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IndexOffer } from '../src/native/offer-index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const CHUNK = 2000;

/** Peak resident memory of this process so far (VmHWM), in bytes. */
function peakRss(): number {
  return Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
}

if (args[0] === '--one') {
  // The child: one size one way, measured in a process that has done nothing else.
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
  const { generateDocument, generateDocumentParts } = await import('../testkit/generated-catalog.js');
  const { LiveOfferIndex, OfferIndexBuilder } = await import('../src/native/offer-index.js');
  const offers = Number(args[1]);
  const way = args[2];
  const entities = Math.max(300, Math.round(offers / 10));
  const index = new LiveOfferIndex();
  gc();
  const before = process.memoryUsage();
  const started = performance.now();
  let documentJsonBytes = 0;
  if (way === 'whole') {
    const json = JSON.stringify(generateDocument(42, offers, entities));
    documentJsonBytes = Buffer.byteLength(json);
    index.loadSync(json);
  } else {
    // The same catalog, its offers generated as they are sent.
    const parts = generateDocumentParts(42, offers, entities);
    const builder = new OfferIndexBuilder(parts.taxonomy, offers);
    let chunk: IndexOffer[] = [];
    const send = () => {
      documentJsonBytes += Buffer.byteLength(JSON.stringify(chunk));
      builder.addOffers(chunk);
      chunk = [];
    };
    for (const offer of parts.offers) {
      chunk.push(offer);
      if (chunk.length === CHUNK) send();
    }
    if (chunk.length > 0) send();
    index.install(builder.finish(), {
      category: () => '',
      entity: () => '',
      sensitiveTopic: () => '',
      offer: () => ({ snapshotId: '', offerId: '', campaignId: '', advertiserId: '' }),
    });
  }
  const buildMs = Math.round(performance.now() - started);
  gc();
  const after = process.memoryUsage();
  // Resident memory that is not V8 heap grew by the index (and what the allocator kept of the
  // build's garbage).
  const outside = (m: NodeJS.MemoryUsage) => m.rss - m.heapTotal;
  console.log(
    JSON.stringify({
      offers,
      way,
      buildMs,
      nativeIndexBytes: outside(after) - outside(before),
      rssBytes: after.rss,
      peakRssBytes: peakRss(),
      documentJsonBytes,
      stats: index.stats(),
    }),
  );
  process.exit(0);
}

const sizes = arg('offers', '100000,300000,1000000').split(',').map(Number);
const ways = arg('ways', 'whole,chunks').split(',');
const results = sizes.flatMap((offers) =>
  ways.map((way) => {
    const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), '--one', String(offers), way], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    });
    const r = JSON.parse(out.trim().split('\n').pop()!);
    console.log(
      `${offers} offers, ${way}: native index ${(r.nativeIndexBytes / 1e6).toFixed(0)} MB, RSS ${(r.rssBytes / 1e6).toFixed(0)} MB (peak ${(r.peakRssBytes / 1e6).toFixed(0)} MB), build ${r.buildMs} ms`,
    );
    return r;
  }),
);
const md = [
  '# Offer index memory (generated catalog, entities = offers / 10)',
  '',
  '| offers | document crosses | native index after | process RSS after | peak RSS | document JSON | build |',
  '|---:|---|---:|---:|---:|---:|---:|',
  ...results.map(
    (r) =>
      `| ${r.offers} | ${r.way === 'whole' ? 'whole (one string)' : `in chunks of ${CHUNK}`} | ${(r.nativeIndexBytes / 1e6).toFixed(0)} MB | ${(r.rssBytes / 1e6).toFixed(0)} MB | ${(r.peakRssBytes / 1e6).toFixed(0)} MB | ${(r.documentJsonBytes / 1e6).toFixed(0)} MB | ${r.buildMs} ms |`,
  ),
].join('\n');
mkdirSync(path.join(ROOT, 'bench/out'), { recursive: true });
writeFileSync(path.join(ROOT, 'bench/out/index-memory.json'), `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(path.join(ROOT, 'bench/out/index-memory.md'), `${md}\n`);
console.log(md);
