// The Prometheus registry. Its gauges read resources registered after it (the offer index, the
// click writer) when a scrape asks, not now.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Metrics } from '../observability/metrics.js';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics;
  }
}

async function metricsResource(app: FastifyInstance) {
  app.decorate(
    'metrics',
    new Metrics({
      indexOffers: () => app.catalogRuntime.index.stats().offers,
      indexReloadSeconds: () => app.catalogRuntime.lastReloadMs / 1000,
      indexReloadServingThreadSeconds: () => app.catalogRuntime.lastReloadServingThreadMs / 1000,
      indexReloadFailures: () => app.catalogRuntime.reloadFailures,
      catalogVersion: () => app.catalogRuntime.serving.version,
      clicksLost: () => app.writers.clicks.lost,
      clicksPending: () => app.writers.clicks.pending,
    }),
  );
}

export default fp(metricsResource, { name: 'metrics', fastify: '5.x' });
