// The harness of the CLI-beside-an-embedded-server tests (test/cli/cli-embedded-*.test.ts): a
// scratch root of data directories, the CLI run as an operator runs it, embedded servers started
// on a directory, and every process a test started killed after it.
import { afterAll, afterEach, beforeAll } from 'vitest';
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startServer, type ServerProcess } from './spawn-server.js';
import { adultOnSurface } from './envelopes.js';

const execFileP = promisify(execFile);
const BIN = path.resolve('bin/sidenote.mjs');

const ENVELOPE = JSON.stringify({
  message: '제주도 호텔 최저가 추천해줘',
  locale: 'ko-KR',
  country: 'KR',
  ...adultOnSurface(),
});

/** Registers its hooks in the calling describe. */
export function embeddedCliHarness() {
  let root: string;
  let n = 0;
  const servers: ServerProcess[] = [];
  const holders: ChildProcess[] = [];

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'sn-cli-srv-'));
  });
  afterEach(() => {
    for (const s of servers.splice(0)) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    for (const h of holders.splice(0)) if (h.exitCode === null) h.kill('SIGKILL');
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  /** Polls until ok (revocation reaches a server within API_KEY_CACHE_MS, 500 ms). */
  const eventually = async <T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms = 3000) => {
    const until = Date.now() + ms;
    let v = await probe();
    while (!ok(v) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      v = await probe();
    }
    return v;
  };
  const freshDir = () => path.join(root, `d${++n}`, 'db');
  const cliEnv = (dataDir: string) => {
    const env: NodeJS.ProcessEnv = { ...process.env, SIDENOTE_DATA_DIR: dataDir };
    delete env.DATABASE_URL;
    return env;
  };
  const cli = async (dataDir: string, ...args: string[]) => {
    try {
      const r = await execFileP(process.execPath, [BIN, ...args], { env: cliEnv(dataDir), timeout: 60_000 });
      return { code: 0, stdout: r.stdout, stderr: r.stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  const serve = async (dataDir: string) => {
    const s = await startServer({
      SIDENOTE_DATA_DIR: dataDir,
      DATABASE_URL: '',
      LOAD_DEMO_CATALOG: 'true',
      DECIDE_RATE_LIMIT_PER_MINUTE: '1000000',
      DECIDE_TIME_BUDGET_MS: '5000',
    });
    servers.push(s);
    // The admin channel starts just after the HTTP listener; its key file is written last.
    await eventually(
      async () => existsSync(path.join(dataDir, 'admin.key')),
      (x) => x,
      20_000,
    );
    return s;
  };
  const stop = async (s: ServerProcess) => {
    s.child.kill('SIGTERM');
    return s.exited;
  };
  const decide = async (s: ServerProcess, key: string) => {
    const res = await fetch(`${s.url}/v1/offers/decide`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: ENVELOPE,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const mode = (file: string) => statSync(file).mode & 0o777;

  return { root: () => root, holders, eventually, freshDir, cliEnv, cli, serve, stop, decide, mode };
}
