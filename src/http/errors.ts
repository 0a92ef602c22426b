// The public error vocabulary: every error body is `{ ok:false, error }` with a stable string
// (SPEC 2.8). Internal details never reach a response body, and no input text ever does.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface ErrorBody {
  ok: false;
  error: string;
  reason_codes?: string[];
  [extra: string]: unknown;
}

export function errorBody(error: string, extra: Record<string, unknown> = {}): ErrorBody {
  return { ok: false, error, ...extra };
}

export function sendError(reply: FastifyReply, status: number, error: string, extra: Record<string, unknown> = {}) {
  return reply.code(status).send(errorBody(error, extra));
}

/** How long a host should wait before retrying when a store is down (503). */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** 503 with retry-after: nothing was written, a retry loses nothing. */
export function sendUnavailable(reply: FastifyReply) {
  reply.header('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  return sendError(reply, 503, 'service_unavailable');
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How this route names a malformed request (INVALID_ENVELOPE on decide, invalid_event on events …). */
    badRequest?: { error: string; reasonCodes?: string[] };
  }
}

/** Maps framework errors (unparsable JSON, wrong content type, oversized body) to the public
 *  vocabulary. Parser messages quote the input, so they are replaced by fixed text. */
export function installErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const status = err.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: { type: err.name, code: err.code } }, 'request failed');
      return sendError(reply, 500, 'internal_error');
    }
    if (status === 429) return sendError(reply, 429, 'rate_limited');
    if (status === 413) return sendError(reply, 413, 'payload_too_large');
    if (status === 415) return sendError(reply, 415, 'unsupported_media_type');
    const bad = request.routeOptions.config?.badRequest;
    const detail = publicDetail(err);
    if (bad) {
      return sendError(reply, 400, bad.error, {
        ...(bad.reasonCodes ? { reason_codes: bad.reasonCodes } : {}),
        message: detail,
      });
    }
    return sendError(reply, status === 404 ? 404 : 400, status === 404 ? 'not_found' : 'invalid_request', { message: detail });
  });
}

/** Fastify's `frameworkErrors`: what the router refuses before any route or hook runs. Its own
 *  answers quote the whole path back (a 414 for an over-long parameter, a 400 for a malformed
 *  escape); these are the API's vocabulary instead, with no input in them. */
export function frameworkError(err: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  switch (err.code) {
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return sendError(reply, 414, 'uri_too_long');
    case 'FST_ERR_BAD_URL':
      return sendError(reply, 400, 'invalid_request', { message: 'malformed URL' });
    default:
      return sendError(reply, 500, 'internal_error');
  }
}

const CLIENT_ERRORS: Record<string, { status: number; text: string; error: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, text: 'Request Header Fields Too Large', error: 'headers_too_large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, text: 'Request Timeout', error: 'request_timeout' },
};
const CLIENT_ERROR_DEFAULT = { status: 400, text: 'Bad Request', error: 'invalid_request' };

/** Fastify's `clientErrorHandler`: a request Node's HTTP parser could not read. Answered on the
 *  raw socket in the API's error format, without quoting what was sent. */
export function clientError(err: NodeJS.ErrnoException, socket: import('node:net').Socket) {
  if (!socket.writable) return socket.destroy();
  const { status, text, error } = CLIENT_ERRORS[err.code ?? ''] ?? CLIENT_ERROR_DEFAULT;
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
      return err.code?.startsWith('FST_ERR_CTP') || err instanceof SyntaxError
        ? 'request body is not valid JSON'
        : 'malformed request';
  }
}
