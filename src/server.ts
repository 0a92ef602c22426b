// The process: read the environment, build the app, listen, and shut down gracefully.
import { loadConfig, ConfigError, type Config } from './config/config.js';
import { buildApp } from './app.js';
import { startLocalAdminChannel, type LocalAdminChannel } from './admin/local-admin-channel.js';
import { ensureDemoKeys, type DemoKeys } from './apps/demo-keys.js';
import { warmUp } from './health/warm-up.js';
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
  if (demo && !stopping) printDemoBanner(app, demo);
}

/** On the embedded default, hand the person at the terminal what a first request and a load test
 *  need: the demo app's live and test keys (the same at every start, `src/apps/demo-keys.ts`), its
 *  conversion secret and a curl. On stderr, so stdout stays pure JSON log lines. */
function printDemoBanner(app: FastifyInstance, demo: DemoKeys) {
  const { baseUrl, config } = app;
  process.stderr.write(
    [
      '',
      `Sidenote is serving on ${baseUrl} (embedded PGlite + in-process counters, demo catalog).`,
      `Demo serving key, live: ${demo.liveKey}`,
      `Demo serving key, test: ${demo.testKey}   (no budgets or caps: use it for load tests)`,
      `Demo conversion secret: ${demo.conversionSecret ?? '(none)'}`,
      config.dataDir === 'memory' ? 'These keys last as long as this process.' : `These keys stay the same at every start (${config.dataDir}/demo-keys.json).`,
      '',
      `Try: curl -s ${baseUrl}/v1/offers/decide -H "authorization: Bearer ${demo.liveKey}" -H 'content-type: application/json' \\`,
      `       -d '{"message":"제주도 호텔 최저가 추천해줘","locale":"ko-KR","country":"KR","audience":{"age_band":"18_plus","contextual_offer_consent":true},"native_surface":{"clickable":true,"disclosure_capable":true}}'`,
      `Load test: README "Load testing" (DECIDE_RATE_LIMIT_PER_MINUTE=1000000000, the test key above).`,
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  console.error(`sidenote failed to start: ${(err as Error).message}`);
  process.exit(1);
});
