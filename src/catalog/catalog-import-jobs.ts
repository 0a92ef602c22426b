// Catalog imports as jobs: an uploaded catalog is stored in a temporary file, recorded as a job
// in Postgres and imported in the background (CatalogImporter: checked on a worker thread,
// written in batches), while its state and progress are written to the job's row. Any instance
// answers for any job from that row.
//
// A job whose runner is gone (the process was killed, restarted or shut down) must not read as
// running for ever. Its runner holds the import lock for the whole job, on a Postgres backend the
// row names: a job still unfinished whose backend no longer holds the lock was cut off, and the
// first instance to read it marks it failed with `import_interrupted`. On PGlite (one process)
// a job this process is not running was cut off. Its report is recorded in the same transaction
// as the catalog it wrote, so a cut-off job with a report reads succeeded (its catalog serves),
// and one without reads interrupted: nothing was written.
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { once } from 'node:events';
import { hostname } from 'node:os';
import path from 'node:path';
import { makeScratchDir } from './import-scratch.js';
import type { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../db/database.js';
import { ADVISORY_LOCKS, holdsSessionLock } from '../db/advisory-locks.js';
import { Refusal, StoreUnavailable, stackFrames } from '../errors/error-registry.js';
import { newId } from '../util/ids.js';
import type { CatalogRepository, ImportReport } from './catalog-repository.js';
import { CatalogValidationError } from './catalog-validation.js';
import { CatalogImporter, ImportInProgress, type CatalogImporterOptions, type ImportProgress, type ImportReservation } from './catalog-importer.js';
import { CatalogImportJobRepository, type ImportFailure, type ImportJobProgress, type ImportJobRow } from './catalog-import-job-repository.js';

export type { ImportJobRow } from './catalog-import-job-repository.js';

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface CatalogImportJobsOptions {
  /** Largest catalog accepted, in bytes. */
  maxBytes: number;
  /** Where uploads are stored while they are imported (default: the OS temporary directory). */
  tmpDir?: string;
  /** Runs after a changed catalog was written, before the job reads as succeeded (this
   *  instance reloads its index; the others poll). */
  onImported?: (report: ImportReport) => Promise<void>;
  /** Runs in the catalog's transaction, with the job's success (signed notifications): what it
   *  writes commits with the catalog. */
  onCommitted?: (tx: Queryable, jobId: string, report: ImportReport) => Promise<void>;
  /** Runs once the job has recorded its end, succeeded or failed. */
  onFinished?: (job: ImportJobRow) => Promise<void>;
  /** Runs when a synchronous import's catalog is refused before any job was recorded (its
   *  caller is answered at once; subscribers hear of it as of a failed job). */
  onRefused?: (failure: ImportFailure) => Promise<void>;
  log?: Log;
  /** Progress is written to the job's row at most this often. */
  progressEveryMs?: number;
  /** Finished jobs are forgotten after this many days. */
  keepDays?: number;
}

const RESERVE_RETRIES = 40;
const RESERVE_RETRY_MS = 50;

/** The instance that ran the job stopped before it finished. */
class Interrupted extends Error {}

const INTERRUPTED: ImportFailure = { error: 'import_interrupted', message: 'the instance running this import stopped before it finished; nothing was written' };

export class CatalogImportJobs {
  /** This process among every instance's runners. */
  readonly runner = `${hostname()}:${process.pid}:${randomUUID()}`;
  private readonly running = new Map<string, { abort: AbortController; done: Promise<ImportJobRow> }>();
  private readonly repo: CatalogImportJobRepository;
  private closed = false;

  constructor(
    private readonly db: Database,
    private readonly importer: CatalogImporter,
    private readonly opts: CatalogImportJobsOptions,
  ) {
    this.repo = new CatalogImportJobRepository(db);
  }

  /** Stores the catalog in `body`, records a job and starts it. Refuses with import_in_progress
   *  while another import runs, payload_too_large over the size limit, invalid_request for a
   *  body that is empty or not a JSON object. Returns the job as recorded (`queued`). */
  async start(body: Readable | undefined): Promise<ImportJobRow> {
    return (await this.begin(body)).job;
  }

  /** start, then wait for the end: the import's report, or what it failed with. */
  async importToEnd(body: Readable | undefined): Promise<ImportReport> {
    const { done } = await this.begin(body, { refuseSmallAtOnce: true });
    const job = await done;
    if (job.state === 'succeeded' && job.report) return job.report;
    throw failureError(job.failure ?? { error: 'internal_error' });
  }

  /** A job as it stands, or null. One whose runner is gone is marked failed first. */
  async get(id: string): Promise<ImportJobRow | null> {
    const job = await this.repo.get(id);
    if (!job || job.finished_at || this.running.has(id)) return job;
    if (await this.runnerAlive(job)) return job;
    // Cut off: after its catalog committed (it serves), or before (nothing was written).
    if (!(await this.repo.succeedCommitted(id))) await this.repo.fail(id, INTERRUPTED);
    return this.repo.get(id);
  }

  /** Stops the imports this instance runs: each job rolls back and reads as interrupted. */
  async close(): Promise<void> {
    this.closed = true;
    for (const { abort } of this.running.values()) abort.abort(new Interrupted());
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  private async runnerAlive(job: ImportJobRow): Promise<boolean> {
    // This process' own jobs are in `running` until their end is recorded.
    if (job.runner === this.runner || this.db.engine !== 'postgres' || job.runner_pid === null) return false;
    return holdsSessionLock(this.db, ADVISORY_LOCKS.catalogImportRunning, job.runner_pid);
  }

  /** `refuseSmallAtOnce`: a small catalog that is not JSON or fails its checks is refused before
   *  a job is recorded or a worker started (the synchronous import: its caller waits anyway, and
   *  a job was only ever the way to its answer). */
  private async begin(body: Readable | undefined, opts: { refuseSmallAtOnce?: boolean } = {}): Promise<{ job: ImportJobRow; done: Promise<ImportJobRow> }> {
    if (this.closed) throw new StoreUnavailable('shutting down', 'SHUTTING_DOWN');
    const reservation = await this.reserve();
    const dir = await makeScratchDir('upload', this.opts.tmpDir);
    const cleanUp = async () => {
      await reservation.release().catch(() => {});
      await rm(dir, { recursive: true, force: true });
    };
    let file: string;
    let bytes: number;
    try {
      ({ file, bytes } = await storeUpload(body, dir, this.opts.maxBytes));
      if (opts.refuseSmallAtOnce) await this.importer.refuseSmall(file, bytes);
    } catch (err) {
      await cleanUp();
      if (err instanceof CatalogValidationError) await this.opts.onRefused?.(toFailure(err)).catch(() => {});
      throw err;
    }
    const id = newId('imp');
    const abort = new AbortController();
    let started!: () => void;
    const recorded = new Promise<void>((r) => (started = r));
    // In `running` before the row exists, so a read of it on this instance never finds it orphaned.
    const done = recorded
      .then(() => this.run(id, file, reservation, abort.signal))
      .finally(async () => {
        this.running.delete(id);
        await cleanUp();
      });
    this.running.set(id, { abort, done });
    let job: ImportJobRow;
    try {
      job = await this.repo.create({ id, bytesTotal: bytes, runner: this.runner, runnerPid: reservation.holderPid });
    } catch (err) {
      this.running.delete(id);
      await cleanUp();
      throw err;
    }
    started();
    // Best effort, off the request: old finished jobs go.
    this.repo.forgetFinishedBefore(new Date(Date.now() - (this.opts.keepDays ?? 30) * 86_400_000)).catch(() => {});
    return { job, done };
  }

  private async run(id: string, file: string, reservation: ImportReservation, signal: AbortSignal): Promise<ImportJobRow> {
    let latest: ImportProgress = { bytesTotal: 0, bytesRead: 0, offersRead: 0, offersChecked: 0, offersTotal: null, offersWritten: 0 };
    let lastWrite = 0;
    let writing: Promise<void> = Promise.resolve();
    const every = this.opts.progressEveryMs ?? 250;
    const save = () => {
      const p = toJobProgress(latest);
      writing = writing.then(() => this.repo.progress(id, p)).catch(() => {});
    };
    try {
      const report = await reservation.run(file, {
        signal,
        onPhase: async (phase) => {
          await this.repo.enter(id, phase);
        },
        // Its report is recorded in the catalog's transaction: killed right after the commit,
        // the job reads as what happened (its catalog serves), never as interrupted.
        beforeCommit: async (tx, report) => {
          await this.repo.committed(id, report, tx);
          await this.opts.onCommitted?.(tx, id, report);
        },
        onProgress: (p) => {
          latest = p;
          // Written one at a time: a slow database gets fewer updates, never a queue of them.
          if (Date.now() - lastWrite >= every) {
            lastWrite = Date.now();
            save();
          }
        },
      });
      await writing;
      if (report.changed) {
        await this.opts
          .onImported?.(report)
          .catch((err) =>
            this.opts.log?.warn(
              { err: { type: (err as Error).name, frames: stackFrames(err) } },
              'catalog imported, but this instance could not reload it yet',
            ),
          );
      }
      await this.repo.succeed(id, report, toJobProgress(latest));
      this.opts.log?.info({ job: id, version: report.version, offers: report.offers, changed: report.changed }, 'catalog import succeeded');
    } catch (err) {
      await writing;
      const failure = signal.aborted ? INTERRUPTED : toFailure(err);
      if (failure.error === 'internal_error')
        this.opts.log?.error({ job: id, err: { type: (err as Error).name, frames: stackFrames(err) } }, 'catalog import failed');
      else this.opts.log?.info({ job: id, error: failure.error }, 'catalog import refused');
      await this.repo.fail(id, failure).catch(() => {});
    }
    const row = (await this.repo.get(id).catch(() => null)) ?? failedRow(id, this.runner);
    await this.opts.onFinished?.(row).catch(() => {});
    return row;
  }

  /** The one-at-a-time lock. A job records its end before its runner lets the lock go, so a
   *  client that saw the last job finish and starts the next can find the lock still held for a
   *  moment: with no unfinished job behind it, the lock is waited for (briefly), not refused. */
  private async reserve(): Promise<ImportReservation> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.importer.reserve();
      } catch (err) {
        if (!(err instanceof ImportInProgress)) throw err;
        const running = await this.runningJobId();
        if (running !== undefined || attempt >= RESERVE_RETRIES) throw new ImportInProgress(running);
        await new Promise((r) => setTimeout(r, RESERVE_RETRY_MS));
      }
    }
  }

  private async runningJobId(): Promise<string | undefined> {
    for (const job of await this.repo.unfinished().catch(() => [])) {
      if (this.running.has(job.id) || (await this.runnerAlive(job).catch(() => false))) return job.id;
    }
    return undefined;
  }
}

/** The jobs of an instance, with their importer. */
export function catalogImportJobs(
  db: Database,
  catalog: CatalogRepository,
  opts: CatalogImportJobsOptions & Pick<CatalogImporterOptions, 'startWorker'>,
): CatalogImportJobs {
  return new CatalogImportJobs(db, new CatalogImporter(db, catalog, { tmpDir: opts.tmpDir, startWorker: opts.startWorker }), opts);
}

function toJobProgress(p: ImportProgress): ImportJobProgress {
  return { bytesRead: p.bytesRead, offersRead: p.offersRead, offersChecked: p.offersChecked, offersTotal: p.offersTotal, offersWritten: p.offersWritten };
}

/** What a job failed with, as the error body its record keeps. */
function toFailure(err: unknown): ImportFailure {
  if (err instanceof CatalogValidationError) return { error: 'invalid_catalog', problems: err.problems };
  if (err instanceof Refusal) return { error: err.code, ...err.details };
  if (err instanceof StoreUnavailable) return { error: 'service_unavailable' };
  return { error: 'internal_error' };
}

/** The error a synchronous import answers with, from a job's failure. */
function failureError(f: ImportFailure): Error {
  if (f.error === 'invalid_catalog') return new CatalogValidationError((f.problems as string[]) ?? []);
  if (f.error === 'service_unavailable') return new StoreUnavailable('database unavailable', 'DATABASE_UNAVAILABLE');
  // Cut off by this instance's shutdown: nothing was written, and a retry (elsewhere) may land it.
  if (f.error === 'import_interrupted') return new StoreUnavailable('shutting down', 'SHUTTING_DOWN');
  if (f.error === 'internal_error') return new Error('catalog import failed');
  const { error, ...details } = f;
  return new Refusal(error as ConstructorParameters<typeof Refusal>[0], details);
}

function failedRow(id: string, runner: string): ImportJobRow {
  const now = new Date();
  return {
    id,
    state: 'failed',
    bytes_total: 0,
    bytes_read: 0,
    offers_read: 0,
    offers_checked: 0,
    offers_total: null,
    offers_written: 0,
    report: null,
    failure: { error: 'service_unavailable' },
    runner,
    runner_pid: null,
    created_at: now,
    started_at: null,
    validated_at: null,
    finished_at: now,
    updated_at: now,
  };
}

/** Writes an upload to `dir`, refusing it past `maxBytes` (payload_too_large), when empty or when
 *  its first character cannot start a JSON object (invalid_request): the cheap checks that can
 *  be answered at once. The rest is the job's to find. */
async function storeUpload(body: Readable | undefined, dir: string, maxBytes: number): Promise<{ file: string; bytes: number }> {
  const file = path.join(dir, 'catalog.json');
  const out = createWriteStream(file, { mode: 0o600 });
  let bytes = 0;
  let firstChar: number | null = null;
  try {
    if (body) {
      for await (const chunk of body) {
        const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
        bytes += buf.length;
        if (bytes > maxBytes) {
          body.destroy();
          throw new Refusal('payload_too_large');
        }
        if (firstChar === null) {
          const at = buf.findIndex((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
          // A UTF-8 byte-order mark may come first.
          const lead = at >= 0 && buf[at] === 0xef && buf[at + 1] === 0xbb && buf[at + 2] === 0xbf ? at + 3 : at;
          if (lead >= 0 && lead < buf.length) firstChar = buf[lead];
        }
        if (!out.write(buf)) await once(out, 'drain');
      }
    }
    out.end();
    await once(out, 'finish');
  } catch (err) {
    out.destroy();
    throw err;
  }
  if (bytes === 0 || firstChar === null) throw new Refusal('invalid_request', { message: 'the catalog is empty' });
  if (firstChar !== 0x7b) throw new Refusal('invalid_request', { message: 'the catalog is not a JSON object' });
  return { file, bytes };
}
