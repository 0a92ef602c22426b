// Operator API: apps, keys, conversion secrets and the catalog. Protected by ADMIN_KEY; when no
// admin key is configured the whole surface answers 404, as if it did not exist.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { sha256 } from '../util/ids.js';
import { sendError } from '../http/errors.js';
import { toJsonSchema } from '../http/openapi.js';
import { NotFoundError } from '../apps/app-repository.js';
import { CatalogValidationError } from '../catalog/catalog-validation.js';
import { Catalog } from '../catalog/catalog-schema.js';
import { reportRoutes } from '../reporting/report-routes.js';

const CreateAppBody = z.strictObject({ name: z.string().trim().min(1).max(120) });
const CreateKeyBody = z.strictObject({
  kind: z.enum(['serving', 'setup']).default('serving'),
  mode: z.enum(['live', 'test']).default('live'),
});
const IdParam = z.strictObject({ id: z.string().regex(/^[a-z]{3,4}_[A-Za-z0-9]{1,64}$/) });

export async function adminRoutes(app: FastifyInstance) {
  const adminKey = app.services.config.adminKey;
  const adminKeyHash = adminKey ? sha256(adminKey) : null;

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.url.startsWith('/admin/')) return;
    if (!adminKeyHash) return sendError(reply, 404, 'not_found');
    const header = request.headers.authorization ?? '';
    const token = /^Bearer (\S+)$/.exec(header)?.[1];
    // Hashing both sides gives equal-length buffers, so the compare is constant-time.
    if (!token || !timingSafeEqual(sha256(token), adminKeyHash)) return sendError(reply, 401, 'invalid_admin_key');
  });

  const tags = ['admin'];
  const security = [{ adminKey: [] }];
  const bad = { badRequest: { error: 'invalid_request' } };
  const { apps, catalog, catalogRuntime } = app.services;
  // Inside this plugin, so the admin key check above guards the reports too.
  await app.register(reportRoutes);

  app.post('/admin/apps', { schema: { tags, security, body: toJsonSchema(CreateAppBody) }, config: bad }, async (req, reply) => {
    const body = CreateAppBody.safeParse(req.body);
    if (!body.success) return sendError(reply, 400, 'invalid_request', { message: z.prettifyError(body.error) });
    return reply.code(201).send(await apps.createApp(body.data.name));
  });

  app.get('/admin/apps', { schema: { tags, security } }, async () => ({ apps: await apps.listApps() }));

  app.post('/admin/apps/:id/keys', { schema: { tags, security, body: toJsonSchema(CreateKeyBody) }, config: bad }, async (req, reply) => {
    const params = IdParam.safeParse(req.params);
    const body = CreateKeyBody.safeParse(req.body ?? {});
    if (!params.success || !body.success) return sendError(reply, 400, 'invalid_request');
    try {
      return reply.code(201).send(await apps.createKey(params.data.id, body.data.kind, body.data.mode));
    } catch (err) {
      if (err instanceof NotFoundError) return sendError(reply, 404, 'not_found');
      throw err;
    }
  });

  app.post('/admin/keys/:id/revoke', { schema: { tags, security } }, async (req, reply) => {
    const params = IdParam.safeParse(req.params);
    if (!params.success) return sendError(reply, 400, 'invalid_request');
    try {
      return await apps.revokeKey(params.data.id);
    } catch (err) {
      if (err instanceof NotFoundError) return sendError(reply, 404, 'not_found');
      throw err;
    }
  });

  app.post('/admin/apps/:id/conversion-secrets', { schema: { tags, security } }, async (req, reply) => {
    const params = IdParam.safeParse(req.params);
    if (!params.success) return sendError(reply, 400, 'invalid_request');
    try {
      return reply.code(201).send(await apps.rotateConversionSecret(params.data.id));
    } catch (err) {
      if (err instanceof NotFoundError) return sendError(reply, 404, 'not_found');
      throw err;
    }
  });

  app.get('/admin/catalog', { schema: { tags, security } }, async () => catalog.export());

  app.put(
    '/admin/catalog',
    { schema: { tags, security, body: toJsonSchema(Catalog) }, bodyLimit: 256 * 1024 * 1024, config: bad },
    async (req, reply) => {
      try {
        const report = await catalog.import(req.body);
        if (report.changed) await catalogRuntime.reload();
        return report;
      } catch (err) {
        if (err instanceof CatalogValidationError) return sendError(reply, 400, 'invalid_catalog', { problems: err.problems });
        throw err;
      }
    },
  );
}
