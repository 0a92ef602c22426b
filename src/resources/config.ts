// The configuration every other plugin reads, and the clock: decorated once at the root, so a
// test can hand the whole app a fake clock or a different config without touching a feature.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { publicBaseUrl, type Config } from '../config/config.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    /** Where tracked links, Location headers and the OpenAPI servers entry point. */
    baseUrl: string;
    /** Epoch milliseconds; tests pass a fake one. */
    now: () => number;
  }
}

export interface ConfigOptions {
  config: Config;
  now?: () => number;
}

async function configResource(app: FastifyInstance, opts: ConfigOptions) {
  app.decorate('config', opts.config);
  app.decorate('baseUrl', publicBaseUrl(opts.config));
  app.decorate('now', opts.now ?? Date.now);
}

export default fp(configResource, { name: 'config', fastify: '5.x' });
