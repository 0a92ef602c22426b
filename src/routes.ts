// Every route of the service, in the order their hooks must apply: the route-method tracker and
// the not-found answer first, so they see all routes; metrics and the rate limiter before the
// routes they time and limit; the admin API only with an ADMIN_KEY; then the features, each an
// encapsulated plugin that names the resources it needs (src/http/feature.ts).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Matcher } from './native/offer-index.js';
import rateLimiting from './http/rate-limit.js';
import { methodNotAllowedHook, notFound, trackRouteMethods } from './http/method-not-allowed.js';
import { registerOpenApi } from './openapi/register-openapi.js';
import { metricsRoutes } from './observability/metrics-routes.js';
import { healthRoutes } from './health/health-routes.js';
import { adminApi } from './admin/admin-routes.js';
import { decideRoutes } from './decide/decide-routes.js';
import { eventRoutes } from './events/event-routes.js';
import { conversionRoutes } from './conversions/conversion-routes.js';
import { redirectRoutes } from './links/redirect-routes.js';
import { decisionRoutes } from './decisions/decision-routes.js';
import { hostReportRoutes } from './reporting/host-report-routes.js';
import { affiliateRoutes } from './affiliate/affiliate-routes.js';
import { referenceRoutes } from './reference/reference-routes.js';
import { dashboardRoutes } from './dashboard/dashboard-routes.js';

export interface RouteOptions {
  /** Another matcher for decide in place of the live native index (a test runs one beside it). */
  matcher?: Matcher;
}

async function routes(app: FastifyInstance, opts: RouteOptions) {
  const routeMethods = trackRouteMethods(app);
  app.setNotFoundHandler(notFound);
  // With no PUBLIC_BASE_URL the document names no host: /docs' "Try it out" then calls the
  // address the page was opened at (127.0.0.1 or localhost alike), not a cross-origin guess.
  await registerOpenApi(app, app.config.baseUrl ? app.baseUrl : '/');
  await app.register(metricsRoutes);
  await app.register(rateLimiting);
  await app.register(healthRoutes);
  // With no ADMIN_KEY the admin API does not exist: its routes are never registered.
  const adminKey = app.config.adminKey;
  if (adminKey) await app.register(adminApi, { prefix: '/admin', adminKey, routeMethods });
  // Added after the admin plugin was registered, so that context does not inherit it: there the
  // plugin's own copy runs after its key check.
  app.addHook('onRequest', methodNotAllowedHook(app, routeMethods));
  await app.register(decideRoutes, { matcher: opts.matcher });
  for (const feature of [eventRoutes, conversionRoutes, redirectRoutes, decisionRoutes, hostReportRoutes, affiliateRoutes, referenceRoutes, dashboardRoutes]) {
    await app.register(feature);
  }
}

export default fp(routes, { name: 'routes', fastify: '5.x', dependencies: ['resources'] });
