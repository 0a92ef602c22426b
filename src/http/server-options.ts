// The Fastify server's options: logging that never sees a body, an address or a raw URL; the
// body and parameter limits; and framework errors answered in the API's own format.
import { LogController, type FastifyServerOptions } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config } from '../config/config.js';
import { clientError, frameworkError } from './errors.js';

/** A caller's own `x-request-id` when it is an opaque id (letters, digits, `-_.:`; 8–64
 *  characters: a UUID, a ULID, a trace id), so the host's and our logs share it; otherwise a new
 *  UUID. Anything else (free text, an e-mail address) is never taken, logged or echoed. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{8,64}$/;

export function requestId(req: { headers: Record<string, string | string[] | undefined> }): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : crypto.randomUUID();
}

export function serverOptions(config: Config, logStream?: DestinationStream): FastifyServerOptions {
  return {
    logger: {
      level: config.logLevel,
      // Bodies are never logged; these paths are redacted as a second line of defence.
      redact: { paths: ['req.headers.authorization', 'req.body', 'body', 'message', 'req.headers.cookie'], censor: '[redacted]' },
      // A request is logged by its route pattern, never its raw URL (tokens, query strings) nor
      // the client's address: addresses are kept only as keyed hashes (docs/privacy.md).
      serializers: { req: (req: { method?: string; routeOptions?: { url?: string } }) => ({ method: req.method, route: req.routeOptions?.url }) },
      ...(logStream ? { stream: logStream } : {}),
    },
    // At most one line per request, written when it completes (http/conventions.ts), not two.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    bodyLimit: config.bodyLimitBytes,
    // Requests end with their handler's budget; the socket-level guard is for slow clients.
    requestTimeout: 30_000,
    genReqId: requestId,
    // Each plugin's start is bounded by this. The offer index loads the whole catalog before the
    // server listens, which for a million offers takes a minute or more on a small host; every
    // other wait at start is bounded on its own (database and Redis connects, statement timeouts).
    pluginTimeout: 10 * 60_000,
    forceCloseConnections: 'idle',
    // On shutdown, requests already on open connections are served to the end rather than
    // answered 503; new connections are refused by the closed listener.
    return503OnClosing: false,
    // Tracked-link tokens are a few hundred characters; the default cap of 100 would refuse them.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 8192 },
    // What the router and Node's parser refuse, answered in the API's own error format.
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
  };
}
