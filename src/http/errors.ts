// Error answers: every error body is `{ ok:false, error }` with a stable string from the error
// registry (src/errors/; docs/reason-codes.md lists them), at the registry's status. Internal details never reach a
// response body, and no input text ever does.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERRORS, Refusal, StoreUnavailable, UNAVAILABLE_RETRY_AFTER_SECONDS, stackFrames, type ErrorCode } from '../errors/error-registry.js';
import { RequestInvalid } from './validation.js';

export interface ErrorBody {
  ok: false;
  error: string;
  reason_codes?: string[];
  [extra: string]: unknown;
}

export function errorBody(error: ErrorCode, extra: Record<string, unknown> = {}): ErrorBody {
  return { ok: false, error, ...extra };
}

/** Answers with a registered error at its status. */
export function sendError(reply: FastifyReply, error: ErrorCode, extra: Record<string, unknown> = {}) {
  return reply.code(ERRORS[error].status).send(errorBody(error, extra));
}

/** 503 with retry-after: nothing was written, a retry loses nothing. */
export function sendUnavailable(reply: FastifyReply) {
  reply.header('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  return sendError(reply, 'service_unavailable');
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How this route names a malformed request (INVALID_ENVELOPE on decide, invalid_event on
     *  events …), and, for a request that fails its schema, what the body says besides (by
     *  default a `message` naming the failing paths). */
    badRequest?: { error: ErrorCode; reasonCodes?: string[]; describe?: (invalid: RequestInvalid) => Record<string, unknown> };
  }
}

/** The one place a thrown error becomes an answer: a refusal at its registered status, a store
 *  outage as 503 (nothing was written), a framework error (unparsable JSON, wrong content type,
 *  oversized body) in the public vocabulary with fixed text (parser messages quote the input),
 *  and anything else, a bug, as a logged 500. */
export function installErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof Refusal) return sendError(reply, err.code, err.details);
    if (err instanceof RequestInvalid) {
      const bad = request.routeOptions.config?.badRequest ?? { error: 'invalid_request' as const };
      return sendError(reply, bad.error, {
        ...(bad.reasonCodes ? { reason_codes: bad.reasonCodes } : {}),
        ...(bad.describe ? bad.describe(err) : { message: err.detail }),
      });
    }
    if (err instanceof StoreUnavailable) {
      request.log.warn({ err: { type: err.name, code: err.code } }, 'store unavailable: nothing written');
      return sendUnavailable(reply);
    }
    const status = err.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: { type: err.name, code: err.code, frames: stackFrames(err) } }, 'request failed');
      return sendError(reply, 'internal_error');
    }
    if (status === 429) return sendError(reply, 'rate_limited');
    if (status === 413) return sendError(reply, 'payload_too_large');
    if (status === 415) return sendError(reply, 'unsupported_media_type');
    const bad = request.routeOptions.config?.badRequest;
    const detail = publicDetail(err);
    if (bad) {
      return sendError(reply, bad.error, {
        ...(bad.reasonCodes ? { reason_codes: bad.reasonCodes } : {}),
        message: detail,
      });
    }
    return sendError(reply, status === 404 ? 'not_found' : 'invalid_request', { message: detail });
  });
}

/** Fastify's `frameworkErrors`: what the router refuses before any route or hook runs. Its own
 *  answers quote the whole path back (a 414 for an over-long parameter, a 400 for a malformed
 *  escape); these are the API's vocabulary instead, with no input in them. */
export function frameworkError(err: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  switch (err.code) {
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return sendError(reply, 'uri_too_long');
    case 'FST_ERR_BAD_URL':
      return sendError(reply, 'invalid_request', { message: 'malformed URL' });
    default:
      return sendError(reply, 'internal_error');
  }
}

const CLIENT_ERRORS: Record<string, { text: string; error: ErrorCode }> = {
  HPE_HEADER_OVERFLOW: { text: 'Request Header Fields Too Large', error: 'headers_too_large' },
  ERR_HTTP_REQUEST_TIMEOUT: { text: 'Request Timeout', error: 'request_timeout' },
};
const CLIENT_ERROR_DEFAULT = { text: 'Bad Request', error: 'invalid_request' } as const;

/** Fastify's `clientErrorHandler`: a request Node's HTTP parser could not read. Answered on the
 *  raw socket in the API's error format, without quoting what was sent. */
export function clientError(err: NodeJS.ErrnoException, socket: import('node:net').Socket) {
  if (!socket.writable) return socket.destroy();
  const { text, error } = CLIENT_ERRORS[err.code ?? ''] ?? CLIENT_ERROR_DEFAULT;
  const status = ERRORS[error].status;
  const body = JSON.stringify({ ok: false, error });
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nconnection: close\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

function publicDetail(err: FastifyError): string {
  switch (err.code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'request body is empty';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'request body is not valid JSON';
    default:
      return err.code?.startsWith('FST_ERR_CTP') || err instanceof SyntaxError ? 'request body is not valid JSON' : 'malformed request';
  }
}
