// Builds the Fastify application: server.ts (the process) and the tests both call buildApp, and
// nothing below reads process.env. Resources are plugins registered in the order they are
// built; Fastify closes them in reverse, so requests drain first, then the features finish their
// work, the writers flush, and the stores close last. Features are encapsulated plugins that
// name the resources they need (src/http/feature.ts).
import Fastify, { type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config } from './config/config.js';
import type { Database } from './db/database.js';
import type { CounterStore } from './counters/counter-store.js';
import type { Matcher } from './native/offer-index.js';
import { serverOptions } from './http/server-options.js';
import httpConventions from './http/conventions.js';
import rateLimiting from './http/rate-limit.js';
import { methodNotAllowedHook, notFound, trackRouteMethods } from './http/method-not-allowed.js';
import configResource from './resources/config.js';
import metricsResource from './resources/metrics.js';
import countersResource from './resources/counters.js';
import databaseResource from './resources/database.js';
import repositoriesResource from './resources/repositories.js';
import historyResource from './resources/history.js';
import linksResource from './resources/links.js';
import authenticatorResource from './resources/authenticator.js';
import spendResource from './resources/spend.js';
import offerIndexResource from './resources/offer-index.js';
import writersResource from './resources/writers.js';
import reportsResource from './resources/reports.js';
import catalogImportsResource from './resources/catalog-imports.js';
import { registerOpenApi } from './openapi/register-openapi.js';
import { metricsRoutes } from './observability/metrics-routes.js';
import { healthRoutes } from './health/health-routes.js';
import { adminApi } from './admin/admin-routes.js';
import { decideRoutes } from './decide/decide-routes.js';
import { eventRoutes } from './events/event-routes.js';
import { conversionRoutes } from './conversions/conversion-routes.js';
import { redirectRoutes } from './links/redirect-routes.js';
import { decisionRoutes } from './decisions/decision-routes.js';
import { affiliateRoutes } from './affiliate/affiliate-routes.js';
import { referenceRoutes } from './reference/reference-routes.js';
import { dashboardRoutes } from './dashboard/dashboard-routes.js';

export interface AppDeps {
  /** A database and a counter store the caller owns (tests share them between two apps). */
  db?: Database;
  counters?: CounterStore & { ready?(timeoutMs?: number): Promise<boolean> };
  /** Where log lines go (tests capture them to prove the message never appears). */
  logStream?: DestinationStream;
  now?: () => number;
  /** Another matcher for decide in place of the live native index (a test runs one beside it). */
  matcher?: Matcher;
}

export async function buildApp(config: Config, deps: AppDeps = {}): Promise<FastifyInstance> {
  const app = Fastify(serverOptions(config, deps.logStream));
  try {
    await app.register(httpConventions, { logRequests: config.logRequests, checkResponses: config.checkResponses });
    await app.register(configResource, { config, now: deps.now });
    await app.register(metricsResource);
    await app.register(countersResource, { counters: deps.counters });
    await app.register(databaseResource, { db: deps.db });
    await app.register(repositoriesResource);
    await app.register(historyResource);
    await app.register(linksResource);
    await app.register(authenticatorResource);
    await app.register(spendResource);
    await app.register(offerIndexResource);
    await app.register(writersResource);
    await app.register(reportsResource);
    await app.register(catalogImportsResource);

    // Before any route, so it sees them all.
    const routeMethods = trackRouteMethods(app);
    app.setNotFoundHandler(notFound);
    await registerOpenApi(app, app.baseUrl);
    // Before the routes: its timing hook and the rate limiter apply to each of them.
    await app.register(metricsRoutes);
    await app.register(rateLimiting);
    await app.register(healthRoutes);
    // With no ADMIN_KEY the admin API does not exist: its routes are never registered.
    if (config.adminKey) await app.register(adminApi, { prefix: '/admin', adminKey: config.adminKey, routeMethods });
    // Added after the admin plugin was registered, so that context does not inherit it: there the
    // plugin's own copy runs after its key check.
    app.addHook('onRequest', methodNotAllowedHook(app, routeMethods));
    await app.register(decideRoutes, { matcher: deps.matcher });
    for (const routes of [eventRoutes, conversionRoutes, redirectRoutes, decisionRoutes, affiliateRoutes, referenceRoutes, dashboardRoutes]) {
      await app.register(routes);
    }
  } catch (err) {
    // What was opened before the failure is closed again (each resource's onClose).
    await app.close().catch(() => {});
    throw err;
  }
  return app;
}
