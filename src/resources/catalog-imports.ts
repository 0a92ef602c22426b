// Catalog imports as jobs: checked off the serving thread, written in batches, one at a time
// across instances. A successful import reloads this instance's offer index at once.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { catalogImportJobs, type CatalogImportJobs } from '../catalog/catalog-import-jobs.js';

declare module 'fastify' {
  interface FastifyInstance {
    catalogImports: CatalogImportJobs;
  }
}

async function catalogImportsResource(app: FastifyInstance) {
  const jobs = catalogImportJobs(app.db, app.repositories.catalog, {
    maxBytes: app.config.catalogImportMaxBytes,
    onImported: () => app.catalogRuntime.reload(),
    log: app.log,
  });
  // A running import would hold the drain for minutes: it rolls back and reads as interrupted.
  app.addHook('preClose', () => jobs.close());
  app.decorate('catalogImports', jobs);
}

export default fp(catalogImportsResource, { name: 'catalog-imports', dependencies: ['config', 'database', 'repositories', 'offer-index'], fastify: '5.x' });
