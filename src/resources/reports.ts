// Where reports read: the primary's repositories, or a read replica's when
// REPORTING_DATABASE_URL names one (never migrated, never written: src/reporting/reporting-database.ts).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { repositoriesOf } from './repositories.js';
import { openReportingDatabase } from '../reporting/reporting-database.js';
import type { ReportSources } from '../reporting/report.js';

declare module 'fastify' {
  interface FastifyInstance {
    reports: ReportSources;
  }
}

async function reportsResource(app: FastifyInstance) {
  let repos = app.repositories;
  if (app.config.reportingDatabaseUrl) {
    const replica = await openReportingDatabase(app.config.reportingDatabaseUrl);
    app.addHook('onClose', () => replica.close());
    repos = repositoriesOf(replica);
  }
  app.decorate('reports', { figures: repos.reports, campaigns: repos.catalog, ledger: repos.decisions });
}

export default fp(reportsResource, { name: 'reports', dependencies: ['config', 'repositories'], fastify: '5.x' });
