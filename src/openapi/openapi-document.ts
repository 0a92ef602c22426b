// What the published /openapi.json adds to what @fastify/swagger builds from the route schemas,
// so that generated clients get good names and types: an operationId per operation, the public
// shapes as named components referenced where they are used, and `security: []` on public
// operations. Booleans whose value the spec fixes (`serve` of a served offer and of a no-fill)
// are `const`, so that openapi-typescript's types narrow on `if (answer.serve)`.
// openapi-generator's Python client reads a boolean `const` (or one-value `enum`) as the string
// enum 'true' and refuses every real answer (7.26; its SIMPLIFY_BOOLEAN_ENUM normalizer does not
// help): `/openapi.json?booleans=plain` serves the same document with those as plain booleans,
// the value said in the description (`plainBooleanDocument`). Checked by Redocly in CI.
import { z } from 'zod';
import { Envelope } from '../decide/envelope.js';
import { AffiliateFillSchema, NoFillSchema, ServedOfferSchema } from '../decide/decide-schemas.js';
import { ErrorBodySchema } from '../http/error-body.js';
import { ImpressionEventRequest, ImpressionEventResponse } from '../events/event-schemas.js';
import { ConversionBatchRequest, ConversionBatchResponse, ConversionRequest, ConversionResponse } from '../conversions/conversion-schemas.js';
import { ClickIntentRequest, ClickIntentResponse } from '../affiliate/click-intent-schemas.js';
import { DecisionExplanationSchema, DecisionMetadataSchema } from '../decisions/decision-schemas.js';

/** Every operation's id: what a generated client names its method. */
export const OPERATION_IDS: Record<string, string> = {
  'GET /healthz': 'getLiveness',
  'GET /readyz': 'getReadiness',
  'GET /admin/reports': 'getReports',
  'POST /admin/apps': 'createApp',
  'GET /admin/apps': 'listApps',
  'POST /admin/apps/{id}/keys': 'createKey',
  'POST /admin/keys/{id}/revoke': 'revokeKey',
  'POST /admin/apps/{id}/conversion-secrets': 'rotateConversionSecret',
  'GET /admin/apps/{id}/brand-safety': 'getBrandSafety',
  'PUT /admin/apps/{id}/brand-safety': 'setBrandSafety',
  'GET /admin/campaigns/{id}/control': 'getCampaignControl',
  'PATCH /admin/campaigns/{id}/control': 'changeCampaignControl',
  'POST /admin/webhooks': 'createWebhookEndpoint',
  'GET /admin/webhooks': 'listWebhookEndpoints',
  'DELETE /admin/webhooks/{id}': 'removeWebhookEndpoint',
  'GET /admin/webhooks/{id}/deliveries': 'listWebhookDeliveries',
  'GET /admin/catalog': 'exportCatalog',
  'PUT /admin/catalog': 'importCatalog',
  'POST /admin/catalog/imports': 'startCatalogImport',
  'GET /admin/catalog/imports/{id}': 'getCatalogImport',
  'POST /v1/offers/decide': 'decide',
  'POST /v1/offers/affiliate': 'decideAffiliate',
  'POST /v1/events/rendered': 'recordRendered',
  'POST /v1/events/qualified-impression': 'recordQualifiedImpression',
  'POST /v1/events/impression': 'recordImpression',
  'POST /v1/events/conversion': 'recordConversion',
  'POST /v1/events/conversions/batch': 'recordConversionBatch',
  'GET /r/{token}': 'followTrackedLink',
  'HEAD /r/{token}': 'checkTrackedLink',
  'GET /v1/decisions/{id}': 'getDecision',
  'GET /v1/decisions/{id}/explanation': 'getDecisionExplanation',
  'GET /v1/reports': 'getHostReport',
  'POST /v1/events/click-intent': 'recordClickIntent',
  'GET /v1/reference/reason-codes': 'listReasonCodes',
  'GET /dashboard': 'getDashboard',
};

/** The public shapes, by the name generated clients give them. */
const COMPONENTS: Record<string, z.ZodType> = {
  Envelope,
  ServedOffer: ServedOfferSchema,
  NoFill: NoFillSchema,
  AffiliateFill: AffiliateFillSchema,
  ImpressionEvent: ImpressionEventRequest,
  ImpressionEventResult: ImpressionEventResponse,
  Conversion: ConversionRequest,
  ConversionResult: ConversionResponse,
  ConversionBatch: ConversionBatchRequest,
  ConversionBatchResult: ConversionBatchResponse,
  ClickIntent: ClickIntentRequest,
  ClickIntentResult: ClickIntentResponse,
  DecisionMetadata: DecisionMetadataSchema,
  DecisionExplanation: DecisionExplanationSchema,
  Error: ErrorBodySchema,
};

type Json = Record<string, any>;

function jsonSchema(schema: z.ZodType): Json {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Json;
  delete json.$schema;
  return json;
}

/** The document for generators that cannot read a boolean `const` (openapi-generator's Python
 *  client): every one-value boolean a plain `type: boolean`, its value said in its description. */
export function plainBooleanDocument(doc: Json): Json {
  const plain = structuredClone(doc);
  plainBooleans(plain);
  return plain;
}

/** A one-value boolean enum becomes a plain `type: boolean` whose description names the value,
 *  everywhere in a schema. */
function plainBooleans(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(plainBooleans);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const o = node as Json;
  const fixed = Array.isArray(o.enum) && o.enum.length === 1 && typeof o.enum[0] === 'boolean' ? o.enum[0] : typeof o.const === 'boolean' ? o.const : undefined;
  if (fixed !== undefined) {
    o.type = 'boolean';
    delete o.enum;
    delete o.const;
    const said = typeof o.description === 'string' ? o.description : '';
    if (!said.includes(String(fixed))) o.description = `${said} Always \`${fixed}\` here.`.trim();
  }
  for (const v of Object.values(o)) plainBooleans(v);
}

const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, val) =>
    val && typeof val === 'object' && !Array.isArray(val) ? Object.fromEntries(Object.entries(val).sort(([a], [b]) => (a < b ? -1 : 1))) : val,
  );

/** Replaces, under `node`, every schema equal to a component with a reference to it. */
function referenceComponents(node: unknown, byShape: Map<string, string>, depth = 0): unknown {
  if (Array.isArray(node)) return node.map((n) => referenceComponents(n, byShape, depth + 1));
  if (!node || typeof node !== 'object') return node;
  const name = depth > 0 ? byShape.get(canonical(node)) : undefined;
  if (name) return { $ref: `#/components/schemas/${name}` };
  return Object.fromEntries(Object.entries(node as Json).map(([k, v]) => [k, referenceComponents(v, byShape, depth + 1)]));
}

export function finishDocument(doc: Json): Json {
  doc.info = { ...doc.info, license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' } };
  const byShape = new Map<string, string>();
  doc.components = { ...doc.components, schemas: { ...(doc.components?.schemas ?? {}) } };
  for (const [name, schema] of Object.entries(COMPONENTS)) {
    const json = jsonSchema(schema);
    byShape.set(canonical(json), name);
    doc.components.schemas[name] = json;
  }
  for (const [path, item] of Object.entries(doc.paths ?? {}) as Array<[string, Json]>) {
    for (const [method, shared] of Object.entries(item) as Array<[string, Json]>) {
      if (!shared || typeof shared !== 'object' || !('responses' in shared)) continue;
      // GET and its HEAD share one object: each gets its own before it is named.
      const operation = structuredClone(shared);
      item[method] = operation;
      const key = `${method.toUpperCase()} ${path}`;
      const id = OPERATION_IDS[key];
      if (!id) throw new Error(`no operationId for ${key}: add it to OPERATION_IDS in src/openapi/openapi-document.ts`);
      operation.operationId = id;
      // Public operations say so; a missing `security` would inherit nothing and lint as an error.
      if (!operation.security) operation.security = [];
      // Media type schemas (one level below `content`) are where a component can stand.
      for (const section of [operation.requestBody, ...Object.values(operation.responses ?? {})] as Json[]) {
        for (const media of Object.values(section?.content ?? {}) as Json[]) {
          if (media?.schema) media.schema = (referenceComponents({ wrap: media.schema }, byShape) as Json).wrap;
        }
      }
    }
  }
  return doc;
}
