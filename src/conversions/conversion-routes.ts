// POST /v1/events/conversion, and a batch of them: POST /v1/events/conversions/batch.
import type { FastifyInstance } from 'fastify';
import { callerOf, requireServingKey } from '../auth/require-serving-key.js';
import type { ZodSchemas } from '../http/validation.js';
import { requestBody, response } from '../http/openapi.js';
import { BODY_ERRORS, UNAVAILABLE, errorResponse } from '../http/error-responses.js';
import { ConversionBatchRequest, ConversionBatchResponse, ConversionRequest, ConversionResponse, MAX_BATCH_CONVERSIONS } from './conversion-schemas.js';
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
    app.writers.conversions,
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

  routes.post(
    '/v1/events/conversions/batch',
    {
      // A thousand signed conversions are a few hundred kilobytes.
      bodyLimit: Math.max(config.bodyLimitBytes, BATCH_BODY_LIMIT_BYTES),
      schema: {
        tags: ['events'],
        summary: 'Record a batch of signed conversions',
        description: `Up to ${MAX_BATCH_CONVERSIONS.toLocaleString('en-US')} conversions as an advertiser's back end sends them, late and in bulk: each is checked and recorded on its own, exactly as \`POST /v1/events/conversion\` would, and answered in its own result; one that is refused never holds the others back. A batch that a store failed (503) can be sent again whole: what was recorded answers \`duplicate\`.`,
        security: [{ servingKey: [] }],
        body: requestBody(ConversionBatchRequest, {
          late: {
            summary: "Yesterday's orders, sent today · 어제 주문을 오늘 전송",
            value: { conversions: [{ ...EXAMPLE, event_time: EXAMPLE.timestamp - 86_400, order_id: 'order-20261121-0042' }] },
          },
        }),
        response: {
          200: response(ConversionBatchResponse, 'Every conversion was checked; each result says what happened to it.', {
            mixed: {
              summary: 'Recorded, duplicate and refused · 기록, 중복, 거부',
              value: {
                ok: true,
                inserted: 1,
                duplicates: 1,
                invalid: 1,
                results: [
                  { index: 0, status: 'inserted', conversion_id: RECORDED.conversion_id },
                  { index: 1, status: 'duplicate', conversion_id: 'cnv_9Zx8Cv7Bn6Mm5Ll4Kk3Jj2' },
                  { index: 2, status: 'invalid', error: 'invalid_signature' },
                ],
              },
            },
          }),
          400: errorResponse(`\`invalid_conversion\`: the body is not an object with 1 to ${MAX_BATCH_CONVERSIONS} conversions.`, [
            {
              name: 'invalid_body',
              error: 'invalid_conversion',
              summary: 'Body failed validation · 본문 검증 실패',
              extra: { message: 'body failed validation: conversions' },
            },
          ]),
          401: errorResponse('Authentication failure.', [
            { error: 'missing_api_key' },
            { error: 'invalid_api_key' },
            { error: 'revoked_api_key' },
            { error: 'setup_token_not_allowed' },
          ]),
          ...BODY_ERRORS,
          ...UNAVAILABLE,
        },
      },
      config: { badRequest: { error: 'invalid_conversion' } },
      preValidation: requireServingKey,
    },
    async (request) => {
      const results = await service.recordBatch(callerOf(request), request.body.conversions);
      const count = (status: string) => results.filter((r) => r.status === status).length;
      return { ok: true as const, inserted: count('inserted'), duplicates: count('duplicate'), invalid: count('invalid'), results };
    },
  );
}

const BATCH_BODY_LIMIT_BYTES = 2 * 1024 * 1024;

export const conversionRoutes = feature(conversions, { name: 'conversions', needs: ['config', 'now', 'repositories', 'writers', 'authenticator'] });
