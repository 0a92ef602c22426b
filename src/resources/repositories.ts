// One repository per table family, over the one database. Stateless, so features share them.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Database } from '../db/database.js';
import { AppRepository } from '../apps/app-repository.js';
import { SettingsRepository } from '../settings/settings-repository.js';
import { CatalogRepository } from '../catalog/catalog-repository.js';
import { EventRepository } from '../events/event-repository.js';
import { ClickRepository } from '../links/click-repository.js';
import { ConversionRepository } from '../conversions/conversion-repository.js';
import { AffiliateImpressionRepository } from '../affiliate/affiliate-impression-repository.js';
import { DecisionRepository } from '../decisions/decision-repository.js';
import { ReportRepository } from '../reporting/report-repository.js';
import { WebhookRepository } from '../webhooks/webhook-repository.js';

export interface Repositories {
  apps: AppRepository;
  settings: SettingsRepository;
  catalog: CatalogRepository;
  decisions: DecisionRepository;
  events: EventRepository;
  clicks: ClickRepository;
  conversions: ConversionRepository;
  affiliateImpressions: AffiliateImpressionRepository;
  reports: ReportRepository;
  webhooks: WebhookRepository;
}

declare module 'fastify' {
  interface FastifyInstance {
    repositories: Repositories;
  }
}

/** Every repository over one database (the primary, or the reports' replica). */
export function repositoriesOf(db: Database): Repositories {
  const events = new EventRepository(db);
  const clicks = new ClickRepository(db);
  const conversions = new ConversionRepository(db);
  const affiliateImpressions = new AffiliateImpressionRepository(db);
  return {
    apps: new AppRepository(db),
    settings: new SettingsRepository(db),
    catalog: new CatalogRepository(db),
    // A decision's lookup counts what followed it through the repositories of those tables.
    decisions: new DecisionRepository(db, { events, clicks, conversions, clickIntents: affiliateImpressions }),
    events,
    clicks,
    conversions,
    affiliateImpressions,
    reports: new ReportRepository(db),
    webhooks: new WebhookRepository(db),
  };
}

async function repositoriesResource(app: FastifyInstance) {
  app.decorate('repositories', repositoriesOf(app.db));
}

export default fp(repositoriesResource, { name: 'repositories', dependencies: ['database'], fastify: '5.x' });
