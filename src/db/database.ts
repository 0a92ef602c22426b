// One small interface over the two Postgres engines: `pg` against a real server (DATABASE_URL)
// and PGlite, real Postgres compiled to WASM running in-process (the embedded default).
// Both speak the same SQL, so one set of migrations and repositories serves both.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { makeDataDirPrivate } from './private-dir.js';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import { StoreUnavailable } from '../errors/error-registry.js';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.js';
import { clusterTemplate, keepAsTemplate, templateDirectory } from './pglite-template.js';
import { createHash } from 'node:crypto';

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

export interface Database extends Queryable {
  readonly engine: 'postgres' | 'pglite';
  /** Postgres: where it is, for a worker thread that opens its own connection (the catalog
   *  loader's). PGlite lives in this thread and has none. */
  readonly connectionString?: string;
  /** Runs fn inside BEGIN … COMMIT on one connection; rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs a multi-statement script (migrations). */
  exec(sql: string): Promise<void>;
  /** Runs fn with a dedicated connection held for its whole duration (advisory locks). */
  withConnection<T>(fn: (conn: Queryable & { exec(sql: string): Promise<void> }) => Promise<T>): Promise<T>;
  /** Postgres: opens up to `connections` of the pool's connections now, so the first requests
   *  after a start do not each pay for one. PGlite has one, already open. */
  openConnections(connections: number): Promise<void>;
  close(): Promise<void>;
}

/** Resolves when the database answers a trivial statement (readiness checks). */
export async function pingDatabase(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}

/** Postgres could not be reached, dropped the connection, or did not answer in time. The
 *  message is fixed: no driver text (it can quote parameters). */
export class DatabaseUnavailable extends StoreUnavailable {
  constructor(cause: unknown) {
    super('database unavailable', 'DATABASE_UNAVAILABLE', { cause });
    this.name = 'DatabaseUnavailable';
  }
}

// What says the server, not the statement, is the problem: socket errors; SQLSTATE classes 08
// (connection), 53 (out of resources), 57 (cancelled, shutting down), serialization failures
// and deadlocks (retry-safe); and what `pg` throws without a code when a connection ends or a
// query outlives `query_timeout`. Anything else (a syntax error, a violated constraint) is a bug
// or a refusal, and must not read as an outage.
const SOCKET_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const PG_OUTAGE_MESSAGES =
  /^(Connection terminated|Query read timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Cannot use a pool after calling end)/;

export function isDatabaseOutage(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (SOCKET_ERRORS.has(code)) return true;
    if (/^(08|53|57)/.test(code) || code === '40001' || code === '40P01') return true;
  }
  return PG_OUTAGE_MESSAGES.test(err.message);
}

/** Rethrows an outage as DatabaseUnavailable (answered 503), anything else as it is. */
function outageAware<A extends unknown[], T>(fn: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
  return async (...args) => {
    try {
      return await fn(...args);
    } catch (err) {
      throw isDatabaseOutage(err) ? new DatabaseUnavailable(err) : err;
    }
  };
}

export interface OpenDatabaseOptions {
  databaseUrl?: string;
  /** PGlite data directory, or `memory` for an in-memory database. */
  dataDir: string;
  /** Where a new PGlite database's starting cluster is kept (pglite-template.ts); `none`: none. */
  cacheDir?: string;
  poolSize?: number;
  /** How long a statement may run before it fails as an outage (default 5 s). Benchmarks that
   *  load millions of rows on a shared machine give their seeding connections longer. */
  queryTimeoutMs?: number;
}

export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  return opts.databaseUrl
    ? openPostgres(opts.databaseUrl, opts.poolSize ?? 10, opts.queryTimeoutMs ?? 5000)
    : openPglite(opts.dataDir, templateDirectory(opts.cacheDir));
}

// int8 (bigint) and numeric counts come back as numbers, as PGlite returns them; every
// bigint column we keep (micros, counts) is far below 2^53.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format);
  },
};

/** Statements planned with their values on every call (never prepared under a name). */
const plannedEachCall = new Set<string>();

/** Marks a statement to be planned with its values on every call. A named prepared statement
 *  switches to a generic plan (one for any values) after five executions on a connection when
 *  Postgres estimates it no worse; for a statement whose best plan depends on its values (a
 *  report's range, an optional filter written `$5 IS NULL OR app_id = $5`), that plan can be
 *  ten times slower: a 7-day report went from ~50 ms to ~700 ms on its sixth run on a connection.
 *  Returns the statement, so a repository declares it where it writes it. */
export function planEachCall(sql: string): string {
  plannedEachCall.add(sql);
  return sql;
}

/** Names for the statements sent with parameters, so each pooled connection prepares a statement
 *  once and then only binds and executes it: Postgres skips parsing and planning the writers'
 *  long batch statements on every flush. Statement texts are constants of the repositories; a
 *  bound on distinct names keeps a text built at run time from preparing without end. */
function preparedNames(limit = 500): (sql: string) => string | undefined {
  const names = new Map<string, string>();
  return (sql) => {
    if (plannedEachCall.has(sql)) return undefined;
    let name = names.get(sql);
    if (name === undefined && names.size < limit) {
      name = `sn_${createHash('sha256').update(sql).digest('base64url').slice(0, 20)}`;
      names.set(sql, name);
    }
    return name;
  };
}

function openPostgres(connectionString: string, max: number, queryTimeoutMs: number): Database {
  const pool = new pg.Pool({
    connectionString,
    max,
    types,
    connectionTimeoutMillis: 2000,
    idleTimeoutMillis: 30_000,
    // A statement that hangs (locked table, stopped server) must not hold a request forever.
    query_timeout: queryTimeoutMs,
    application_name: 'sidenote',
  });
  // An idle client losing its connection emits here; without a listener the process would crash.
  pool.on('error', () => {});
  const prepared = preparedNames();
  const query = async <T>(sql: string, params?: unknown[]) => {
    const name = params?.length ? prepared(sql) : undefined;
    const r = await (name ? pool.query({ name, text: sql, values: params }) : pool.query(sql, params as unknown[]));
    return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
  };
  return {
    engine: 'postgres',
    connectionString,
    query: outageAware(query) as Queryable['query'],
    exec: outageAware(async (sql: string) => {
      await pool.query(sql);
    }),
    transaction: outageAware(async <T>(fn: (tx: Queryable) => Promise<T>): Promise<T> => {
      const client = await checkOut(pool);
      try {
        await client.query('BEGIN');
        const result = await fn({
          query: async <T>(sql: string, params?: unknown[]) => {
            const r = await client.query(sql, params as unknown[]);
            return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
          },
        });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.checkIn();
      }
    }),
    withConnection: outageAware(async <T>(fn: (conn: Queryable & { exec(sql: string): Promise<void> }) => Promise<T>): Promise<T> => {
      const client = await checkOut(pool);
      try {
        return await fn({
          query: async <T>(sql: string, params?: unknown[]) => {
            const r = await client.query(sql, params as unknown[]);
            return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
          },
          exec: async (sql: string) => {
            await client.query(sql);
          },
        });
      } finally {
        client.checkIn();
      }
    }),
    async openConnections(connections: number) {
      const clients = await Promise.all(Array.from({ length: Math.min(connections, max) }, () => pool.connect()));
      for (const c of clients) c.release();
    },
    async close() {
      await pool.end();
    },
  };
}

/** A client of the pool held for a transaction or a session lock. The server may end its session
 *  while it is held (a restart, an operator's pg_terminate_backend): the client then emits
 *  'error', which with no listener would crash the process; the query in flight fails anyway.
 *  `checkIn` returns it, and a client whose connection broke is closed rather than reused. */
async function checkOut(pool: pg.Pool): Promise<pg.PoolClient & { checkIn(): void }> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (err: Error) => {
    broken = err;
  };
  client.on('error', onError);
  return Object.assign(client, {
    checkIn() {
      client.off('error', onError);
      client.release(broken);
    },
  });
}

async function openPglite(dataDir: string, templates: string | null): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  let lock: DataDirLock | undefined;
  if (dataDir !== 'memory') {
    // PGlite creates only the last path component; a fresh clone has no `.data/` yet. 0700 as
    // Postgres wants its data directory (it holds keys' hashes and secrets).
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // Private whatever existed before (private-dir.ts).
    makeDataDirPrivate(dataDir);
    // One process per directory (data-dir-lock.ts): taken before PGlite reads a single file.
    lock = acquireDataDirLock(dataDir);
  }
  let db: PGlite;
  try {
    // A new database restores an initialised empty cluster rather than running initdb
    // (pglite-template.ts); a directory that holds one already opens it.
    const fresh = dataDir === 'memory' || !existsSync(path.join(dataDir, 'PG_VERSION'));
    const template = fresh ? clusterTemplate(templates) : undefined;
    db = await PGlite.create(dataDir === 'memory' ? 'memory://' : dataDir, template ? { loadDataDir: template } : {});
    if (fresh && !template) await keepAsTemplate(db, templates);
    // The files PGlite created as it opened, 0666 whatever the umask (private-dir.ts).
    if (dataDir !== 'memory') makeDataDirPrivate(dataDir);
  } catch (err) {
    lock?.release();
    throw err;
  }
  const wrap = (q: Pick<PGlite, 'query'>) => ({
    query: async <T>(sql: string, params?: unknown[]) => {
      const r = await q.query<T>(sql, params);
      return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
    },
  });
  // PGlite runs one statement at a time; a transaction holds it exclusively.
  return {
    engine: 'pglite',
    ...wrap(db),
    async exec(sql) {
      await db.exec(sql);
    },
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    withConnection: (fn) => fn({ ...wrap(db), exec: async (sql: string) => void (await db.exec(sql)) }),
    async openConnections() {},
    async close() {
      try {
        await db.close();
      } finally {
        lock?.release();
      }
    },
  };
}
