// The process: read the environment, build the app, listen, and shut down gracefully.
import { loadConfig, ConfigError, type Config } from './config/config.js';
import { buildApp } from './app.js';
import { startLocalAdminChannel, type LocalAdminChannel } from './admin/local-admin-channel.js';
import { ensureDemoKeys, type DemoKeys } from './apps/demo-keys.js';
import { DEMO_ENVELOPE, warmUp } from './health/warm-up.js';
import { embeddedAdminKey, type EmbeddedAdminKey } from './admin/embedded-admin-key.js';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import cluster from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { startMetricsListener, type MetricsListener } from './observability/metrics-routes.js';

async function main() {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  // The embedded default opens its admin API (the dashboard, the catalog) with a key of its own,
  // made at the first start, unless ADMIN_KEY is set (embedded-admin-key.ts).
  const embedded = !config.databaseUrl && config.dataDir !== 'memory';
  const adminKey = embedded && !config.adminKey ? await embeddedAdminKey(config.dataDir) : null;
  if (adminKey) config = { ...config, adminKey: adminKey.key };
  const app = await buildApp(config);
  // The embedded default's demo app exists before the warm-up, which rehearses its first decide.
  const demo = config.databaseUrl ? null : await ensureDemoKeys(app.repositories.apps, config.dataDir);
  // Whatever the first decide would pay once is paid before the port opens (warm-up.ts).
  const warm = await warmUp(app);
  app.log.info({ ms: Math.round(warm.ms) }, 'warmed up');
  await app.listen({ port: config.port, host: config.host });
  let channel: LocalAdminChannel | undefined;
  let metricsListener: MetricsListener | undefined;
  // Handled from the moment the port is open: a SIGTERM during the rest of the start drains too.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: draining requests and flushing writes');
    // If draining takes longer than the grace period, leave anyway; what was acknowledged is committed.
    const force = setTimeout(() => {
      app.log.error('shutdown grace period over, exiting');
      process.exit(1);
    }, config.shutdownGraceMs);
    force.unref();
    try {
      // First, so no admin command starts once the database is being closed.
      await channel?.close();
      await metricsListener?.close();
      await app.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // The embedded database belongs to this process: the CLI's commands come through here.
  if (!config.databaseUrl && config.dataDir !== 'memory') channel = await startLocalAdminChannel(app, config.dataDir);
  // Prometheus scrapes its own listener; in a cluster the primary's serves every worker's series.
  const { registry } = app.metrics;
  if (cluster.isWorker) {
    // Answer the primary's scrape over IPC with this worker's registry. prom-client installs
    // that answer when an AggregatorRegistry is constructed, in a worker too.
    AggregatorRegistry.setRegistries([registry]);
    new AggregatorRegistry();
  } else if (config.metricsPort !== 'off') {
    metricsListener = await startMetricsListener(async () => ({ contentType: registry.contentType, body: await registry.metrics() }), {
      host: config.metricsHost,
      port: config.metricsPort,
    });
    app.log.info({ url: metricsListener.url }, 'metrics listening');
  }
  // A stop that began meanwhile makes the banner moot.
  if (demo && !stopping) printDemoBanner(app, demo, adminKey);
}

/** On the embedded default, hand the person at the terminal what a first request needs: the demo
 *  app's live and test keys (the same at every start, `src/apps/demo-keys.ts`), its conversion
 *  secret, the admin key, a curl, and where the API reference and the dashboard are. The secrets
 *  are shown at the start that made them; later starts say where they are kept rather than
 *  repeat them into logs a process manager keeps. On stderr, so stdout stays JSON log lines. */
function printDemoBanner(app: FastifyInstance, demo: DemoKeys, admin: EmbeddedAdminKey | null) {
  const { config } = app;
  // PORT=0 listens on a port the system picks: the banner names the one it picked.
  const port = (app.server.address() as AddressInfo | null)?.port;
  const baseUrl = config.port === 0 && port ? app.baseUrl.replace(/:0(?=\/|$)/, `:${port}`) : app.baseUrl;
  const showSecrets = demo.created || demo.file === null;
  const keyFile = demo.file ? path.resolve(demo.file) : null;
  const liveKey = showSecrets || !keyFile ? demo.liveKey : `$(node -p "require('${keyFile}').live_key")`;
  const lines = [
    '',
    `Sidenote is serving on ${baseUrl} (embedded PGlite + in-process counters, demo catalog).`,
    ...(showSecrets
      ? [
          `Demo serving key, live: ${demo.liveKey}`,
          `Demo serving key, test: ${demo.testKey}   (no budgets or caps: use it for load tests)`,
          `Demo conversion secret: ${demo.conversionSecret ?? '(none)'}`,
          config.dataDir === 'memory' ? 'These keys last as long as this process.' : `These keys stay the same at every start (${keyFile}).`,
        ]
      : [`Demo serving keys (live, test): ${keyFile}   (shown at the first start only)`]),
    ...(admin
      ? admin.created
        ? [`Admin key: ${admin.key}   (kept in ${path.resolve(admin.file)}; the dashboard and /admin take it)`]
        : [`Admin key: ${path.resolve(admin.file)}`]
      : config.adminKey
        ? ['Admin key: ADMIN_KEY']
        : []),
    `API reference: ${baseUrl}/docs    Dashboard: ${baseUrl}/dashboard`,
    '',
    `Try: curl -s ${baseUrl}/v1/offers/decide -H "authorization: Bearer ${liveKey}" -H 'content-type: application/json' \\`,
    `       -d '${JSON.stringify(DEMO_ENVELOPE)}'`,
    `Load test: README "Load testing" (DECIDE_RATE_LIMIT_PER_MINUTE=1000000000, the demo test key).`,
    '',
  ];
  process.stderr.write(lines.join('\n'));
}

main().catch((err) => {
  console.error(`sidenote failed to start: ${(err as Error).message}`);
  process.exit(1);
});
