// Imports a catalog file of any size: parsed, checked and hashed on a worker thread
// (catalog-import-worker.ts), written by CatalogRepository.write in one transaction of bounded
// batches. The event loop that serves decides only moves batches from the worker to Postgres.
// A small file (up to QUICK_CHECK_MAX_BYTES) is checked on this thread instead: a few
// milliseconds of parsing, where starting a worker costs about 250 ms.
//
// One import at a time across instances: an import holds the session lock catalogImportRunning
// from its start to its end (PGlite, one process, also guards it here). A second one is refused
// with import_in_progress rather than queued behind a job that may take minutes.
import type { Worker } from 'node:worker_threads';
import { rm, stat } from 'node:fs/promises';
import { makeScratchDir } from './import-scratch.js';
import { ADVISORY_LOCKS, trySessionLock } from '../db/advisory-locks.js';
import type { Database, Queryable } from '../db/database.js';
import { Refusal } from '../errors/error-registry.js';
import { OFFER_BATCH_SIZE, type CatalogRepository, type ImportReport } from './catalog-repository.js';
import { CatalogValidationError } from './catalog-validation.js';
import type { ImportPlan, PreparedOffer } from './catalog-import-plan.js';
import type { ToImporter, WorkerInput } from './catalog-import-messages.js';
import { startCatalogWorker } from './worker-threads.js';
import { checkCatalogFile, readyOffers } from './catalog-check.js';

/** The catalog is not JSON (answered 400 invalid_request; the text is never quoted). */
export class CatalogNotJson extends Refusal {
  constructor() {
    super('invalid_request', { message: 'the catalog is not valid JSON' }, 'the catalog is not valid JSON');
  }
}

/** Another import is running, on this instance or another (answered 409). */
export class ImportInProgress extends Refusal {
  constructor(jobId?: string) {
    super('import_in_progress', jobId ? { job_id: jobId } : {}, 'another catalog import is running; try again when it has finished');
  }
}

/** Largest catalog checked on the serving thread: refused there when wrong, imported there
 *  without a worker when good. */
export const QUICK_CHECK_MAX_BYTES = 64 * 1024;

export type ImportPhase = 'validating' | 'writing';

export interface ImportProgress {
  bytesTotal: number;
  bytesRead: number;
  offersRead: number;
  offersChecked: number;
  /** Known once the file is checked. */
  offersTotal: number | null;
  offersWritten: number;
}

export interface ImportHooks {
  onPhase?(phase: ImportPhase): Promise<void> | void;
  onProgress?(progress: ImportProgress): void;
  /** Runs inside the catalog's transaction, just before it commits (CatalogRepository.write). */
  beforeCommit?(tx: Queryable, report: ImportReport): Promise<void>;
  /** Aborting stops the worker and rolls the transaction back. */
  signal?: AbortSignal;
}

/** The right to run the one import: taken before anything else, released at the end. */
export interface ImportReservation {
  /** The Postgres backend holding the lock (null on PGlite): other instances ask it whether the
   *  import still runs. */
  readonly holderPid: number | null;
  run(file: string, hooks?: ImportHooks): Promise<ImportReport>;
  release(): Promise<void>;
}

export interface CatalogImporterOptions {
  /** Where the worker spools offers (default: the OS temporary directory). */
  tmpDir?: string;
  batchSize?: number;
  /** Starts the import's worker thread (a test counts them). */
  startWorker?: (input: WorkerInput) => Worker;
}

export class CatalogImporter {
  private reserved = false;

  constructor(
    private readonly db: Database,
    private readonly repo: CatalogRepository,
    private readonly opts: CatalogImporterOptions = {},
  ) {}

  /** Takes the reservation, or throws ImportInProgress. */
  async reserve(): Promise<ImportReservation> {
    if (this.reserved) throw new ImportInProgress();
    this.reserved = true;
    let lock: Awaited<ReturnType<typeof trySessionLock>>;
    try {
      lock = await trySessionLock(this.db, ADVISORY_LOCKS.catalogImportRunning);
    } catch (err) {
      this.reserved = false;
      throw err;
    }
    if (!lock) {
      this.reserved = false;
      throw new ImportInProgress();
    }
    const held = lock;
    let released = false;
    return {
      holderPid: held.holderPid,
      run: (file, hooks) => this.run(file, hooks ?? {}),
      release: async () => {
        if (released) return;
        released = true;
        await held.release();
        this.reserved = false;
      },
    };
  }

  /** For a small file, checks it on this thread and throws what its import would fail with (not
   *  JSON, invalid, every problem listed), so a wrong small catalog is refused without starting
   *  a worker (about 250 ms, most of it loading the schemas there). A good one is left to `run`,
   *  which checks it again on the worker. Bounded by the size: well under a millisecond of
   *  parsing on the serving thread. */
  async refuseSmall(file: string, bytes: number): Promise<void> {
    if (bytes > QUICK_CHECK_MAX_BYTES) return;
    const spool = await makeScratchDir('import', this.opts.tmpDir);
    try {
      const checked = await checkCatalogFile(file, spool);
      if (checked.kind === 'not_json') throw new CatalogNotJson();
      if (checked.kind === 'invalid') throw new CatalogValidationError(checked.problems);
    } finally {
      await rm(spool, { recursive: true, force: true });
    }
  }

  /** reserve, run, release. */
  async importFile(file: string, hooks: ImportHooks = {}): Promise<ImportReport> {
    const reservation = await this.reserve();
    try {
      return await reservation.run(file, hooks);
    } finally {
      await reservation.release();
    }
  }

  private async run(file: string, hooks: ImportHooks): Promise<ImportReport> {
    // Made and removed here, whatever becomes of the worker.
    const spoolDir = await makeScratchDir('import', this.opts.tmpDir);
    const input = { file, spoolDir, batchSize: this.opts.batchSize ?? OFFER_BATCH_SIZE };
    const small = (await stat(file)).size <= QUICK_CHECK_MAX_BYTES;
    const worker: ImportSource = small ? new CheckedHere(input) : new ImportWorker(input, this.opts.startWorker ?? startWorker);
    const progress: ImportProgress = { bytesTotal: 0, bytesRead: 0, offersRead: 0, offersChecked: 0, offersTotal: null, offersWritten: 0 };
    worker.onProgress = (m) => {
      progress.bytesTotal = m.bytesTotal;
      if (m.bytesRead !== undefined) progress.bytesRead = m.bytesRead;
      if (m.offersRead !== undefined) progress.offersRead = m.offersRead;
      if (m.offersChecked !== undefined) progress.offersChecked = m.offersChecked;
      hooks.onProgress?.({ ...progress });
    };
    const abort = () => worker.stop(new Error('catalog import aborted'));
    hooks.signal?.addEventListener('abort', abort);
    try {
      hooks.signal?.throwIfAborted();
      await hooks.onPhase?.('validating');
      const plan = await worker.plan();
      progress.offersTotal = plan.offers;
      hooks.onProgress?.({ ...progress });
      await hooks.onPhase?.('writing');
      return await this.repo.write(
        plan,
        worker.batches(),
        (written) => {
          progress.offersWritten = written;
          hooks.onProgress?.({ ...progress });
        },
        hooks.beforeCommit,
      );
    } finally {
      hooks.signal?.removeEventListener('abort', abort);
      await worker.stop();
      await rm(spoolDir, { recursive: true, force: true });
    }
  }
}

// The worker keeps one id and one digest per offer and the catalog's head; its heap is capped so
// garbage is collected instead of growing the process (a million offers fit in well under it).
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 1024 };

function startWorker(input: WorkerInput): Worker {
  return startCatalogWorker('catalog-import-worker', input, RESOURCE_LIMITS);
}

/** Where an import's checked offers come from: its plan, then its batches. */
interface ImportSource {
  onProgress: ((m: Extract<ToImporter, { kind: 'progress' }>) => void) | null;
  plan(): Promise<ImportPlan>;
  batches(): AsyncGenerator<PreparedOffer[]>;
  /** With a reason: the import is abandoned, and the next step throws it. */
  stop(reason?: Error): Promise<void>;
}

/** A small file, checked and read on this thread with the worker's own code. */
class CheckedHere implements ImportSource {
  private readyFile: string | null = null;
  private stopped: Error | null = null;
  onProgress: ImportSource['onProgress'] = null;

  constructor(private readonly input: WorkerInput) {}

  async plan(): Promise<ImportPlan> {
    const checked = await checkCatalogFile(this.input.file, this.input.spoolDir, (p) => this.onProgress?.({ kind: 'progress', ...p }));
    if (this.stopped) throw this.stopped;
    if (checked.kind === 'invalid') throw new CatalogValidationError(checked.problems);
    if (checked.kind === 'not_json') throw new CatalogNotJson();
    this.readyFile = checked.readyFile;
    return checked.plan;
  }

  async *batches(): AsyncGenerator<PreparedOffer[]> {
    if (!this.readyFile) throw new Error('catalog import: batches before the plan');
    for await (const batch of readyOffers(this.readyFile, this.input.batchSize)) {
      if (this.stopped) throw this.stopped;
      yield batch;
    }
  }

  async stop(reason?: Error): Promise<void> {
    if (reason) this.stopped ??= reason;
  }
}

/** The worker seen from the importer: its plan, then its batches, one requested ahead. */
class ImportWorker implements ImportSource {
  private readonly worker: Worker;
  private readonly queue: ToImporter[] = [];
  private waiting: { resolve: (m: ToImporter) => void; reject: (e: Error) => void } | null = null;
  private failure: Error | null = null;
  private stopped = false;
  onProgress: ((m: Extract<ToImporter, { kind: 'progress' }>) => void) | null = null;

  constructor(input: WorkerInput, start: (input: WorkerInput) => Worker) {
    this.worker = start(input);
    this.worker.on('message', (m: ToImporter) => {
      if (m.kind === 'progress') return this.onProgress?.(m);
      if (m.kind === 'failed') return this.fail(new Error(`catalog import worker failed: ${m.name}\n${m.frames}`));
      this.queue.push(m);
      this.wake();
    });
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => {
      if (!this.stopped) this.fail(new Error(`catalog import worker exited (${code})`));
    });
  }

  private fail(err: Error) {
    this.failure ??= err;
    this.wake();
  }

  private wake() {
    const w = this.waiting;
    if (!w) return;
    if (this.queue.length > 0) {
      this.waiting = null;
      w.resolve(this.queue.shift()!);
    } else if (this.failure) {
      this.waiting = null;
      w.reject(this.failure);
    }
  }

  private next(): Promise<ToImporter> {
    if (this.queue.length > 0) return Promise.resolve(this.queue.shift()!);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  async plan(): Promise<ImportPlan> {
    const m = await this.next();
    if (m.kind === 'valid') return m.plan;
    if (m.kind === 'invalid') throw new CatalogValidationError(m.problems);
    if (m.kind === 'not_json') throw new CatalogNotJson();
    throw new Error(`catalog import worker: unexpected ${m.kind}`);
  }

  async *batches(): AsyncGenerator<PreparedOffer[]> {
    // One batch ahead: the worker reads the next while this one is written.
    this.worker.postMessage({ kind: 'next' });
    for (;;) {
      const m = await this.next();
      if (m.kind === 'end') return;
      if (m.kind !== 'batch') throw new Error(`catalog import worker: unexpected ${m.kind}`);
      this.worker.postMessage({ kind: 'next' });
      yield m.offers;
    }
  }

  async stop(reason?: Error): Promise<void> {
    if (reason) this.fail(reason);
    if (this.stopped) return;
    this.stopped = true;
    await this.worker.terminate();
  }
}
