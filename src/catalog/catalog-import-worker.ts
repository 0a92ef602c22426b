// The CPU side of a catalog import, on a worker thread so the serving event loop never parses,
// checks or hashes a catalog (catalog-importer.ts starts it and talks to it):
//
// 1. read the file as a stream (catalog-document-reader.ts); check each offer's schema as it is
//    read and spool the good ones to a file of one JSON line each; then the head's schema;
// 2. read the spool back: each offer's references, its snapshot content and hash (spooled again,
//    as ready rows), and the whole catalog's hash;
// 3. hand the ready rows to the importer in batches, one batch ahead of its writes.
//
// Memory holds the head, one offer id per offer (duplicates) and a digest per offer (the catalog
// hash); the offers themselves live in spool files, in a directory the importer removes.
import { parentPort, workerData } from 'node:worker_threads';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { CatalogChecker, CatalogValidationError } from './catalog-validation.js';
import { readCatalogDocument, NotJson } from './catalog-document-reader.js';
import { CatalogHasher, OfferPreparer, type ImportPlan, type PreparedOffer } from './catalog-import-plan.js';
import type { Offer } from './catalog-schema.js';
import type { ToImporter, ToWorker, WorkerInput } from './catalog-import-messages.js';
import { yieldToServing } from './worker-priority.js';

yieldToServing();

const input = workerData as WorkerInput;
const port = parentPort!;
const send = (m: ToImporter, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer ?? []);

/** Progress goes out at most this often: enough for a bar, little for the importer to handle. */
const PROGRESS_EVERY_MS = 100;

async function run() {
  const spool = input.spoolDir;
  const bytesTotal = (await stat(input.file)).size;
  let lastProgress = 0;
  const progress = (p: { bytesRead?: number; offersRead?: number; offersChecked?: number }, force = false) => {
    const now = Date.now();
    if (!force && now - lastProgress < PROGRESS_EVERY_MS) return;
    lastProgress = now;
    send({ kind: 'progress', bytesTotal, ...p });
  };

  // 1. Schema, while reading.
  const checker = new CatalogChecker();
  const checkedFile = path.join(spool, 'checked.ndjson');
  const checked = createWriteStream(checkedFile);
  let rawHead: unknown;
  try {
    rawHead = await readCatalogDocument(
      input.file,
      async (offers) => {
        let lines = '';
        for (const raw of offers) {
          const offer = checker.offerSchema(raw);
          if (offer) lines += `${JSON.stringify(offer)}\n`;
        }
        await write(checked, lines);
      },
      ({ bytesRead, offersRead }) => progress({ bytesRead, offersRead }),
    );
  } catch (err) {
    checked.destroy();
    if (err instanceof NotJson) return send({ kind: 'not_json' });
    if (err instanceof CatalogValidationError) return send({ kind: 'invalid', problems: err.problems });
    throw err;
  }
  await close(checked);
  progress({ bytesRead: bytesTotal, offersRead: checker.offers }, true);
  let head: ImportPlan['head'];
  try {
    head = checker.headSchema(rawHead);
  } catch (err) {
    if (err instanceof CatalogValidationError) return send({ kind: 'invalid', problems: err.problems });
    throw err;
  }

  // 2. References, snapshot content and hashes.
  const references = checker.references(head);
  const preparer = new OfferPreparer(head);
  const hasher = new CatalogHasher();
  const readyFile = path.join(spool, 'ready.tsv');
  const ready = createWriteStream(readyFile);
  let index = 0;
  let lines = '';
  for await (const line of createInterface({ input: createReadStream(checkedFile), crlfDelay: Number.POSITIVE_INFINITY })) {
    const offer = JSON.parse(line) as Offer;
    references.check(offer, index++);
    hasher.addOffer(offer);
    const p = preparer.prepare(offer);
    // Ids are [a-z0-9._:-] and JSON text has no raw tab or newline: a tab-separated line.
    lines += `${p.id}\t${p.campaignId}\t${Buffer.from(p.contentHash).toString('hex')}\t${p.content}\n`;
    if (lines.length > 1 << 20) {
      await write(ready, lines);
      lines = '';
      progress({ offersChecked: index });
    }
  }
  await write(ready, lines);
  await close(ready);
  try {
    references.finish();
  } catch (err) {
    if (err instanceof CatalogValidationError) return send({ kind: 'invalid', problems: err.problems });
    throw err;
  }
  progress({ offersChecked: index }, true);
  send({ kind: 'valid', plan: { head, catalogHash: hasher.digest(head), offers: index } });

  // 3. Batches on request.
  const rows = createInterface({ input: createReadStream(readyFile), crlfDelay: Number.POSITIVE_INFINITY })[Symbol.asyncIterator]();
  for await (const message of messages()) {
    if (message.kind !== 'next') continue;
    const batch: PreparedOffer[] = [];
    while (batch.length < input.batchSize) {
      const next = await rows.next();
      if (next.done) break;
      const line = next.value;
      const a = line.indexOf('\t');
      const b = line.indexOf('\t', a + 1);
      const c = line.indexOf('\t', b + 1);
      batch.push({
        id: line.slice(0, a),
        campaignId: line.slice(a + 1, b),
        contentHash: Buffer.from(line.slice(b + 1, c), 'hex'),
        content: line.slice(c + 1),
      });
    }
    if (batch.length === 0) {
      send({ kind: 'end' });
      return;
    }
    send({ kind: 'batch', offers: batch });
  }
}

// The importer's requests, queued from the start so none is missed.
const queue: ToWorker[] = [];
let wake: (() => void) | null = null;
port.on('message', (m: ToWorker) => {
  queue.push(m);
  wake?.();
});

/** The importer's requests, in order. */
async function* messages(): AsyncGenerator<ToWorker> {
  for (;;) {
    while (queue.length > 0) yield queue.shift()!;
    await new Promise<void>((r) => (wake = r));
    wake = null;
  }
}

async function write(stream: WriteStream, text: string) {
  if (text.length > 0 && !stream.write(text)) await once(stream, 'drain');
}

async function close(stream: WriteStream) {
  stream.end();
  await once(stream, 'finish');
}

run().catch((err: unknown) => {
  // A bug, not a problem of the file: its name and frames, never its message (it may quote input).
  send({
    kind: 'failed',
    name: err instanceof Error ? err.name : 'Error',
    frames: err instanceof Error ? (err.stack?.split('\n').slice(1, 8).join('\n') ?? '') : '',
  });
});
