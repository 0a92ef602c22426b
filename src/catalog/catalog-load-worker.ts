// The catalog loader's worker thread (catalog-loader.ts starts it and keeps it between loads).
// For each load it reads the catalog itself on a Postgres connection of its own, or, with the
// embedded PGlite (which lives on the serving thread), is fed the rows; either way it parses the
// snapshots, builds the offer index and the serving view's offer table (ServingCatalogBuild),
// and sends them to the serving thread. What a load leaves on its heap is garbage once it is
// sent: the next load starts from nothing but the loaded modules.
import { parentPort, workerData } from 'node:worker_threads';
import { ServingCatalogBuild } from './catalog-load.js';
import type { LoadWorkerInput, ToLoader, ToLoadWorker } from './catalog-load-messages.js';
import { IndexBuildError } from '../native/offer-index.js';
import { yieldToServing } from './worker-priority.js';

yieldToServing();

const input = workerData as LoadWorkerInput;
const port = parentPort!;
const send = (m: ToLoader) => port.postMessage(m);

function failed(err: unknown): void {
  const e = err instanceof Error ? err : new Error(String(err));
  send({
    kind: 'failed',
    name: e.name,
    // Build errors name catalog ids and positions, which the operator needs; other messages
    // (drivers) stay out of what the serving thread logs.
    code: e instanceof IndexBuildError ? e.code : ((e as { code?: unknown }).code as string | undefined),
    message: e instanceof IndexBuildError ? e.message : undefined,
    frames: e.stack?.split('\n').slice(1).join('\n'),
  });
}

async function readDatabase(databaseUrl: string): Promise<void> {
  // Loaded only here: a fed worker (PGlite) starts without the database code.
  const [{ openDatabase }, { CatalogRepository }] = await Promise.all([import('../db/database.js'), import('./catalog-repository.js')]);
  const db = await openDatabase({ databaseUrl, dataDir: 'memory', poolSize: 1 });
  try {
    let build: ServingCatalogBuild | undefined;
    await new CatalogRepository(db).readServingCatalog(
      input.batchSize,
      (head) => {
        build = new ServingCatalogBuild(head, send);
      },
      (rows) => build?.addOffers(rows),
    );
    build?.finish();
  } finally {
    await db.close().catch(() => {});
  }
}

let fed: ServingCatalogBuild | undefined;
// The port keeps the worker alive between loads; the loader unrefs it while idle and ends it on
// stop or after a failed load.
port.on('message', (m: ToLoadWorker) => {
  try {
    if (m.kind === 'load') {
      if (input.databaseUrl) readDatabase(input.databaseUrl).catch(failed);
    } else if (m.kind === 'head') fed = new ServingCatalogBuild(m.head, send);
    else if (m.kind === 'offers') fed?.addOffers(m.rows);
    else {
      fed?.finish();
      fed = undefined;
    }
  } catch (err) {
    failed(err);
  }
});
