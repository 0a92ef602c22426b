// Where reports read: the primary's repositories, or a read replica's when
// REPORTING_DATABASE_URL names one (never migrated, never written: src/reporting/reporting-database.ts).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { CatalogRepository } from '../catalog/catalog-repository.js';
import { DecisionRepository } from '../decisions/decision-repository.js';
import { EventRepository } from '../events/event-repository.js';
import { ClickRepository } from '../links/click-repository.js';
import { ConversionRepository } from '../conversions/conversion-repository.js';
import { AffiliateImpressionRepository } from '../affiliate/affiliate-impression-repository.js';
import { ReportRepository } from '../reporting/report-repository.js';
import { openReportingDatabase } from '../reporting/reporting-database.js';
import type { ReportSources } from '../reporting/report.js';

declare module 'fastify' {
  interface FastifyInstance {
    reports: ReportSources;
  }
}

async function reportsResource(app: FastifyInstance) {
  const url = app.config.reportingDatabaseUrl;
  if (!url) {
    const { reports, catalog, decisions } = app.repositories;
    app.decorate('reports', { figures: reports, campaigns: catalog, ledger: decisions });
    return;
  }
  const replica = await openReportingDatabase(url);
  app.addHook('onClose', () => replica.close());
  const activity = {
    events: new EventRepository(replica),
    clicks: new ClickRepository(replica),
    conversions: new ConversionRepository(replica),
    clickIntents: new AffiliateImpressionRepository(replica),
  };
  app.decorate('reports', {
    figures: new ReportRepository(replica),
    campaigns: new CatalogRepository(replica),
    ledger: new DecisionRepository(replica, activity),
  });
}

export default fp(reportsResource, { name: 'reports', dependencies: ['config', 'repositories'], fastify: '5.x' });
