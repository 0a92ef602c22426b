// Builds the Fastify application: server.ts (the process) and the tests both call buildApp, and
// nothing below reads process.env. Three layers: the HTTP conventions (errors, validation, the
// request log), the resources (src/resources/index.ts, closed in reverse order at shutdown) and
// the routes (src/routes.ts).
import Fastify, { type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config } from './config/config.js';
import { serverOptions } from './http/server-options.js';
import httpConventions from './http/conventions.js';
import resources, { type ResourceOptions } from './resources/index.js';
import routes, { type RouteOptions } from './routes.js';

export interface AppDeps extends Omit<ResourceOptions, 'config'>, RouteOptions {
  /** Where log lines go (tests capture them to prove the message never appears). */
  logStream?: DestinationStream;
}

export async function buildApp(config: Config, deps: AppDeps = {}): Promise<FastifyInstance> {
  const app = Fastify(serverOptions(config, deps.logStream));
  try {
    await app.register(httpConventions, { logRequests: config.logRequests, checkResponses: config.checkResponses });
    await app.register(resources, { config, now: deps.now, db: deps.db, counters: deps.counters });
    await app.register(routes, { matcher: deps.matcher });
  } catch (err) {
    // What was opened before the failure is closed again (each resource's onClose).
    await app.close().catch(() => {});
    throw err;
  }
  return app;
}
