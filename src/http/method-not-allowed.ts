// A known path asked with a method it does not take answers 405 with `Allow` (RFC 9110 §15.5.6)
// rather than 404, so a client learns the path exists and what it accepts. Answered on request,
// before any body is read: a TRACE or QUERY with an odd body gets the same clear 405.
import type { FastifyInstance } from 'fastify';
import { sendError } from './errors.js';

interface KnownPath {
  pattern: RegExp;
  methods: Set<string>;
}

/** `/v1/decisions/:id` → /^\/v1\/decisions\/[^/]+$/; `/docs/*` → /^\/docs\/.*$/. */
function patternOf(url: string): RegExp {
  const source = url
    .split('/')
    .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}

/** Call before any route is registered. `hidden` paths (a switched-off admin API) stay 404. */
export function installMethodNotAllowed(app: FastifyInstance, hidden: (path: string) => boolean = () => false) {
  const known = new Map<string, KnownPath>();
  app.addHook('onRoute', (route) => {
    const entry = known.get(route.url) ?? { pattern: patternOf(route.url), methods: new Set<string>() };
    for (const m of [route.method].flat()) entry.methods.add(m.toUpperCase());
    known.set(route.url, entry);
  });

  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return;
    const path = request.url.split('?')[0].replace(/(.)\/+$/, '$1');
    if (hidden(path)) return;
    const allowed = new Set<string>();
    for (const { pattern, methods } of known.values()) if (pattern.test(path)) for (const m of methods) allowed.add(m);
    if (allowed.size === 0) return;
    reply.header('allow', [...allowed].sort().join(', '));
    return sendError(reply, 405, 'method_not_allowed');
  });
}
