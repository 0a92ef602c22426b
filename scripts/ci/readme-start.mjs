#!/usr/bin/env node
// CI: the README's start command, exactly as the README writes it, in a fresh clone of the
// committed HEAD (no .data/, no node_modules, no dist/), on the embedded defaults: DATABASE_URL
// and REDIS_URL unset. It must listen, print a demo serving key and a curl whose decide comes
// back serve:true, and exit 0 soon after a SIGTERM.
//
// Only the environment is adjusted, never the command: a free PORT (the service reads it), and
// CARGO_TARGET_DIR pointing at this checkout's target/ so the Rust dependencies already built
// there are reused (the workspace crates still compile anew at their new path).
//
//   README_START_TIMEOUT_S (default 300) bounds install + build + start.
//   README_START_IN_PLACE=1 runs the command in this checkout itself, which must be as fresh as a
//   clone (CI's own checkout is one: no node_modules/, dist/, .data/ or built addon). CI installs
//   the project this way, once: the README's install is the one every later step uses.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TIMEOUT_MS = Number(process.env.README_START_TIMEOUT_S ?? 300) * 1000;
const STOP_MS = 15_000;
const started = Date.now();
const secs = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
const log = (s) => console.log(`[readme-start ${secs()}] ${s}`);

/** The start command as the README's first code block writes it. */
function readmeStartCommand() {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const block = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const line = block.split('\n').find((l) => /\bnpm start\b/.test(l));
  if (!line) throw new Error("the README's first sh block has no `npm start` line");
  return line.replace(/\s+#.*$/, '').trim();
}

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const command = readmeStartCommand();
const inPlace = process.env.README_START_IN_PLACE === '1';
const tmp = mkdtempSync(path.join(tmpdir(), 'sidenote-readme-'));
const clone = inPlace ? ROOT : path.join(tmp, 'clone');
let child;
let output = '';
let exitCode;

function fail(message) {
  console.error(`\n[readme-start ${secs()}] FAILED: ${message}`);
  console.error(`command: ${command} (in ${clone})`);
  console.error('---- last 80 lines of its stdout+stderr ----');
  console.error(output.split('\n').slice(-80).join('\n'));
  console.error('--------------------------------------------');
  cleanup();
  process.exit(1);
}

function cleanup() {
  // The command runs in its own process group: nothing of it may outlive this script.
  if (child && exitCode === undefined) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(tmp, { recursive: true, force: true });
}

async function until(what, probe, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await probe();
    if (v) return v;
    if (exitCode !== undefined) fail(`the command exited with ${exitCode} while waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  fail(`no ${what} within ${ms / 1000} s`);
}

try {
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  if (inPlace) {
    const addons = readdirSync(path.join(ROOT, 'native')).filter((f) => f.endsWith('.node'));
    const left = [...['node_modules', 'dist', '.data'].filter((p) => existsSync(path.join(ROOT, p))), ...addons.map((f) => `native/${f}`)];
    const changed = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim();
    if (left.length > 0 || changed)
      fail(`README_START_IN_PLACE needs a checkout as fresh as a clone; this one has ${[...left, changed && 'changes'].filter(Boolean).join(', ')}`);
    log(`in this checkout, at ${head.slice(0, 10)}`);
  } else {
    log(`cloning ${head.slice(0, 10)} into ${clone}`);
    execFileSync('git', ['clone', '--quiet', ROOT, clone], { stdio: 'inherit' });
    const cloned = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: clone, encoding: 'utf8' }).trim();
    if (cloned !== head) fail(`the clone is at ${cloned}, not at HEAD ${head}`);
  }
  if (existsSync(path.join(clone, '.data'))) fail('the fresh clone already has .data/');

  const port = await freePort();
  const env = { ...process.env, PORT: String(port), CARGO_TARGET_DIR: path.join(ROOT, 'target'), npm_config_audit: 'false', npm_config_fund: 'false' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  delete env.SIDENOTE_DATA_DIR;
  delete env.ADMIN_KEY;
  log(`running \`${command}\` with PORT=${port}, DATABASE_URL and REDIS_URL unset`);
  child = spawn('bash', ['-c', command], { cwd: clone, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (d) => {
    output += d;
    stdout += d;
  });
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve((exitCode = code ?? signal))));

  const key = await until('demo serving key in the banner', async () => /Demo serving key, live: (sk_live_\S+)/.exec(output)?.[1], TIMEOUT_MS);
  if (!/Demo serving key, test: sk_test_\S+/.test(output)) fail('the banner shows no test key');
  // The banner is on stderr: from the server's first log line on, stdout is JSON log lines only
  // (the install's output and npm's "> sidenote@… start" header come before it).
  const serverLines = stdout
    .slice(Math.max(0, stdout.indexOf('{"level"')))
    .split('\n')
    .filter((l) => l.trim());
  const notJson = serverLines.filter((l) => {
    try {
      return typeof JSON.parse(l) !== 'object';
    } catch {
      return true;
    }
  });
  if (notJson.length > 0) fail(`stdout carries lines that are not JSON log lines:\n  ${notJson.slice(0, 5).join('\n  ')}`);
  const envelope = await until('curl with a decide envelope on stdout', async () => /-d '(\{.*\})'\s*$/m.exec(output)?.[1], 10_000);
  log(`listening on ${port}; demo key printed`);

  // The printed curl, sent once, as printed: a newcomer pastes it once, and the first decide
  // after a start must serve (the start warms the matcher and the stores up before it listens).
  const res = await fetch(`http://127.0.0.1:${port}/v1/offers/decide`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: envelope,
  });
  const answer = await res.json();
  if (res.status !== 200 || answer.serve !== true) fail(`the printed curl's first decide did not serve: ${res.status} ${JSON.stringify(answer)}`);
  log(`the first decide served: ${JSON.stringify(answer).slice(0, 120)}…`);

  // SIGTERM to `npm start` (the server's parent), as a container runtime or a process supervisor
  // that started it sends it: the signal must reach the server (the start script execs node, so
  // no shell stands between them), which drains, flushes and exits; npm and bash then exit 0.
  const lockFile = path.join(clone, '.data/pglite/sidenote.lock');
  if (!existsSync(lockFile)) fail(`no lock file at ${lockFile}`);
  const serverPid = JSON.parse(readFileSync(lockFile, 'utf8')).pid;
  // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces, so read after its ')'.
  const stat = readFileSync(`/proc/${serverPid}/stat`, 'utf8');
  const npmPid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  const npmCommand = readFileSync(`/proc/${npmPid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  if (!npmCommand.includes('npm')) fail(`the server's parent is not npm: ${npmCommand}`);
  const stopAt = Date.now();
  process.kill(npmPid, 'SIGTERM');
  const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), STOP_MS))]);
  if (code === 'timeout') fail(`still running ${STOP_MS / 1000} s after SIGTERM to npm start`);
  if (code !== 0) fail(`exited with ${code} after SIGTERM to npm start`);
  if (existsSync(`/proc/${serverPid}`)) fail('the server outlived npm start: SIGTERM never reached it');
  if (existsSync(lockFile)) fail('the lock file outlived a clean stop');
  log(`SIGTERM → exit 0 in ${((Date.now() - stopAt) / 1000).toFixed(1)} s`);
  cleanup();
  log('passed');
  process.exit(0);
} catch (err) {
  fail(err.stack ?? String(err));
}
