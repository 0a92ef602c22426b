// `npm run cluster`: one primary forks a worker per core (or CLUSTER_WORKERS), each a full
// Sidenote instance sharing the listening port (node:cluster) and the same Postgres and Redis.
// Workers that die are replaced (with a growing wait, and at most 5 times in a row, when they die
// before listening); SIGTERM drains every worker before the primary exits.
// The embedded PGlite database belongs to one process, so cluster mode needs DATABASE_URL (and
// REDIS_URL, so rate limits, caps and budgets are shared rather than per worker).
import cluster from 'node:cluster';
import os from 'node:os';
import { AggregatorRegistry } from 'prom-client';
import { loadConfig } from './config/config.js';
import { startMetricsListener } from './observability/metrics-routes.js';
import { answerClusterScrapes } from './observability/cluster-metrics.js';

const workers = Number(process.env.CLUSTER_WORKERS ?? os.availableParallelism());

if (cluster.isPrimary) {
  if (!process.env.DATABASE_URL || !process.env.REDIS_URL) {
    console.error(
      'cluster mode needs DATABASE_URL and REDIS_URL: PGlite and the in-process counters belong to one process. Use `npm start` for the embedded defaults.',
    );
    process.exit(2);
  }
  if (!Number.isInteger(workers) || workers < 1) {
    console.error('CLUSTER_WORKERS must be a positive integer');
    process.exit(2);
  }
  let stopping = false;
  // A worker that dies after it listened is replaced at once. One that dies before it listens
  // (a bad configuration, a database it cannot reach) is replaced after a growing wait, and
  // after MAX_START_FAILURES such deaths in a row the primary stops: a start that cannot work
  // is not retried for ever (it was, 8 times in 10 s).
  const MAX_START_FAILURES = 5;
  const started = new Set<number>();
  let startFailures = 0;
  const stop = (code = 0) => {
    if (stopping) return;
    stopping = true;
    process.exitCode = code;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(code);
  };
  for (let i = 0; i < workers; i++) cluster.fork();
  cluster.on('listening', (worker) => {
    started.add(worker.id);
    startFailures = 0;
  });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(process.exitCode ?? 0);
      return;
    }
    if (started.delete(worker.id)) {
      console.error(`worker ${worker.process.pid} exited (${signal ?? code}); starting a new one`);
      cluster.fork();
      return;
    }
    startFailures++;
    if (startFailures >= MAX_START_FAILURES) {
      console.error(`worker ${worker.process.pid} exited (${signal ?? code}) before it listened, ${startFailures} times in a row; stopping`);
      stop(1);
      return;
    }
    const waitMs = Math.min(30_000, 500 * 2 ** (startFailures - 1));
    console.error(`worker ${worker.process.pid} exited (${signal ?? code}) before it listened; starting a new one in ${waitMs} ms`);
    setTimeout(() => !stopping && cluster.fork(), waitMs);
  });
  process.on('SIGTERM', () => stop());
  process.on('SIGINT', () => stop());
  // One scrape for the whole cluster: counters summed, gauges per worker (prom-client's
  // aggregator asks every worker over IPC), on the primary's metrics listener and, through the
  // primary (cluster-metrics.ts), on any worker's token-protected /metrics.
  const config = loadConfig();
  const aggregator = new AggregatorRegistry();
  answerClusterScrapes(aggregator);
  if (config.metricsPort !== 'off') {
    const listener = await startMetricsListener(async () => ({ contentType: aggregator.contentType, body: await aggregator.clusterMetrics() }), {
      host: config.metricsHost,
      port: config.metricsPort,
    });
    console.log(`sidenote cluster: metrics of all workers at ${listener.url}`);
  }
  console.log(`sidenote cluster: primary ${process.pid} running ${workers} workers`);
} else {
  await import('./server.js');
}
