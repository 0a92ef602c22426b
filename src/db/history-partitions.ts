// History maintenance: the day partitions of the history tables (migration 006 says which, and
// why) are made ahead of time, and those whose every row is past its table's retention are
// detached and dropped, as whole days, never row by row. The key tables that keep idempotency
// keys and nonces unique across days are expired by their owning repositories, through the
// callbacks given here. The spend ledger is not history and is never touched.
//
// A run holds a session advisory lock, so one instance at a time does it: a scheduled run that
// finds the lock taken skips (another instance is doing the same work); the run at start waits
// for it, because the instance must not serve before today's partitions exist.
//
// Detaching a partition takes an exclusive lock on its parent for a moment. It is asked for with
// a short lock_timeout, so a long report query never leaves writers queued behind the detach: a
// day that cannot be dropped now is dropped on the next run.
import { ADVISORY_LOCKS } from './advisory-locks.js';
import type { Database, Queryable } from './database.js';

/** Each history table and the time column it is partitioned by. */
export const HISTORY_TABLES = {
  decisions: 'created_at',
  events: 'created_at',
  clicks: 'created_at',
  conversions: 'created_at',
  affiliate_impressions: 'created_at',
  // By the impression's time: its click intents live and expire with it.
  click_intents: 'impression_created_at',
} as const;

export type HistoryTable = keyof typeof HISTORY_TABLES;

const DAY_MS = 86_400_000;

export interface KeyExpiry {
  name: string;
  days: number;
  /** Deletes the keys recorded before `before`; returns how many. */
  forgetBefore(before: Date): Promise<number>;
}

export interface HistoryPolicy {
  /** Days each table's rows are kept; 0 keeps them for ever. */
  retentionDays: Record<HistoryTable, number>;
  /** Days after today whose partitions exist at all times. */
  daysAhead: number;
  keyExpiry?: KeyExpiry[];
}

export interface MaintenanceReport {
  created: string[];
  dropped: string[];
  /** Partitions due to be dropped that could not be locked in time (dropped on a later run). */
  deferred: string[];
  keysForgotten: Record<string, number>;
}

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** `decisions_p20261123`: the partition of one UTC day. */
export function partitionName(table: HistoryTable, dayMs: number): string {
  return `${table}_p${new Date(dayMs).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/** The UTC day (its first millisecond) a partition name stands for, or null. */
function partitionDay(table: HistoryTable, name: string): number | null {
  const m = new RegExp(`^${table}_p(\\d{4})(\\d{2})(\\d{2})$`).exec(name);
  return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : null;
}

const startOfDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
const utcMidnight = (dayMs: number) => `${new Date(dayMs).toISOString().slice(0, 10)} 00:00:00+00`;

/** The partitions of a history table, by name. */
export async function historyPartitions(db: Queryable, table: HistoryTable): Promise<string[]> {
  const r = await db.query<{ name: string }>(
    'SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::text::regclass ORDER BY 1',
    [table],
  );
  return r.rows.map((x) => x.name);
}

// One run at a time per handle: PGlite (one session) takes the advisory lock re-entrantly.
const running = new WeakMap<Database, Promise<unknown>>();

export class HistoryMaintenance {
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Database,
    private readonly policy: HistoryPolicy,
    private readonly opts: { now?: () => number; log?: Log; intervalMs?: number } = {},
  ) {}

  /** One run. `wait`: wait for another instance's run to finish instead of skipping. Resolves
   *  null when skipped. */
  run({ wait = false }: { wait?: boolean } = {}): Promise<MaintenanceReport | null> {
    const previous = running.get(this.db);
    if (previous && !wait) return Promise.resolve(null);
    const next = (previous ?? Promise.resolve()).catch(() => {}).then(() => this.runLocked(wait));
    const settled = next.finally(() => {
      if (running.get(this.db) === settled) running.delete(this.db);
    });
    running.set(this.db, settled);
    this.current = settled.catch(() => {});
    return next;
  }

  /** Runs every `intervalMs` (default hourly) until stopped; a failed run is logged and retried
   *  at the next. */
  start(): void {
    const every = this.opts.intervalMs ?? 3_600_000;
    this.timer = setInterval(() => {
      this.run().catch((err) => this.opts.log?.warn({ err: { type: (err as Error).name, message: (err as Error).message } }, 'history maintenance failed'));
    }, every);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.current;
  }

  private runLocked(wait: boolean): Promise<MaintenanceReport | null> {
    const lockId = ADVISORY_LOCKS.historyMaintenance;
    return this.db.withConnection(async (conn) => {
      if (wait) await conn.query('SELECT pg_advisory_lock($1)', [lockId]);
      else if (!(await conn.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [lockId])).rows[0]?.ok) return null;
      try {
        return await this.maintain(conn);
      } finally {
        await conn.query('SELECT pg_advisory_unlock($1)', [lockId]);
      }
    });
  }

  private async maintain(conn: Queryable & { exec(sql: string): Promise<void> }): Promise<MaintenanceReport> {
    const now = (this.opts.now ?? Date.now)();
    const today = startOfDay(now);
    const report: MaintenanceReport = { created: [], dropped: [], deferred: [], keysForgotten: {} };
    for (const table of Object.keys(HISTORY_TABLES) as HistoryTable[]) {
      const existing = new Set(await historyPartitions(conn, table));
      // From yesterday: a row stamped just before midnight may be written just after it.
      for (let day = today - DAY_MS; day <= today + this.policy.daysAhead * DAY_MS; day += DAY_MS) {
        const name = partitionName(table, day);
        if (existing.has(name)) continue;
        await conn.exec(`CREATE TABLE IF NOT EXISTS ${name} PARTITION OF ${table} FOR VALUES FROM ('${utcMidnight(day)}') TO ('${utcMidnight(day + DAY_MS)}')`);
        existing.add(name);
        report.created.push(name);
      }
      const days = this.policy.retentionDays[table];
      if (days <= 0) continue;
      // A day goes once its last millisecond is past retention: no row is dropped early.
      const cutoff = now - days * DAY_MS;
      for (const name of existing) {
        const day = partitionDay(table, name);
        if (day === null || day + DAY_MS > cutoff) continue;
        const dropped = await this.drop(table, name);
        if (dropped) report.dropped.push(name);
        else if (dropped === null) report.deferred.push(name);
      }
    }
    for (const keys of this.policy.keyExpiry ?? []) {
      // 0 keeps them for ever, as for the tables.
      if (keys.days <= 0) continue;
      report.keysForgotten[keys.name] = await keys.forgetBefore(new Date(now - keys.days * DAY_MS));
    }
    if (report.created.length + report.dropped.length + report.deferred.length > 0) this.opts.log?.info(report, 'history partitions maintained');
    return report;
  }

  /** Detaches and drops one partition: true when dropped, false when already gone (another run on
   *  this PGlite handle dropped it), null when its parent could not be locked in time. */
  private async drop(table: HistoryTable, name: string): Promise<boolean | null> {
    try {
      return await this.db.transaction(async (tx) => {
        await tx.query("SET LOCAL lock_timeout = '2s'");
        const still = await tx.query('SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass($1) AND inhparent = $2::text::regclass', [name, table]);
        if (still.rows.length === 0) return false;
        await tx.query(`ALTER TABLE ${table} DETACH PARTITION ${name}`);
        await tx.query(`DROP TABLE ${name}`);
        return true;
      });
    } catch (err) {
      // 55P03: lock_not_available.
      if ((err as { code?: string }).code !== '55P03') throw err;
      this.opts.log?.warn({ partition: name }, 'history partition busy; dropped on a later run');
      return null;
    }
  }
}
