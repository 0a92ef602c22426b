// The tracked-link signer and the keys derived from its secret (rate-limit and click address
// hashes). The secret comes from config or, once generated, from the settings table.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { TrackedLinkSigner, loadLinkSigningSecret } from '../links/tracked-link.js';

declare module 'fastify' {
  interface FastifyInstance {
    links: TrackedLinkSigner;
  }
}

async function linksResource(app: FastifyInstance) {
  app.decorate('links', new TrackedLinkSigner(await loadLinkSigningSecret(app.repositories.settings, app.config.linkSigningSecret)));
}

export default fp(linksResource, { name: 'links', dependencies: ['config', 'repositories'], fastify: '5.x' });
