// The CPU side of a catalog import, on a worker thread so the serving event loop never parses,
// checks or hashes a catalog (catalog-importer.ts starts it and talks to it): it reads and checks
// the whole file (catalog-check.ts), then hands the ready rows to the importer in batches, one
// batch ahead of its writes. The spool files live in a directory the importer removes.
import { parentPort, workerData } from 'node:worker_threads';
import { checkCatalogFile, readyOffers } from './catalog-check.js';
import type { ToImporter, ToWorker, WorkerInput } from './catalog-import-messages.js';
import { yieldToServing } from './worker-priority.js';

yieldToServing();

const input = workerData as WorkerInput;
const port = parentPort!;
const send = (m: ToImporter, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer ?? []);

async function run() {
  // 1 and 2: read and check the whole file.
  const checked = await checkCatalogFile(input.file, input.spoolDir, (p) => send({ kind: 'progress', ...p }));
  if (checked.kind !== 'valid') return send(checked);
  send({ kind: 'valid', plan: checked.plan });

  // 3. Batches on request.
  const batches = readyOffers(checked.readyFile, input.batchSize);
  for await (const message of messages()) {
    if (message.kind !== 'next') continue;
    const next = await batches.next();
    if (next.done) {
      send({ kind: 'end' });
      return;
    }
    send({ kind: 'batch', offers: next.value });
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

run().catch((err: unknown) => {
  // A bug, not a problem of the file: its name and frames, never its message (it may quote input).
  send({
    kind: 'failed',
    name: err instanceof Error ? err.name : 'Error',
    frames: err instanceof Error ? (err.stack?.split('\n').slice(1, 8).join('\n') ?? '') : '',
  });
});
