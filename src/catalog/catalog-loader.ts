// Loads the catalog an instance serves without holding up the serving thread: a worker thread,
// started for each load and ended after it (its heap goes with it), reads the rows, builds the
// offer index (staged in the addon) and the serving view's offer table (shared memory), and
// sends the rest of the view in short messages. This thread only takes those messages in; the
// caller then makes the index and the view live together (CatalogRuntime).
//
// With Postgres the worker reads on a connection of its own. PGlite lives on this thread, so
// here the rows are read (as text, not parsed) and handed to the worker.
import type { ResourceLimits, Worker } from 'node:worker_threads';
import type { CatalogRepository } from './catalog-repository.js';
import { ServingCatalogAssembly } from './catalog-load.js';
import type { LoadWorkerInput, ToLoader, ToLoadWorker } from './catalog-load-messages.js';
import type { ServingCatalog } from './serving-catalog.js';
import { startCatalogWorker } from './worker-threads.js';
import { discardStagedIndex, type StagedIndex } from '../native/offer-index.js';

/** Offers per read: a few hundred kilobytes of snapshots. */
export const LOAD_BATCH_SIZE = 2000;

// The worker holds the campaigns and advertisers, the taxonomy while the index's matcher is
// built, and one batch of offers at a time (a million-offer catalog: about 100 MB live); the
// offers go to the addon and to shared memory, outside its heap. The cap makes it collect its
// garbage instead of growing the process past what the instance should hold.
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 256 };

export interface LoadedCatalog {
  view: ServingCatalog;
  /** The offer index built for the view, not yet live. */
  staged: StagedIndex;
  /** Serving-thread time the load took: taking in the worker's messages (on PGlite the reads
   *  also run on this thread, and are not counted here). */
  servingThreadMs: number;
  /** The longest single step of it. */
  longestStepMs: number;
}

/** A load that failed in its worker. `code` is the index build's (`INDEX_…`) or the store's. */
export class CatalogLoadFailed extends Error {
  constructor(
    readonly type: string,
    readonly code: string | undefined,
    message: string | undefined,
    readonly frames: string | undefined,
  ) {
    super(message ?? `catalog load failed: ${type}${code ? ` (${code})` : ''}`);
    this.name = 'CatalogLoadFailed';
  }
}

export interface CatalogLoaderOptions {
  batchSize?: number;
  /** Starts the load's worker thread (a test watches it end). */
  startWorker?: (file: string, input: LoadWorkerInput, limits: ResourceLimits) => Worker;
}

export class CatalogLoader {
  private running: { worker: Worker; fail: (err: Error) => void } | null = null;
  private stopped = false;
  private readonly batchSize: number;
  private readonly startWorker: NonNullable<CatalogLoaderOptions['startWorker']>;

  constructor(
    private readonly repo: CatalogRepository,
    /** Where the worker reads the catalog; null: PGlite, read here and fed to it. */
    private readonly databaseUrl: string | null,
    opts: CatalogLoaderOptions = {},
  ) {
    this.batchSize = opts.batchSize ?? LOAD_BATCH_SIZE;
    this.startWorker = opts.startWorker ?? startCatalogWorker;
  }

  /** One load; one at a time (the runtime shares a running reload). */
  load(): Promise<LoadedCatalog> {
    if (this.stopped) return Promise.reject(new Error('the catalog loader is stopped'));
    if (this.running) return Promise.reject(new Error('a catalog load is already running'));
    const input: LoadWorkerInput = { databaseUrl: this.databaseUrl, batchSize: this.batchSize };
    const worker = this.startWorker('catalog-load-worker', input, RESOURCE_LIMITS);
    const assembly = new ServingCatalogAssembly();
    let servingThreadMs = 0;
    let longestStepMs = 0;
    let settled = false;
    const loaded = new Promise<LoadedCatalog>((resolve, reject) => {
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        reject(err);
      };
      this.running = { worker, fail };
      worker.on('message', (m: ToLoader) => {
        const started = performance.now();
        if (m.kind === 'failed') fail(new CatalogLoadFailed(m.name, m.code, m.message, m.frames));
        else if (settled) {
          // Stopped meanwhile: an index built all the same is freed, never left staged.
          if (m.kind === 'built') discardStagedIndex(m.staged);
        } else {
          const done = assembly.take(m);
          if (done) {
            settled = true;
            resolve({ ...done, servingThreadMs, longestStepMs });
          }
        }
        const took = performance.now() - started;
        servingThreadMs += took;
        longestStepMs = Math.max(longestStepMs, took);
      });
      worker.on('error', fail);
      worker.on('exit', (code) => fail(new Error(`the catalog load worker exited (${code}) before it finished`)));
      if (!this.databaseUrl) this.feed(worker).catch(fail);
    });
    return loaded.finally(() => {
      this.running = null;
      void worker.terminate();
    });
  }

  /** Ends a running load (shutdown): its promise rejects, its worker is terminated. */
  async stop(): Promise<void> {
    this.stopped = true;
    const running = this.running;
    if (!running) return;
    running.fail(new Error('the catalog load was stopped'));
    await running.worker.terminate();
  }

  private async feed(worker: Worker): Promise<void> {
    const post = (m: ToLoadWorker) => worker.postMessage(m);
    await this.repo.readServingCatalog(
      this.batchSize,
      (head) => post({ kind: 'head', head }),
      (rows) => post({ kind: 'offers', rows }),
    );
    post({ kind: 'end' });
  }
}
