// Operator API: apps, keys, conversion secrets and the catalog. Protected by ADMIN_KEY; when no
// admin key is configured the whole surface answers 404, as if it did not exist.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { sha256 } from '../util/ids.js';
import { sendError } from '../http/errors.js';
import { requestBody, response, toJsonSchema } from '../http/openapi.js';
import { ADMIN_KEY_ERRORS, BODY_ERRORS, badRequest, errorResponse } from '../http/error-responses.js';
import { NotFoundError } from '../apps/app-repository.js';
import { CatalogValidationError } from '../catalog/catalog-validation.js';
import { Catalog } from '../catalog/catalog-schema.js';
import { reportRoutes } from '../reporting/report-routes.js';
import { AdminIdParam as IdParam, AppList, CreateAppBody, CreateKeyBody, CreatedApp, CreatedKey, ImportReport, RevokedKey, RotatedSecret } from './admin-schemas.js';
import { ADMIN_EXAMPLES as EX } from './admin-examples.js';

const adminOff = { error: 'not_found', summary: 'Admin API off (no ADMIN_KEY) · 관리자 API 꺼짐(ADMIN_KEY 없음)' };
const ADMIN_OFF = { 404: errorResponse('The admin API is off: no ADMIN_KEY is configured.', [adminOff]) };
const UNKNOWN_ID = {
  404: errorResponse('No app or key with this id, or the admin API is off.', [
    { name: 'unknown_id', error: 'not_found', summary: 'Unknown id · 알 수 없는 id' },
    { ...adminOff, name: 'admin_off' },
  ]),
};
const INVALID_ID = {
  400: errorResponse('The id is not an app or key id.', [{ error: 'invalid_request', summary: 'Malformed id · 잘못된 id 형식' }]),
};
const INVALID_BODY = {
  400: badRequest('invalid_request', 'The body or the id failed validation.', [
    { name: 'invalid_body', summary: 'Body failed validation · 본문 검증 실패', extra: { message: '✖ Invalid input\n  → at name' } },
  ]),
};

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

  const params = toJsonSchema(IdParam);

  app.post(
    '/admin/apps',
    {
      schema: {
        tags,
        security,
        summary: 'Create a host app with live and test serving keys and a conversion secret',
        body: requestBody(CreateAppBody, EX.createAppRequest),
        response: {
          201: response(CreatedApp, 'The app; its keys and secret are shown this once.', EX.createdApp),
          ...INVALID_BODY,
          ...ADMIN_KEY_ERRORS,
          ...ADMIN_OFF,
          ...BODY_ERRORS,
        },
      },
      config: bad,
    },
    async (req, reply) => {
      const body = CreateAppBody.safeParse(req.body);
      if (!body.success) return sendError(reply, 400, 'invalid_request', { message: z.prettifyError(body.error) });
      return reply.code(201).send(await apps.createApp(body.data.name.trim()));
    },
  );

  app.get(
    '/admin/apps',
    {
      schema: {
        tags,
        security,
        summary: 'List apps and their keys (never the keys themselves)',
        response: { 200: response(AppList, 'Every app.', EX.appList), ...ADMIN_KEY_ERRORS, ...ADMIN_OFF },
      },
    },
    async () => ({ apps: await apps.listApps() }),
  );

  app.post(
    '/admin/apps/:id/keys',
    {
      schema: {
        tags,
        security,
        summary: 'Create a serving key or setup token for an app',
        params,
        body: requestBody(CreateKeyBody, EX.createKeyRequest, { optional: true }),
        response: {
          201: response(CreatedKey, 'The key, shown this once.', EX.createdKey),
          ...INVALID_BODY,
          ...ADMIN_KEY_ERRORS,
          ...UNKNOWN_ID,
          ...BODY_ERRORS,
        },
      },
      config: bad,
    },
    async (req, reply) => {
      const params = IdParam.safeParse(req.params);
      // No body at all (no content type) means the defaults; a JSON body, even `null`, must be the object.
      const body = CreateKeyBody.safeParse(req.headers['content-type'] === undefined ? {} : req.body);
      if (!params.success || !body.success) return sendError(reply, 400, 'invalid_request');
      try {
        return reply.code(201).send(await apps.createKey(params.data.id, body.data.kind, body.data.mode));
      } catch (err) {
        if (err instanceof NotFoundError) return sendError(reply, 404, 'not_found');
        throw err;
      }
    },
  );

  app.post(
    '/admin/keys/:id/revoke',
    {
      schema: {
        tags,
        security,
        summary: 'Revoke a key; refused on every instance within a second',
        params,
        response: { 200: response(RevokedKey, 'The key, now revoked.', EX.revokedKey), ...INVALID_ID, ...ADMIN_KEY_ERRORS, ...UNKNOWN_ID },
      },
    },
    async (req, reply) => {
      const params = IdParam.safeParse(req.params);
      if (!params.success) return sendError(reply, 400, 'invalid_request');
      try {
        return await apps.revokeKey(params.data.id);
      } catch (err) {
        if (err instanceof NotFoundError) return sendError(reply, 404, 'not_found');
        throw err;
      }
    },
  );

  app.post(
    '/admin/apps/:id/conversion-secrets',
    {
      schema: {
        tags,
        security,
        summary: 'Add a conversion signing secret; the older of two active ones is retired',
        params,
        response: {
          201: response(RotatedSecret, 'The new secret, shown this once.', EX.rotatedSecret),
          ...INVALID_ID,
          ...ADMIN_KEY_ERRORS,
          ...UNKNOWN_ID,
        },
      },
    },
    async (req, reply) => {
      const params = IdParam.safeParse(req.params);
      if (!params.success) return sendError(reply, 400, 'invalid_request');
      try {
        return reply.code(201).send(await apps.rotateConversionSecret(params.data.id));
      } catch (err) {
        if (err instanceof NotFoundError) return sendError(reply, 404, 'not_found');
        throw err;
      }
    },
  );

  app.get(
    '/admin/catalog',
    {
      schema: {
        tags,
        security,
        summary: 'Export the catalog being served',
        response: { 200: response(Catalog, 'The catalog, every default filled in.', EX.catalog), ...ADMIN_KEY_ERRORS, ...ADMIN_OFF },
      },
    },
    async () => catalog.export(),
  );

  app.put(
    '/admin/catalog',
    {
      schema: {
        tags,
        security,
        summary: 'Import a catalog; every instance serves it within CATALOG_POLL_MS',
        body: requestBody(Catalog, EX.catalogRequest),
        response: {
          200: response(ImportReport, 'Imported (or unchanged).', EX.importReport),
          400: errorResponse('The catalog failed validation (`invalid_catalog`, with `problems`), or the body is not JSON (`invalid_request`).', [
            { error: 'invalid_catalog', summary: 'Catalog problems · 카탈로그 오류', extra: { problems: ['campaigns[0].advertiser_id: unknown advertiser haneul'] } },
            { name: 'not_json', error: 'invalid_request', summary: 'Body is not valid JSON · 본문이 올바른 JSON이 아님', extra: { message: 'request body is not valid JSON' } },
          ]),
          ...ADMIN_KEY_ERRORS,
          ...ADMIN_OFF,
          ...BODY_ERRORS,
        },
      },
      bodyLimit: 256 * 1024 * 1024,
      config: bad,
    },
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
