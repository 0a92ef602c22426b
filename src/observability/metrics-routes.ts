// Prometheus metrics: the hook that times every request, `/metrics` on the API port for a
// scraper that holds METRICS_TOKEN, and the separate metrics listener (METRICS_PORT, loopback by
// default) that needs no token because it is not on the public port. Never user-controlled
// strings in a series.
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import cluster from 'node:cluster';
import { sendError } from '../http/errors.js';
import { StoreUnavailable } from '../errors/error-registry.js';
import { clusterScrape } from './cluster-metrics.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest();

async function metricsPlugin(app: FastifyInstance) {
  const { metrics, config } = app;
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern (`/r/:token`), never the URL: tokens and ids stay out of labels.
    const route = request.routeOptions.url ?? 'unmatched';
    if (route === '/metrics') return;
    metrics.observeRequest(route, request.method, reply.statusCode, reply.elapsedTime / 1000);
  });
  // On the API port only with a token: the series say how the business runs (fills, spend
  // outcomes, traffic), which is nobody's business on the public internet.
  if (config.metricsToken) await app.register(tokenScrape, { tokenHash: sha256(config.metricsToken) });
}

/** `GET /metrics` behind its own bearer-token hook, in a context of its own. */
async function tokenScrape(app: FastifyInstance, opts: { tokenHash: Buffer }) {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    // Hashing both sides gives equal-length buffers, so the compare is constant-time.
    if (!token || !timingSafeEqual(sha256(token), opts.tokenHash)) return sendError(reply, 'invalid_metrics_token');
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    // A cluster worker answers for the whole cluster, as the primary's listener does.
    const scrape = cluster.isWorker
      ? await clusterScrape().catch(() => {
          throw new StoreUnavailable('cluster metrics unavailable', 'CLUSTER_METRICS_UNAVAILABLE');
        })
      : { contentType: app.metrics.registry.contentType, body: await app.metrics.registry.metrics() };
    reply.header('content-type', scrape.contentType);
    return scrape.body;
  });
}

// Not encapsulated: the timing hook must see every route.
export const metricsRoutes = fp(metricsPlugin, { name: 'http-metrics', dependencies: ['config', 'metrics'], fastify: '5.x' });

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

/** The metrics listener: `GET /metrics` answers `render()`, anything else 404 in the API's error
 *  format. One per process, or one for a whole cluster in its primary. */
export async function startMetricsListener(
  render: () => Promise<{ contentType: string; body: string }>,
  opts: { host: string; port: number },
): Promise<MetricsListener> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' }).end('{"ok":false,"error":"not_found"}');
      return;
    }
    render().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      () => res.writeHead(503, { 'content-type': 'application/json; charset=utf-8' }).end('{"ok":false,"error":"service_unavailable"}'),
    );
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(opts.port, opts.host, () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
