// HTTP load benchmark (autocannon, programmatic): Sidenote's decide, redirect, impression
// events and conversions, each against a bare Fastify baseline measured in the same run and
// reported as a ratio to it.
//
//   npm run bench -- [--duration 10] [--connections 10,50] [--runs 3]
//                    [--scenarios decide,decide-100k,redirect,events,conversion] [--profile] [--smoke]
//                    [--gc]   (the service's allocation and collections per request: bench/gc-probe.mjs)
//                    [--service-node-args "--trace-gc"]   (flags for the service's Node)
//
// Stores: real Postgres and Redis when DATABASE_URL / REDIS_URL are set (the benchmark creates
// its own database on that server and drops it afterwards, and uses its own Redis key prefix),
// otherwise the embedded defaults (PGlite in a temporary directory, in-process counters).
// The decide and click rate limits are raised through DECIDE_RATE_LIMIT_PER_MINUTE and
// CLICK_RATE_LIMIT_PER_MINUTE: configuration, not a benchmark code path. `--smoke` is CI's version: every scenario for one second, no targets.
// Writes bench/out/http-<stores>.json and .md.
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SESSION_PLACEHOLDER, bodiesForDecide } from './decide-bodies.js';
import { cpuUsOf, cpuUsOfAll, createScratchDatabase, freePort, rssBytes } from './support.js';
import { bodiesForGenerated, demoCatalogWithLargeBudgets, generatedCatalog } from './catalogs.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name: string) => args.includes(`--${name}`);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const SMOKE = flag('smoke');
const DURATION = Number(arg('duration', SMOKE ? '1' : '10'));
const CONNECTIONS = arg('connections', SMOKE ? '10' : '10,50')
  .split(',')
  .map(Number);
const RUNS = Number(arg('runs', SMOKE ? '1' : '3'));
const SCENARIOS = new Set(arg('scenarios', 'decide,decide-100k,redirect,events,conversion').split(','));
const GC = flag('gc');
const GC_PROBE_OUT = path.join(ROOT, 'bench/out', `gc-${process.pid}`);
const gcFile = (pid: number) => `${GC_PROBE_OUT}-${pid}.jsonl`;
const GC_ARGS = GC ? ['--import', './bench/gc-probe.mjs'] : [];
const SERVICE_NODE_ARGS = [...GC_ARGS, ...arg('service-node-args', '').split(' ').filter(Boolean)];
const serviceOutput = () => {
  mkdirSync(path.join(ROOT, 'bench/out'), { recursive: true });
  return openSync(path.join(ROOT, 'bench/out/service-stdout.log'), 'w');
};
const GENERATED_OFFERS = Number(arg('generated-offers', SMOKE ? '2000' : '100000'));
const ADMIN_KEY = 'bench-admin-key-0123456789abcdef';
const STORES = `${process.env.DATABASE_URL ? 'postgres' : 'pglite'}+${process.env.REDIS_URL ? 'redis' : 'memory'}`;

interface Measured {
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  errors: number;
  /** Responses outside the scenario's expected status (2xx, or 302 for redirects). */
  unexpected: number;
  runs: number[];
  /** With `--gc`, the service's allocation and collections in the median run, per request. */
  gc?: { allocatedKbPerRequest: number; scavengesPer1k: number; markCompactsPer1k: number; pauseUsPerRequest: number };
  /** Server CPU (user + system) per request in the median run: robust to a busy machine. */
  cpuUsPerRequest: number;
  /** CPU of Postgres (the benchmark database's backends and the server's background processes)
   *  and of Redis per request, same run: they share the two cores with the service, so they are
   *  part of what a request costs here. Other work using Redis counts too. */
  postgresCpuUsPerRequest: number;
  redisCpuUsPerRequest: number;
}

interface Result extends Measured {
  scenario: string;
  connections: number;
  baseline: string | null;
  ratio: number | null;
}

/** Forks a server on a free port and waits until `readyPath` answers 200. */
const BENCH_METRICS_TOKEN = 'metrics-token-for-the-benchmark-0123';

async function start(nodeArgs: string[], env: Record<string, string>, readyPath: string): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  // Metrics on an ephemeral listener of their own; /metrics on the API port with the bench token.
  const child = spawn(process.execPath, nodeArgs, {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), METRICS_PORT: '0', METRICS_TOKEN: BENCH_METRICS_TOKEN, ...(GC ? { GC_PROBE_OUT } : {}) },
    // With flags of its own (a GC trace), the service's standard output is kept in bench/out/.
    stdio: ['ignore', SERVICE_NODE_ARGS.length > 0 && nodeArgs.includes('dist/server.js') ? serviceOutput() : 'ignore', 'inherit'],
  });
  let exited = false;
  child.on('exit', () => (exited = true));
  for (let i = 0; i < 1200 && !exited; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}${readyPath}`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return { child, port };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`${nodeArgs.join(' ')} did not become ready`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

let benchDatabase: string | undefined;
const storesCpuUs = () => ({ postgres: cpuUsOfAll('postgres', benchDatabase), redis: cpuUsOfAll('redis-server') });

/** Median of RUNS timed runs, each after a one-second warm-up. */
async function load(url: string, pid: number, connections: number, requests: autocannon.Request[], expectStatus: number): Promise<Measured> {
  const results: Array<Awaited<ReturnType<typeof autocannon>> & { cpuUs: number; postgresUs: number; redisUs: number; gc?: GcWindow }> = [];
  for (let run = 0; run < RUNS; run++) {
    await autocannon({ url, connections, duration: 1, requests });
    if (GC) await gcWindow(pid);
    const cpuBefore = cpuUsOf(pid);
    const storesBefore = storesCpuUs();
    const r = await autocannon({ url, connections, duration: DURATION, requests });
    const storesAfter = storesCpuUs();
    const gc = GC ? await gcWindow(pid) : undefined;
    results.push({
      ...r,
      gc,
      cpuUs: cpuUsOf(pid) - cpuBefore,
      postgresUs: storesAfter.postgres - storesBefore.postgres,
      redisUs: storesAfter.redis - storesBefore.redis,
    });
  }
  const unexpectedIn = (r: (typeof results)[number]) => {
    let n = 0;
    for (const [code, stat] of Object.entries(r.statusCodeStats ?? {})) {
      const ok = expectStatus === 200 ? Number(code) >= 200 && Number(code) < 300 : Number(code) === expectStatus;
      if (!ok) n += (stat as { count: number }).count;
    }
    return n;
  };
  const sorted = [...results].sort((a, b) => a.requests.average - b.requests.average);
  const median = sorted[Math.floor(sorted.length / 2)];
  return {
    rps: Math.round(median.requests.average),
    p50: median.latency.p50,
    p90: median.latency.p90,
    p99: median.latency.p99,
    max: median.latency.max,
    errors: results.reduce((n, r) => n + r.errors + r.timeouts, 0),
    unexpected: results.reduce((n, r) => n + unexpectedIn(r), 0),
    runs: results.map((r) => Math.round(r.requests.average)),
    cpuUsPerRequest: Math.round(median.cpuUs / Math.max(1, median.requests.total)),
    postgresCpuUsPerRequest: Math.round(median.postgresUs / Math.max(1, median.requests.total)),
    redisCpuUsPerRequest: Math.round(median.redisUs / Math.max(1, median.requests.total)),
    ...(median.gc ? { gc: perRequest(median.gc, Math.max(1, median.requests.total)) } : {}),
  };
}

interface GcWindow {
  allocatedBytes: number;
  collections: Record<string, number>;
  pauseMs: number;
}

/** Ends the service's current GC window (bench/gc-probe.mjs) and returns its totals. */
async function gcWindow(pid: number): Promise<GcWindow> {
  const file = gcFile(pid);
  const windows = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
  const before = windows().length;
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 100; i++) {
    const lines = windows();
    if (lines.length > before) return JSON.parse(lines[lines.length - 1]);
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the service wrote no GC window (bench/gc-probe.mjs)');
}

const perRequest = (w: GcWindow, requests: number) => ({
  allocatedKbPerRequest: Math.round((w.allocatedBytes / 1024 / requests) * 10) / 10,
  scavengesPer1k: Math.round(((w.collections.Scavenge ?? 0) * 1000 * 100) / requests) / 100,
  markCompactsPer1k: Math.round(((w.collections.MarkSweepCompact ?? 0) * 1000 * 100) / requests) / 100,
  pauseUsPerRequest: Math.round((w.pauseMs * 1000 * 10) / requests) / 10,
});

async function api(base: string, method: string, urlPath: string, body: unknown, key = ADMIN_KEY): Promise<any> {
  const res = await fetch(`${base}${urlPath}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${urlPath}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

/** Decide outcomes by reason code, read from the service's own /metrics. */
async function outcomes(base: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${BENCH_METRICS_TOKEN}` } })).text();
  const counts: Record<string, number> = {};
  for (const m of text.matchAll(/^sidenote_decide_outcomes_total\{kind="offer",reason_code="([A-Z_]+)"\} (\d+)/gm)) counts[m[1]] = Number(m[2]);
  return counts;
}

const diff = (after: Record<string, number>, before: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(after)
      .map(([k, v]) => [k, v - (before[k] ?? 0)])
      .filter(([, v]) => (v as number) > 0),
  );

/** Rows and flushes of each group-commit writer so far, from the service's /metrics. */
async function flushes(base: string): Promise<Record<string, { rows: number; flushes: number }>> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${BENCH_METRICS_TOKEN}` } })).text();
  const byWriter: Record<string, { rows: number; flushes: number }> = {};
  for (const m of text.matchAll(/^sidenote_group_commit_batch_rows_(sum|count)\{writer="([^"]+)"\} (\d+)/gm)) {
    const w = (byWriter[m[2]] ??= { rows: 0, flushes: 0 });
    if (m[1] === 'sum') w.rows = Number(m[3]);
    else w.flushes = Number(m[3]);
  }
  return byWriter;
}

/** Mean rows per flush of the writers that flushed between two readings. */
function rowsPerFlush(after: Awaited<ReturnType<typeof flushes>>, before: Awaited<ReturnType<typeof flushes>>): string {
  return Object.entries(after)
    .map(([writer, a]) => {
      const n = a.flushes - (before[writer]?.flushes ?? 0);
      return n > 0 ? `${writer} ${((a.rows - (before[writer]?.rows ?? 0)) / n).toFixed(1)} rows/flush (${n} flushes)` : '';
    })
    .filter(Boolean)
    .join(', ');
}

/** Rewrites the session placeholder per request: each request is a turn of one of many users. */
function withSessions(requests: autocannon.Request[], users = 1_000_000): autocannon.Request[] {
  let n = 0;
  return requests.map((r) => ({
    ...r,
    setupRequest: (req: any) => ({ ...req, body: (r.body as string).replace(SESSION_PLACEHOLDER, `user-${n++ % users}`) }),
  }));
}

async function main() {
  const started = Date.now();
  const dataDir = process.env.DATABASE_URL ? null : mkdtempSync(path.join(os.tmpdir(), 'sidenote-bench-'));
  // A fresh database, so earlier runs' rows and spend do not leak into this one.
  const database = process.env.DATABASE_URL ? await createScratchDatabase(process.env.DATABASE_URL, 'sidenote_bench') : null;
  benchDatabase = database ? new URL(database.url).pathname.slice(1) : undefined;
  const baseline = await start([...GC_ARGS, '--import', 'tsx', 'bench/baseline-server.ts'], {}, '/json');
  const profileDir = path.join(ROOT, 'bench/out/profiles');
  if (flag('profile')) mkdirSync(profileDir, { recursive: true });
  const service = await start(
    [...(flag('profile') ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []), ...SERVICE_NODE_ARGS, 'dist/server.js'],
    {
      HOST: '127.0.0.1',
      ADMIN_KEY,
      LOG_LEVEL: 'warn',
      DECIDE_RATE_LIMIT_PER_MINUTE: '1000000000',
      // Every click comes from this one address; the limit is still checked on each one.
      CLICK_RATE_LIMIT_PER_MINUTE: '1000000000',
      LOAD_DEMO_CATALOG: 'false',
      ...(database ? { DATABASE_URL: database.url } : { SIDENOTE_DATA_DIR: dataDir! }),
      REDIS_KEY_PREFIX: `sn:bench:${process.pid}:${Date.now()}:`,
    },
    '/healthz',
  );
  const base = `http://127.0.0.1:${service.port}`;
  const bare = `http://127.0.0.1:${baseline.port}`;
  const results: Result[] = [];
  const mixes: Record<string, Record<string, number>> = {};
  const batching: Record<string, string> = {};
  const notes: string[] = [];

  try {
    await api(base, 'PUT', '/admin/catalog', demoCatalogWithLargeBudgets());
    const created = await api(base, 'POST', '/admin/apps', { name: 'bench' });
    const key: string = created.serving_key;
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const secret: string = created.conversion_secret;
    const rssBefore = rssBytes(service.child.pid!);

    const kb = JSON.stringify({ message: 'x'.repeat(900), locale: 'en', native_surface: { clickable: true, disclosure_capable: true } });
    const decideRequests = withSessions(
      bodiesForDecide().map((body) => ({ method: 'POST' as const, path: '/v1/offers/decide', headers: auth, body: JSON.stringify(body) })),
    );

    type Scenario = { name: string; url: string; requests: autocannon.Request[]; baseline: string | null; expect: number; before?: () => Promise<void> };
    const scenarios: Scenario[] = [
      { name: 'bare GET', url: bare, requests: [{ method: 'GET', path: '/json' }], baseline: null, expect: 200 },
      {
        name: 'bare POST 1 KB',
        url: bare,
        requests: [{ method: 'POST', path: '/echo', headers: { 'content-type': 'application/json' }, body: kb }],
        baseline: null,
        expect: 200,
      },
      { name: 'bare 302', url: bare, requests: [{ method: 'GET', path: '/redirect' }], baseline: null, expect: 302 },
    ];
    if (SCENARIOS.has('decide')) {
      scenarios.push({
        name: 'decide, demo catalog (ko/en 50–4000 chars, serve + each no-fill)',
        url: base,
        requests: decideRequests,
        baseline: 'bare POST 1 KB',
        expect: 200,
      });
    }

    // Served decisions to click, render and convert.
    const served: Array<{ link: string; offer_id: string; decision_id: string }> = [];
    if (SCENARIOS.has('redirect') || SCENARIOS.has('events') || SCENARIOS.has('conversion')) {
      for (let i = 0; served.length < 200 && i < 2000; i++) {
        const r = decideRequests[i % 4];
        const d = await api(base, 'POST', '/v1/offers/decide', JSON.parse((r.body as string).replace(SESSION_PLACEHOLDER, `seed-${i}`)), key);
        if (d.serve) served.push(d);
      }
      if (served.length === 0) throw new Error('no decide served an offer; cannot benchmark links and events');
    }
    if (SCENARIOS.has('redirect')) {
      // Distinct links from distinct decisions; the click quality rules record duplicates as
      // such, and the redirect answers 302 either way.
      const links = served.map((s) => new URL(s.link).pathname);
      let n = 0;
      scenarios.push({
        name: 'redirect /r/<token>',
        url: base,
        requests: [
          { method: 'GET', setupRequest: (req: any) => ({ ...req, path: links[n++ % links.length], headers: { 'user-agent': 'Mozilla/5.0 (bench)' } }) },
        ],
        baseline: 'bare 302',
        expect: 302,
      });
    }
    if (SCENARIOS.has('events')) {
      let n = 0;
      const event = (req: any) => {
        // As a host sends them: each decision's rendered event, then its qualified impression.
        const s = served[Math.floor(n / 2) % served.length];
        const rendered = n % 2 === 0;
        n++;
        return {
          ...req,
          path: rendered ? '/v1/events/rendered' : '/v1/events/qualified-impression',
          headers: { ...auth, 'idempotency-key': `bench-${process.pid}-${n}` },
          body: JSON.stringify({ offer_snapshot_id: s.offer_id, decision_id: s.decision_id }),
        };
      };
      scenarios.push({
        name: 'impression events (rendered + qualified)',
        url: base,
        requests: [{ method: 'POST', setupRequest: event }],
        baseline: 'bare POST 1 KB',
        expect: 200,
      });
    }
    if (SCENARIOS.has('conversion')) {
      let n = 0;
      const conversion = (req: any) => {
        const s = served[n++ % served.length];
        const body = { offer_snapshot_id: s.offer_id, decision_id: s.decision_id, timestamp: Math.floor(Date.now() / 1000), nonce: randomUUID() };
        const signature = createHmac('sha256', secret).update(`${body.timestamp}.${body.nonce}.${body.offer_snapshot_id}.${body.decision_id}`).digest('hex');
        return { ...req, path: '/v1/events/conversion', headers: auth, body: JSON.stringify({ ...body, signature }) };
      };
      scenarios.push({
        name: 'signed conversion',
        url: base,
        requests: [{ method: 'POST', setupRequest: conversion }],
        baseline: 'bare POST 1 KB',
        expect: 200,
      });
    }
    if (SCENARIOS.has('decide-100k')) {
      const generated = generatedCatalog(GENERATED_OFFERS, Math.max(100, Math.round(GENERATED_OFFERS / 10)));
      const requests = withSessions(
        bodiesForGenerated(generated).map((body) => ({
          method: 'POST' as const,
          path: '/v1/offers/decide',
          headers: auth,
          body: JSON.stringify({ ...body, session: { token: SESSION_PLACEHOLDER } }),
        })),
      );
      scenarios.push({
        name: `decide, generated catalog of ${GENERATED_OFFERS.toLocaleString('en')} offers`,
        url: base,
        requests,
        baseline: 'bare POST 1 KB',
        expect: 200,
        before: async () => {
          const t = Date.now();
          await api(base, 'PUT', '/admin/catalog', generated.catalog);
          notes.push(
            `generated catalog (${GENERATED_OFFERS} offers, ${generated.entityAliases.length} entities) imported and indexed in ${((Date.now() - t) / 1000).toFixed(1)} s`,
          );
        },
      });
    }

    for (const s of scenarios) {
      await s.before?.();
      for (const connections of CONNECTIONS) {
        const before = s.url === base ? await outcomes(base) : {};
        const flushedBefore = s.url === base ? await flushes(base) : {};
        const m = await load(s.url, (s.url === base ? service : baseline).child.pid!, connections, s.requests, s.expect);
        if (s.name.startsWith('decide')) mixes[`${s.name} @${connections}`] = diff(await outcomes(base), before);
        if (s.url === base) batching[`${s.name} @${connections}`] = rowsPerFlush(await flushes(base), flushedBefore);
        const b = s.baseline ? results.find((x) => x.scenario === s.baseline && x.connections === connections) : undefined;
        results.push({ scenario: s.name, connections, ...m, baseline: s.baseline, ratio: b ? m.rps / b.rps : null });
        console.error(
          `${s.name} @${connections}: ${m.rps} req/s p99 ${m.p99} ms, ${m.cpuUsPerRequest} µs server CPU/req, errors ${m.errors} unexpected ${m.unexpected}` +
            (m.gc
              ? `; allocated ${m.gc.allocatedKbPerRequest} KB/req, ${m.gc.scavengesPer1k} scavenges and ${m.gc.markCompactsPer1k} mark-compacts per 1,000 req, GC pause ${m.gc.pauseUsPerRequest} µs/req`
              : ''),
        );
      }
    }
    const rssAfter = rssBytes(service.child.pid!);

    const meta = {
      when: new Date().toISOString(),
      command: `npm run bench -- ${args.join(' ')}`.trim(),
      node: process.version,
      cpus: os.cpus().length,
      cpu: os.cpus()[0]?.model,
      stores: STORES,
      duration_s: DURATION,
      runs: RUNS,
      rss_before_mb: Math.round(rssBefore / 1048576),
      rss_after_mb: Math.round(rssAfter / 1048576),
      wall_s: Math.round((Date.now() - started) / 1000),
    };
    const fmt = (r: Result) =>
      `| ${r.scenario} | ${r.connections} | ${r.rps.toLocaleString('en')} | ${r.ratio === null ? '—' : `**${r.ratio.toFixed(2)}×** ${r.baseline}`} | ${r.p50} | ${r.p90} | ${r.p99} | ${r.max} | ${r.cpuUsPerRequest} | ${r.postgresCpuUsPerRequest} | ${r.redisCpuUsPerRequest} | ${r.errors} | ${r.unexpected} |`;
    const markdown = [
      `Stores: ${STORES}; ${meta.node}; ${meta.cpus} × ${meta.cpu}; ${DURATION} s per run, median of ${RUNS}; RSS ${meta.rss_before_mb} → ${meta.rss_after_mb} MiB.`,
      '',
      '| scenario | conns | req/s | ratio to baseline (same run) | p50 ms | p90 ms | p99 ms | max ms | server CPU µs/req | Postgres CPU µs/req | Redis CPU µs/req | errors | unexpected status |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...results.map(fmt),
      '',
      'Decide outcomes during the timed runs (from /metrics):',
      '',
      ...Object.entries(mixes).map(
        ([k, v]) =>
          `- ${k}: ${Object.entries(v)
            .map(([code, n]) => `${code} ${n}`)
            .join(', ')}`,
      ),
      '',
      'Group commit during the timed runs (from /metrics):',
      '',
      ...Object.entries(batching)
        .filter(([, v]) => v)
        .map(([k, v]) => `- ${k}: ${v}`),
      ...notes.map((n) => `- ${n}`),
    ].join('\n');
    mkdirSync(path.join(ROOT, 'bench/out'), { recursive: true });
    writeFileSync(path.join(ROOT, `bench/out/http-${STORES}.json`), JSON.stringify({ meta, results, outcomes: mixes, batching, notes }, null, 2));
    writeFileSync(path.join(ROOT, `bench/out/http-${STORES}.md`), `${markdown}\n`);
    console.log(`\n${JSON.stringify(meta)}\n\n${markdown}\n`);
    const failures = results.filter((r) => r.errors > 0 || r.unexpected > 0);
    if (failures.length > 0) {
      console.error(`errors or unexpected statuses in: ${failures.map((r) => `${r.scenario} @${r.connections}`).join('; ')}`);
      process.exitCode = 1;
    }
  } finally {
    await stop(baseline.child);
    await stop(service.child);
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
