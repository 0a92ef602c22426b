// Serving-key checks, with a short cache of key lookups (API_KEY_CACHE_MS).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Authenticator } from '../auth/authenticator.js';

declare module 'fastify' {
  interface FastifyInstance {
    authenticator: Authenticator;
  }
}

async function authenticatorResource(app: FastifyInstance) {
  const { apps } = app.repositories;
  app.decorate('authenticator', new Authenticator((hash) => apps.findKeyByHash(hash), app.config.apiKeyCacheMs));
}

export default fp(authenticatorResource, { name: 'authenticator', dependencies: ['config', 'repositories'], fastify: '5.x' });
