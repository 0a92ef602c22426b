// Keeps this instance's offer index and serving view in step with the catalog in the database.
// Every instance polls the catalog version (one indexed single-row read) and, when it moved,
// loads the catalog off the serving thread (catalog-loader.ts: a worker reads it, builds the
// native index and the view's offer table) and swaps both in at once; requests keep being
// served from the previous catalog meanwhile. Polling works the same on PGlite and Postgres.
import type { FastifyBaseLogger } from 'fastify';
import type { CatalogRepository } from './catalog-repository.js';
import { ServingCatalog } from './serving-catalog.js';
import { CatalogLoadFailed, type CatalogLoader, type LoadedCatalog } from './catalog-loader.js';
import { discardStagedIndex, IndexBuildError, type LoadedIndex } from '../native/offer-index.js';
import { stackFrames } from '../errors/error-registry.js';

/** After a failed reload, polls try the same catalog again no sooner than this, doubling up to
 *  RETRY_MAX_MS: a catalog that cannot be loaded is not rebuilt every second. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 60_000;

export class CatalogRuntime {
  private view = ServingCatalog.empty();
  private timer: NodeJS.Timeout | null = null;
  private reloading: Promise<void> | null = null;
  private stopped = false;
  private retryAt = 0;
  private failuresInARow = 0;
  /** Wall time of the last reload that went live: read, build, swap. */
  lastReloadMs = 0;
  /** Serving-thread time of the last reload that went live: the worker's messages taken in and
   *  the swap. The rest of the load ran on the worker. */
  lastReloadServingThreadMs = 0;
  /** Reloads that failed (the previous catalog kept serving). */
  reloadFailures = 0;
  lastError: string | null = null;
  /** Runs before a catalog with campaigns this instance has not served yet is swapped in (the
   *  spend keeper loads their spend, so they are known from their first decide). */
  beforeNewCampaigns: ((campaignIds: string[]) => Promise<void>) | null = null;

  constructor(
    private readonly repo: CatalogRepository,
    private readonly loader: CatalogLoader,
    readonly index: LoadedIndex,
    private readonly log: FastifyBaseLogger,
    private readonly pollMs: number,
  ) {}

  /** The live view. A decide reads it once and keeps it: the index it matched against was made
   *  live in the same step as this view, so both name the same catalog. */
  get serving(): ServingCatalog {
    return this.view;
  }

  get ready(): boolean {
    return this.index.stats().ready;
  }

  async start(): Promise<void> {
    await this.reload();
    this.timer = setInterval(() => void this.checkVersion(), this.pollMs);
    this.timer.unref();
  }

  /** Stops polling and ends a load in progress (its worker is terminated, nothing goes live). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.loader.stop();
  }

  /** Reloads now (after an import on this instance); concurrent calls share one reload. */
  reload(): Promise<void> {
    this.reloading ??= this.doReload().finally(() => {
      this.reloading = null;
    });
    return this.reloading;
  }

  private async checkVersion(): Promise<void> {
    if (Date.now() < this.retryAt) return;
    try {
      const version = await this.repo.version();
      if (version !== this.view.version || !this.ready) await this.reload();
    } catch (err) {
      // Database unreachable, or the new catalog could not be loaded: keep serving what we have.
      this.lastError = (err as Error).message;
    }
  }

  private async doReload(): Promise<void> {
    const started = performance.now();
    let loaded: LoadedCatalog | undefined;
    try {
      loaded = await this.loader.load();
      const added = [...loaded.view.campaigns.keys()].filter((id) => !this.view.campaigns.has(id));
      if (added.length > 0) await this.beforeNewCampaigns?.(added);
      if (this.stopped) throw new Error('the catalog runtime stopped before the catalog went live');
      const swapStarted = performance.now();
      // One synchronous step: the index and the view its results are decoded with go live
      // together; no decide can run between the two.
      this.index.install(loaded.staged, loaded.view.offers);
      this.view = loaded.view;
      this.lastReloadServingThreadMs = loaded.servingThreadMs + (performance.now() - swapStarted);
    } catch (err) {
      if (loaded) discardStagedIndex(loaded.staged);
      this.failed(err);
      throw err;
    }
    this.lastReloadMs = performance.now() - started;
    this.lastError = null;
    this.failuresInARow = 0;
    this.retryAt = 0;
    this.log.info(
      {
        catalogVersion: this.view.version,
        offers: loaded.staged.offers,
        ms: Math.round(this.lastReloadMs),
        buildMs: Math.round(loaded.staged.buildMillis),
        servingThreadMs: Math.round(this.lastReloadServingThreadMs),
        longestStepMs: Math.round(loaded.longestStepMs * 10) / 10,
      },
      'offer index loaded',
    );
  }

  private failed(err: unknown): void {
    this.reloadFailures++;
    this.failuresInARow++;
    this.retryAt = Date.now() + Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (this.failuresInARow - 1));
    this.lastError = (err as Error).message;
    if (this.stopped) return;
    // An index build error names the catalog ids at fault (the operator's to fix); anything else
    // is logged by type and stack, never by a driver's message.
    const detail =
      err instanceof IndexBuildError
        ? { type: err.name, code: err.code, message: err.message }
        : err instanceof CatalogLoadFailed
          ? { type: err.type, code: err.code, ...(err.code?.startsWith('INDEX_') ? { message: err.message } : {}), frames: err.frames }
          : { type: (err as Error).name, frames: stackFrames(err) };
    this.log.error({ err: detail }, 'offer index reload failed; the previous catalog keeps serving');
  }
}
