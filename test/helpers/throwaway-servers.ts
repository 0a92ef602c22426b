// Private Redis and Postgres servers for fault tests, which stop, pause and restart them. The
// shared servers on 5432/6379 are never touched: other test files and people use them.
import { spawn, execFile, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, chownSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const PG_BIN = '/usr/lib/postgresql/15/bin';
const execFileAsync = promisify(execFile);

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not come up within ${timeoutMs} ms`);
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

/** A Redis with no persistence on a free port. */
export class ThrowawayRedis {
  private child: ChildProcess | undefined;
  private constructor(readonly port: number) {}

  static async start(): Promise<ThrowawayRedis> {
    const redis = new ThrowawayRedis(await freePort());
    await redis.restart();
    return redis;
  }

  get url() {
    return `redis://127.0.0.1:${this.port}/0`;
  }

  async restart() {
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await waitFor('redis', () => accepts(this.port));
  }

  /** Killed outright: connections reset, later ones refused. */
  async stop() {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }

  /** Frozen: connections stay open, nothing answers. */
  pause() {
    this.child?.kill('SIGSTOP');
  }

  resume() {
    this.child?.kill('SIGCONT');
  }
}

/** A Postgres 15 cluster in a temp directory, trusting local connections. */
export class ThrowawayPostgres {
  private readonly asPostgres: string[];
  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {
    // initdb and postgres refuse to run as root.
    this.asPostgres = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
  }

  static async start(): Promise<ThrowawayPostgres> {
    const dir = mkdtempSync(path.join(tmpdir(), 'sidenote-pg-'));
    const pg = new ThrowawayPostgres(await freePort(), dir);
    if (process.getuid?.() === 0)
      chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()));
    await pg.run(`${PG_BIN}/initdb`, ['-D', pg.dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
    await pg.restart();
    execFileSync(`${PG_BIN}/psql`, ['-h', '127.0.0.1', '-p', String(pg.port), '-U', 'postgres', '-qc', 'CREATE DATABASE sidenote']);
    return pg;
  }

  get dataDir() {
    return path.join(this.dir, 'data');
  }

  /** Connection string of its `sidenote` database, through `port` (e.g. a proxy) if given. */
  url(port = this.port) {
    return `postgres://postgres@127.0.0.1:${port}/sidenote`;
  }

  async restart() {
    // fsync off: these tests stop the server, they never crash the machine.
    await this.run(`${PG_BIN}/pg_ctl`, [
      '-D',
      this.dataDir,
      '-l',
      path.join(this.dir, 'log'),
      '-w',
      '-o',
      `-p ${this.port} -k /tmp -c fsync=off -c listen_addresses=127.0.0.1`,
      'start',
    ]);
    await waitFor('postgres', () => accepts(this.port));
  }

  /** An immediate stop: like a crash, connections reset, recovery replays the WAL on start. */
  async stop() {
    await this.run(`${PG_BIN}/pg_ctl`, ['-D', this.dataDir, '-w', '-m', 'immediate', 'stop']);
  }

  async destroy() {
    try {
      await this.stop();
    } catch {
      // already stopped
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  // Asynchronous on purpose: a synchronous pg_ctl blocked the test's event loop, and the traffic
  // it drives then counted that stall as the server's latency (a 1.9 s "slowest decide" in CI).
  private async run(cmd: string, args: string[]) {
    const [bin, ...rest] = [...this.asPostgres, cmd, ...args];
    await execFileAsync(bin, rest);
  }
}
