// POST /v1/events/rendered, /v1/events/qualified-impression and the alias /v1/events/impression.
// A 200 means the row is committed. When the database cannot be reached the answer is 503 with
// retry-after: a host that retries loses nothing, and nothing is half-written.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callerOf, requireServingKey } from '../auth/require-serving-key.js';
import type { ZodSchemas } from '../http/validation.js';
import { sendError } from '../http/errors.js';
import type { z } from 'zod';
import { requestBody, response, type Examples } from '../http/openapi.js';
import { BODY_ERRORS, SERVING_KEY_ERRORS, UNAVAILABLE, badRequest, errorResponse } from '../http/error-responses.js';
import { IDEMPOTENCY_KEY_HEADER, ImpressionEventRequest, ImpressionEventResponse, canonicalImpressionRequest } from './event-schemas.js';
import type { ImpressionType } from './event-repository.js';
import { newId } from '../util/ids.js';
import { feature } from '../http/feature.js';
import { ImpressionEvents } from './impression-events.js';
import { SnapshotLookup } from '../catalog/snapshot-lookup.js';

// Every path's body parses to the alias' shape (a canonical one is the alias' without the key).
type Route = { path: string; fixedType: ImpressionType | null; summary: string; body: z.ZodType<ImpressionEventRequest> };

const ROUTES: Route[] = [
  {
    path: '/v1/events/rendered',
    fixedType: 'offer_rendered',
    summary: 'Record that an existing native surface showed a returned offer',
    body: canonicalImpressionRequest('offer_rendered'),
  },
  {
    path: '/v1/events/qualified-impression',
    fixedType: 'qualified_impression',
    summary: 'Record a qualified impression',
    body: canonicalImpressionRequest('qualified_impression'),
  },
  {
    path: '/v1/events/impression',
    fixedType: null,
    summary: 'Alias for either impression event (`type` selects); kept until first-party clients migrate',
    body: ImpressionEventRequest,
  },
];

const SNAPSHOT = 'snp_4f9Qm2x8Lr1aZ0cV7bN3kD';
const DECISION = 'dec_7Hc2mQ9xPz4LkV1sR8tY0a';

function requestExamples(route: Route): Examples {
  const type = route.fixedType ?? 'qualified_impression';
  const body = { offer_snapshot_id: SNAPSHOT, decision_id: DECISION, ...(route.fixedType ? {} : { type, idempotency_key: `${type}:${DECISION}` }) };
  return { [type]: { summary: `${type} for a served offer · 노출된 광고의 ${type} 이벤트`, value: body } };
}

function responseExamples(route: Route): Examples {
  const type = route.fixedType ?? 'qualified_impression';
  const recorded = { ok: true, inserted: true, event_id: 'evt_5Jk8Lm1Np4Qr7St0Uv3Wx6', offer_snapshot_id: SNAPSHOT, type, billable: false };
  return {
    recorded: { summary: 'Recorded · 기록됨', value: recorded },
    retry: { summary: 'Same key and body again: the original event · 같은 키와 본문으로 재시도: 원래 이벤트', value: { ...recorded, inserted: false } },
  };
}

const eventNotFound = errorResponse("Unknown `offer_snapshot_id`, or `decision_id` is not this app's decision that served it.", [
  { error: 'unknown_snapshot' },
]);
const keyReused = errorResponse('The idempotency key was already used with a different body.', [{ error: 'idempotency_key_reused' }]);

function invalidEvent(route: Route) {
  const examples = [
    { name: 'invalid_body', summary: 'Body failed validation · 본문 검증 실패', extra: { message: 'body failed validation: offer_snapshot_id' } },
  ];
  if (route.fixedType) {
    examples.push({
      name: 'missing_key',
      summary: 'No Idempotency-Key header · Idempotency-Key 헤더 없음',
      extra: { message: 'Idempotency-Key header is required' },
    });
  } else {
    examples.push({
      name: 'keys_disagree',
      summary: 'Header and body keys differ · 헤더와 본문 키가 다름',
      extra: { message: 'Idempotency-Key header and body idempotency_key disagree' },
    });
  }
  return badRequest('invalid_event', 'The event failed validation: body, Idempotency-Key, or path and `type` disagree.', examples);
}

async function events(app: FastifyInstance) {
  const { repositories: repos } = app;
  const impressions = new ImpressionEvents(new SnapshotLookup(repos.catalog), repos.decisions, repos.events, app.writers.events, app.now);
  for (const route of ROUTES) {
    const canonical = route.fixedType !== null;
    app.withTypeProvider<ZodSchemas>().post(
      route.path,
      {
        schema: {
          tags: ['events'],
          summary: route.summary,
          security: [{ servingKey: [] }],
          headers: {
            type: 'object',
            properties: {
              'idempotency-key': {
                type: 'string',
                minLength: 8,
                maxLength: 80,
                pattern: IDEMPOTENCY_KEY_HEADER.source,
                description: canonical
                  ? 'Retry key, 8 to 80 visible ASCII characters; the same key and body again returns the original event.'
                  : 'Optional retry key, 8 to 80 visible ASCII characters; must equal the body `idempotency_key` when both are sent.',
              },
            },
            ...(canonical ? { required: ['idempotency-key'] } : {}),
          },
          body: requestBody(route.body, requestExamples(route)),
          response: {
            200: response(ImpressionEventResponse, 'The event is recorded (or was, for a retry). Never billable.', responseExamples(route)),
            400: invalidEvent(route),
            ...SERVING_KEY_ERRORS,
            404: eventNotFound,
            ...BODY_ERRORS,
            422: keyReused,
            ...UNAVAILABLE,
          },
          ...(route.fixedType === null ? { deprecated: true } : {}),
        },
        config: { badRequest: { error: 'invalid_event' } },
        // Before validation: a request without a valid key is a 401 whatever its body.
        preValidation: requireServingKey,
      },
      (request, reply) => handle(impressions, route, request.body, request, reply),
    );
  }
}

async function handle(impressions: ImpressionEvents, route: Route, body: ImpressionEventRequest, request: FastifyRequest, reply: FastifyReply) {
  const invalid = (message: string) => sendError(reply, 'invalid_event', { message });
  // A canonical path's schema admits only its own type, so the path decides here.
  const type = body.type ?? route.fixedType ?? 'offer_rendered';

  const header = request.headers['idempotency-key'];
  if (Array.isArray(header)) return invalid('send one Idempotency-Key header');
  if (header !== undefined && !IDEMPOTENCY_KEY_HEADER.test(header)) return invalid('Idempotency-Key must be 8 to 80 visible ASCII characters');
  if (route.fixedType && header === undefined) return invalid('Idempotency-Key header is required');
  if (header !== undefined && body.idempotency_key !== undefined && header !== body.idempotency_key) {
    return invalid('Idempotency-Key header and body idempotency_key disagree');
  }
  // The alias serves older first-party clients that may send no key at all: their event is
  // recorded under a fresh key, so a retry of theirs can count twice (documented in the README).
  const key = header ?? body.idempotency_key ?? `auto_${newId('k')}`;

  return impressions.record({
    principal: callerOf(request),
    type,
    offerSnapshotId: body.offer_snapshot_id,
    decisionId: body.decision_id ?? null,
    idempotencyKey: key,
  });
}

export const eventRoutes = feature(events, { name: 'events', needs: ['now', 'repositories', 'writers', 'authenticator'] });
