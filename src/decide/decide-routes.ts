// POST /v1/offers/decide (SPEC 4.1) and its affiliate twin POST /v1/offers/affiliate (SPEC 4.2).
// Thin: auth, strict validation, then the pipeline under the handler time budget. Anything that
// goes wrong past validation fails open: 200, serve:false, TIMEOUT — never a 5xx for a host to
// turn into an error page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Envelope, describeIssues, scanForbiddenKeys } from './envelope.js';
import { DecideService, timeoutAnswer } from './decide-service.js';
import { deadlineAfter, type Deadline } from '../util/deadline.js';
import { authenticateServingKey } from '../auth/require-serving-key.js';
import type { Principal } from '../auth/authenticator.js';
import { sendError } from '../http/errors.js';
import { RequestInvalid } from '../http/validation.js';
import { requestBody, response, type Examples } from '../http/openapi.js';
import { BODY_ERRORS, RATE_LIMITED, SERVING_KEY_ERRORS, errorResponse } from '../http/error-responses.js';
import { AffiliateFillSchema, NoFillSchema, ServedOfferSchema } from './decide-schemas.js';
import { z } from 'zod';
import { feature } from '../http/feature.js';
import { AffiliateImpressions } from '../affiliate/affiliate-impressions.js';
import type { Matcher } from '../native/offer-index.js';

const KO_ENVELOPE = {
  message: '다음 달 제주도 호텔 최저가 추천해줘',
  session: { token: 'sess-8f2c', digest: { intent_type: 'purchase', category_ids: ['travel.hotels'], generated_at: '2026-11-22T09:00:00Z' } },
  locale: 'ko-KR',
  country: 'KR',
  audience: { age_band: '18_plus', contextual_offer_consent: true },
  native_surface: { clickable: true, disclosure_capable: true },
};
const EN_ENVELOPE = {
  message: 'Which noise cancelling headphones should I buy for flights?',
  locale: 'en-US',
  country: 'US',
  audience: { age_band: '18_plus', contextual_offer_consent: true },
  native_surface: { clickable: true, disclosure_capable: true },
};
const envelopeExamples = {
  ko: { summary: 'Korean user turn with a digest · 다이제스트가 있는 한국어 요청', value: KO_ENVELOPE },
  en: { summary: 'English user turn · 영어 요청', value: EN_ENVELOPE },
};
const affiliateEnvelopeExamples = {
  ko: { summary: 'Korean flight question · 한국어 항공권 질문', value: { ...KO_ENVELOPE, message: '다음 주 도쿄 항공권 최저가 알려줘', session: undefined } },
  en: { summary: 'English hotel question · 영어 호텔 질문', value: { ...EN_ENVELOPE, message: 'Cheapest hotel in Jeju next month?' } },
};

const noFill = {
  summary: 'No-fill: render nothing · 광고 없음: 아무것도 표시하지 않음',
  value: { serve: false, request_id: 'b7e1c0d2-4a8f-4e0b-9d51-2c6f3a1e8b90', decision_id: 'dec_3Xk9Qm2pLr7ZtV1sN8cB4d', reason_codes: ['POLICY_BLOCK', 'LOCALE_NOT_LIVE'] },
};
const timeout = {
  summary: 'Time budget exceeded, fail open · 시간 예산 초과, 광고 없음',
  value: { serve: false, request_id: 'c2a4e6f8-1b3d-4f5a-8c7e-9d0b1a2c3e4f', decision_id: 'dec_8Lm2Np4Qr6St8Uv0Wx2Yz4', reason_codes: ['TIMEOUT'], retry_after_seconds: 2 },
};

const invalidEnvelope = errorResponse('The envelope failed validation (INVALID_ENVELOPE) or carried a forbidden identity or placement key (FORBIDDEN_IDENTITY_FIELD).', [
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
]);

const decideResponses = {
  200: response(z.union([ServedOfferSchema, NoFillSchema]), 'A served offer or a no-fill; both are successful answers.', {
    ko: {
      summary: 'Served offer in Korean · 한국어 광고 노출',
      value: {
        serve: true,
        request_id: '5f0c2b1e-8d4a-4c6b-9e2f-1a3b5c7d9e0f',
        decision_id: 'dec_7Hc2mQ9xPz4LkV1sR8tY0a',
        offer_id: 'snp_4f9Qm2x8Lr1aZ0cV7bN3kD',
        expires_at: '2026-11-22T10:15:00.000Z',
        disclosure: '광고',
        advertiser: 'Haneul Stay',
        link: 'https://sidenote.example/r/v2.fF-8U6X-TP2zIbl6sEl8UtWNST5OjXf0gRZNefhJ3chwynmdZnTB3CTCpo8yjcRJRXDnksHmaqprA5voAmTR2irJuNYBWkN2S5Kl_zmypJn_IQiMFaw775fjVr_o2_fMrK27jHAoHmF21SVlwHS_n4mdjgQ7d4D91Nb2K6d9CZ_V7Fx2DfdWmycJK6OlM_IQpjnGmnh-6xq6saoBdfu0JHRc3FYjvw',
        title: '제주 오션뷰 호텔 특가',
        description: '다음 달 숙박 최대 30% 할인',
        cta: '객실 보기',
        reason_codes: ['MATCHED'],
      },
    },
    en: {
      summary: 'Served offer in English · 영어 광고 노출',
      value: {
        serve: true,
        request_id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
        decision_id: 'dec_2Tg5kW8nYq1RcF4hJ7mP0s',
        offer_id: 'snp_6Bn3vX9zQw2Ek5Rt8Yu1Io',
        expires_at: '2026-11-22T10:15:00.000Z',
        disclosure: 'Sponsored',
        advertiser: 'Quietwave Audio',
        link: 'https://sidenote.example/r/v2.ttJHu_Bi710gn2CsGQSUwJQt8VvOGhscNtPJGmnYzhB1IaSqnCM6NfIzmppoCU1zgXqXMjKfn6EX4yIl06gvVbx-M7xARvIPt3mU5_z_MkLh4C_BPrMrmGwYWwd3-enzTp_Ee5kxPpsDzhIRgZ9P2-D7QrFHFv_fsxr03vny6U6As_ghjtSTZJe61xIXK9IebUNhSaZpWdaFbs8VQqI3asFkRWkojw',
        title: 'Quietwave QX2 noise-cancelling headphones',
        description: '40-hour battery, made for long flights',
        cta: 'See the QX2',
        reason_codes: ['MATCHED'],
      },
    },
    no_fill: noFill,
    timeout,
  }),
  400: invalidEnvelope,
  ...SERVING_KEY_ERRORS,
  ...BODY_ERRORS,
  ...RATE_LIMITED,
};

const affiliateResponses = {
  200: response(z.union([AffiliateFillSchema, NoFillSchema]), 'An affiliate fill or a no-fill; both are successful answers.', {
    ko: {
      summary: 'Affiliate fill in Korean · 한국어 제휴 링크',
      value: {
        serve: true,
        request_id: '1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a',
        decision_id: 'dec_5Rt7Yu9Io1Pa3Sd5Fg7Hj9',
        network: 'TripNet',
        advertiser: 'Bluewave Air',
        disclosure: '제휴 링크',
        affiliate_url: 'https://c.tripnet.example/r?marker=sidenote&sub_id=dec_5Rt7Yu9Io1Pa3Sd5Fg7Hj9&u=https%3A%2F%2Fbluewave.example%2Fko%2Ftokyo',
        impression_token: 'q8Xn2Lm5Vb7Ct9Zr1Kd3Fh6Jw0Ps4Ga8Ue2Yi5To7R',
        expires_at: '2026-11-23T09:00:00.000Z',
        title: '서울-도쿄 왕복 항공권 특가',
        reason_codes: ['MATCHED'],
      },
    },
    en: {
      summary: 'Affiliate fill in English · 영어 제휴 링크',
      value: {
        serve: true,
        request_id: '6a7b8c9d-0e1f-4a2b-9c3d-4e5f6a7b8c9d',
        decision_id: 'dec_9Kl1Zx3Cv5Bn7Mq9Wq1Er3',
        network: 'StayLink',
        advertiser: 'Haneul Stay',
        disclosure: 'Affiliate link',
        affiliate_url: 'https://haneulstay.example/en/jeju?aid=sidenote&label=dec_9Kl1Zx3Cv5Bn7Mq9Wq1Er3',
        impression_token: 'Zt4Wq8Er2Ty6Ui0Op3As7Df1Gh5Jk9Lz2Xc6Vb0Nm4',
        expires_at: '2026-11-23T09:00:00.000Z',
        title: 'Jeju ocean-view rooms',
        reason_codes: ['MATCHED'],
      },
    },
    no_fill: noFill,
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
    examples: envelopeExamples,
    run: (envelope, principal, requestId, deadline, log) => service.decide(envelope, principal, requestId, deadline, log),
  });
  registerEnvelopeRoute(app, service, {
    url: '/v1/offers/affiliate',
    summary: 'Decide whether a travel affiliate offer (direct network tracking URL) may be shown',
    kind: 'affiliate',
    responses: affiliateResponses,
    examples: affiliateEnvelopeExamples,
    run: (envelope, principal, requestId, deadline, log) => service.decideAffiliate(envelope, principal, requestId, deadline, log),
  });
}

interface EnvelopeRoute {
  url: string;
  summary: string;
  kind: 'offer' | 'affiliate';
  responses: Record<number, unknown>;
  examples: Examples;
  run: (envelope: Envelope, principal: Principal, requestId: string, deadline: Deadline, log: FastifyRequest['log']) => Promise<unknown>;
}

function registerEnvelopeRoute(app: FastifyInstance, service: DecideService, route: EnvelopeRoute) {
  const config = app.config;
  app.post(
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
        rateLimit: { max: config.decideRateLimitPerMinute, timeWindow: 60_000 },
      },
      // The key first (a request without a valid key is a 401 whatever its body), then the
      // forbidden-key scan, which wins over every other validation failure (DESIGN.md §2), then
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
    async (request: FastifyRequest, reply: FastifyReply) => {
      const answer = await handle(request.body as Envelope, request, reply);
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
  needs: ['config', 'now', 'baseUrl', 'metrics', 'catalogRuntime', 'counters', 'spend', 'writers', 'repositories', 'links', 'authenticator'],
});
