// POST /v1/events/conversion.
import type { FastifyInstance } from 'fastify';
import { callerOf, requireServingKey } from '../auth/require-serving-key.js';
import type { ZodSchemas } from '../http/validation.js';
import { requestBody, response } from '../http/openapi.js';
import { BODY_ERRORS, UNAVAILABLE, errorResponse } from '../http/error-responses.js';
import { ConversionRequest, ConversionResponse } from './conversion-schemas.js';
import { feature } from '../http/feature.js';
import { ConversionService } from './conversion-service.js';
import { SnapshotLookup } from '../catalog/snapshot-lookup.js';

const EXAMPLE = {
  offer_snapshot_id: 'snp_4f9Qm2x8Lr1aZ0cV7bN3kD',
  decision_id: 'dec_7Hc2mQ9xPz4LkV1sR8tY0a',
  timestamp: 1795420800,
  nonce: 'order-20261122-0042',
  signature: '3f1c8e0d4b6a2f9e7c5d1a0b8e6f4d2c9a7b5e3f1d0c8b6a4e2f0d9c7b5a3e1f',
};
const RECORDED = {
  ok: true,
  inserted: true,
  conversion_id: 'cnv_1Qa2Ws3Ed4Rf5Tg6Yh7Uj8',
  offer_snapshot_id: EXAMPLE.offer_snapshot_id,
  billable: false,
  ledger_written: false,
};

async function conversions(app: FastifyInstance) {
  const routes = app.withTypeProvider<ZodSchemas>();
  const { repositories: repos, config } = app;
  const service = new ConversionService(
    repos.conversions,
    repos.apps,
    new SnapshotLookup(repos.catalog),
    repos.decisions,
    config.attributionWindowDays * 86_400_000,
    app.now,
  );
  routes.post(
    '/v1/events/conversion',
    {
      schema: {
        tags: ['events'],
        summary: 'Record a signed conversion',
        security: [{ servingKey: [] }],
        body: requestBody(ConversionRequest, {
          signed: { summary: 'A signed conversion for a served offer · 서명된 전환', value: EXAMPLE },
        }),
        response: {
          200: response(ConversionResponse, 'The conversion is recorded (or was, for an exact retry). Never billable, no ledger entry.', {
            recorded: { summary: 'Recorded · 기록됨', value: RECORDED },
            retry: { summary: 'Exact retry: the original conversion · 동일 재시도: 원래 전환', value: { ...RECORDED, inserted: false } },
          }),
          400: errorResponse(
            '`invalid_conversion`: the body failed validation or a nonce was reused with other content. `expired_conversion`: the timestamp is over 300 s from server time, or the decision is past the attribution window.',
            [
              {
                name: 'invalid_body',
                error: 'invalid_conversion',
                summary: 'Body failed validation · 본문 검증 실패',
                extra: { message: 'body failed validation: nonce' },
              },
              { name: 'nonce_reused', error: 'invalid_conversion', summary: 'Nonce reused with other content · 다른 내용에 nonce 재사용' },
              { error: 'expired_conversion' },
              {
                name: 'not_json',
                error: 'invalid_conversion',
                summary: 'Body is not valid JSON · 본문이 올바른 JSON이 아님',
                extra: { message: 'request body is not valid JSON' },
              },
            ],
          ),
          401: errorResponse('Authentication failure, or a signature that does not verify.', [
            { error: 'invalid_signature' },
            { error: 'missing_api_key' },
            { error: 'invalid_api_key' },
            { error: 'revoked_api_key' },
            { error: 'setup_token_not_allowed' },
          ]),
          404: errorResponse("Unknown `offer_snapshot_id`, or `decision_id` is not this app's decision that served it.", [{ error: 'unknown_snapshot' }]),
          ...BODY_ERRORS,
          ...UNAVAILABLE,
        },
      },
      config: { badRequest: { error: 'invalid_conversion' } },
      // Before validation: a request without a valid key is a 401 whatever its body.
      preValidation: requireServingKey,
    },
    async (request) => service.record(callerOf(request), request.body),
  );
}

export const conversionRoutes = feature(conversions, { name: 'conversions', needs: ['config', 'now', 'repositories', 'authenticator'] });
