// The error vocabulary of the API, in one place: every `error` string an error body can carry
// and the HTTP status it comes with, what it means and whether to retry. The error
// handler takes statuses from here (src/http/errors.ts), the reason-code reference and
// docs/reason-codes.md are generated from it (src/reference/), and the OpenAPI error examples
// take their summaries from it. Domain code names an error by its code and never by a status.
//
// Adding an error: one entry here, its use, and its test.

const DECIDE = ['POST /v1/offers/decide', 'POST /v1/offers/affiliate'];
const EVENTS = ['POST /v1/events/rendered', 'POST /v1/events/qualified-impression', 'POST /v1/events/impression'];
const CONVERSION = ['POST /v1/events/conversion', 'POST /v1/events/conversions/batch'];
const CLICK_INTENT = ['POST /v1/events/click-intent'];
const DECISION_LOOKUPS = ['GET /v1/decisions/{id}', 'GET /v1/decisions/{id}/explanation'];
const HOST_REPORT = ['GET /v1/reports'];
const SERVING = [...DECIDE, ...EVENTS, ...CONVERSION, ...DECISION_LOOKUPS, ...HOST_REPORT];

/** How long a host should wait before retrying when a store is down (503). */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

export interface ErrorSpec {
  /** HTTP status it comes with. */
  status: number;
  endpoints: readonly string[];
  /** What it means, in English (the reference). */
  meaning: string;
  /** One line in English · Korean (OpenAPI examples). */
  summary: string;
  /** Whether the same request may succeed later. */
  retry: boolean;
  /** How long to wait first, when there is a fixed answer; responses may carry a precise value. */
  retry_after_seconds: number | null;
}

const fatal = { retry: false, retry_after_seconds: null } as const;

export const ERRORS = {
  INVALID_ENVELOPE: {
    status: 400,
    endpoints: DECIDE,
    meaning: 'The envelope failed schema or unknown-field validation; `issues` names the fields.',
    summary: 'Envelope failed validation · 요청 봉투 검증 실패',
    ...fatal,
  },
  FORBIDDEN_IDENTITY_FIELD: {
    status: 400,
    endpoints: DECIDE,
    meaning: 'A forbidden identity or placement key was present; `paths` names where.',
    summary: 'Forbidden identity field · 금지된 식별 필드',
    ...fatal,
  },
  rate_limited: {
    status: 429,
    endpoints: [...DECIDE, ...CLICK_INTENT],
    meaning:
      'Too many requests from this client address (an IPv6 address counts by its /64), per calling app; or too many without a valid serving key from it. See the retry-after header.',
    summary: 'Rate limit exceeded · 요청 한도 초과',
    retry: true,
    retry_after_seconds: 60,
  },
  missing_api_key: {
    status: 401,
    endpoints: SERVING,
    meaning: 'No Authorization header.',
    summary: 'No Authorization header · Authorization 헤더 없음',
    ...fatal,
  },
  invalid_api_key: {
    status: 401,
    endpoints: SERVING,
    meaning: 'The Authorization header is malformed or the key is unknown.',
    summary: 'Malformed or unknown key · 형식이 틀리거나 알 수 없는 키',
    ...fatal,
  },
  revoked_api_key: { status: 401, endpoints: SERVING, meaning: 'The key was revoked.', summary: 'Revoked key · 폐기된 키', ...fatal },
  setup_token_not_allowed: {
    status: 401,
    endpoints: SERVING,
    meaning: 'A setup token (st_…) was used where a serving key is required.',
    summary: 'Setup token instead of a serving key · 서빙 키 대신 설정 토큰 사용',
    ...fatal,
  },
  invalid_event: {
    status: 400,
    endpoints: EVENTS,
    meaning: 'The impression event failed validation (body, Idempotency-Key, or path/type mismatch).',
    summary: 'Event failed validation · 이벤트 검증 실패',
    ...fatal,
  },
  unknown_snapshot: {
    status: 404,
    endpoints: [...EVENTS, ...CONVERSION],
    meaning: "Unknown offer_snapshot_id, or the decision_id is not this app's decision that served it.",
    summary: 'Unknown snapshot · 알 수 없는 스냅샷',
    ...fatal,
  },
  idempotency_key_reused: {
    status: 422,
    endpoints: EVENTS,
    meaning: 'The idempotency key was already used with a different event.',
    summary: 'Key reused with another body · 다른 본문에 같은 키 재사용',
    ...fatal,
  },
  invalid_conversion: {
    status: 400,
    endpoints: CONVERSION,
    meaning: 'The conversion failed validation, its nonce was already used with other content, or its event_time is in the future or before its decision.',
    summary: 'Conversion failed validation · 전환 검증 실패',
    ...fatal,
  },
  expired_conversion: {
    status: 400,
    endpoints: CONVERSION,
    meaning:
      "The timestamp is more than 300 s from the server's clock, or the conversion happened (event_time, else now) past the attribution window after its decision.",
    summary: 'Timestamp too far from server time · 타임스탬프가 서버 시간과 너무 다름',
    ...fatal,
  },
  invalid_signature: {
    status: 401,
    endpoints: CONVERSION,
    meaning: "The signature does not verify with any of the app's active conversion secrets.",
    summary: 'Signature does not verify · 서명 불일치',
    ...fatal,
  },
  unknown_impression: {
    status: 404,
    endpoints: CLICK_INTENT,
    meaning: 'Unknown or expired impression token.',
    summary: 'Unknown impression token · 알 수 없는 노출 토큰',
    ...fatal,
  },
  invalid_click_intent: {
    status: 400,
    endpoints: CLICK_INTENT,
    meaning: 'The click intent failed validation.',
    summary: 'Click intent failed validation · 클릭 의도 검증 실패',
    ...fatal,
  },
  invalid_link: {
    status: 400,
    endpoints: ['GET /r/{token}'],
    meaning: 'The tracked-link token is tampered, truncated or malformed, or a legacy v1 link past its expiry.',
    summary: 'Malformed or tampered token · 잘못되었거나 변조된 토큰',
    ...fatal,
  },
  invalid_destination: {
    status: 400,
    endpoints: ['GET /r/{token}'],
    meaning: "The destination is no longer on the advertiser's allowlist.",
    summary: 'Destination no longer allowed · 더 이상 허용되지 않는 목적지',
    ...fatal,
  },
  not_found: {
    status: 404,
    endpoints: [...DECISION_LOOKUPS, 'GET /admin/catalog/imports/{id}', '(any unknown path)'],
    meaning: "Unknown decision, another app's decision, an unknown import job, or an unknown path.",
    summary: 'Not found · 찾을 수 없음',
    ...fatal,
  },
  service_unavailable: {
    status: 503,
    endpoints: [...EVENTS, ...CONVERSION, 'GET /v1/decisions/{id}', ...CLICK_INTENT, ...HOST_REPORT],
    meaning: 'The database could not be reached; nothing was written. Retry after the retry-after header.',
    summary: 'Store unreachable, retry · 저장소에 연결할 수 없음, 재시도',
    retry: true,
    retry_after_seconds: UNAVAILABLE_RETRY_AFTER_SECONDS,
  },
  invalid_request: {
    status: 400,
    endpoints: ['(admin API)', ...HOST_REPORT, '(any endpoint without its own name)'],
    meaning: 'The request failed validation.',
    summary: 'Request failed validation · 요청 검증 실패',
    ...fatal,
  },
  method_not_allowed: {
    status: 405,
    endpoints: ['(any known path)'],
    meaning: 'The path exists but does not take this method; the Allow header lists the ones it does.',
    summary: 'Method not allowed · 허용되지 않는 메서드',
    ...fatal,
  },
  uri_too_long: {
    status: 414,
    endpoints: ['(any endpoint with a path parameter)'],
    meaning: 'A path parameter is longer than any valid value (8,192 characters).',
    summary: 'Path parameter too long · 경로 매개변수가 너무 김',
    ...fatal,
  },
  headers_too_large: {
    status: 431,
    endpoints: ['(any endpoint)'],
    meaning: "The request headers exceed Node's limit (16 KiB); answered before routing, and the connection is closed.",
    summary: 'Headers too large · 헤더가 너무 큼',
    ...fatal,
  },
  request_timeout: {
    status: 408,
    endpoints: ['(any endpoint)'],
    meaning: 'The request was not received in full within 30 s; the connection is closed.',
    summary: 'Request not received in time · 요청 수신 시간 초과',
    retry: true,
    retry_after_seconds: null,
  },
  payload_too_large: {
    status: 413,
    endpoints: ['(any endpoint)'],
    meaning: 'The body is larger than BODY_LIMIT_BYTES (a catalog import: CATALOG_IMPORT_MAX_BYTES).',
    summary: 'Body too large · 본문이 너무 큼',
    ...fatal,
  },
  unsupported_media_type: {
    status: 415,
    endpoints: ['(any endpoint)'],
    meaning: 'The body is not application/json.',
    summary: 'Not JSON · JSON이 아님',
    ...fatal,
  },
  internal_error: {
    status: 500,
    endpoints: ['(any endpoint)'],
    meaning: 'A bug. Never expected; report it with the x-request-id header.',
    summary: 'Internal error · 내부 오류',
    retry: true,
    retry_after_seconds: 5,
  },
  invalid_admin_key: {
    status: 401,
    endpoints: ['(admin API)'],
    meaning: 'The admin key is missing or wrong.',
    summary: 'Wrong or missing admin key · 관리자 키가 없거나 틀림',
    ...fatal,
  },
  invalid_metrics_token: {
    status: 401,
    endpoints: ['GET /metrics (API port, with METRICS_TOKEN set)'],
    meaning: 'The metrics token is missing or wrong.',
    summary: 'Wrong or missing metrics token · 메트릭 토큰이 없거나 틀림',
    ...fatal,
  },
  invalid_catalog: {
    status: 400,
    endpoints: ['PUT /admin/catalog', "GET /admin/catalog/imports/{id} (a failed job's `error`)"],
    meaning: 'The catalog failed validation; `problems` names each field (schema problems first, then references). Nothing was written.',
    summary: 'Catalog problems · 카탈로그 오류',
    ...fatal,
  },
  import_in_progress: {
    status: 409,
    endpoints: ['POST /admin/catalog/imports', 'PUT /admin/catalog'],
    meaning: 'Another catalog import is running, on this instance or another (one at a time); `job_id` names it when it is a job. Retry once it has finished.',
    summary: 'Another import is running · 다른 카탈로그 가져오기가 진행 중',
    retry: true,
    retry_after_seconds: null,
  },
  import_interrupted: {
    status: 200,
    endpoints: ["GET /admin/catalog/imports/{id} (a failed job's `error`)"],
    meaning: 'The instance running the import stopped (shutdown, restart or crash) before it finished. Nothing of it was written: start it again.',
    summary: 'Import cut off · 가져오기가 중단됨',
    retry: true,
    retry_after_seconds: null,
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

/** What an operation refuses to do, by its public name: the error handler answers it with the
 *  registry's status. `details` are fixed, input-free fields of the error body (`problems` …). */
export class Refusal extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly details: Record<string, unknown> = {},
    /** For logs and the CLI; never sent (the body carries `code` and `details`). */
    message: string = code,
  ) {
    super(message);
    this.name = 'Refusal';
  }
}

/** Where an error happened, for a log line: its stack frames without the first line, whose
 *  message may quote input (a value, a key, a body). */
export function stackFrames(err: unknown): string | undefined {
  return err instanceof Error ? err.stack?.split('\n').slice(1).join('\n') : undefined;
}

/** A store (Postgres, Redis) could not be reached or did not answer in time: answered 503 with
 *  retry-after, because nothing was written and a retry loses nothing. Unlike any other error,
 *  which is a bug and answered 500. */
export class StoreUnavailable extends Error {
  /** So that, should it ever reach a Fastify instance without our handler, it is a 503. */
  readonly statusCode = 503;
  constructor(
    message: string,
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreUnavailable';
  }
}
