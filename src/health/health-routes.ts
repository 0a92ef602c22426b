// Liveness says the process answers; readiness says it can do its job: the database and the
// counter store answer, and an offer index is loaded.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { response } from '../http/openapi.js';
import { pingDatabase } from '../db/database.js';
import { feature } from '../http/feature.js';

const CHECK_TIMEOUT_MS = 1000;

const Liveness = z.strictObject({ ok: z.literal(true).describe('The process answers.') }).describe('Liveness.');

const CheckState = z.enum(['ok', 'unavailable']);
const Readiness = z
  .strictObject({
    ok: z.boolean().describe('true only when every check is ok.'),
    checks: z
      .strictObject({
        database: CheckState.describe('Postgres (or PGlite) answers `SELECT 1` within a second.'),
        counters: CheckState.describe('Redis (or the in-process counter store) answers a ping within a second.'),
        offer_index: z.enum(['ok', 'loading']).describe('The offer index is loaded into the matching core.'),
      })
      .describe('State of each dependency.'),
    catalog_version: z.number().describe('Catalog version this instance serves; equal on every instance shortly after an import.'),
    offers: z.int().describe('Offers in the loaded index.'),
  })
  .describe('Readiness.');

const READY = { ok: true, checks: { database: 'ok', counters: 'ok', offer_index: 'ok' }, catalog_version: 3, offers: 42 };

async function health(app: FastifyInstance) {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['health'],
        summary: 'Liveness: the process answers',
        response: { 200: response(Liveness, 'The process is alive.', { alive: { summary: 'Alive · 정상 동작', value: { ok: true } } }) },
      },
    },
    async () => ({ ok: true }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['health'],
        summary: 'Readiness: database, counter store and offer index are available',
        response: {
          200: response(Readiness, 'Ready to serve.', { ready: { summary: 'Ready · 준비됨', value: READY } }),
          503: response(Readiness, 'Not ready: take this instance out of the load balancer.', {
            database_down: {
              summary: 'Database unreachable · 데이터베이스 연결 불가',
              value: { ...READY, ok: false, checks: { ...READY.checks, database: 'unavailable' } },
            },
          }),
        },
      },
    },
    async (_req, reply) => {
      const { db, counters, catalogRuntime } = app;
      const [database, counterStore] = await Promise.all([check(() => pingDatabase(db)), check(() => counters.ping())]);
      const stats = catalogRuntime.index.stats();
      const offerIndex = stats.ready ? 'ok' : 'loading';
      const ok = database === 'ok' && counterStore === 'ok' && offerIndex === 'ok';
      return reply.code(ok ? 200 : 503).send({
        ok,
        checks: { database, counters: counterStore, offer_index: offerIndex },
        catalog_version: catalogRuntime.serving.version,
        offers: stats.offers,
      });
    },
  );
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

export const healthRoutes = feature(health, { name: 'health', needs: ['db', 'counters', 'catalogRuntime'] });
