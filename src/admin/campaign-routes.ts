// Campaign control in the operator API: read and change a campaign's controls (pause, resume,
// budgets, end date; `follow_catalog` returns fields to the catalog) without importing the
// catalog. Registered inside the admin plugin, so its key check runs first. This instance reloads at once after a change; the others see the
// catalog version move at their next poll (CATALOG_POLL_MS) and reload too.
import type { FastifyInstance } from 'fastify';
import { paramsSchema, requestBody, response } from '../http/openapi.js';
import { ADMIN_KEY_ERRORS, BODY_ERRORS, badRequest, errorResponse } from '../http/error-responses.js';
import { CampaignControl, CampaignControlBody, CampaignIdParam } from './admin-schemas.js';
import { ADMIN_EXAMPLES as EX } from './admin-examples.js';
import { CampaignControls } from '../campaigns/campaign-controls.js';
import type { ZodSchemas } from '../http/validation.js';

const tags = ['admin'];
const security = [{ adminKey: [] }];
const UNKNOWN_CAMPAIGN = {
  404: errorResponse('No campaign with this id (archived ones are found too).', [{ error: 'not_found', summary: 'Unknown campaign · 알 수 없는 캠페인' }]),
};
const INVALID_ID = {
  400: badRequest('invalid_request', 'The id is not a catalog id.', [
    { name: 'invalid_id', summary: 'Malformed id · 잘못된 id 형식', extra: { message: 'params failed validation: id' } },
  ]),
};
const INVALID_CHANGE = {
  400: badRequest('invalid_request', 'The body or the id failed validation, or the change contradicts itself or the campaign.', [
    { name: 'invalid_body', summary: 'Body failed validation · 본문 검증 실패', extra: { message: 'body failed validation: budget.daily_micros' } },
    {
      name: 'ends_before_start',
      summary: 'Ends before it starts · 시작 전에 종료',
      extra: { message: 'ends_at must be after the campaign starts (starts_at)' },
    },
    {
      name: 'set_and_followed',
      summary: 'A field both set and returned to the catalog · 설정과 카탈로그 복귀를 동시에 요청',
      extra: { message: 'a field is both set and returned to the catalog' },
    },
  ]),
};

export async function campaignRoutes(plain: FastifyInstance) {
  const app = plain.withTypeProvider<ZodSchemas>();
  // The change is committed by then: a reload that fails here leaves it to the next poll, and the
  // answer still says what was stored.
  const controls = new CampaignControls(
    app.repositories.catalog,
    () =>
      app.catalogRuntime
        .reload()
        .catch((err) => app.log.warn({ err: { type: (err as Error).name } }, 'campaign control stored, but this instance could not reload it yet')),
    app.notifications,
  );
  const params = paramsSchema(CampaignIdParam);
  const bad = { badRequest: { error: 'invalid_request' as const } };

  app.get(
    '/campaigns/:id/control',
    {
      schema: {
        tags,
        security,
        summary: "A campaign's controls, its values as they serve and as the catalog has them, and its recent changes",
        params,
        response: { 200: response(CampaignControl, 'The campaign.', EX.campaignControl), ...INVALID_ID, ...ADMIN_KEY_ERRORS, ...UNKNOWN_CAMPAIGN },
      },
    },
    async (req) => controls.read(req.params.id),
  );

  app.patch(
    '/campaigns/:id/control',
    {
      schema: {
        tags,
        security,
        summary: 'Pause or resume a campaign, or change its budgets or end date; every instance serves the change within about two seconds',
        params,
        body: requestBody(CampaignControlBody, EX.campaignControlRequest),
        response: {
          200: response(CampaignControl, 'The campaign as it now serves.', EX.campaignControl),
          ...INVALID_CHANGE,
          ...ADMIN_KEY_ERRORS,
          ...UNKNOWN_CAMPAIGN,
          ...BODY_ERRORS,
        },
      },
      config: bad,
    },
    async (req) => {
      const { changed_by, ...patch } = req.body;
      return controls.change(req.params.id, patch, { changedBy: changed_by?.trim() ?? 'admin API', channel: 'admin_api' });
    },
  );
}
