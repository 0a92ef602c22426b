// Signed notifications in the operator API: add, list and remove webhook endpoints and read their
// deliveries. Registered inside the admin plugin, so its key check runs first. Deliveries come
// from every instance's dispatcher (src/webhooks/webhook-dispatcher.ts).
import type { FastifyInstance } from 'fastify';
import { paramsSchema, requestBody, response } from '../http/openapi.js';
import { ADMIN_KEY_ERRORS, BODY_ERRORS, badRequest, errorResponse } from '../http/error-responses.js';
import { CreateWebhookBody, CreatedWebhookEndpoint, WebhookDeliveries, WebhookEndpoint, WebhookEndpointList, WebhookIdParam } from './admin-schemas.js';
import { ADMIN_EXAMPLES as EX } from './admin-examples.js';
import { WebhookEndpoints } from '../webhooks/webhook-endpoints.js';
import type { ZodSchemas } from '../http/validation.js';

const tags = ['admin'];
const security = [{ adminKey: [] }];
const UNKNOWN_ENDPOINT = {
  404: errorResponse('No webhook endpoint with this id (or it was removed).', [{ error: 'not_found', summary: 'Unknown endpoint · 알 수 없는 엔드포인트' }]),
};
const INVALID_ID = {
  400: badRequest('invalid_request', 'The id is not a webhook endpoint id.', [
    { name: 'invalid_id', summary: 'Malformed id · 잘못된 id 형식', extra: { message: 'params failed validation: id' } },
  ]),
};
const INVALID_ENDPOINT = {
  400: badRequest('invalid_request', 'The body failed validation, or the URL is not a target deliveries may go to.', [
    { name: 'invalid_body', summary: 'Body failed validation · 본문 검증 실패', extra: { message: 'body failed validation: event_types' } },
    {
      name: 'unsafe_target',
      summary: 'A private or loopback target · 사설·루프백 주소',
      extra: { message: 'url resolves to a loopback, private, link-local or reserved address' },
    },
  ]),
};

export async function webhookRoutes(plain: FastifyInstance) {
  const app = plain.withTypeProvider<ZodSchemas>();
  const endpoints = new WebhookEndpoints(app.repositories.webhooks, { allowPrivateTargets: app.config.webhookAllowPrivateTargets, now: app.now });
  const params = paramsSchema(WebhookIdParam);

  app.post(
    '/webhooks',
    {
      schema: {
        tags,
        security,
        summary: 'Subscribe a URL to events (campaign paused, resumed or out of budget; catalog import finished or failed); deliveries are signed',
        body: requestBody(CreateWebhookBody, EX.createWebhookRequest),
        response: {
          201: response(CreatedWebhookEndpoint, 'The endpoint; its secret is shown this once.', EX.createdWebhook),
          ...INVALID_ENDPOINT,
          ...ADMIN_KEY_ERRORS,
          ...BODY_ERRORS,
        },
      },
      config: { badRequest: { error: 'invalid_request' as const } },
    },
    async (req, reply) => reply.code(201).send(await endpoints.add(req.body.url, req.body.event_types, req.body.description)),
  );

  app.get(
    '/webhooks',
    {
      schema: {
        tags,
        security,
        summary: 'List webhook endpoints (never their secrets)',
        response: { 200: response(WebhookEndpointList, 'Every endpoint.', EX.webhookList), ...ADMIN_KEY_ERRORS },
      },
    },
    async () => ({ endpoints: await endpoints.list() }),
  );

  app.delete(
    '/webhooks/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Remove a webhook endpoint: its pending deliveries stop, its history stays readable',
        params,
        response: { 200: response(WebhookEndpoint, 'The endpoint, now removed.', EX.webhookEndpoint), ...INVALID_ID, ...ADMIN_KEY_ERRORS, ...UNKNOWN_ENDPOINT },
      },
    },
    async (req) => endpoints.remove(req.params.id),
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        tags,
        security,
        summary: "An endpoint's recent deliveries: attempts, the latest status or failure, the next try",
        params,
        response: { 200: response(WebhookDeliveries, 'The deliveries.', EX.webhookDeliveries), ...INVALID_ID, ...ADMIN_KEY_ERRORS, ...UNKNOWN_ENDPOINT },
      },
    },
    async (req) => endpoints.deliveries(req.params.id),
  );
}
