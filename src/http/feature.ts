// A feature: an encapsulated plugin (its hooks and decorations stay its own) with a name and the
// root decorations it needs. Fastify refuses to start when one of those is missing, so a test
// can register a feature alone over the resources it names, or over fakes of them.
import type { FastifyInstance, FastifyPluginAsync, FastifyPluginOptions } from 'fastify';
import fp from 'fastify-plugin';

export function feature<Options extends FastifyPluginOptions = Record<never, never>>(
  plugin: FastifyPluginAsync<Options>,
  meta: { name: string; needs: (keyof FastifyInstance)[] },
) {
  return fp(plugin, { name: meta.name, decorators: { fastify: meta.needs }, encapsulate: true, fastify: '5.x' });
}
