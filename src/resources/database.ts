// The database: opened (Postgres, or embedded PGlite), migrated, and closed last of all.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { openDatabase, type Database } from '../db/database.js';
import { migrate } from '../db/migrate.js';
import { holdInProcessCountersLock } from '../db/sole-instance-lock.js';

declare module 'fastify' {
  interface FastifyInstance {
    db: Database;
  }
}

export interface DatabaseOptions {
  /** A database the caller owns (tests share one between two apps); otherwise one is opened from config. */
  db?: Database;
}

async function databaseResource(app: FastifyInstance, opts: DatabaseOptions) {
  const db = opts.db ?? (await openDatabase({ databaseUrl: app.config.databaseUrl, dataDir: app.config.dataDir, cacheDir: app.config.cacheDir }));
  if (!opts.db) app.addHook('onClose', () => db.close());
  await migrate(db);
  // In-process counters are this process' alone: no second such instance on this Postgres.
  if (app.counters.kind === 'memory' && db.engine === 'postgres') {
    const soleInstance = await holdInProcessCountersLock(db);
    app.addHook('onClose', () => soleInstance.release());
  }
  app.decorate('db', db);
}

export default fp(databaseResource, { name: 'database', dependencies: ['config', 'counters'], fastify: '5.x' });
