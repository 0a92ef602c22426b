// Catalog import jobs (migration 008): the record any instance answers `GET
// /admin/catalog/imports/{id}` from. The instance running a job writes its state and progress;
// the others only read it, and mark it failed once its runner is gone.
import type { Queryable } from '../db/database.js';
import type { ImportReport } from './catalog-repository.js';

export type ImportJobState = 'queued' | 'validating' | 'writing' | 'succeeded' | 'failed';
export const UNFINISHED_STATES: readonly ImportJobState[] = ['queued', 'validating', 'writing'];

/** Why a job failed, as an error body: `invalid_catalog` with `problems`, `invalid_request` with
 *  `message`, `import_interrupted`, `service_unavailable` or `internal_error`. */
export interface ImportFailure {
  error: string;
  [detail: string]: unknown;
}

export interface ImportJobRow {
  id: string;
  state: ImportJobState;
  bytes_total: number;
  bytes_read: number;
  offers_read: number;
  offers_checked: number;
  offers_total: number | null;
  offers_written: number;
  report: ImportReport | null;
  failure: ImportFailure | null;
  runner: string;
  runner_pid: number | null;
  created_at: Date;
  started_at: Date | null;
  validated_at: Date | null;
  finished_at: Date | null;
  updated_at: Date;
}

export interface ImportJobProgress {
  bytesRead: number;
  offersRead: number;
  offersChecked: number;
  offersTotal: number | null;
  offersWritten: number;
}

export class CatalogImportJobRepository {
  constructor(private readonly db: Queryable) {}

  async create(job: { id: string; bytesTotal: number; runner: string; runnerPid: number | null }): Promise<ImportJobRow> {
    const r = await this.db.query<ImportJobRow>(
      `INSERT INTO catalog_import_jobs (id, state, bytes_total, runner, runner_pid) VALUES ($1, 'queued', $2, $3, $4) RETURNING *`,
      [job.id, job.bytesTotal, job.runner, job.runnerPid],
    );
    return r.rows[0];
  }

  async get(id: string): Promise<ImportJobRow | null> {
    const r = await this.db.query<ImportJobRow>('SELECT * FROM catalog_import_jobs WHERE id = $1', [id]);
    return r.rows[0] ?? null;
  }

  /** Jobs not finished (as recorded: their runner may be gone). */
  async unfinished(): Promise<ImportJobRow[]> {
    const r = await this.db.query<ImportJobRow>('SELECT * FROM catalog_import_jobs WHERE state = ANY($1::text[]) ORDER BY created_at', [UNFINISHED_STATES]);
    return r.rows;
  }

  /** Into `validating` or `writing`, stamping when it got there. */
  async enter(id: string, state: 'validating' | 'writing'): Promise<void> {
    await this.db.query(
      `UPDATE catalog_import_jobs SET state = $2, updated_at = now(),
              started_at = CASE WHEN $2 = 'validating' THEN now() ELSE started_at END,
              validated_at = CASE WHEN $2 = 'writing' THEN now() ELSE validated_at END
        WHERE id = $1 AND state = ANY($3::text[])`,
      [id, state, UNFINISHED_STATES],
    );
  }

  async progress(id: string, p: ImportJobProgress): Promise<void> {
    await this.db.query(
      `UPDATE catalog_import_jobs SET bytes_read = $2, offers_read = $3, offers_checked = $4, offers_total = $5, offers_written = $6, updated_at = now()
        WHERE id = $1 AND state = ANY($7::text[])`,
      [id, p.bytesRead, p.offersRead, p.offersChecked, p.offersTotal, p.offersWritten, UNFINISHED_STATES],
    );
  }

  /** The job's catalog committed, with this report: written in the catalog's own transaction,
   *  so the record knows it exactly when the catalog does. The job still reads `writing` until
   *  `succeed` (its instance reloads first); one whose runner is gone then reads succeeded. */
  async committed(id: string, report: ImportReport, tx: Queryable): Promise<void> {
    // The report only: progress keeps moving forward through `progress`, then `succeed`.
    await tx.query(`UPDATE catalog_import_jobs SET report = $2 WHERE id = $1 AND state = ANY($3::text[])`, [id, JSON.stringify(report), UNFINISHED_STATES]);
  }

  async succeed(id: string, report: ImportReport, p: ImportJobProgress): Promise<void> {
    await this.db.query(
      `UPDATE catalog_import_jobs SET state = 'succeeded', report = $2, bytes_read = $3, offers_read = $4, offers_checked = $5,
              offers_total = $6, offers_written = $7, finished_at = now(), updated_at = now()
        WHERE id = $1`,
      [id, JSON.stringify(report), p.bytesRead, p.offersRead, p.offersChecked, p.offersTotal, p.offersWritten],
    );
  }

  /** A job whose runner is gone but whose catalog committed (`committed`): succeeded, as it did. */
  async succeedCommitted(id: string): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE catalog_import_jobs SET state = 'succeeded', finished_at = now(), updated_at = now()
        WHERE id = $1 AND report IS NOT NULL AND state = ANY($2::text[])`,
      [id, UNFINISHED_STATES],
    );
    return r.rowCount > 0;
  }

  /** Marks a job failed, if it is not finished already. Returns whether it did. */
  async fail(id: string, failure: ImportFailure): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE catalog_import_jobs SET state = 'failed', failure = $2, finished_at = now(), updated_at = now()
        WHERE id = $1 AND state = ANY($3::text[])`,
      [id, JSON.stringify(failure), UNFINISHED_STATES],
    );
    return r.rowCount > 0;
  }

  /** Forgets jobs finished before `before`. */
  async forgetFinishedBefore(before: Date): Promise<number> {
    const r = await this.db.query('DELETE FROM catalog_import_jobs WHERE finished_at < $1', [before.toISOString()]);
    return r.rowCount;
  }
}
