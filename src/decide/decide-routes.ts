// POST /v1/offers/decide (SPEC 4.1) and its affiliate twin POST /v1/offers/affiliate (SPEC 4.2).
// Thin: auth, strict validation, then the pipeline under the handler time budget. Anything that
// goes wrong past validation fails open: 200, serve:false, TIMEOUT — never a 5xx for a host to
// turn into an error page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Envelope, describeIssues, scanForbiddenKeys } from './envelope.js';
import { DeadlineExceeded, type NoFill } from './decide-service.js';
import { authenticateServingKey } from '../auth/require-serving-key.js';
import type { Principal } from '../auth/authenticator.js';
import { errorBody } from '../http/errors.js';
import { toJsonSchema } from '../http/openapi.js';
import { AffiliateFillSchema, ErrorBodySchema, NoFillSchema, ServedOfferSchema } from './decide-schemas.js';
import { z } from 'zod';
import { newId } from '../util/ids.js';

const decideResponseSchemas = {
  200: toJsonSchema(z.union([ServedOfferSchema, NoFillSchema])),
  400: toJsonSchema(ErrorBodySchema),
  401: toJsonSchema(ErrorBodySchema),
  429: toJsonSchema(ErrorBodySchema),
};

const affiliateResponseSchemas = {
  200: toJsonSchema(z.union([AffiliateFillSchema, NoFillSchema])),
  400: toJsonSchema(ErrorBodySchema),
  401: toJsonSchema(ErrorBodySchema),
  429: toJsonSchema(ErrorBodySchema),
};

const TIMEOUT_RETRY_AFTER_SECONDS = 2;

export async function decideRoutes(app: FastifyInstance) {
  const service = app.services.decide;
  registerEnvelopeRoute(app, {
    url: '/v1/offers/decide',
    summary: 'Decide whether a sponsored offer may be shown for this user turn',
    kind: 'offer',
    responses: decideResponseSchemas,
    run: (envelope, principal, requestId, expired) => service.decide(envelope, principal, requestId, expired),
  });
  registerEnvelopeRoute(app, {
    url: '/v1/offers/affiliate',
    summary: 'Decide whether a travel affiliate offer (direct network tracking URL) may be shown',
    kind: 'affiliate',
    responses: affiliateResponseSchemas,
    run: (envelope, principal, requestId, expired) => service.decideAffiliate(envelope, principal, requestId, expired),
  });
}

interface EnvelopeRoute {
  url: string;
  summary: string;
  kind: 'offer' | 'affiliate';
  responses: Record<number, unknown>;
  run: (envelope: Envelope, principal: Principal, requestId: string, expired: () => boolean) => Promise<unknown>;
}

function registerEnvelopeRoute(app: FastifyInstance, route: EnvelopeRoute) {
  const config = app.services.config;
  const service = app.services.decide;
  app.post(
    route.url,
    {
      schema: {
        tags: ['decide'],
        summary: route.summary,
        security: [{ servingKey: [] }],
        body: toJsonSchema(Envelope),
        response: route.responses,
      },
      config: {
        badRequest: { error: 'INVALID_ENVELOPE', reasonCodes: ['INVALID_ENVELOPE'] },
        rateLimit: { max: config.decideRateLimitPerMinute, timeWindow: 60_000 },
      },
      preHandler: authenticateServingKey,
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const answer = await handle(request, reply);
      for (const code of (answer as { reason_codes?: string[] } | undefined)?.reason_codes ?? []) {
        app.services.metrics.decideOutcomes.inc({ kind: route.kind, reason_code: code });
      }
      return answer;
    },
  );

  async function handle(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const body = request.body;
    // Forbidden identity keys win over every other validation failure (DESIGN.md §2).
    const scan = scanForbiddenKeys(body);
    if (scan.paths.length > 0) {
      reply.code(400);
      return errorBody('FORBIDDEN_IDENTITY_FIELD', { reason_codes: ['FORBIDDEN_IDENTITY_FIELD'], paths: scan.paths });
    }
    if (scan.tooDeep) {
      reply.code(400);
      return errorBody('INVALID_ENVELOPE', { reason_codes: ['INVALID_ENVELOPE'], issues: ['$: nested too deeply'] });
    }
    const parsed = Envelope.safeParse(body);
    if (!parsed.success) {
      reply.code(400);
      return errorBody('INVALID_ENVELOPE', { reason_codes: ['INVALID_ENVELOPE'], issues: describeIssues(parsed.error) });
    }
    const requestId = String(request.id);
    const timeout = (): NoFill => ({
      serve: false,
      request_id: requestId,
      decision_id: newId('dec'),
      reason_codes: ['TIMEOUT'],
      retry_after_seconds: TIMEOUT_RETRY_AFTER_SECONDS,
    });
    // Key store down and this key unknown to us: fail open, with no record to write.
    if (!request.principal) return timeout();
    const principal = request.principal;
    const remainingMs = config.decideTimeBudgetMs - reply.elapsedTime;
    let timedOut = remainingMs <= 0;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => {
      timer = setTimeout(() => {
        timedOut = true;
        resolve('deadline');
      }, Math.max(0, remainingMs));
    });
    try {
      const pipeline = route.run(parsed.data, principal, requestId, () => timedOut);
      // The pipeline may settle after the deadline answered; its late failure is expected.
      pipeline.catch(() => {});
      const result = await Promise.race([pipeline, deadline]);
      if (result !== 'deadline') return result;
    } catch (err) {
      if (!(err instanceof DeadlineExceeded)) {
        request.log.warn({ err: { type: (err as Error).name, code: (err as { code?: string }).code } }, 'decide failed open');
      }
    } finally {
      clearTimeout(timer);
    }
    const answer = timeout();
    service.recordTimeout(principal, requestId, parsed.data, answer.decision_id, Math.round(reply.elapsedTime * 1000), route.kind);
    return answer;
  }
}
