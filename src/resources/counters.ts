// The counter store (Redis, or in-process by default): rate limits, frequency caps and budget
// claims. Closed last but one, after every writer has flushed.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createCounterStore } from '../counters/index.js';
import type { CounterStore } from '../counters/counter-store.js';
import { instrumentCounterStore } from '../observability/metrics.js';

declare module 'fastify' {
  interface FastifyInstance {
    counters: CounterStore;
  }
}

export interface CountersOptions {
  /** A store the caller owns (tests share one between two apps); otherwise one is made from config. */
  counters?: CounterStore & { ready?(timeoutMs?: number): Promise<boolean> };
}

async function countersResource(app: FastifyInstance, opts: CountersOptions) {
  const { config } = app;
  const store =
    opts.counters ??
    createCounterStore({
      redisUrl: config.redisUrl,
      keyPrefix: config.redisKeyPrefix,
      commandTimeoutMs: config.redisCommandTimeoutMs,
      memoryBounds: { maxMemoryMb: config.counterMemoryMb },
      logger: app.log,
    });
  if (!opts.counters) app.addHook('onClose', () => store.close());
  // A slow or absent Redis does not hold the start: limits fail open until it answers.
  await store.ready?.(2000);
  app.decorate('counters', instrumentCounterStore(store, app.metrics));
}

export default fp(countersResource, { name: 'counters', dependencies: ['config', 'metrics'], fastify: '5.x' });
