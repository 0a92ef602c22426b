// Catalog imports at scale (issue 18), against a real Postgres:
//
// 1. `sidenote catalog import <file>` (the compiled CLI, as an operator runs it) of generated
//    catalogs of each size in --offers into an empty scratch database, then the same file again
//    (unchanged: checked, nothing written). Wall time and the CLI process' peak resident memory.
// 2. A serving instance (dist/server.js) with a --serving-offers catalog, decide driven by
//    autocannon at 10 connections: --seconds of baseline, then an import of a different catalog of
//    the same size through the job API (POST /admin/catalog/imports, followed with GET) while the
//    same load runs. Decide latency per phase of the job (validating; writing, which ends with this
//    instance's index reload) against the baseline of the same run, and for --after seconds past
//    the job's end (what a reload leaves behind: the old catalog's memory to free).
// 3. With --large-offers N: a generated catalog of N offers imported with the CLI, then served by
//    one instance (dist/server.js, Postgres + Redis): its load at start (time, how much of it ran
//    on the serving thread, peak resident memory), its resident memory serving, and decide at 10
//    connections on it. With --large-reload also a second catalog of N offers imported while it
//    serves, picked up by the instance's poll: decide latency and memory during that reload.
//
//   DATABASE_URL=postgres://… [REDIS_URL=redis://…] npm run bench:import -- [--offers 100000,1000000] [--serving-offers 100000] [--seconds 20] [--after 5]
//     [--large-offers 1000000 [--large-reload]]
//
// Writes bench/out/import.{json,md}. Generated files go to the OS temporary directory and are
// removed afterwards; each part uses a database of its own, dropped at the end.
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { bodiesForGenerated, generatedCatalog, writeGeneratedCatalog } from './catalogs.js';
import { createScratchDatabase, freePort, rssBytes } from './support.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const CLI_SIZES = arg('offers', '100000,1000000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const SERVING_OFFERS = Number(arg('serving-offers', '100000'));
const SECONDS = Number(arg('seconds', '20'));
const AFTER_SECONDS = Number(arg('after', '5'));
const LARGE_OFFERS = Number(arg('large-offers', '0'));
const LARGE_RELOAD = args.includes('--large-reload');
const CONNECTIONS = 10;
const ADMIN_KEY = 'bench-admin-key-0123456789abcdef';
const METRICS_TOKEN = 'metrics-token-for-the-benchmark-0123';
const admin = { authorization: `Bearer ${ADMIN_KEY}` };

const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) {
  console.error('bench:import needs DATABASE_URL (a Postgres server): the targets are about Postgres.');
  process.exit(2);
}
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sidenote-import-bench-'));

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const mb = (bytes: number) => round(bytes / 1_048_576);

/** Runs a process to its end, sampling its resident memory; resolves with its exit code, output
 *  and peak RSS. */
function runSampled(
  cmd: string,
  argv: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string; peakRss: number; seconds: number }> {
  const started = performance.now();
  const child = spawn(cmd, argv, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssBytes(child.pid!))), 100);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearInterval(sampler);
      resolve({ code, stdout, stderr, peakRss, seconds: (performance.now() - started) / 1000 });
    }),
  );
}

interface CliResult {
  offers: number;
  fileMb: number;
  seconds: number;
  offersPerSecond: number;
  peakRssMb: number;
  unchangedSeconds: number;
  report: unknown;
}

async function cliImports(): Promise<CliResult[]> {
  const results: CliResult[] = [];
  for (const offers of CLI_SIZES) {
    const file = path.join(tmp, `catalog-${offers}.json`);
    const bytes = await writeGeneratedCatalog(file, offers);
    const db = await createScratchDatabase(adminUrl!, 'sidenote_import_bench');
    try {
      const env = { DATABASE_URL: db.url, REDIS_URL: '' };
      // Migrations first, so the timed run is the import alone.
      await runSampled(process.execPath, ['bin/sidenote.mjs', 'migrate'], env);
      const first = await runSampled(process.execPath, ['bin/sidenote.mjs', 'catalog', 'import', file, '--json'], env);
      if (first.code !== 0) throw new Error(`import of ${offers} offers failed (${first.code}): ${first.stderr.slice(-2000)}`);
      const again = await runSampled(process.execPath, ['bin/sidenote.mjs', 'catalog', 'import', file, '--json'], env);
      if (again.code !== 0) throw new Error(`second import of ${offers} offers failed: ${again.stderr.slice(-2000)}`);
      const r: CliResult = {
        offers,
        fileMb: mb(bytes),
        seconds: round(first.seconds),
        offersPerSecond: Math.round(offers / first.seconds),
        peakRssMb: mb(first.peakRss),
        unchangedSeconds: round(again.seconds),
        report: JSON.parse(first.stdout),
      };
      console.error(
        `CLI import ${offers} offers (${r.fileMb} MB): ${r.seconds} s, ${r.offersPerSecond}/s, peak RSS ${r.peakRssMb} MB; unchanged again ${r.unchangedSeconds} s`,
      );
      results.push(r);
    } finally {
      await db.drop();
      rmSync(file, { force: true });
    }
  }
  return results;
}

async function startServer(
  env: Record<string, string>,
  opts: { readySeconds?: number; onSpawn?: (child: ChildProcess) => void } = {},
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/server.js'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1', METRICS_PORT: 'off', METRICS_TOKEN },
    stdio: ['ignore', env.LOG_LEVEL ? 'pipe' : 'ignore', 'inherit'],
  });
  opts.onSpawn?.(child);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < (opts.readySeconds ?? 120) * 10; i++) {
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      )
    )
      return { child, url };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('the server did not become ready');
}

interface Job {
  id: string;
  state: string;
  started_at: string | null;
  validated_at: string | null;
  finished_at: string | null;
  report: Record<string, unknown> | null;
  error: unknown;
}

async function importJob(url: string, file: string): Promise<Job> {
  const body = Readable.toWeb(createReadStream(file)) as ReadableStream;
  const res = await fetch(`${url}/admin/catalog/imports`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json' },
    body,
    duplex: 'half',
  } as RequestInit);
  if (res.status !== 202) throw new Error(`POST /admin/catalog/imports: ${res.status} ${await res.text()}`);
  const location = res.headers.get('location')!;
  for (;;) {
    const job = (await (await fetch(`${url}${location}`, { headers: admin })).json()) as Job;
    if (job.state === 'succeeded') return job;
    if (job.state === 'failed') throw new Error(`import job failed: ${JSON.stringify(job.error)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Window {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
}

function window(samples: Array<[number, number]>, from: number, until: number): Window {
  const lat = samples
    .filter(([t]) => t >= from && t < until)
    .map(([, l]) => l)
    .sort((a, b) => a - b);
  const at = (q: number) => (lat.length === 0 ? 0 : lat[Math.min(lat.length - 1, Math.floor(q * lat.length))]);
  return {
    requests: lat.length,
    rps: Math.round(lat.length / ((until - from) / 1000)),
    p50: round(at(0.5), 2),
    p99: round(at(0.99), 2),
    max: round(lat.at(-1) ?? 0, 2),
  };
}

/** Drives decide until `until` resolves (or for `seconds`); every answer's time and latency. */
async function drive(url: string, key: string, bodies: object[], until: Promise<unknown> | number) {
  const samples: Array<[number, number]> = [];
  let non2xx = 0;
  // autocannon's clients cycle through the list.
  const requests: autocannon.Request[] = bodies.map((b) => ({
    method: 'POST',
    path: '/v1/offers/decide',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(b),
  }));
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const instance = autocannon({ url, connections: CONNECTIONS, duration: typeof until === 'number' ? until : 3600, requests }, () => finished());
  instance.on('response', (_client: unknown, status: number, _bytes: number, latency: number) => {
    samples.push([Date.now(), latency]);
    if (status < 200 || status > 299) non2xx++;
  });
  if (typeof until !== 'number') {
    await until;
    instance.stop();
  }
  await done;
  return { samples, non2xx };
}

async function metric(url: string, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  return Number(pattern.exec(text)?.[1] ?? 0);
}
const timeouts = (url: string) => metric(url, /^sidenote_decide_outcomes_total\{kind="offer",reason_code="TIMEOUT"\} (\d+)/m);
/** How long this instance's last index reload took (it ends the job's writing phase). */
const reloadSeconds = (url: string) => metric(url, /^sidenote_offer_index_reload_seconds (\S+)/m);
/** How much of it ran on the serving thread (0 where the service does not report it). */
const reloadServingThreadSeconds = (url: string) => metric(url, /^sidenote_offer_index_reload_serving_thread_seconds (\S+)/m);

async function servingImport() {
  const db = await createScratchDatabase(adminUrl!, 'sidenote_import_serving');
  const base = path.join(tmp, 'serving-base.json');
  const next = path.join(tmp, 'serving-next.json');
  const entities = Math.round(SERVING_OFFERS / 10);
  await writeGeneratedCatalog(base, SERVING_OFFERS, entities, 7);
  // Another seed: every offer's content differs, so the job writes every snapshot anew.
  const bytes = await writeGeneratedCatalog(next, SERVING_OFFERS, entities, 8);
  const server = await startServer({
    DATABASE_URL: db.url,
    ADMIN_KEY,
    LOAD_DEMO_CATALOG: 'false',
    DECIDE_RATE_LIMIT_PER_MINUTE: '1000000000',
  });
  try {
    await importJob(server.url, base);
    const created = await (
      await fetch(`${server.url}/admin/apps`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: '{"name":"Import bench"}' })
    ).json();
    const bodies = bodiesForGenerated(generatedCatalog(Math.min(SERVING_OFFERS, 20_000), entities, 7), 64);
    // Warm-up, then the baseline.
    await drive(server.url, created.test_key, bodies, 2);
    const t0 = await timeouts(server.url);
    const baseline = await drive(server.url, created.test_key, bodies, SECONDS);
    const t1 = await timeouts(server.url);
    const baselineWindow = window(baseline.samples, baseline.samples[0][0], baseline.samples.at(-1)![0] + 1);
    // The same load while a job imports the other catalog.
    let job!: Job;
    let ended = 0;
    const posted = Date.now();
    const during = await drive(
      server.url,
      created.test_key,
      bodies,
      importJob(server.url, next).then(async (j) => {
        job = j;
        ended = Date.now();
        await new Promise((r) => setTimeout(r, AFTER_SECONDS * 1000));
      }),
    );
    const t2 = await timeouts(server.url);
    const reloadMs = (await reloadSeconds(server.url)) * 1000;
    const reloadServingThreadMs = (await reloadServingThreadSeconds(server.url)) * 1000;
    const started = Date.parse(job.started_at!);
    const validated = Date.parse(job.validated_at!);
    const finished = Date.parse(job.finished_at!);
    const written = finished - reloadMs;
    const result = {
      offers: SERVING_OFFERS,
      fileMb: mb(bytes),
      connections: CONNECTIONS,
      baseline: { ...baselineWindow, non2xx: baseline.non2xx, timeouts: t1 - t0 },
      job: {
        uploadSeconds: round((started - posted) / 1000),
        validatingSeconds: round((validated - started) / 1000),
        writingSeconds: round((written - validated) / 1000),
        reloadSeconds: round(reloadMs / 1000),
        reloadServingThreadMs: round(reloadServingThreadMs),
        totalSeconds: round((finished - posted) / 1000),
        report: job.report,
      },
      during: {
        whole: { ...window(during.samples, posted, finished), non2xx: during.non2xx, timeouts: t2 - t1 },
        upload: window(during.samples, posted, started),
        validating: window(during.samples, started, validated),
        writing: window(during.samples, validated, written),
        reload: window(during.samples, written, finished),
        after: window(during.samples, ended, ended + AFTER_SECONDS * 1000),
      },
    };
    console.error(JSON.stringify(result, null, 2));
    return result;
  } finally {
    const exited = new Promise((r) => server.child.once('exit', r));
    server.child.kill('SIGTERM');
    await exited;
    await db.drop();
  }
}

/** Peak resident memory of a process between start() and stop(), sampled every 100 ms. */
function rssSampler(pid: number) {
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 100);
  return {
    peak: () => peak,
    reset: () => {
      peak = rssBytes(pid);
    },
    stop: () => clearInterval(timer),
  };
}

async function catalogVersion(url: string): Promise<number> {
  return ((await (await fetch(`${url}/readyz`)).json()) as { catalog_version: number }).catalog_version;
}

async function largeCatalog() {
  const db = await createScratchDatabase(adminUrl!, 'sidenote_import_large');
  const entities = Math.round(LARGE_OFFERS / 10);
  const file = path.join(tmp, 'large.json');
  const cliEnv = { DATABASE_URL: db.url, REDIS_URL: '' };
  let server: { child: ChildProcess; url: string } | null = null;
  try {
    const fileBytes = await writeGeneratedCatalog(file, LARGE_OFFERS, entities, 7);
    await runSampled(process.execPath, ['bin/sidenote.mjs', 'migrate'], cliEnv);
    const imported = await runSampled(process.execPath, ['bin/sidenote.mjs', 'catalog', 'import', file, '--json'], cliEnv);
    if (imported.code !== 0) throw new Error(`import of ${LARGE_OFFERS} offers failed: ${imported.stderr.slice(-2000)}`);
    rmSync(file, { force: true });
    console.error(`large catalog: ${LARGE_OFFERS} offers imported by the CLI in ${round(imported.seconds)} s`);

    // The instance loads the catalog before it listens.
    let sampler!: ReturnType<typeof rssSampler>;
    let logs = '';
    const spawned = performance.now();
    server = await startServer(
      { DATABASE_URL: db.url, ADMIN_KEY, LOAD_DEMO_CATALOG: 'false', DECIDE_RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: 'info' },
      {
        readySeconds: 900,
        onSpawn: (child) => {
          sampler = rssSampler(child.pid!);
          child.stdout!.on('data', (d) => {
            // Only the loader's lines are kept.
            for (const line of String(d).split('\n')) if (line.includes('offer index')) logs += `${line}\n`;
          });
        },
      },
    );
    const readySeconds = (performance.now() - spawned) / 1000;
    const startPeakRss = sampler.peak();
    const loaded = logs.split('\n').find((l) => l.includes('offer index loaded'));
    const startLoad = loaded ? (JSON.parse(loaded) as Record<string, number>) : null;
    await new Promise((r) => setTimeout(r, 5000));
    const settledRss = rssBytes(server.child.pid!);

    const created = await (
      await fetch(`${server.url}/admin/apps`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: '{"name":"Large bench"}' })
    ).json();
    const bodies = bodiesForGenerated(generatedCatalog(Math.min(LARGE_OFFERS, 20_000), entities, 7), 64);
    await drive(server.url, created.test_key, bodies, 2);
    const t0 = await timeouts(server.url);
    sampler.reset();
    const serving = await drive(server.url, created.test_key, bodies, SECONDS);
    const t1 = await timeouts(server.url);
    const servingWindow = window(serving.samples, serving.samples[0][0], serving.samples.at(-1)![0] + 1);
    const servingPeakRss = sampler.peak();
    const result: Record<string, unknown> = {
      offers: LARGE_OFFERS,
      fileMb: mb(fileBytes),
      cliImportSeconds: round(imported.seconds),
      start: {
        readySeconds: round(readySeconds),
        loadMs: startLoad?.ms,
        buildMs: startLoad?.buildMs,
        servingThreadMs: startLoad?.servingThreadMs,
        longestStepMs: startLoad?.longestStepMs,
        peakRssMb: mb(startPeakRss),
        settledRssMb: mb(settledRss),
      },
      serving: { ...servingWindow, non2xx: serving.non2xx, timeouts: t1 - t0, peakRssMb: mb(servingPeakRss) },
    };

    if (LARGE_RELOAD) {
      const next = path.join(tmp, 'large-next.json');
      await writeGeneratedCatalog(next, LARGE_OFFERS, entities, 8);
      const again = await runSampled(process.execPath, ['bin/sidenote.mjs', 'catalog', 'import', next, '--json'], cliEnv);
      if (again.code !== 0) throw new Error(`second import failed: ${again.stderr.slice(-2000)}`);
      rmSync(next, { force: true });
      const version = (JSON.parse(again.stdout) as { version: number }).version;
      // The instance's poll picks the new version up and loads it while decide runs.
      sampler.reset();
      const from = Date.now();
      let live = 0;
      const during = await drive(
        server.url,
        created.test_key,
        bodies,
        (async () => {
          while ((await catalogVersion(server!.url)) !== version) await new Promise((r) => setTimeout(r, 100));
          live = Date.now();
          await new Promise((r) => setTimeout(r, AFTER_SECONDS * 1000));
        })(),
      );
      const reloadLine = logs
        .split('\n')
        .filter((l) => l.includes('offer index loaded'))
        .at(-1);
      const reload = reloadLine ? (JSON.parse(reloadLine) as Record<string, number>) : null;
      result.reload = {
        loadMs: reload?.ms,
        buildMs: reload?.buildMs,
        servingThreadMs: reload?.servingThreadMs,
        longestStepMs: reload?.longestStepMs,
        peakRssMb: mb(sampler.peak()),
        during: { ...window(during.samples, from, live), non2xx: during.non2xx },
        after: window(during.samples, live, live + AFTER_SECONDS * 1000),
        settledRssMb: mb(rssBytes(server.child.pid!)),
      };
    }
    sampler.stop();
    console.error(JSON.stringify(result, null, 2));
    return result;
  } finally {
    if (server) {
      const exited = new Promise((r) => server!.child.once('exit', r));
      server.child.kill('SIGTERM');
      await exited;
    }
    await db.drop();
  }
}

async function main() {
  statSync(path.join(ROOT, 'dist/server.js'));
  const cli = await cliImports();
  const serving = SERVING_OFFERS > 0 ? await servingImport() : null;
  const large = LARGE_OFFERS > 0 ? await largeCatalog() : null;
  const out = path.join(ROOT, 'bench/out');
  mkdirSync(out, { recursive: true });
  const meta = { at: new Date().toISOString(), cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version };
  writeFileSync(path.join(out, 'import.json'), `${JSON.stringify({ meta, cli, serving, large }, null, 2)}\n`);
  const lines = [
    `# Catalog import (${meta.at}, ${meta.cpus} vCPU, Node ${meta.node})`,
    '',
    '| offers | file | CLI import | offers/s | peak RSS | same file again |',
    '|---:|---:|---:|---:|---:|---:|',
    ...cli.map(
      (r) =>
        `| ${r.offers.toLocaleString('en')} | ${r.fileMb} MB | ${r.seconds} s | ${r.offersPerSecond.toLocaleString('en')} | ${r.peakRssMb} MB | ${r.unchangedSeconds} s |`,
    ),
  ];
  if (serving) {
    const row = (name: string, w: Window & { non2xx?: number }) => `| ${name} | ${w.requests} | ${w.rps} | ${w.p50} | ${w.p99} | ${w.max} |`;
    lines.push(
      '',
      `Job import of ${serving.offers.toLocaleString('en')} offers (${serving.fileMb} MB) on a serving instance, decide at ${serving.connections} connections: upload ${serving.job.uploadSeconds} s, validating ${serving.job.validatingSeconds} s, writing ${serving.job.writingSeconds} s, then this instance's index reload ${serving.job.reloadSeconds} s (${serving.job.reloadServingThreadMs} ms of it on the serving thread, where reported).`,
      '',
      '| decide window | requests | req/s | p50 ms | p99 ms | max ms |',
      '|---|---:|---:|---:|---:|---:|',
      row('baseline (no import)', serving.baseline),
      row('during the job, whole', serving.during.whole),
      row('… upload', serving.during.upload),
      row('… validating (worker thread)', serving.during.validating),
      row('… writing (batches, one transaction)', serving.during.writing),
      row('… index reload (not part of the import)', serving.during.reload),
      row(`after the job (${AFTER_SECONDS} s)`, serving.during.after),
      '',
      `Non-2xx answers: baseline ${serving.baseline.non2xx}, during ${serving.during.whole.non2xx}. TIMEOUT no-fills: baseline ${serving.baseline.timeouts}, during ${serving.during.whole.timeouts}.`,
    );
  }
  if (large) lines.push('', '```json', JSON.stringify(large, null, 2), '```');
  writeFileSync(path.join(out, 'import.md'), `${lines.join('\n')}\n`);
  console.log(lines.join('\n'));
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => rmSync(tmp, { recursive: true, force: true }));
