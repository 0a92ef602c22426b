// Every resource, registered in the order each can be built: Fastify closes them in reverse, so
// at shutdown the features finish their work first, then the writers flush, the polls stop, and
// the database and the counter store close last.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config/config.js';
import type { CounterStore } from '../counters/counter-store.js';
import type { Database } from '../db/database.js';
import configResource from './config.js';
import metricsResource from './metrics.js';
import countersResource from './counters.js';
import databaseResource from './database.js';
import repositoriesResource from './repositories.js';
import historyResource from './history.js';
import linksResource from './links.js';
import authenticatorResource from './authenticator.js';
import spendResource from './spend.js';
import catalogRuntimeResource from './catalog-runtime.js';
import writersResource from './writers.js';
import reportsResource from './reports.js';
import catalogImportsResource from './catalog-imports.js';
import webhooksResource from './webhooks.js';

export interface ResourceOptions {
  config: Config;
  now?: () => number;
  /** A database and a counter store the caller owns (tests share them between two apps). */
  db?: Database;
  counters?: CounterStore & { ready?(timeoutMs?: number): Promise<boolean> };
}

async function resources(app: FastifyInstance, opts: ResourceOptions) {
  await app.register(configResource, { config: opts.config, now: opts.now });
  await app.register(metricsResource);
  await app.register(countersResource, { counters: opts.counters });
  await app.register(databaseResource, { db: opts.db });
  for (const resource of [
    repositoriesResource,
    webhooksResource,
    historyResource,
    linksResource,
    authenticatorResource,
    spendResource,
    catalogRuntimeResource,
    writersResource,
    reportsResource,
    catalogImportsResource,
  ]) {
    await app.register(resource);
  }
}

export default fp(resources, { name: 'resources', fastify: '5.x' });
