// Runs the real server process for tests that need signals: SIGKILL during writes, SIGTERM with
// requests in flight. It is dist/server.js when dist/ is current (CI builds it first), else
// src/server.ts through tsx.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { compiledBuildIsCurrent } from '../../src/util/compiled-build.js';

export const TEST_METRICS_TOKEN = 'metrics-token-for-tests-0123456789';
/** The header a test sends to read /metrics on the API port. */
export const METRICS_AUTH = { authorization: `Bearer ${TEST_METRICS_TOKEN}` };

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Node's arguments to run one of the service's entry points (`server`, `cluster`). */
export function entryPointArgs(entry: 'server' | 'cluster'): string[] {
  return compiledBuildIsCurrent() ? [path.join(ROOT, `dist/${entry}.js`)] : ['--import', 'tsx', path.join(ROOT, `src/${entry}.ts`)];
}

export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, entryPointArgs('server'), {
    cwd: ROOT,
    // Own Redis key prefix: budgets and caps of other runs on a shared Redis do not leak in.
    // Metrics on an ephemeral port of their own, and on the API port with the test token.
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      METRICS_PORT: '0',
      METRICS_TOKEN: TEST_METRICS_TOKEN,
      LOG_LEVEL: 'info',
      LOG_REQUESTS: 'true',
      CHECK_RESPONSES: 'true',
      REDIS_KEY_PREFIX: `sn:spawn:${process.pid}:${Date.now()}:`,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 60_000);
    const onData = () => {
      const m = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.on('exit', () => reject(new Error(`server exited:\n${out}`)));
  });
  return { url, child, output: () => out, exited };
}
