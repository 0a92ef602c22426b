// Reads a catalog file and checks it whole: stages 1 and 2 of an import. The import worker runs
// it on its own thread; the synchronous import also runs it on the serving thread first for a
// small body (CatalogImporter.refuseSmall), so a wrong small catalog is refused without the
// cost of starting a worker. The same code either way, so the same problems in the same order.
//
// 1. read the file as a stream (catalog-document-reader.ts); check each offer's schema as it is
//    read and spool the good ones to a file of one JSON line each; then the head's schema;
// 2. read the spool back: each offer's references, its snapshot content and hash (spooled again,
//    as ready rows, one tab-separated line each), and the whole catalog's hash.
//
// Memory holds the head, one offer id per offer (duplicates) and a digest per offer (the catalog
// hash); the offers themselves live in the spool files.
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { CatalogChecker, CatalogValidationError } from './catalog-validation.js';
import { readCatalogDocument, NotJson } from './catalog-document-reader.js';
import { CatalogHasher, OfferPreparer, type ImportPlan, type PreparedOffer } from './catalog-import-plan.js';
import type { Offer } from './catalog-schema.js';

export type CheckProgress = { bytesTotal: number; bytesRead?: number; offersRead?: number; offersChecked?: number };

export type CatalogCheck =
  | { kind: 'not_json' }
  | { kind: 'invalid'; problems: string[] }
  /** `readyFile`: the prepared offers, `id \t campaign \t hash hex \t content` per line. */
  | { kind: 'valid'; plan: ImportPlan; readyFile: string };

/** Progress goes out at most this often: enough for a bar, little for the importer to handle. */
const PROGRESS_EVERY_MS = 100;

/** Checks `file`, spooling into `spool` (an empty directory the caller removes). */
export async function checkCatalogFile(file: string, spool: string, onProgress: (p: CheckProgress) => void = () => {}): Promise<CatalogCheck> {
  const bytesTotal = (await stat(file)).size;
  let lastProgress = 0;
  const progress = (p: Omit<CheckProgress, 'bytesTotal'>, force = false) => {
    const now = Date.now();
    if (!force && now - lastProgress < PROGRESS_EVERY_MS) return;
    lastProgress = now;
    onProgress({ bytesTotal, ...p });
  };

  // 1. Schema, while reading.
  const checker = new CatalogChecker();
  const checkedFile = path.join(spool, 'checked.ndjson');
  const checked = createWriteStream(checkedFile);
  let rawHead: unknown;
  try {
    rawHead = await readCatalogDocument(
      file,
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
    if (err instanceof NotJson) return { kind: 'not_json' };
    if (err instanceof CatalogValidationError) return { kind: 'invalid', problems: err.problems };
    throw err;
  }
  await close(checked);
  progress({ bytesRead: bytesTotal, offersRead: checker.offers }, true);
  let head: ImportPlan['head'];
  try {
    head = checker.headSchema(rawHead);
  } catch (err) {
    if (err instanceof CatalogValidationError) return { kind: 'invalid', problems: err.problems };
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
    if (err instanceof CatalogValidationError) return { kind: 'invalid', problems: err.problems };
    throw err;
  }
  progress({ offersChecked: index }, true);
  return { kind: 'valid', plan: { head, catalogHash: hasher.digest(head), offers: index }, readyFile };
}

/** The offers of a checked catalog's `readyFile`, `batchSize` at a time. */
export async function* readyOffers(readyFile: string, batchSize: number): AsyncGenerator<PreparedOffer[]> {
  let batch: PreparedOffer[] = [];
  for await (const line of createInterface({ input: createReadStream(readyFile), crlfDelay: Number.POSITIVE_INFINITY })) {
    const a = line.indexOf('\t');
    const b = line.indexOf('\t', a + 1);
    const c = line.indexOf('\t', b + 1);
    batch.push({ id: line.slice(0, a), campaignId: line.slice(a + 1, b), contentHash: Buffer.from(line.slice(b + 1, c), 'hex'), content: line.slice(c + 1) });
    if (batch.length === batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

async function write(stream: WriteStream, text: string) {
  if (text.length > 0 && !stream.write(text)) await once(stream, 'drain');
}

async function close(stream: WriteStream) {
  stream.end();
  await once(stream, 'finish');
}
