// Builds the Fastify application. server.ts (the process) and the tests both call buildApp;
// nothing below reads process.env. Resources are created here unless the caller passes them
// in (tests share one database between two app instances that way), and are closed in order
// when the app closes: stop taking requests, flush pending writes, then close stores.
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { DestinationStream } from 'pino';
import { publicBaseUrl, type Config } from './config/config.js';
import { openDatabase, type Database } from './db/database.js';
import { migrate } from './db/migrate.js';
import { HistoryMaintenance } from './db/history-partitions.js';
import { holdInProcessCountersLock } from './db/sole-instance-lock.js';
import { createCounterStore } from './counters/index.js';
import type { CounterStore } from './counters/counter-store.js';
import { LiveOfferIndex } from './native/offer-index.js';
import { AppRepository } from './apps/app-repository.js';
import { CatalogRepository } from './catalog/catalog-repository.js';
import { CatalogRuntime } from './catalog/catalog-runtime.js';
import { type CatalogImportJobs, catalogImportJobs } from './catalog/catalog-import-jobs.js';
import { loadDemoCatalog } from './catalog/demo-catalog.js';
import { Authenticator } from './auth/authenticator.js';
import { clientError, frameworkError, installErrorHandler } from './http/errors.js';
import { useZodValidation } from './http/validation.js';
import { registerOpenApi } from './openapi/register-openapi.js';
import { methodNotAllowedHook, notFound, trackRouteMethods } from './http/method-not-allowed.js';
import { healthRoutes } from './health/health-routes.js';
import { adminApi } from './admin/admin-routes.js';
import { decideRoutes } from './decide/decide-routes.js';
import { DecisionRecorder } from './decide/decision-recorder.js';
import { DecideService } from './decide/decide-service.js';
import { SpendKeeper } from './spend/spend-keeper.js';
import { TrackedLinkSigner, loadLinkSigningSecret } from './links/tracked-link.js';
import { registerRateLimit } from './http/rate-limit.js';
import { SnapshotLookup } from './catalog/snapshot-lookup.js';
import { DecisionRepository } from './decisions/decision-repository.js';
import { decisionRoutes } from './decisions/decision-routes.js';
import { EventRecorder } from './events/event-recorder.js';
import { EventRepository } from './events/event-repository.js';
import { ImpressionEvents } from './events/impression-events.js';
import { eventRoutes } from './events/event-routes.js';
import { ConversionService } from './conversions/conversion-service.js';
import { ConversionRepository } from './conversions/conversion-repository.js';
import { conversionRoutes } from './conversions/conversion-routes.js';
import { ClickRecorder } from './links/click-recorder.js';
import { ClickRepository } from './links/click-repository.js';
import { redirectRoutes } from './links/redirect-routes.js';
import { AffiliateImpressions } from './affiliate/affiliate-impressions.js';
import { AffiliateImpressionRepository } from './affiliate/affiliate-impression-repository.js';
import { affiliateRoutes } from './affiliate/affiliate-routes.js';
import { referenceRoutes } from './reference/reference-routes.js';
import { Metrics, instrumentCounterStore } from './observability/metrics.js';
import { metricsRoutes } from './observability/metrics-routes.js';
import { dashboardRoutes } from './dashboard/dashboard-routes.js';
import { MINUTE_ROLLUP_RETENTION_DAYS, ReportRepository } from './reporting/report-repository.js';
import { openReportingDatabase } from './reporting/reporting-database.js';
import type { ReportSources } from './reporting/report.js';
import { SettingsRepository } from './settings/settings-repository.js';

export interface AppDeps {
  db?: Database;
  counters?: CounterStore & { ready?(timeoutMs?: number): Promise<boolean> };
  /** Where log lines go (tests capture them to prove the message never appears). */
  logStream?: DestinationStream;
  now?: () => number;
}

export interface Services {
  config: Config;
  baseUrl: string;
  db: Database;
  counters: CounterStore;
  apps: AppRepository;
  settings: SettingsRepository;
  catalog: CatalogRepository;
  catalogRuntime: CatalogRuntime;
  catalogImports: CatalogImportJobs;
  authenticator: Authenticator;
  decisions: DecisionRecorder;
  spend: SpendKeeper;
  links: TrackedLinkSigner;
  decide: DecideService;
  history: HistoryMaintenance;
  decisionRepo: DecisionRepository;
  affiliateImpressions: AffiliateImpressions;
  events: EventRecorder;
  impressions: ImpressionEvents;
  conversions: ConversionService;
  clicks: ClickRecorder;
  reports: ReportSources;
  metrics: Metrics;
  now: () => number;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

/** The request's one log line: what was asked (method and route pattern), the answer and how
 *  long it took. No address, no URL, no body. */
async function logRequestCompleted(request: FastifyRequest, reply: FastifyReply) {
  request.log.info({ method: request.method, route: request.routeOptions.url ?? null, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request completed');
}

export async function buildApp(config: Config, deps: AppDeps = {}): Promise<FastifyInstance> {
  const baseUrl = publicBaseUrl(config);
  const app = Fastify({
    logger: {
      level: config.logLevel,
      // Bodies are never logged; these paths are redacted as a second line of defence.
      redact: { paths: ['req.headers.authorization', 'req.body', 'body', 'message', 'req.headers.cookie'], censor: '[redacted]' },
      // A request is logged by its route pattern, never its raw URL (tokens, query strings) nor
      // the client's address: addresses are kept only as keyed hashes (docs/privacy.md).
      serializers: { req: (req: { method?: string; routeOptions?: { url?: string } }) => ({ method: req.method, route: req.routeOptions?.url }) },
      ...(deps.logStream ? { stream: deps.logStream } : {}),
    },
    // One line per request, written when it completes (logRequestCompleted), not two.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    bodyLimit: config.bodyLimitBytes,
    // Requests end with their handler's budget; the socket-level guard is for slow clients.
    requestTimeout: 30_000,
    genReqId: () => crypto.randomUUID(),
    forceCloseConnections: 'idle',
    // On shutdown, requests already on open connections are served to the end rather than
    // answered 503; new connections are refused by the closed listener.
    return503OnClosing: false,
    // Tracked-link tokens are a few hundred characters; the default cap of 100 would refuse them.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 8192 },
    // What the router and Node's parser refuse, answered in the API's own error format.
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
  });
  installErrorHandler(app);
  useZodValidation(app);
  app.addHook('onResponse', logRequestCompleted);
  // Every body is JSON; anything else is 415, not a string for the handlers to puzzle over.
  app.removeContentTypeParser('text/plain');

  const ownDb = !deps.db;
  const db = deps.db ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
  const ownCounters = !deps.counters;
  const rawCounters =
    deps.counters ??
    createCounterStore({ redisUrl: config.redisUrl, keyPrefix: config.redisKeyPrefix, commandTimeoutMs: config.redisCommandTimeoutMs, logger: app.log });
  const now = deps.now ?? Date.now;
  // The gauges read services that exist only once the app is built.
  const metrics = new Metrics({
    indexOffers: () => app.services.catalogRuntime.index.stats().offers,
    indexReloadSeconds: () => app.services.catalogRuntime.lastReloadMs / 1000,
    catalogVersion: () => app.services.catalogRuntime.serving.version,
    clicksLost: () => app.services.clicks.lost,
    clicksPending: () => app.services.clicks.pending,
  });
  const counters = instrumentCounterStore(rawCounters, metrics);

  let soleInstance: { release(): Promise<void> } | null = null;
  let history: HistoryMaintenance | undefined;
  // Reports may read a replica (REPORTING_DATABASE_URL): never migrated, never written.
  let reportingDb: Database | undefined;
  try {
    await rawCounters.ready?.(2000);
    await migrate(db);
    // In-process counters are this process' alone: no second such instance on this Postgres.
    if (rawCounters.kind === 'memory' && db.engine === 'postgres') soleInstance = await holdInProcessCountersLock(db);
    const apps = new AppRepository(db);
    const settings = new SettingsRepository(db);
    const catalog = new CatalogRepository(db);
    const eventRepo = new EventRepository(db);
    const clickRepo = new ClickRepository(db);
    const conversionRepo = new ConversionRepository(db);
    const affiliateImpressionRepo = new AffiliateImpressionRepository(db);
    // A decision's lookup counts what followed it through the repositories of those tables.
    const decisionActivity = { events: eventRepo, clicks: clickRepo, conversions: conversionRepo, clickIntents: affiliateImpressionRepo };
    const decisionRepo = new DecisionRepository(db, decisionActivity);
    const reportFigures = new ReportRepository(db);
    if (config.reportingDatabaseUrl) reportingDb = await openReportingDatabase(config.reportingDatabaseUrl);
    history = new HistoryMaintenance(
      db,
      {
        retentionDays: {
          decisions: config.decisionsRetentionDays,
          events: config.eventsRetentionDays,
          clicks: config.clicksRetentionDays,
          conversions: config.conversionsRetentionDays,
          affiliate_impressions: config.affiliateImpressionsRetentionDays,
          click_intents: config.clickIntentsRetentionDays,
        },
        daysAhead: config.historyDaysAhead,
        keyExpiry: [
          { name: 'event_idempotency_keys', days: config.idempotencyKeyRetentionDays, forgetBefore: (t) => eventRepo.forgetIdempotencyKeysBefore(t) },
          { name: 'conversion_nonces', days: config.conversionNonceRetentionDays, forgetBefore: (t) => conversionRepo.forgetNoncesBefore(t) },
          // Report rollups: minute rows once no range reads them, the rest with the decisions.
          { name: 'report minute rollups', days: MINUTE_ROLLUP_RETENTION_DAYS, forgetBefore: (t) => reportFigures.forgetRollupsBefore(60, t) },
          { name: 'report half-hour rollups', days: config.decisionsRetentionDays, forgetBefore: (t) => reportFigures.forgetRollupsBefore(1800, t) },
          { name: 'report funnel marks', days: config.decisionsRetentionDays, forgetBefore: (t) => reportFigures.forgetFunnelMarksBefore(t) },
        ],
      },
      { now, log: app.log, intervalMs: config.historyMaintenanceMs },
    );
    // Today's partitions must exist before the first write: wait for another instance's run.
    await history.run({ wait: true });
    history.start();
    const loadDemo = config.loadDemoCatalog ?? !config.databaseUrl;
    if (loadDemo && (await catalog.isEmpty())) await loadDemoCatalog(catalog, app.log);
    const catalogRuntime = new CatalogRuntime(catalog, new LiveOfferIndex(), app.log, config.catalogPollMs);
    const spend = new SpendKeeper(decisionRepo, counters, () => [...catalogRuntime.serving.campaigns.keys()], {
      settleMs: config.spendSettleMs ?? config.decideTimeBudgetMs + 250,
      reconcileMs: config.spendReconcileMs,
      now,
      log: app.log,
    });
    // No campaign is served before its spend is known: the keeper loads it from the ledger
    // before a catalog that has it goes live.
    catalogRuntime.beforeNewCampaigns = (ids) => spend.prepare(ids);
    await catalogRuntime.start();
    spend.start();
    const decisions = new DecisionRecorder(decisionRepo, metrics.flushObserver('decisions'));
    const links = new TrackedLinkSigner(await loadLinkSigningSecret(settings, config.linkSigningSecret));
    const affiliateImpressions = new AffiliateImpressions(affiliateImpressionRepo, now);
    const decide = new DecideService(
      catalogRuntime,
      counters,
      spend,
      decisions,
      affiliateImpressions,
      links,
      {
        baseUrl,
        topK: 8,
        sessionCap: { count: config.sessionCapCount, windowMs: config.sessionCapWindowSeconds * 1000 },
        linkTtlSeconds: config.linkTtlSeconds,
      },
      now,
    );
    const snapshots = new SnapshotLookup(catalog);
    const events = new EventRecorder(eventRepo, metrics.flushObserver('events'));
    const services: Services = {
      decisionRepo,
      events,
      affiliateImpressions,
      impressions: new ImpressionEvents(snapshots, decisionRepo, eventRepo, events, now),
      conversions: new ConversionService(conversionRepo, apps, snapshots, decisionRepo, config.attributionWindowDays * 86_400_000, now),
      clicks: new ClickRecorder(clickRepo, metrics.flushObserver('clicks')),
      reports: reportingDb
        ? { figures: new ReportRepository(reportingDb), campaigns: new CatalogRepository(reportingDb), ledger: new DecisionRepository(reportingDb, decisionActivity) }
        : { figures: reportFigures, campaigns: catalog, ledger: decisionRepo },
      metrics,
      config,
      baseUrl,
      db,
      counters,
      apps,
      settings,
      catalog,
      catalogRuntime,
      catalogImports: catalogImportJobs(db, catalog, { maxBytes: config.catalogImportMaxBytes, onImported: () => catalogRuntime.reload(), log: app.log }),
      authenticator: new Authenticator((h) => apps.findKeyByHash(h), config.apiKeyCacheMs),
      decisions,
      spend,
      links,
      decide,
      history,
      now,
    };
    app.decorate('services', services);
  } catch (err) {
    await history?.stop();
    await soleInstance?.release();
    await reportingDb?.close().catch(() => {});
    if (ownDb) await db.close().catch(() => {});
    if (ownCounters) await rawCounters.close().catch(() => {});
    throw err;
  }

  // While draining, every response asks its client to close the connection, so keep-alive
  // sockets end as soon as their last request is answered and shutdown is not held open.
  let draining = false;
  app.addHook('preClose', async () => {
    draining = true;
    // A running import would hold the drain for minutes: it rolls back and reads as interrupted.
    await app.services.catalogImports.close();
  });
  app.addHook('onSend', async (_request, reply) => {
    if (draining) reply.header('connection', 'close');
  });

  app.addHook('onClose', async () => {
    app.services.catalogRuntime.stop();
    app.services.spend.stop();
    await app.services.history.stop();
    // Requests have drained (Fastify closes the server first); timed-out decides finish
    // correcting their records, then the writers flush what was queued.
    await app.services.decide.drain();
    await Promise.all([app.services.decisions.close(), app.services.events.close(), app.services.clicks.close()]);
    if (ownCounters) await rawCounters.close();
    await soleInstance?.release();
    await reportingDb?.close();
    if (ownDb) await db.close();
  });

  // Before any route, so it sees them all.
  const routeMethods = trackRouteMethods(app);
  app.setNotFoundHandler(notFound);
  await registerOpenApi(app, baseUrl);
  // Before the routes, so its timing hook applies to every one of them.
  await app.register(metricsRoutes);
  await registerRateLimit(app, counters, config.decideTimeBudgetMs, app.services.links.deriveKey('rate-limit-address'));
  await app.register(healthRoutes);
  // With no ADMIN_KEY the admin API does not exist: its routes are never registered.
  if (config.adminKey) await app.register(adminApi, { prefix: '/admin', adminKey: config.adminKey, routeMethods });
  // Added after the admin plugin was registered, so that context does not inherit it: there the
  // plugin's own copy runs after its key check.
  app.addHook('onRequest', methodNotAllowedHook(app, routeMethods));
  await app.register(decideRoutes);
  await app.register(eventRoutes);
  await app.register(conversionRoutes);
  await app.register(redirectRoutes);
  await app.register(decisionRoutes);
  await app.register(affiliateRoutes);
  await app.register(referenceRoutes);
  await app.register(dashboardRoutes);
  return app;
}
