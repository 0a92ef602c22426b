// HTTP load benchmark: Sidenote's decide (and, with --all, redirect and impression events)
// against a bare Fastify baseline measured in the same run, reported as ratios.
//
//   npm run bench -- [--duration 10] [--connections 10,50] [--runs 3] [--all]
//
// Uses the embedded defaults unless DATABASE_URL / REDIS_URL are set. The decide rate limit is
// raised through DECIDE_RATE_LIMIT_PER_MINUTE — configuration, not a benchmark code path.
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bodiesForDecide } from './decide-bodies.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const DURATION = Number(arg('duration', '10'));
const CONNECTIONS = arg('connections', '10,50').split(',').map(Number);
const RUNS = Number(arg('runs', '3'));
const ADMIN_KEY = 'bench-admin-key-0123456789abcdef';

interface Result {
  scenario: string;
  connections: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  errors: number;
  non2xx: number;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Forks a server on a free port and waits until `readyPath` answers 200. */
async function start(script: string[], env: Record<string, string>, readyPath: string): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, script, { cwd: ROOT, env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
  let exited = false;
  child.on('exit', () => (exited = true));
  for (let i = 0; i < 600 && !exited; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}${readyPath}`).then((r) => r.status === 200, () => false);
    if (ok) return { child, port };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`${script.join(' ')} did not become ready`);
}

async function load(url: string, connections: number, requests: autocannon.Request[]): Promise<Omit<Result, 'scenario' | 'connections'>> {
  const results: Awaited<ReturnType<typeof autocannon>>[] = [];
  for (let run = 0; run < RUNS; run++) {
    // A short warm-up so the JIT and connection pools settle before measuring.
    await autocannon({ url, connections, duration: 1, requests });
    results.push(await autocannon({ url, connections, duration: DURATION, requests }));
  }
  results.sort((a, b) => a.requests.average - b.requests.average);
  const median = results[Math.floor(results.length / 2)];
  return {
    rps: Math.round(median.requests.average),
    p50: median.latency.p50,
    p90: median.latency.p90,
    p99: median.latency.p99,
    max: median.latency.max,
    errors: results.reduce((n, r) => n + r.errors + r.timeouts, 0),
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
  };
}

function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

async function main() {
  const baseline = await start(['--import', 'tsx', 'bench/baseline-server.ts'], {}, '/json');
  const service = await start(['--import', 'tsx', 'src/server.ts'], {
    HOST: '127.0.0.1',
    ADMIN_KEY,
    LOG_LEVEL: 'warn',
    DECIDE_RATE_LIMIT_PER_MINUTE: '1000000000',
    SIDENOTE_DATA_DIR: process.env.SIDENOTE_DATA_DIR ?? path.join(os.tmpdir(), `sidenote-bench-${process.pid}`),
    LOAD_DEMO_CATALOG: 'true',
    // A fresh key space per run: earlier runs' budget spend must not turn serves into no-fills.
    REDIS_KEY_PREFIX: `sn:bench:${Date.now()}:`,
  }, '/readyz');
  const base = `http://127.0.0.1:${service.port}`;
  const created = await (await fetch(`${base}/admin/apps`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' }, body: '{"name":"bench"}' })).json();
  const auth = { authorization: `Bearer ${created.serving_key}`, 'content-type': 'application/json' };
  const rssBefore = rssOf(service.child.pid!);

  const kb = JSON.stringify({ message: 'x'.repeat(900), locale: 'en', native_surface: { clickable: true, disclosure_capable: true } });
  const decideRequests = bodiesForDecide().map((body) => ({ method: 'POST' as const, path: '/v1/offers/decide', headers: auth, body: JSON.stringify(body) }));
  const scenarios: Array<{ name: string; url: string; requests: autocannon.Request[]; baseline: string }> = [
    { name: 'bare GET (baseline)', url: `http://127.0.0.1:${baseline.port}`, requests: [{ method: 'GET', path: '/json' }], baseline: '' },
    { name: 'bare POST 1 KB (baseline)', url: `http://127.0.0.1:${baseline.port}`, requests: [{ method: 'POST', path: '/echo', headers: { 'content-type': 'application/json' }, body: kb }], baseline: '' },
    { name: 'bare 302 (baseline)', url: `http://127.0.0.1:${baseline.port}`, requests: [{ method: 'GET', path: '/redirect' }], baseline: '' },
    { name: 'decide (varied ko/en, serve + no-fill)', url: base, requests: decideRequests, baseline: 'bare POST 1 KB (baseline)' },
  ];
  if (args.includes('--all')) {
    const served: Array<{ link: string; offer_id: string; decision_id: string }> = [];
    for (const r of decideRequests) {
      const d = await (await fetch(`${base}${r.path}`, { method: 'POST', headers: auth, body: r.body })).json();
      if (d.serve) served.push(d);
    }
    const link = new URL(served[0].link).pathname;
    scenarios.push({ name: 'redirect /r/<token>', url: base, requests: [{ method: 'GET', path: link, headers: { 'user-agent': 'Mozilla/5.0 bench' } }], baseline: 'bare 302 (baseline)' });
    let n = 0;
    scenarios.push({
      name: 'rendered impression event',
      url: base,
      requests: [
        {
          method: 'POST',
          path: '/v1/events/rendered',
          setupRequest: (req) => ({
            ...req,
            headers: { ...auth, 'idempotency-key': `bench-${process.pid}-${++n}` },
            body: JSON.stringify({ offer_snapshot_id: served[n % served.length].offer_id, decision_id: served[n % served.length].decision_id }),
          }),
        },
      ],
      baseline: 'bare POST 1 KB (baseline)',
    });
  }

  const results: Result[] = [];
  for (const connections of CONNECTIONS) {
    for (const s of scenarios) {
      const r = await load(s.url, connections, s.requests);
      results.push({ scenario: s.name, connections, ...r });
      console.error(`${s.name} @${connections}: ${r.rps} req/s p99 ${r.p99} ms errors ${r.errors} non-2xx ${r.non2xx}`);
    }
  }
  const rssAfter = rssOf(service.child.pid!);
  baseline.child.kill('SIGTERM');
  service.child.kill('SIGTERM');

  const lines = [
    `| scenario | conns | req/s | ratio to baseline | p50 ms | p90 ms | p99 ms | max ms | errors | non-2xx |`,
    `|---|---|---|---|---|---|---|---|---|---|`,
    ...results.map((r) => {
      const s = scenarios.find((x) => x.name === r.scenario)!;
      const b = results.find((x) => x.scenario === s.baseline && x.connections === r.connections);
      const ratio = b ? `${(r.rps / b.rps).toFixed(2)}× ${s.baseline.replace(' (baseline)', '')}` : '—';
      return `| ${r.scenario} | ${r.connections} | ${r.rps} | ${ratio} | ${r.p50} | ${r.p90} | ${r.p99} | ${r.max} | ${r.errors} | ${r.non2xx} |`;
    }),
  ];
  const meta = {
    when: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model,
    stores: `${process.env.DATABASE_URL ? 'Postgres' : 'PGlite'} + ${process.env.REDIS_URL ? 'Redis' : 'in-process counters'}`,
    duration_s: DURATION,
    runs: RUNS,
    rss_before_mb: Math.round(rssBefore / 1048576),
    rss_after_mb: Math.round(rssAfter / 1048576),
  };
  mkdirSync(path.join(ROOT, 'bench/out'), { recursive: true });
  writeFileSync(path.join(ROOT, 'bench/out/http-bench.json'), JSON.stringify({ meta, results }, null, 2));
  console.log(`\n${JSON.stringify(meta)}\n\n${lines.join('\n')}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
