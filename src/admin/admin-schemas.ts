// Request and response shapes of the operator API (README "Apps, keys and the catalog").
import { z } from 'zod';
import { storedText } from '../http/text.js';
import { ErrorBodySchema } from '../http/error-body.js';
import { CatalogId } from '../catalog/catalog-schema.js';
import { CONTROLLED_FIELDS } from '../campaigns/campaign-controls.js';
import { EVENT_TYPES } from '../webhooks/notifications.js';

// Blank means only whitespace as JavaScript's trim() and Python's `\s` both count it, so the
// document and the code agree on every character.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the whitespace set names control characters on purpose
const NOT_BLANK = /[^\t\n\v\f\r \u001c-\u001f\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;

export const CreateAppBody = z
  .strictObject({
    name: storedText(1, 120).regex(NOT_BLANK, 'must not be blank').describe('Display name of the host app, 1 to 120 characters, not blank; stored trimmed.'),
  })
  .describe('A new host app.');

export const CreateKeyBody = z
  .strictObject({
    kind: z.enum(['serving', 'setup']).default('serving').describe('`serving` (sk_…) or `setup` (st_…, refused by every serving endpoint).'),
    mode: z.enum(['live', 'test']).default('live').describe('`live` or `test` (test traffic is stored but never counted).'),
  })
  .describe('A new key for the app; both fields optional.');

export const AdminIdParam = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z]{3,4}_[A-Za-z0-9]{1,64}$/)
    .describe('An app id (`app_…`) or key id (`key_…`); anything else is 400 `invalid_request`.'),
});

const KeyRecord = z
  .strictObject({
    id: z.string().describe('Key id (`key_…`).'),
    app_id: z.string().describe('The app it belongs to.'),
    kind: z.enum(['serving', 'setup']).describe('Serving key or setup token.'),
    mode: z.enum(['live', 'test']).describe('Live or test.'),
    hint: z.string().describe('The first characters of the key, to recognise it; the key itself is never shown again.'),
    created_at: z.string().describe('ISO creation time.'),
    revoked_at: z.string().nullable().describe('ISO revocation time, null while active.'),
  })
  .describe('A key, without its secret.');

export const CreatedApp = z
  .strictObject({
    app_id: z.string().describe('App id (`app_…`).'),
    name: z.string().describe('Display name.'),
    serving_key: z.string().describe('Live serving key (`sk_live_…`). Shown once; only its hash is stored.'),
    serving_key_id: z.string().describe('Id of the live key, for revocation.'),
    test_key: z.string().describe('Test serving key (`sk_test_…`). Shown once.'),
    test_key_id: z.string().describe('Id of the test key.'),
    conversion_secret: z.string().describe('Conversion signing secret (`whsec_…`). Shown once.'),
    conversion_secret_id: z.string().describe('Id of the secret.'),
  })
  .describe('The new app with its keys and conversion secret, shown once.');

export const AppList = z
  .strictObject({
    apps: z
      .array(
        z
          .strictObject({
            id: z.string().describe('App id.'),
            name: z.string().describe('Display name.'),
            created_at: z.string().describe('ISO creation time.'),
            keys: z.array(KeyRecord).describe('Its keys, revoked ones included.'),
            active_conversion_secrets: z.int().describe('Active conversion signing secrets (at most two).'),
          })
          .describe('An app.'),
      )
      .describe('Every app.'),
  })
  .describe('The apps.');

export const CreatedKey = z
  .strictObject({
    id: z.string().describe('Key id (`key_…`).'),
    key: z.string().describe('The key (`sk_live_…`, `sk_test_…` or `st_…`). Shown once.'),
  })
  .describe('The new key, shown once.');

export const RevokedKey = KeyRecord.describe('The revoked key; refused on every instance within a second.');

export const RotatedSecret = z
  .strictObject({
    id: z.string().describe('Id of the new secret.'),
    secret: z.string().describe('The new conversion signing secret. Shown once.'),
    retired: z.array(z.string()).describe('Ids of secrets retired to keep at most two active.'),
  })
  .describe('The new conversion signing secret.');

export const ImportReport = z
  .strictObject({
    changed: z.boolean().describe('false when the catalog is identical to the one already imported.'),
    version: z.int().describe('Catalog version now serving.'),
    snapshots_created: z.int().describe('New offer snapshots (changed or new offers).'),
    offers: z.int().describe('Offers in the catalog.'),
    offers_archived: z.int().describe('Offers no longer in the catalog.'),
    campaigns: z.int().describe('Campaigns in the catalog.'),
    advertisers: z.int().describe('Advertisers in the catalog.'),
  })
  .describe('What the import changed.');

export const ImportJobIdParam = z.strictObject({
  id: z
    .string()
    .regex(/^imp_[A-Za-z0-9]{1,64}$/)
    .describe('An import job id (`imp_…`); anything else is 400 `invalid_request`.'),
});

export const ImportJob = z
  .strictObject({
    id: z.string().describe('Job id (`imp_…`).'),
    state: z
      .enum(['queued', 'validating', 'writing', 'succeeded', 'failed'])
      .describe(
        '`queued` (stored, about to start), `validating` (reading and checking the file), `writing` (in one transaction), then `succeeded` or `failed`.',
      ),
    created_at: z.string().describe('ISO time the upload was accepted.'),
    started_at: z.string().nullable().describe('ISO time it started reading the file.'),
    validated_at: z.string().nullable().describe('ISO time the file passed its checks and writing began.'),
    finished_at: z.string().nullable().describe('ISO time it succeeded or failed; null while it runs.'),
    updated_at: z.string().describe('ISO time of the last change to this record (progress is recorded about every 250 ms).'),
    progress: z
      .strictObject({
        bytes_total: z.int().describe('Size of the uploaded file.'),
        bytes_read: z.int().describe('Bytes read and parsed so far.'),
        offers_read: z.int().describe('Offers read (and their schema checked) so far.'),
        offers_checked: z.int().describe('Offers whose references were checked so far.'),
        offers_total: z.int().nullable().describe('Offers in the catalog, known once the file passed its checks.'),
        offers_written: z.int().describe('Offers written so far (they become visible together, when the job succeeds).'),
      })
      .describe('How far it got.'),
    report: ImportReport.nullable().describe('What the import changed, once it succeeded.'),
    error: ErrorBodySchema.nullable().describe(
      'Why it failed, as an error body: `invalid_catalog` with every `problems` line (schema problems, then references), `invalid_request` (not JSON), `import_interrupted` (the instance running it stopped), `service_unavailable` or `internal_error`. Nothing of a failed import was written.',
    ),
  })
  .describe('A catalog import job.');

// Up to 500 catalog ids; duplicates are dropped and the list is stored sorted.
const ExcludedIds = z.array(CatalogId).max(500);

export const BrandSafetyBody = z
  .strictObject({
    blocked_category_ids: ExcludedIds.describe(
      'Offers in these categories, or in any category below one (blocking `travel` blocks `travel.hotels`), never serve beside this app. At most 500.',
    ),
    blocked_advertiser_ids: ExcludedIds.describe("No offer of these advertisers serves beside this app (a competitor's, say). At most 500."),
  })
  .describe("The app's brand-safety exclusions; both lists replace the ones stored (send `[]` to clear one).");

export const BrandSafety = z
  .strictObject({
    app_id: z.string().describe('The app.'),
    blocked_category_ids: z.array(z.string()).describe('Excluded categories (and everything below them), sorted.'),
    blocked_advertiser_ids: z.array(z.string()).describe('Excluded advertisers, sorted.'),
    updated_at: z.string().nullable().describe('ISO time of the last change; null when never set.'),
    not_in_catalog: z
      .strictObject({
        category_ids: z.array(z.string()).describe('Excluded category ids the live catalog has no category for.'),
        advertiser_ids: z.array(z.string()).describe('Excluded advertiser ids the live catalog has no advertiser for.'),
      })
      .describe(
        'Ids the live catalog does not know: kept (they take effect once a catalog that has them is imported), and listed here so a typo is seen at once.',
      ),
  })
  .describe("An app's brand-safety exclusions, applied in every decide's eligibility within about a second of a change on every instance.");

export const CampaignIdParam = z.strictObject({
  id: CatalogId.describe("A campaign's catalog id; anything else is 400 `invalid_request`."),
});

const Micros = z.int().min(0).max(Number.MAX_SAFE_INTEGER);
const IsoTime = z.iso.datetime({ offset: true });

const CampaignSettings = z.strictObject({
  status: z.enum(['active', 'paused', 'ended']).describe('Only `active` serves.'),
  budget: z
    .strictObject({
      total_micros: z.number().describe('Lifetime budget in micro-units.'),
      daily_micros: z.number().describe('Daily budget in micro-units.'),
    })
    .describe('Spend limits.'),
  ends_at: z.string().nullable().describe('ISO time it stops serving; null for never.'),
});

export const CampaignControlBody = z
  .strictObject({
    status: z.enum(['active', 'paused']).optional().describe('`paused` stops its serves; `active` resumes it (even one the catalog pauses).'),
    budget: z
      .strictObject({
        total_micros: Micros.optional().describe('Lifetime budget in micro-units. Spend already made stays: below it, the campaign is exhausted.'),
        daily_micros: Micros.optional().describe("Daily budget in micro-units, from today's spend on."),
      })
      .optional()
      .describe('Budgets to set; an absent one keeps its current value.'),
    ends_at: IsoTime.nullable().optional().describe('ISO time with offset it stops serving (a past time ends it now); null: never ends.'),
    follow_catalog: z
      .array(z.enum(CONTROLLED_FIELDS))
      .max(4)
      .optional()
      .describe("Fields that follow the catalog's value again (the control of each is dropped)."),
    changed_by: storedText(1, 120)
      .regex(NOT_BLANK, 'must not be blank')
      .optional()
      .describe('Who makes the change, as recorded with it (the admin key does not name a person); default `admin API`.'),
  })
  .describe("A change to a campaign's controls; absent fields keep theirs. Takes effect on every instance within about two seconds.");

export const CampaignControl = z
  .strictObject({
    campaign_id: z.string().describe('The campaign.'),
    archived: z.boolean().describe('The last import left it out: it does not serve, whatever its controls say.'),
    effective: CampaignSettings.describe('What serves: the catalog overlaid with the controls.'),
    catalog: CampaignSettings.describe("The catalog's own values, as last imported."),
    overrides: z
      .strictObject({
        status: z.enum(['active', 'paused']).optional().describe('Set by a control: `paused` or `active`.'),
        budget: z
          .strictObject({
            total_micros: z.number().optional().describe('Lifetime budget set by a control.'),
            daily_micros: z.number().optional().describe('Daily budget set by a control.'),
          })
          .optional()
          .describe('Budgets set by a control.'),
        ends_at: z.string().nullable().optional().describe('End date set by a control; null: never ends.'),
      })
      .describe('The fields the controls set; they outlive imports until returned to the catalog.'),
    updated_at: z.string().nullable().describe('ISO time of the last change; null when no control is set.'),
    changes: z
      .array(
        z.strictObject({
          changed_at: z.string().describe('ISO time.'),
          changed_by: z.string().describe('Who, as the change named itself.'),
          channel: z.enum(['admin_api', 'cli']).describe('Through what.'),
          before: CampaignSettings.describe('Effective values before.'),
          after: CampaignSettings.describe('Effective values after.'),
        }),
      )
      .describe('The last 20 changes, newest first.'),
  })
  .describe("A campaign's controls, its effective values and its recent changes.");

// --- signed notifications (webhooks) -------------------------------------------------------------

export const WebhookIdParam = z.strictObject({
  id: z
    .string()
    .regex(/^whk_[A-Za-z0-9]{1,64}$/)
    .describe('A webhook endpoint id (`whk_…`); anything else is 400 `invalid_request`.'),
});

const EventType = z.enum(EVENT_TYPES);

export const CreateWebhookBody = z
  .strictObject({
    url: storedText(1, 2048).describe(
      'Where deliveries are POSTed: http or https, no credentials in it. Refused when its host is or resolves to a loopback, private, link-local or reserved address (unless WEBHOOK_ALLOW_PRIVATE_TARGETS is set).',
    ),
    event_types: z.array(EventType).min(1).max(EVENT_TYPES.length).describe('The events delivered to it, each at most once.'),
    description: storedText(0, 200).optional().describe("The operator's note, up to 200 characters."),
  })
  .refine((b) => new Set(b.event_types).size === b.event_types.length, { message: 'event_types must not repeat', path: ['event_types'] })
  .describe('A new webhook endpoint.');

export const WebhookEndpoint = z
  .strictObject({
    id: z.string().describe('Endpoint id (`whk_…`).'),
    url: z.string().describe('Where deliveries go.'),
    event_types: z.array(EventType).describe('The events delivered to it.'),
    description: z.string().describe("The operator's note."),
    created_at: z.string().describe('ISO time it was added.'),
  })
  .describe('A webhook endpoint (its secret is shown only when it is created).');

export const CreatedWebhookEndpoint = WebhookEndpoint.extend({
  secret: z.string().describe('The signing secret (`whsec_…`), shown this once: verify `webhook-signature` with it (HMAC-SHA256, Standard Webhooks).'),
}).describe('The new endpoint and its signing secret.');

export const WebhookEndpointList = z.strictObject({ endpoints: z.array(WebhookEndpoint).describe('Every endpoint not removed, oldest first.') });

export const WebhookDeliveries = z
  .strictObject({
    endpoint_id: z.string().describe('The endpoint.'),
    deliveries: z
      .array(
        z.strictObject({
          id: z.string().describe('The `webhook-id` header of every attempt (`msg_…`).'),
          event_type: EventType.describe('What happened.'),
          created_at: z.string().describe('ISO time the event was enqueued.'),
          attempts: z.int().describe('Attempts so far.'),
          last_attempt_at: z.string().nullable().describe('ISO time of the latest attempt.'),
          last_status: z.int().nullable().describe("The receiver's HTTP status at the latest attempt; null when it did not answer."),
          last_error: z
            .string()
            .nullable()
            .describe('Why the latest attempt failed (`status 503`, `timeout`, `connection refused`, `unsafe target` …); null once delivered.'),
          next_attempt_at: z.string().nullable().describe('ISO time of the next attempt while pending; null once delivered or failed.'),
          delivered_at: z.string().nullable().describe('ISO time a 2xx answered it.'),
          failed_at: z.string().nullable().describe('ISO time it was given up (its retries spent, or the endpoint removed).'),
        }),
      )
      .describe('Its latest deliveries, newest first (at most 100).'),
  })
  .describe("An endpoint's recent deliveries and their attempts.");
