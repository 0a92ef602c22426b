// The error responses every operation documents, built once: the error body schema
// and the statuses that come from the framework or shared guards rather than from a handler
// (auth, body size and type, rate limit, store outage). Routes add their own 400/404 on top.
import { ErrorBodySchema } from './error-body.js';
import { response, type Examples, type HeaderDoc } from './openapi.js';
import { ERRORS, UNAVAILABLE_RETRY_AFTER_SECONDS, type ErrorCode } from '../errors/error-registry.js';

export { ErrorBodySchema };

/** One error example; named by its error string unless `name` is given. The summary (English ·
 *  Korean) is the registry's unless the example says something more precise. */
type ErrorExample = { error: ErrorCode; summary?: string; name?: string; extra?: Record<string, unknown> };

export function errorResponse(description: string, examples: ErrorExample[], headers?: Record<string, HeaderDoc>) {
  const named: Examples = {};
  for (const e of examples) named[e.name ?? e.error] = { summary: e.summary ?? ERRORS[e.error].summary, value: { ok: false, error: e.error, ...e.extra } };
  return response(ErrorBodySchema, description, named, headers);
}

const RETRY_AFTER: Record<string, HeaderDoc> = { 'retry-after': { description: 'Seconds to wait before retrying.', type: 'integer' } };

/** 401 of every serving-key operation. */
export const SERVING_KEY_ERRORS = {
  401: errorResponse('Missing, malformed, unknown or revoked serving key, or a setup token.', [
    { error: 'missing_api_key' },
    { error: 'invalid_api_key' },
    { error: 'revoked_api_key' },
    { error: 'setup_token_not_allowed' },
  ]),
};

/** 401 of the operator API. */
export const ADMIN_KEY_ERRORS = {
  401: errorResponse('Missing or wrong admin key.', [{ error: 'invalid_admin_key' }]),
};

/** What the framework answers for a body it cannot take, before any handler runs. */
export const BODY_ERRORS = {
  413: errorResponse('The body is larger than the configured limit (BODY_LIMIT_BYTES, 64 KiB by default).', [{ error: 'payload_too_large' }]),
  415: errorResponse('The body is not `application/json`.', [{ error: 'unsupported_media_type' }]),
};

export const RATE_LIMITED = {
  429: errorResponse('Too many requests from this client IP.', [{ error: 'rate_limited' }], {
    ...RETRY_AFTER,
    'x-ratelimit-limit': { description: 'Requests allowed per window.', type: 'integer' },
    'x-ratelimit-remaining': { description: 'Requests left in this window.', type: 'integer' },
    'x-ratelimit-reset': { description: 'Seconds until the window resets.', type: 'integer' },
  }),
};

/** Events never pretend: with the database down nothing was written and a retry loses nothing. */
export const UNAVAILABLE = {
  503: errorResponse(
    `A store is unreachable; nothing was written. Retry after \`retry-after\` seconds (${UNAVAILABLE_RETRY_AFTER_SECONDS}).`,
    [{ error: 'service_unavailable' }],
    RETRY_AFTER,
  ),
};

/** A 400 for a body that is not valid JSON or fails the operation's schema; `error` is the
 *  operation's own error string. */
export function badRequest(error: ErrorCode, description: string, examples: Array<Omit<ErrorExample, 'error'> & { name: string }>) {
  return errorResponse(description, [
    ...examples.map((e) => ({ ...e, error })),
    { name: 'not_json', error, summary: 'Body is not valid JSON · 본문이 올바른 JSON이 아님', extra: { message: 'request body is not valid JSON' } },
  ]);
}
