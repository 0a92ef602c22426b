// Plumbing the benchmark scripts share: a free port, a process' RSS and CPU time, and a scratch
// database of their own on the benchmark's Postgres server.
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import pg from 'pg';

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resident set size of a process in bytes, from /proc (Linux); 0 once it has exited. */
export function rssBytes(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

/** A fresh database named `<prefix>_<pid>_<time>` on the server of `adminUrl`, so one run's rows
 *  and spend never leak into the next; `drop` removes it. */
export async function createScratchDatabase(adminUrl: string, prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** CPU time (user + system) a process has used, in microseconds, from /proc (Linux). */
export function cpuUsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command name.
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}
const CLOCK_TICKS = 100;

/** CPU time of all processes whose command name starts with `prefix` (postgres, redis-server),
 *  leaving out Postgres backends serving another database than `database` (other work sharing
 *  the server); the server's own background processes count. */
export function cpuUsOfAll(prefix: string, database?: string): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (!name.startsWith(prefix)) continue;
      // A backend's title: "postgres: <user> <database> <host>(<port>) <state>".
      const backend = /^postgres: \S+ (\S+) [\w.:[\]-]+\(\d+\)/.exec(readFileSync(`/proc/${entry}/cmdline`, 'utf8'));
      if (database && backend && backend[1] !== database) continue;
      total += cpuUsOf(Number(entry));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return total;
}
