// Loads the catalog an instance serves without holding up the serving thread: a worker thread
// reads the rows, builds the offer index (staged in the addon) and the serving view's offer table
// (shared memory), and sends the rest of the view in short messages. This thread only takes those
// messages in; the caller then makes the index and the view live together (CatalogRuntime).
//
// The worker is kept between loads, unreferenced while idle: starting one costs about a quarter
// of a second of CPU (its modules), which every reload (each import, each campaign change) paid
// again. A load that fails ends it (its state is unknown), and the next load starts a fresh one.
// A load of a large catalog ends it too: its heap, grown by the load, stays committed while it
// idles (116 MB of resident memory after a million offers, bench/RESULTS.md), and reloading that
// many offers takes tens of seconds, beside which a fresh worker's quarter second is nothing.
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

/** Offers up to which a load's worker is kept for the next load. */
const KEEP_WORKER_MAX_OFFERS = 100_000;

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
  /** A load of more offers than this ends its worker instead of keeping it (default 100,000). */
  keepWorkerMaxOffers?: number;
}

export class CatalogLoader {
  private running: { worker: Worker; fail: (err: Error) => void } | null = null;
  /** The worker kept from the last load that succeeded, idle and unreferenced. */
  private idle: Worker | null = null;
  private stopped = false;
  private readonly input: LoadWorkerInput;
  private readonly startWorker: NonNullable<CatalogLoaderOptions['startWorker']>;
  private readonly keepWorkerMaxOffers: number;

  constructor(
    private readonly repo: CatalogRepository,
    /** Where the worker reads the catalog; null: PGlite, read here and fed to it. */
    private readonly databaseUrl: string | null,
    opts: CatalogLoaderOptions = {},
  ) {
    this.input = { databaseUrl, batchSize: opts.batchSize ?? LOAD_BATCH_SIZE };
    this.startWorker = opts.startWorker ?? startCatalogWorker;
    this.keepWorkerMaxOffers = opts.keepWorkerMaxOffers ?? KEEP_WORKER_MAX_OFFERS;
  }

  /** One load; one at a time (the runtime shares a running reload). */
  load(): Promise<LoadedCatalog> {
    if (this.stopped) return Promise.reject(new Error('the catalog loader is stopped'));
    if (this.running) return Promise.reject(new Error('a catalog load is already running'));
    const worker = this.idle ?? this.startNew();
    this.idle = null;
    worker.ref();
    const assembly = new ServingCatalogAssembly();
    let servingThreadMs = 0;
    let longestStepMs = 0;
    let settled = false;
    let onMessage: (m: ToLoader) => void = () => {};
    let onExit: (code: number) => void = () => {};
    let fail: (err: Error) => void = () => {};
    const loaded = new Promise<LoadedCatalog>((resolve, reject) => {
      fail = (err: Error) => {
        if (settled) return;
        settled = true;
        reject(err);
      };
      this.running = { worker, fail };
      onMessage = (m: ToLoader) => {
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
      };
      onExit = (code: number) => fail(new Error(`the catalog load worker exited (${code}) before it finished`));
      worker.on('message', onMessage);
      worker.on('error', fail);
      worker.on('exit', onExit);
      if (this.databaseUrl) worker.postMessage({ kind: 'load' } satisfies ToLoadWorker);
      else this.feed(worker).catch(fail);
    });
    return loaded.then(
      (done) => {
        // Every message of the load is in: the worker is kept for the next one.
        this.running = null;
        worker.off('message', onMessage);
        worker.off('error', fail);
        worker.off('exit', onExit);
        if (this.stopped || done.staged.offers > this.keepWorkerMaxOffers) void worker.terminate();
        else this.keep(worker);
        return done;
      },
      (err: unknown) => {
        // Its state is unknown: ended (a message still on its way is still taken in, and an
        // index it built is freed).
        this.running = null;
        void worker.terminate();
        throw err;
      },
    );
  }

  private startNew(): Worker {
    const worker = this.startWorker('catalog-load-worker', this.input, RESOURCE_LIMITS);
    // Failing or gone while idle (it should not): the next load starts another. A load's own
    // listeners report what happens during it.
    worker.on('error', () => {});
    worker.once('exit', () => {
      if (this.idle === worker) this.idle = null;
    });
    return worker;
  }

  private keep(worker: Worker): void {
    worker.unref();
    this.idle = worker;
  }

  /** Ends a running load (shutdown): its promise rejects; the worker, running or idle, is terminated. */
  async stop(): Promise<void> {
    this.stopped = true;
    const idle = this.idle;
    this.idle = null;
    await idle?.terminate();
    const running = this.running;
    if (!running) return;
    running.fail(new Error('the catalog load was stopped'));
    await running.worker.terminate();
  }

  private async feed(worker: Worker): Promise<void> {
    const post = (m: ToLoadWorker) => worker.postMessage(m);
    await this.repo.readServingCatalog(
      this.input.batchSize,
      (head) => post({ kind: 'head', head }),
      (rows) => post({ kind: 'offers', rows }),
    );
    post({ kind: 'end' });
  }
}
