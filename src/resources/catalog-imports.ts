// Catalog imports as jobs: checked off the serving thread, written in batches, one at a time
// across instances. A successful import reloads this instance's offer index at once.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { catalogImportJobs, type CatalogImportJobs } from '../catalog/catalog-import-jobs.js';
import { sweepAbandonedScratch } from '../catalog/import-scratch.js';
import { newId } from '../util/ids.js';

declare module 'fastify' {
  interface FastifyInstance {
    catalogImports: CatalogImportJobs;
  }
}

async function catalogImportsResource(app: FastifyInstance) {
  const jobs = catalogImportJobs(app.db, app.repositories.catalog, {
    maxBytes: app.config.catalogImportMaxBytes,
    onImported: () => app.catalogRuntime.reload(),
    // Success is announced in the catalog's own transaction (the outbox); a failure wrote
    // nothing to announce it with, so it is enqueued once the job has recorded it.
    onCommitted: (tx, jobId, report) =>
      app.notifications.publish(
        'catalog.import.succeeded',
        jobId,
        { job_id: jobId, version: report.version, offers: report.offers, changed: report.changed },
        tx,
      ),
    onFinished: async (job) => {
      if (job.state === 'failed')
        await app.notifications.publish('catalog.import.failed', job.id, { job_id: job.id, error: job.failure?.error ?? 'import_failed' });
    },
    // A synchronous import refused before it became a job: no job to name.
    onRefused: (failure) => app.notifications.publish('catalog.import.failed', newId('imp'), { job_id: null, error: failure.error }),
    log: app.log,
  });
  // What imports of a process that died left in the temporary directory (import-scratch.ts).
  const swept = await sweepAbandonedScratch();
  if (swept.length > 0) app.log.info({ directories: swept.length }, 'removed the scratch directories of imports whose process is gone');
  // A running import would hold the drain for minutes: it rolls back and reads as interrupted.
  app.addHook('preClose', () => jobs.close());
  app.decorate('catalogImports', jobs);
}

export default fp(catalogImportsResource, {
  name: 'catalog-imports',
  dependencies: ['config', 'database', 'repositories', 'catalog-runtime', 'webhooks'],
  fastify: '5.x',
});
