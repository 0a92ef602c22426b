// `npm run cluster`: one primary forks a worker per core (or CLUSTER_WORKERS), each a full
// Sidenote instance sharing the listening port (node:cluster) and the same Postgres and Redis.
// Workers that die are replaced; SIGTERM drains every worker before the primary exits.
// The embedded PGlite database belongs to one process, so cluster mode needs DATABASE_URL (and
// REDIS_URL, so rate limits, caps and budgets are shared rather than per worker).
import cluster from 'node:cluster';
import os from 'node:os';
import { AggregatorRegistry } from 'prom-client';
import { loadConfig } from './config/config.js';
import { startMetricsListener } from './observability/metrics-routes.js';

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
  for (let i = 0; i < workers; i++) cluster.fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    console.error(`worker ${worker.process.pid} exited (${signal ?? code}); starting a new one`);
    cluster.fork();
  });
  const stop = () => {
    if (stopping) return;
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // One scrape for the whole cluster: counters summed, gauges per worker (prom-client's
  // aggregator asks every worker over IPC). Workers open no metrics listener of their own.
  const config = loadConfig();
  if (config.metricsPort !== 'off') {
    const aggregator = new AggregatorRegistry();
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
