// POST /v1/events/rendered, /v1/events/qualified-impression and the alias /v1/events/impression.
// A 200 means the row is committed. When the database cannot be reached the answer is 503 with
// retry-after: a host that retries loses nothing, and nothing is half-written.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requireServingKey } from '../auth/require-serving-key.js';
import { sendError, sendUnavailable } from '../http/errors.js';
import { toJsonSchema } from '../http/openapi.js';
import { ErrorBodySchema } from '../decide/decide-schemas.js';
import { IdempotencyKey, ImpressionEventRequest, ImpressionEventResponse } from './event-schemas.js';
import type { ImpressionType } from './event-recorder.js';
import { newId } from '../util/ids.js';

type Route = { path: string; fixedType: ImpressionType | null; summary: string };

const ROUTES: Route[] = [
  { path: '/v1/events/rendered', fixedType: 'offer_rendered', summary: 'Record that an existing native surface showed a returned offer' },
  { path: '/v1/events/qualified-impression', fixedType: 'qualified_impression', summary: 'Record a qualified impression' },
  { path: '/v1/events/impression', fixedType: null, summary: 'Alias for either impression event (`type` selects); kept until first-party clients migrate' },
];

export async function eventRoutes(app: FastifyInstance) {
  for (const route of ROUTES) {
    const canonical = route.fixedType !== null;
    app.post(
      route.path,
      {
        schema: {
          tags: ['events'],
          summary: route.summary,
          security: [{ servingKey: [] }],
          headers: {
            type: 'object',
            properties: { 'idempotency-key': { type: 'string', minLength: 8, maxLength: 80 } },
            ...(canonical ? { required: ['idempotency-key'] } : {}),
          },
          body: toJsonSchema(ImpressionEventRequest),
          response: {
            200: toJsonSchema(ImpressionEventResponse),
            400: toJsonSchema(ErrorBodySchema),
            401: toJsonSchema(ErrorBodySchema),
            404: toJsonSchema(ErrorBodySchema),
            422: toJsonSchema(ErrorBodySchema),
            503: toJsonSchema(ErrorBodySchema),
          },
          ...(route.fixedType === null ? { deprecated: true } : {}),
        },
        config: { badRequest: { error: 'invalid_event' } },
        preHandler: requireServingKey,
      },
      (request, reply) => handle(app, route, request, reply),
    );
  }
}

async function handle(app: FastifyInstance, route: Route, request: FastifyRequest, reply: FastifyReply) {
  const invalid = (message: string) => sendError(reply, 400, 'invalid_event', { message });
  const parsed = ImpressionEventRequest.safeParse(request.body);
  if (!parsed.success) return invalid('body failed validation: ' + parsed.error.issues.map((i) => i.path.join('.') || '(body)').join(', '));
  const body = parsed.data;
  const type = body.type ?? route.fixedType ?? 'offer_rendered';
  if (route.fixedType && type !== route.fixedType) return invalid(`type must be ${route.fixedType} on this path`);

  const header = request.headers['idempotency-key'];
  if (Array.isArray(header)) return invalid('send one Idempotency-Key header');
  if (header !== undefined && !IdempotencyKey.safeParse(header).success) return invalid('Idempotency-Key must be 8 to 80 characters');
  if (route.fixedType && header === undefined) return invalid('Idempotency-Key header is required');
  if (header !== undefined && body.idempotency_key !== undefined && header !== body.idempotency_key) {
    return invalid('Idempotency-Key header and body idempotency_key disagree');
  }
  if (route.fixedType && body.idempotency_key !== undefined && header === undefined) return invalid('Idempotency-Key header is required');
  // The alias serves older first-party clients that may send no key at all: their event is
  // recorded under a fresh key, so a retry of theirs can count twice (documented in the README).
  const key = header ?? body.idempotency_key ?? `auto_${newId('k')}`;

  try {
    const outcome = await app.services.impressions.record({
      principal: request.principal!,
      type,
      offerSnapshotId: body.offer_snapshot_id,
      decisionId: body.decision_id ?? null,
      idempotencyKey: key,
    });
    if (outcome.status === 200) return outcome.body;
    return sendError(reply, outcome.status, outcome.error);
  } catch (err) {
    return unavailable(request, reply, err);
  }
}

export function unavailable(request: FastifyRequest, reply: FastifyReply, err: unknown) {
  request.log.warn({ err: { type: (err as Error).name, code: (err as { code?: string }).code } }, 'event not recorded: store unavailable');
  return sendUnavailable(reply);
}
