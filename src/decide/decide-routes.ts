// POST /v1/offers/decide and its affiliate twin POST /v1/offers/affiliate.
// Thin: auth, strict validation, then the pipeline under the handler time budget. Anything that
// goes wrong past validation fails open: 200, serve:false, TIMEOUT — never a 5xx for a host to
// turn into an error page.
import type { DecisionKind } from '../decisions/decision-schemas.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Envelope, describeIssues, scanForbiddenKeys } from './envelope.js';
import { DecideService, timeoutAnswer } from './decide-service.js';
import { BudgetAlerts } from '../webhooks/budget-alerts.js';
import { deadlineAfter, type Deadline } from '../util/deadline.js';
import { authenticateServingKey } from '../auth/require-serving-key.js';
import type { Principal } from '../auth/authenticator.js';
import { sendError } from '../http/errors.js';
import { RequestInvalid, type ZodSchemas } from '../http/validation.js';
import { requestBody, response, type Examples } from '../http/openapi.js';
import { BODY_ERRORS, RATE_LIMITED, SERVING_KEY_ERRORS, errorResponse } from '../http/error-responses.js';
import { AffiliateFillSchema, NoFillSchema, ServedOfferSchema } from './decide-schemas.js';
import { z } from 'zod';
import {
  AFFILIATE_ENVELOPE_EXAMPLES,
  AFFILIATE_FILL_EXAMPLES,
  ENVELOPE_EXAMPLES,
  NO_FILL_EXAMPLE,
  SERVED_EXAMPLES,
  TIMEOUT_EXAMPLE,
} from './decide-examples.js';
import { feature } from '../http/feature.js';
import { AffiliateImpressions } from '../affiliate/affiliate-impressions.js';
import type { Matcher } from '../native/offer-index.js';

const invalidEnvelope = errorResponse(
  'The envelope failed validation (INVALID_ENVELOPE) or carried a forbidden identity or placement key (FORBIDDEN_IDENTITY_FIELD).',
  [
    {
      error: 'INVALID_ENVELOPE',
      summary: 'Schema or unknown-key failure · 스키마 또는 알 수 없는 키 오류',
      extra: { reason_codes: ['INVALID_ENVELOPE'], issues: ['$.native_surface: expected object', '$: unknown key(s) transcript'] },
    },
    {
      error: 'FORBIDDEN_IDENTITY_FIELD',
      summary: 'Forbidden identity key present · 금지된 식별 정보 키 포함',
      extra: { reason_codes: ['FORBIDDEN_IDENTITY_FIELD'], paths: ['$.audience.email'] },
    },
    {
      name: 'not_json',
      error: 'INVALID_ENVELOPE',
      summary: 'Body is not valid JSON · 본문이 올바른 JSON이 아님',
      extra: { reason_codes: ['INVALID_ENVELOPE'], message: 'request body is not valid JSON' },
    },
  ],
);

const decideResponses = {
  200: response(z.union([ServedOfferSchema, NoFillSchema]), 'A served offer or a no-fill; both are successful answers.', {
    ...SERVED_EXAMPLES,
    no_fill: NO_FILL_EXAMPLE,
    timeout: TIMEOUT_EXAMPLE,
  }),
  400: invalidEnvelope,
  ...SERVING_KEY_ERRORS,
  ...BODY_ERRORS,
  ...RATE_LIMITED,
};

const affiliateResponses = {
  200: response(z.union([AffiliateFillSchema, NoFillSchema]), 'An affiliate fill or a no-fill; both are successful answers.', {
    ...AFFILIATE_FILL_EXAMPLES,
    no_fill: NO_FILL_EXAMPLE,
  }),
  400: invalidEnvelope,
  ...SERVING_KEY_ERRORS,
  ...BODY_ERRORS,
  ...RATE_LIMITED,
};

export interface DecideOptions {
  /** Another matcher in place of the live native index (tests run one beside it). */
  matcher?: Matcher;
}

async function decide(app: FastifyInstance, opts: DecideOptions) {
  const { config } = app;
  const service = new DecideService({
    catalog: app.catalogRuntime,
    matcher: opts.matcher,
    counters: app.counters,
    spend: app.spend,
    recorder: app.writers.decisions,
    impressions: new AffiliateImpressions(app.repositories.affiliateImpressions, app.now),
    links: app.links,
    settings: {
      baseUrl: app.baseUrl,
      topK: 8,
      sessionCap: { count: config.sessionCapCount, windowMs: config.sessionCapWindowSeconds * 1000 },
      linkTtlSeconds: config.linkTtlSeconds,
    },
    budgetAlerts: new BudgetAlerts(app.notifications),
    now: app.now,
  });

  // Requests have drained (Fastify closes the server first); timed-out decides finish
  // correcting their records before the writers (closed after this feature) flush.
  app.addHook('onClose', () => service.drain());
  registerEnvelopeRoute(app, service, {
    url: '/v1/offers/decide',
    summary: 'Decide whether a sponsored offer may be shown for this user turn',
    kind: 'offer',
    responses: decideResponses,
    examples: ENVELOPE_EXAMPLES,
    run: (envelope, principal, requestId, deadline, log) => service.decide(envelope, principal, requestId, deadline, log),
  });
  registerEnvelopeRoute(app, service, {
    url: '/v1/offers/affiliate',
    summary: 'Decide whether a travel affiliate offer (direct network tracking URL) may be shown',
    kind: 'affiliate',
    responses: affiliateResponses,
    examples: AFFILIATE_ENVELOPE_EXAMPLES,
    run: (envelope, principal, requestId, deadline, log) => service.decideAffiliate(envelope, principal, requestId, deadline, log),
  });
}

interface EnvelopeRoute {
  url: string;
  summary: string;
  kind: DecisionKind;
  responses: Record<number, unknown>;
  examples: Examples;
  run: (envelope: Envelope, principal: Principal, requestId: string, deadline: Deadline, log: FastifyRequest['log']) => Promise<unknown>;
}

function registerEnvelopeRoute(app: FastifyInstance, service: DecideService, route: EnvelopeRoute) {
  const config = app.config;
  app.withTypeProvider<ZodSchemas>().post(
    route.url,
    {
      schema: {
        tags: ['decide'],
        summary: route.summary,
        security: [{ servingKey: [] }],
        body: requestBody(Envelope, route.examples),
        response: route.responses,
      },
      config: {
        badRequest: { error: 'INVALID_ENVELOPE', reasonCodes: ['INVALID_ENVELOPE'], describe: (invalid) => ({ issues: describeIssues(invalid.error) }) },
        // After authentication and validation: only a host's own accepted calls spend its quota
        // (src/http/rate-limit.ts).
        rateLimit: { max: config.decideRateLimitPerMinute, timeWindow: 60_000, hook: 'preHandler' },
      },
      // The key first (a request without a valid key is a 401 whatever its body), then the
      // forbidden-key scan, which wins over every other validation failure, then
      // the envelope schema.
      // One deadline per request, counted from its receipt; the key lookup and the pipeline
      // both spend it.
      onRequest: async (request, reply) => {
        request.deadline = deadlineAfter(config.decideTimeBudgetMs, () => reply.elapsedTime);
      },
      preValidation: [authenticateServingKey, rejectForbiddenKeys],
      errorHandler: (err, request, reply) => {
        if (err instanceof RequestInvalid) countOutcome('INVALID_ENVELOPE');
        return app.errorHandler(err, request, reply);
      },
    },
    async (request, reply) => {
      const answer = await handle(request.body, request, reply);
      for (const code of (answer as { reason_codes?: string[] } | undefined)?.reason_codes ?? []) countOutcome(code);
      return answer;
    },
  );

  function countOutcome(reasonCode: string) {
    app.metrics.countDecideOutcome(route.kind, reasonCode);
  }

  async function rejectForbiddenKeys(request: FastifyRequest, reply: FastifyReply) {
    if (reply.sent) return;
    const scan = scanForbiddenKeys(request.body);
    if (scan.paths.length > 0) {
      countOutcome('FORBIDDEN_IDENTITY_FIELD');
      return sendError(reply, 'FORBIDDEN_IDENTITY_FIELD', { reason_codes: ['FORBIDDEN_IDENTITY_FIELD'], paths: scan.paths });
    }
    if (scan.tooDeep) {
      countOutcome('INVALID_ENVELOPE');
      return sendError(reply, 'INVALID_ENVELOPE', { reason_codes: ['INVALID_ENVELOPE'], issues: ['$: nested too deeply'] });
    }
  }

  async function handle(envelope: Envelope, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const requestId = String(request.id);
    // The key could not be checked in time (key store slow or down): fail open. Its record is
    // written once the lookup, still running, names a valid key's app.
    if (!request.principal) {
      const answer = timeoutAnswer(requestId, service.newDecisionId());
      if (request.lateAuthentication) service.recordWhenAuthenticated(request.lateAuthentication, answer, envelope, route.kind, reply.elapsedTime);
      return answer;
    }
    return route.run(envelope, request.principal, requestId, request.deadline!, request.log);
  }
}

export const decideRoutes = feature(decide, {
  name: 'decide',
  needs: ['config', 'now', 'baseUrl', 'metrics', 'catalogRuntime', 'counters', 'spend', 'writers', 'repositories', 'links', 'authenticator', 'notifications'],
});
