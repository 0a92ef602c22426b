// The live catalog and its native offer index, reloaded when the catalog version changes. On
// the embedded default an empty database gets the demo catalog first.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { CatalogRuntime } from '../catalog/catalog-runtime.js';
import { CatalogLoader } from '../catalog/catalog-loader.js';
import { loadDemoCatalog } from '../catalog/demo-catalog.js';
import { LiveOfferIndex } from '../native/offer-index.js';

declare module 'fastify' {
  interface FastifyInstance {
    catalogRuntime: CatalogRuntime;
  }
}

async function catalogRuntimeResource(app: FastifyInstance) {
  const { config, repositories } = app;
  const loadDemo = config.loadDemoCatalog ?? !config.databaseUrl;
  if (loadDemo && (await repositories.catalog.isEmpty())) await loadDemoCatalog(repositories.catalog, app.log);
  // With Postgres the loader's worker reads the catalog on a connection of its own.
  const loader = new CatalogLoader(repositories.catalog, app.db.connectionString ?? null);
  const runtime = new CatalogRuntime(repositories.catalog, loader, new LiveOfferIndex(), app.log, config.catalogPollMs);
  // No campaign is served before its spend is known: the keeper loads it from the ledger
  // before a catalog that has it goes live.
  runtime.beforeNewCampaigns = (ids) => app.spend.prepare(ids);
  app.addHook('onClose', async () => runtime.stop());
  app.decorate('catalogRuntime', runtime);
  await runtime.start();
}

export default fp(catalogRuntimeResource, { name: 'catalog-runtime', dependencies: ['config', 'database', 'repositories', 'spend'], fastify: '5.x' });
