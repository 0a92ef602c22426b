// Liveness says the process answers; readiness says it can do its job: the database and the
// counter store answer, and an offer index is loaded.
import type { FastifyInstance } from 'fastify';

const CHECK_TIMEOUT_MS = 1000;

export async function healthRoutes(app: FastifyInstance) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ ok: true }));

  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const { db, counters, catalogRuntime } = app.services;
    const [database, counterStore] = await Promise.all([
      check(() => db.query('SELECT 1')),
      check(() => counters.ping()),
    ]);
    const stats = catalogRuntime.index.stats();
    const offerIndex = stats.ready ? 'ok' : 'loading';
    const ok = database === 'ok' && counterStore === 'ok' && offerIndex === 'ok';
    return reply.code(ok ? 200 : 503).send({
      ok,
      checks: { database, counters: counterStore, offer_index: offerIndex },
      catalog_version: catalogRuntime.serving.version,
      offers: stats.offers,
    });
  });
}

async function check(fn: () => Promise<unknown>): Promise<'ok' | 'unavailable'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      fn(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS);
      }),
    ]);
    return 'ok';
  } catch {
    return 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}
