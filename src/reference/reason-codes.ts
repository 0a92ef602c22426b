// Every reason code and error string the service can answer with, what it means, and whether
// and when a host should try again. Served as JSON at /v1/reference/reason-codes and rendered
// into docs/reason-codes.md; a test keeps this list equal to what the code can emit.
export interface ReferenceEntry {
  code: string;
  kind: 'reason_code' | 'error';
  /** HTTP status it comes with. */
  status: number;
  endpoints: string[];
  meaning: string;
  /** Whether the same request may succeed later. */
  retry: boolean;
  /** How long to wait first, when there is a fixed answer; responses may carry a precise value. */
  retry_after_seconds: number | null;
}

const DECIDE = ['POST /v1/offers/decide', 'POST /v1/offers/affiliate'];
const EVENTS = ['POST /v1/events/rendered', 'POST /v1/events/qualified-impression', 'POST /v1/events/impression'];
const CONVERSION = ['POST /v1/events/conversion'];
const SERVING = [...DECIDE, ...EVENTS, ...CONVERSION, 'GET /v1/decisions/{id}', 'GET /v1/decisions/{id}/explanation'];

export const REFERENCE: ReferenceEntry[] = [
  { code: 'MATCHED', kind: 'reason_code', status: 200, endpoints: DECIDE, meaning: 'An eligible offer was returned.', retry: false, retry_after_seconds: null },
  { code: 'POLICY_BLOCK', kind: 'reason_code', status: 200, endpoints: DECIDE, meaning: 'Audience (age band not 18_plus, consent not true), digest safety (unknown or blocked) or a sensitive topic in the message did not allow a serve.', retry: false, retry_after_seconds: null },
  { code: 'CAPABILITY_UNMET', kind: 'reason_code', status: 200, endpoints: DECIDE, meaning: 'native_surface.clickable or native_surface.disclosure_capable was false.', retry: false, retry_after_seconds: null },
  { code: 'LOCALE_NOT_LIVE', kind: 'reason_code', status: 200, endpoints: DECIDE, meaning: "The locale's primary language is not ko or en, or no locale was sent.", retry: false, retry_after_seconds: null },
  { code: 'LOW_INTENT', kind: 'reason_code', status: 200, endpoints: DECIDE, meaning: 'No evidence of commercial intent: no purchase or compare cue in the message and no fresh digest saying purchase or compare (or the digest says low), whatever topics the turn names.', retry: false, retry_after_seconds: null },
  { code: 'NO_ELIGIBLE_OFFER', kind: 'reason_code', status: 200, endpoints: DECIDE, meaning: 'No live offer matches the signals, locale, country, budget bucket and exclusions.', retry: false, retry_after_seconds: null },
  { code: 'FREQUENCY_CAPPED', kind: 'reason_code', status: 200, endpoints: DECIDE, meaning: "This session token has seen the matching campaigns' offers as often as their caps allow.", retry: true, retry_after_seconds: null },
  { code: 'BUDGET_EXHAUSTED', kind: 'reason_code', status: 200, endpoints: DECIDE, meaning: "The matching campaigns' daily or total budget is spent. retry_after_seconds is the time to the daily reset, or 3600 for a lifetime budget.", retry: true, retry_after_seconds: null },
  { code: 'TIMEOUT', kind: 'reason_code', status: 200, endpoints: DECIDE, meaning: 'The handler time budget was exceeded or a dependency failed; the answer fails open.', retry: true, retry_after_seconds: 2 },
  { code: 'INVALID_ENVELOPE', kind: 'error', status: 400, endpoints: DECIDE, meaning: 'The envelope failed schema or unknown-field validation; `issues` names the fields.', retry: false, retry_after_seconds: null },
  { code: 'FORBIDDEN_IDENTITY_FIELD', kind: 'error', status: 400, endpoints: DECIDE, meaning: 'A forbidden identity or placement key was present; `paths` names where.', retry: false, retry_after_seconds: null },
  { code: 'rate_limited', kind: 'error', status: 429, endpoints: [...DECIDE, 'POST /v1/events/click-intent'], meaning: 'Too many requests from this client IP; see the retry-after header.', retry: true, retry_after_seconds: 60 },
  { code: 'missing_api_key', kind: 'error', status: 401, endpoints: SERVING, meaning: 'No Authorization header.', retry: false, retry_after_seconds: null },
  { code: 'invalid_api_key', kind: 'error', status: 401, endpoints: SERVING, meaning: 'The Authorization header is malformed or the key is unknown.', retry: false, retry_after_seconds: null },
  { code: 'revoked_api_key', kind: 'error', status: 401, endpoints: SERVING, meaning: 'The key was revoked.', retry: false, retry_after_seconds: null },
  { code: 'setup_token_not_allowed', kind: 'error', status: 401, endpoints: SERVING, meaning: 'A setup token (st_…) was used where a serving key is required.', retry: false, retry_after_seconds: null },
  { code: 'invalid_event', kind: 'error', status: 400, endpoints: EVENTS, meaning: 'The impression event failed validation (body, Idempotency-Key, or path/type mismatch).', retry: false, retry_after_seconds: null },
  { code: 'unknown_snapshot', kind: 'error', status: 404, endpoints: [...EVENTS, ...CONVERSION], meaning: "Unknown offer_snapshot_id, or the decision_id is not this app's decision that served it.", retry: false, retry_after_seconds: null },
  { code: 'idempotency_key_reused', kind: 'error', status: 422, endpoints: EVENTS, meaning: 'The idempotency key was already used with a different event.', retry: false, retry_after_seconds: null },
  { code: 'invalid_conversion', kind: 'error', status: 400, endpoints: CONVERSION, meaning: 'The conversion failed validation, or its nonce was already used with other content.', retry: false, retry_after_seconds: null },
  { code: 'expired_conversion', kind: 'error', status: 400, endpoints: CONVERSION, meaning: "The timestamp is more than 300 s from the server's clock, or the decision is older than the attribution window.", retry: false, retry_after_seconds: null },
  { code: 'invalid_signature', kind: 'error', status: 401, endpoints: CONVERSION, meaning: "The signature does not verify with any of the app's active conversion secrets.", retry: false, retry_after_seconds: null },
  { code: 'unknown_impression', kind: 'error', status: 404, endpoints: ['POST /v1/events/click-intent'], meaning: 'Unknown or expired impression token.', retry: false, retry_after_seconds: null },
  { code: 'invalid_click_intent', kind: 'error', status: 400, endpoints: ['POST /v1/events/click-intent'], meaning: 'The click intent failed validation.', retry: false, retry_after_seconds: null },
  { code: 'invalid_link', kind: 'error', status: 400, endpoints: ['GET /r/{token}'], meaning: 'The tracked-link token is tampered, truncated or malformed, or a legacy v1 link past its expiry.', retry: false, retry_after_seconds: null },
  { code: 'invalid_destination', kind: 'error', status: 400, endpoints: ['GET /r/{token}'], meaning: "The destination is no longer on the advertiser's allowlist.", retry: false, retry_after_seconds: null },
  { code: 'not_found', kind: 'error', status: 404, endpoints: ['GET /v1/decisions/{id}', 'GET /v1/decisions/{id}/explanation', '(any unknown path)'], meaning: "Unknown decision, another app's decision, or an unknown path.", retry: false, retry_after_seconds: null },
  { code: 'service_unavailable', kind: 'error', status: 503, endpoints: [...EVENTS, ...CONVERSION, 'GET /v1/decisions/{id}', 'POST /v1/events/click-intent'], meaning: 'The database could not be reached; nothing was written. Retry after the retry-after header.', retry: true, retry_after_seconds: 5 },
  { code: 'invalid_request', kind: 'error', status: 400, endpoints: ['(admin API)', '(any endpoint without its own name)'], meaning: 'The request failed validation.', retry: false, retry_after_seconds: null },
  { code: 'method_not_allowed', kind: 'error', status: 405, endpoints: ['(any known path)'], meaning: 'The path exists but does not take this method; the Allow header lists the ones it does.', retry: false, retry_after_seconds: null },
  { code: 'uri_too_long', kind: 'error', status: 414, endpoints: ['(any endpoint with a path parameter)'], meaning: 'A path parameter is longer than any valid value (8,192 characters).', retry: false, retry_after_seconds: null },
  { code: 'headers_too_large', kind: 'error', status: 431, endpoints: ['(any endpoint)'], meaning: "The request headers exceed Node's limit (16 KiB); answered before routing, and the connection is closed.", retry: false, retry_after_seconds: null },
  { code: 'request_timeout', kind: 'error', status: 408, endpoints: ['(any endpoint)'], meaning: 'The request was not received in full within 30 s; the connection is closed.', retry: true, retry_after_seconds: null },
  { code: 'payload_too_large', kind: 'error', status: 413, endpoints: ['(any endpoint)'], meaning: 'The body is larger than BODY_LIMIT_BYTES.', retry: false, retry_after_seconds: null },
  { code: 'unsupported_media_type', kind: 'error', status: 415, endpoints: ['(any endpoint)'], meaning: 'The body is not application/json.', retry: false, retry_after_seconds: null },
  { code: 'internal_error', kind: 'error', status: 500, endpoints: ['(any endpoint)'], meaning: 'A bug. Never expected; report it with the x-request-id header.', retry: true, retry_after_seconds: 5 },
  { code: 'invalid_admin_key', kind: 'error', status: 401, endpoints: ['(admin API)'], meaning: 'The admin key is missing or wrong.', retry: false, retry_after_seconds: null },
  { code: 'invalid_metrics_token', kind: 'error', status: 401, endpoints: ['GET /metrics (API port, with METRICS_TOKEN set)'], meaning: 'The metrics token is missing or wrong.', retry: false, retry_after_seconds: null },
  { code: 'invalid_catalog', kind: 'error', status: 400, endpoints: ['PUT /admin/catalog'], meaning: 'The catalog failed validation; `problems` names each field.', retry: false, retry_after_seconds: null },
];

export function renderReferenceMarkdown(): string {
  const rows = REFERENCE.map(
    (e) =>
      `| \`${e.code}\` | ${e.kind === 'reason_code' ? 'reason code' : 'error'} | ${e.status} | ${e.meaning.replaceAll('|', '\\|')} | ${e.retry ? `yes${e.retry_after_seconds ? `, after ${e.retry_after_seconds} s` : ', after `retry_after_seconds`'}` : 'no'} | ${e.endpoints.join('<br>')} |`,
  );
  return [
    '# Reason codes and errors',
    '',
    'Generated from `src/reference/reason-codes.ts` (`npm run docs:reference`); also served as JSON at `GET /v1/reference/reason-codes`.',
    'A no-fill is a normal 200 answer: show nothing. Retry guidance is for the same request; a new user turn is always a new request.',
    '',
    '| Code | Kind | HTTP | Meaning | Retry | Endpoints |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
