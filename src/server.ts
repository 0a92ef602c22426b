// The process: read the environment, build the app, listen, and shut down gracefully.
import { loadConfig, ConfigError, type Config } from './config/config.js';
import { buildApp } from './app.js';
import { startLocalAdminChannel, type LocalAdminChannel } from './admin/local-admin-channel.js';
import type { FastifyInstance } from 'fastify';

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
  await app.listen({ port: config.port, host: config.host });
  // The embedded database belongs to this process: the CLI's commands come through here.
  let channel: LocalAdminChannel | undefined;
  if (!config.databaseUrl && config.dataDir !== 'memory') channel = await startLocalAdminChannel(app, config.dataDir);
  if (!config.databaseUrl) await printDemoKey(app);

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
      await app.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** On the embedded default, hand the person at the terminal a working key for the demo app.
 *  A new key each start (keys are stored hashed, so the old one cannot be shown again); the
 *  previous start's key is revoked. */
async function printDemoKey(app: FastifyInstance) {
  const { apps, settings, baseUrl } = app.services;
  const demo = (await apps.listApps()).find((a) => a.name === 'Demo host');
  const appId = demo?.id ?? (await apps.createApp('Demo host')).app_id;
  const previous = await settings.demoKeyId();
  if (previous !== null) await apps.revokeKey(previous).catch(() => {});
  const key = await apps.createKey(appId, 'serving', 'live');
  await settings.setDemoKeyId(key.id);
  const secrets = await apps.activeConversionSecrets(appId);
  process.stdout.write(
    [
      '',
      `Sidenote is serving on ${baseUrl} (embedded PGlite + in-process counters, demo catalog).`,
      `Demo serving key (shown once): ${key.key}`,
      `Demo app conversion secret:    ${secrets[0] ?? '(none)'}`,
      '',
      `Try: curl -s ${baseUrl}/v1/offers/decide -H "authorization: Bearer ${key.key}" -H 'content-type: application/json' \\`,
      `       -d '{"message":"제주도 호텔 최저가 추천해줘","locale":"ko-KR","country":"KR","audience":{"age_band":"18_plus","contextual_offer_consent":true},"native_surface":{"clickable":true,"disclosure_capable":true}}'`,
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  console.error(`sidenote failed to start: ${(err as Error).message}`);
  process.exit(1);
});
