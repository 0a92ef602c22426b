// Soak: a long, steady run of decide plus rendered/qualified-impression events against a real
// server process, watching what degrades slowly rather than what is fast: 5xx and socket errors,
// p99 over the whole run, RSS over time (growth from the warmed-up baseline), and whether every
// event answered 2xx is a row in the database.
//
//   npm run soak -- [--duration 300] [--connections 8] [--rate 500]   (rate per generator; default unpaced)
//
// Real Postgres and Redis when DATABASE_URL / REDIS_URL are set (a fresh database is created and
// dropped), the embedded defaults otherwise. test/soak/soak.test.ts runs it for ~25 s in CI.
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bodiesForDecide } from './decide-bodies.js';
import { createScratchDatabase, freePort, rssBytes } from './support.js';
import { openDatabase } from '../src/db/database.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN_KEY = 'soak-admin-key-0123456789abcdef';

export interface SoakOptions {
  durationSec: number;
  /** Connections of each load generator (decide, events). */
  connections: number;
  /** Requests per second of each load generator; unset = as fast as the server answers. A
   *  soak is about what degrades over time, so CI runs it at a steady rate that leaves CPU for
   *  the test files running beside it. */
  rate?: number;
  /** Progress lines to stderr. */
  log?: (line: string) => void;
}

export interface SoakReport {
  stores: string;
  durationSec: number;
  decide: { requests: number; rps: number; p50: number; p99: number; max: number; statuses: Record<string, number>; errors: number; timeouts: number };
  events: { requests: number; rps: number; p50: number; p99: number; max: number; statuses: Record<string, number>; errors: number; timeouts: number };
  fiveXx: number;
  decideTimeoutNoFills: number;
  eventsAcknowledged: number;
  acknowledgedStored: number;
  /** Rows of the soak app in `events`: acknowledged ones plus requests the load generator cut off at its end. */
  eventRows: number;
  rssMb: { baseline: number; peak: number; end: number; growth: number; series: Array<[number, number]> };
  serverExitCode: number | null;
}

const rssMb = (pid: number) => rssBytes(pid) / 1048576;

/** A database of its own: a fresh one on the Postgres server, or a PGlite directory. */
async function soakDatabase() {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const dir = mkdtempSync(path.join(tmpdir(), 'sidenote-soak-'));
    return {
      env: { SIDENOTE_DATA_DIR: dir, DATABASE_URL: '' },
      open: () => openDatabase({ dataDir: dir }),
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const scratch = await createScratchDatabase(adminUrl, 'sidenote_soak');
  return { env: { DATABASE_URL: scratch.url }, open: () => openDatabase({ databaseUrl: scratch.url, dataDir: 'memory' }), drop: scratch.drop };
}

export async function runSoak(opts: SoakOptions): Promise<SoakReport> {
  const log = opts.log ?? (() => {});
  const db = await soakDatabase();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/server.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...db.env,
      METRICS_PORT: '0',
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_KEY,
      LOAD_DEMO_CATALOG: 'true',
      DECIDE_RATE_LIMIT_PER_MINUTE: '1000000000',
      REDIS_KEY_PREFIX: `sn:soak:${randomBytes(4).toString('hex')}:`,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    for (let i = 0; ; i++) {
      if (
        (await fetch(`${base}/readyz`).then(
          (r) => r.status,
          () => 0,
        )) === 200
      )
        break;
      if (i > 600 || child.exitCode !== null) throw new Error('soak server did not become ready');
      await new Promise((r) => setTimeout(r, 100));
    }
    const admin = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
    const key: string = (await (await fetch(`${base}/admin/apps`, { method: 'POST', headers: admin, body: '{"name":"Soak"}' })).json()).serving_key;
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    let served: { serve: boolean; decision_id: string; offer_id: string } | undefined;
    for (let i = 0; i < 20 && !served?.serve; i++) {
      served = await (await fetch(`${base}/v1/offers/decide`, { method: 'POST', headers: auth, body: JSON.stringify(bodiesForDecide()[0]) })).json();
    }
    if (!served?.serve) throw new Error('the soak app got no fill to send events for');

    // RSS every second; the baseline is taken once the first 20% (at least 5 s) has warmed up.
    const started = Date.now();
    const series: Array<[number, number]> = [];
    const sampler = setInterval(() => series.push([Math.round((Date.now() - started) / 1000), Math.round(rssMb(child.pid!))]), 1000);

    const decideBodies = bodiesForDecide().map((b) => JSON.stringify(b));
    let nextBody = 0;
    const tag = randomBytes(4).toString('hex');
    let nextKey = 0;
    const eventBody = JSON.stringify({ offer_snapshot_id: served.offer_id, decision_id: served.decision_id });
    const acknowledged: string[] = [];
    const eventRequest = (path: string): autocannon.Request => ({
      method: 'POST',
      path,
      headers: auth,
      body: eventBody,
      // Every event is a new one: its own idempotency key.
      setupRequest: (req) => ({ ...req, headers: { ...auth, 'idempotency-key': `soak-${tag}-${++nextKey}` } }),
      onResponse: (status, body) => {
        if (status === 200) acknowledged.push(JSON.parse(body).event_id);
      },
    });
    let decideTimeoutNoFills = 0;
    log(
      `soak: ${opts.durationSec} s, ${opts.connections}+${opts.connections} connections${opts.rate ? `, ${opts.rate}+${opts.rate} req/s` : ''} against ${base}`,
    );
    const paced = opts.rate ? { overallRate: opts.rate } : {};
    const [decide, events] = await Promise.all([
      autocannon({
        url: base,
        connections: opts.connections,
        duration: opts.durationSec,
        ...paced,
        requests: [
          {
            method: 'POST',
            path: '/v1/offers/decide',
            headers: auth,
            setupRequest: (req) => ({ ...req, body: decideBodies[nextBody++ % decideBodies.length] }),
            onResponse: (status, body) => {
              if (status === 200 && body.includes('"TIMEOUT"')) decideTimeoutNoFills++;
            },
          },
        ],
      }),
      autocannon({
        url: base,
        connections: opts.connections,
        duration: opts.durationSec,
        ...paced,
        requests: [eventRequest('/v1/events/rendered'), eventRequest('/v1/events/qualified-impression')],
      }),
    ]);
    clearInterval(sampler);

    // Stop the server (drain and flush), then count what the database holds.
    child.kill('SIGTERM');
    const serverExitCode = await exited;
    const store = await db.open();
    let acknowledgedStored: number;
    let eventRows: number;
    try {
      acknowledgedStored = (await store.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE id = ANY($1::text[])', [acknowledged])).rows[0].n;
      eventRows = (await store.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE idempotency_key LIKE $1', [`soak-${tag}-%`])).rows[0].n;
    } finally {
      await store.close();
    }

    const warm = series.filter(([s]) => s >= Math.max(5, opts.durationSec * 0.2));
    const baseline = warm[0]?.[1] ?? series.at(-1)![1];
    const peak = Math.max(...warm.map(([, mb]) => mb), baseline);
    const end = series.at(-1)![1];
    const summary = (r: autocannon.Result) => ({
      requests: r.requests.total,
      rps: Math.round(r.requests.average),
      p50: r.latency.p50,
      p99: r.latency.p99,
      max: r.latency.max,
      statuses: Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, (s as { count: number }).count])),
      errors: r.errors,
      timeouts: r.timeouts,
    });
    const report: SoakReport = {
      stores: `${process.env.DATABASE_URL ? 'Postgres' : 'PGlite'} + ${process.env.REDIS_URL ? 'Redis' : 'in-process counters'}`,
      durationSec: opts.durationSec,
      decide: summary(decide),
      events: summary(events),
      fiveXx: [decide, events].reduce(
        (n, r) =>
          n +
          Object.entries(r.statusCodeStats ?? {})
            .filter(([c]) => c.startsWith('5'))
            .reduce((m, [, s]) => m + (s as { count: number }).count, 0),
        0,
      ),
      decideTimeoutNoFills,
      eventsAcknowledged: acknowledged.length,
      acknowledgedStored,
      eventRows,
      rssMb: { baseline, peak, end, growth: peak - baseline, series },
      serverExitCode,
    };
    return report;
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await db.drop().catch(() => {});
  }
}

export function formatSoak(r: SoakReport): string {
  const line = (name: string, s: SoakReport['decide']) =>
    `${name.padEnd(7)} ${String(s.requests).padStart(8)} req  ${String(s.rps).padStart(6)} req/s  p50 ${s.p50} ms  p99 ${s.p99} ms  max ${s.max} ms  statuses ${JSON.stringify(s.statuses)}  errors ${s.errors}  timeouts ${s.timeouts}`;
  const every = Math.max(1, Math.floor(r.rssMb.series.length / 10));
  return [
    `soak (${r.stores}), ${r.durationSec} s`,
    line('decide', r.decide),
    line('events', r.events),
    `5xx: ${r.fiveXx}   decide TIMEOUT no-fills: ${r.decideTimeoutNoFills} (${((100 * r.decideTimeoutNoFills) / Math.max(1, r.decide.requests)).toFixed(2)}%)`,
    `events acknowledged (200): ${r.eventsAcknowledged}   of them in the database: ${r.acknowledgedStored}   rows written in all: ${r.eventRows} (the rest were cut off unanswered when the load stopped)`,
    `RSS MB: baseline ${r.rssMb.baseline}, peak ${r.rssMb.peak}, end ${r.rssMb.end}, growth ${r.rssMb.growth}`,
    `RSS over time (s:MB): ${r.rssMb.series
      .filter((_, i) => i % every === 0)
      .map(([s, mb]) => `${s}:${mb}`)
      .join(' ')}`,
    `server exit code after SIGTERM: ${r.serverExitCode}`,
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const arg = (name: string, fallback: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : fallback;
  };
  const rate = arg('rate', '');
  const report = await runSoak({
    durationSec: Number(arg('duration', '300')),
    connections: Number(arg('connections', '8')),
    rate: rate ? Number(rate) : undefined,
    log: (l) => console.error(l),
  });
  console.log(formatSoak(report));
  const ok = report.fiveXx === 0 && report.acknowledgedStored === report.eventsAcknowledged && report.serverExitCode === 0;
  process.exit(ok ? 0 : 1);
}
