#!/usr/bin/env node
// npm run test:contract: checks the running service against its own /openapi.json with
// Schemathesis: every operation, valid and invalid generated requests, every check. Exits
// non-zero on any finding (a 5xx, a response that breaks its schema, a valid request refused,
// an invalid one accepted, an undocumented status …).
//
// Runs on the embedded defaults, or on DATABASE_URL / REDIS_URL when set (then in a fresh
// database of its own, dropped afterwards, and its own Redis key prefix). The keys come from a
// host app created over the admin API for this run. Schemathesis lives in .venv-contract/,
// created on first use with the pinned version below.
//
//   SCHEMATHESIS_MAX_EXAMPLES (default 100), SCHEMATHESIS_SEED (default 20261123) tune the run.
//   `--install-only` creates .venv-contract/ and stops (CI installs it while Rust compiles).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SCHEMATHESIS_VERSION = '4.32.5';
const VENV = path.join(ROOT, '.venv-contract');
const ST = path.join(VENV, 'bin', 'st');
const MAX_EXAMPLES = process.env.SCHEMATHESIS_MAX_EXAMPLES ?? '100';
const SEED = process.env.SCHEMATHESIS_SEED ?? '20261123';
const ADMIN_KEY = `contract-admin-${randomBytes(16).toString('hex')}`;

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: ROOT, ...options });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status}`);
}

function ensureSchemathesis() {
  const version = existsSync(ST) ? spawnSync(ST, ['--version'], { encoding: 'utf8' }).stdout : '';
  if (version.includes(SCHEMATHESIS_VERSION)) return;
  console.log(`== installing schemathesis ${SCHEMATHESIS_VERSION} into .venv-contract/`);
  if (!existsSync(path.join(VENV, 'bin', 'python'))) run('python3', ['-m', 'venv', VENV]);
  run(path.join(VENV, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', `schemathesis==${SCHEMATHESIS_VERSION}`]);
}

/** A database of this run's own on the Postgres of DATABASE_URL, or null on PGlite. */
async function createRunDatabase() {
  if (!process.env.DATABASE_URL) return null;
  const { default: pg } = await import('pg');
  const name = `sidenote_contract_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const a = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

/** Starts dist/server.js. Its log is read for two things: the listening address, and error
 *  lines (level 50+), which fail the run even when every response looked fine. */
function startServer(env) {
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/server.js')], {
    cwd: ROOT,
    env: { ...process.env, METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let startup = '';
  const errors = [];
  let pending = '';
  const onData = (d) => {
    if (startup.length < 20_000) startup += d;
    pending += d;
    const lines = pending.split('\n');
    pending = lines.pop();
    for (const line of lines) if (/"level":(50|60)/.test(line)) errors.push(line);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${startup}`)), 60_000);
    child.stdout.on('data', () => {
      const m = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(startup);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${startup}`)));
  });
  return { child, url, errors };
}

async function main() {
  ensureSchemathesis();
  if (process.argv.includes('--install-only')) return;
  // dist/ as `npm start` makes it: compiled only when missing or older than a source file.
  run('node', ['scripts/ensure-built.mjs']);
  // The four phases in two runs side by side, each against a service of its own (its own
  // database and Redis prefix, so retry keys and nonces one run uses cannot collide with the
  // other's): one Schemathesis process keeps about one core busy (it and its server take turns),
  // and workers inside one process are threads that Python 3.11's ast module does not survive
  // (see runSchemathesis). Each run prints its output whole when it is done.
  // allSettled: a run that throws (its server did not start) must not exit this process while
  // the other is still running, which would leave that run's server and Schemathesis behind.
  const runs = await Promise.allSettled(PHASE_GROUPS.map((phases) => contractRun(phases)));
  for (const r of runs) if (r.status === 'rejected') console.error(r.reason);
  process.exit(runs.every((r) => r.status === 'fulfilled' && r.value === 0) ? 0 : 1);
}

/** The phases, split in two groups of about equal time (on the demo catalog: examples and
 *  coverage about 40 s, fuzzing and stateful about 35 s, with 50 examples). */
const PHASE_GROUPS = ['examples,coverage', 'fuzzing,stateful'];

/** A service of its own (a fresh database on DATABASE_URL, its own Redis prefix), a host app
 *  and one real fill, then Schemathesis for `phases`. Resolves to 0 when every check passed and
 *  the server logged no error line. */
async function contractRun(phases) {
  const database = await createRunDatabase();
  const server = startServer({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ADMIN_KEY,
    SIDENOTE_DATA_DIR: 'memory',
    LOAD_DEMO_CATALOG: '1',
    REDIS_KEY_PREFIX: `sn:contract:${process.pid}:${phases.replace(',', '-')}:`,
    // Schemathesis sends thousands of requests from one address; the per-IP limits would turn
    // most of them into 429s (which the document lists) and test little else.
    DECIDE_RATE_LIMIT_PER_MINUTE: '1000000',
    CLICK_INTENT_RATE_LIMIT_PER_MINUTE: '1000000',
    CLICK_RATE_LIMIT_PER_MINUTE: '1000000',
    // A loaded 2-core machine can exceed the 50 ms production budget; a TIMEOUT no-fill is
    // valid, but it would stand in for the answers the run is meant to check.
    DECIDE_TIME_BUDGET_MS: '2000',
    ...(database ? { DATABASE_URL: database.url } : {}),
  });
  let status = 1;
  try {
    const baseUrl = await server.url;
    const created = await fetch(`${baseUrl}/admin/apps`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Contract test host' }),
    });
    if (created.status !== 201) throw new Error(`could not create the test app: ${created.status} ${await created.text()}`);
    const app = await created.json();
    const served = await serveOneOffer(baseUrl, app.serving_key);
    const env = {
      ...process.env,
      SIDENOTE_CONTRACT_SERVING_KEY: app.serving_key,
      SIDENOTE_CONTRACT_ADMIN_KEY: ADMIN_KEY,
      SIDENOTE_CONTRACT_CONVERSION_SECRET: app.conversion_secret,
      SIDENOTE_CONTRACT_DECISION_ID: served.decision_id,
      SIDENOTE_CONTRACT_SNAPSHOT_ID: served.offer_id,
      SIDENOTE_CONTRACT_LINK_TOKEN: served.link.split('/r/')[1],
      SCHEMATHESIS_HOOKS: path.join(ROOT, 'scripts/contract/hooks.py'),
    };
    const where = `${baseUrl} (${database ? 'Postgres' : 'PGlite'} + ${process.env.REDIS_URL ? 'Redis' : 'in-process counters'})`;
    status = await runSchemathesis(baseUrl, phases, env, where);
    if (server.errors.length > 0) {
      console.error(`the server of phases ${phases} logged ${server.errors.length} error line(s):\n${server.errors.slice(0, 20).join('\n')}`);
      status = 1;
    }
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
    await database?.drop();
  }
  return status;
}

/** One Schemathesis process over every operation, for some phases; its output is printed
 *  whole when it exits. Resolves to its exit code. */
function runSchemathesis(baseUrl, phases, env, where) {
  const args = [
    '--config-file',
    path.join(ROOT, 'scripts/contract/schemathesis.toml'),
    'run',
    `${baseUrl}/openapi.json`,
    '--phases',
    phases,
    '--checks',
    'all',
    '--max-examples',
    MAX_EXAMPLES,
    ...(process.env.SCHEMATHESIS_INCLUDE_PATH ? ['--include-path', process.env.SCHEMATHESIS_INCLUDE_PATH] : []),
    '--seed',
    SEED,
    // One worker: Python 3.11's ast module is not thread-safe, and Hypothesis parses lambdas
    // with it ("AST constructor recursion depth mismatch" with two).
    '--workers',
    '1',
    '--generation-database',
    'none',
    '--report',
    'junit',
    '--report-dir',
    path.join(ROOT, 'test-artifacts/contract', phases.replace(',', '-')),
  ];
  const child = spawn(ST, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  child.stdout.on('data', (d) => output.push(d));
  child.stderr.on('data', (d) => output.push(d));
  return new Promise((resolve) => {
    child.on('error', (err) => {
      console.error(`st (${phases}) could not start: ${err.message}`);
      resolve(1);
    });
    child.on('close', (code) => {
      console.log(`\n== schemathesis ${SCHEMATHESIS_VERSION}, phases ${phases}, against ${where}\nst ${args.join(' ')}`);
      process.stdout.write(Buffer.concat(output));
      resolve(code ?? 1);
    });
  });
}

/** One real fill from the demo catalog, whose ids the hooks give to events and lookups. */
async function serveOneOffer(baseUrl, servingKey) {
  let body;
  // The first decides after start can still be warming up (index load, first queries).
  for (let attempt = 0; attempt < 10 && !body?.serve; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 500));
    body = await decideOnce(baseUrl, servingKey);
  }
  if (!body.serve) throw new Error(`the demo catalog did not fill the contract run's decide: ${JSON.stringify(body)}`);
  return body;
}

async function decideOnce(baseUrl, servingKey) {
  const res = await fetch(`${baseUrl}/v1/offers/decide`, {
    method: 'POST',
    headers: { authorization: `Bearer ${servingKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      message: '다음 달 제주도 호텔 최저가 추천해줘',
      locale: 'ko-KR',
      country: 'KR',
      audience: { age_band: '18_plus', contextual_offer_consent: true },
      native_surface: { clickable: true, disclosure_capable: true },
    }),
  });
  return res.json();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
