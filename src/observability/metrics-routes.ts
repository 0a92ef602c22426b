// GET /metrics for Prometheus, and the hook that times every request. Keep /metrics on the
// internal network (it needs no key); it never carries user-controlled strings.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

async function metricsPlugin(app: FastifyInstance) {
  const { metrics } = app.services;
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern (`/r/:token`), never the URL: tokens and ids stay out of labels.
    const route = request.routeOptions.url ?? 'unmatched';
    if (route === '/metrics') return;
    metrics.httpRequests.inc({ route, method: request.method, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ route, method: request.method }, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}

// Not encapsulated: the timing hook must see every route.
export const metricsRoutes = fp(metricsPlugin, { name: 'sidenote-metrics' });
