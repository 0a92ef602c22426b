// Operator API: apps, keys, conversion secrets, the catalog, campaign controls, webhooks and reports. One encapsulated
// plugin, registered under the `/admin` prefix and only when ADMIN_KEY is set (app.ts): with no
// key the routes do not exist. Access is decided by route: the key check is this plugin's own
// onRequest hook, so it runs for every route the router matches here (however the path was
// spelled: the router decodes it) and for its not-found handler, and never for other routes.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sha256 } from '../util/ids.js';
import { sendError } from '../http/errors.js';
import { paramsSchema, requestBody, response } from '../http/openapi.js';
import { ADMIN_KEY_ERRORS, BODY_ERRORS, badRequest, errorResponse } from '../http/error-responses.js';
import { methodNotAllowedHook, notFound } from '../http/method-not-allowed.js';
import { reportRoutes } from '../reporting/report-routes.js';
import { catalogRoutes } from './catalog-routes.js';
import { campaignRoutes } from './campaign-routes.js';
import { webhookRoutes } from './webhook-routes.js';
import {
  AdminIdParam as IdParam,
  AppList,
  BrandSafety,
  BrandSafetyBody,
  CreateAppBody,
  CreateKeyBody,
  CreatedApp,
  CreatedKey,
  RevokedKey,
  RotatedSecret,
} from './admin-schemas.js';
import { BrandSafetySettings } from '../apps/brand-safety.js';
import { ADMIN_EXAMPLES as EX } from './admin-examples.js';
import { feature } from '../http/feature.js';
import type { ZodSchemas } from '../http/validation.js';

const UNKNOWN_ID = {
  404: errorResponse('No app or key with this id.', [{ name: 'unknown_id', error: 'not_found', summary: 'Unknown id · 알 수 없는 id' }]),
};
const INVALID_ID = {
  400: errorResponse('The id is not an app or key id.', [
    { error: 'invalid_request', summary: 'Malformed id · 잘못된 id 형식', extra: { message: 'params failed validation: id' } },
  ]),
};
const INVALID_BODY = {
  400: badRequest('invalid_request', 'The body or the id failed validation.', [
    { name: 'invalid_body', summary: 'Body failed validation · 본문 검증 실패', extra: { message: 'body failed validation: name' } },
  ]),
};

export interface AdminApiOptions {
  adminKey: string;
  /** Every method some route is registered with, for the 405 answer of this prefix. */
  routeMethods: ReadonlySet<string>;
}

async function admin(plain: FastifyInstance, opts: AdminApiOptions) {
  const app = plain.withTypeProvider<ZodSchemas>();
  const adminKeyHash = sha256(opts.adminKey);

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers.authorization ?? '';
    const token = /^Bearer (\S+)$/.exec(header)?.[1];
    // Hashing both sides gives equal-length buffers, so the compare is constant-time.
    if (!token || !timingSafeEqual(sha256(token), adminKeyHash)) return sendError(reply, 'invalid_admin_key');
  });
  // Unknown admin paths and methods get this context's not-found handler and 405 hook, after
  // the key check above: without the key nobody learns which admin paths exist.
  app.addHook('onRequest', methodNotAllowedHook(app, opts.routeMethods));
  app.setNotFoundHandler(notFound);

  const tags = ['admin'];
  const security = [{ adminKey: [] }];
  const bad = { badRequest: { error: 'invalid_request' as const } };
  const { apps } = app.repositories;
  // Inside this plugin, so the admin key check above guards the reports and the catalog too.
  await app.register(reportRoutes);
  await app.register(catalogRoutes);
  await app.register(campaignRoutes);
  await app.register(webhookRoutes);

  const params = paramsSchema(IdParam);

  app.post(
    '/apps',
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
          ...BODY_ERRORS,
        },
      },
      config: bad,
    },
    async (req, reply) => reply.code(201).send(await apps.createApp(req.body.name.trim())),
  );

  app.get(
    '/apps',
    {
      schema: {
        tags,
        security,
        summary: 'List apps and their keys (never the keys themselves)',
        response: { 200: response(AppList, 'Every app.', EX.appList), ...ADMIN_KEY_ERRORS },
      },
    },
    async () => ({ apps: await apps.listApps() }),
  );

  app.post(
    '/apps/:id/keys',
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
      // No body at all (no content type) means the defaults; a JSON body, even `null`, must be the object.
      preValidation: async (req: FastifyRequest) => {
        if (req.headers['content-type'] === undefined) req.body = {};
      },
    },
    async (req, reply) => reply.code(201).send(await apps.createKey(req.params.id, req.body.kind, req.body.mode)),
  );

  app.post(
    '/keys/:id/revoke',
    {
      schema: {
        tags,
        security,
        summary: 'Revoke a key; refused on every instance within a second',
        params,
        response: { 200: response(RevokedKey, 'The key, now revoked.', EX.revokedKey), ...INVALID_ID, ...ADMIN_KEY_ERRORS, ...UNKNOWN_ID },
      },
    },
    async (req) => apps.revokeKey(req.params.id),
  );

  app.post(
    '/apps/:id/conversion-secrets',
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
    async (req, reply) => reply.code(201).send(await apps.rotateConversionSecret(req.params.id)),
  );

  const brandSafety = new BrandSafetySettings(apps, app.repositories.catalog);

  app.get(
    '/apps/:id/brand-safety',
    {
      schema: {
        tags,
        security,
        summary: "An app's brand-safety exclusions: categories and advertisers never shown beside its answers",
        params,
        response: { 200: response(BrandSafety, 'The exclusions.', EX.brandSafety), ...INVALID_ID, ...ADMIN_KEY_ERRORS, ...UNKNOWN_ID },
      },
    },
    async (req) => brandSafety.read(req.params.id),
  );

  app.put(
    '/apps/:id/brand-safety',
    {
      schema: {
        tags,
        security,
        summary: "Replace an app's brand-safety exclusions; every instance applies them within about a second",
        params,
        body: requestBody(BrandSafetyBody, EX.brandSafetyRequest),
        response: {
          200: response(BrandSafety, 'The exclusions as stored.', EX.brandSafety),
          ...INVALID_BODY,
          ...ADMIN_KEY_ERRORS,
          ...UNKNOWN_ID,
          ...BODY_ERRORS,
        },
      },
      config: bad,
    },
    async (req) => brandSafety.replace(req.params.id, req.body.blocked_category_ids, req.body.blocked_advertiser_ids),
  );
}

export const adminApi = feature(admin, {
  name: 'admin',
  needs: ['repositories', 'catalogImports', 'catalogRuntime', 'reports', 'now', 'notifications', 'config'],
});
