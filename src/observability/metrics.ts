// Prometheus metrics (prom-client). Labels are only ever route patterns, methods, status codes,
// reason codes and writer names: never the message or any other user-controlled string.
import client from 'prom-client';
import type { CounterStore } from '../counters/counter-store.js';
import { CounterStoreUnavailable } from '../counters/counter-store.js';

export type FlushObserver = (size: number, ms: number, ok: boolean) => void;

export class Metrics {
  readonly registry = new client.Registry();
  readonly httpRequests = new client.Counter({
    name: 'sidenote_http_requests_total',
    help: 'HTTP requests by route pattern, method and status code.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new client.Histogram({
    name: 'sidenote_http_request_duration_seconds',
    help: 'HTTP request latency by route pattern and method.',
    labelNames: ['route', 'method'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly decideOutcomes = new client.Counter({
    name: 'sidenote_decide_outcomes_total',
    help: 'Decide and affiliate answers by kind and reason code (MATCHED for fills).',
    labelNames: ['kind', 'reason_code'] as const,
    registers: [this.registry],
  });
  readonly batchSize = new client.Histogram({
    name: 'sidenote_group_commit_batch_rows',
    help: 'Rows per group-commit flush, by writer.',
    labelNames: ['writer'] as const,
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000],
    registers: [this.registry],
  });
  readonly flushSeconds = new client.Histogram({
    name: 'sidenote_group_commit_flush_seconds',
    help: 'Duration of group-commit flushes, by writer and outcome.',
    labelNames: ['writer', 'ok'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5],
    registers: [this.registry],
  });
  readonly counterStoreErrors = new client.Counter({
    name: 'sidenote_counter_store_errors_total',
    help: 'Counter-store operations that failed (Redis unreachable or too slow), by operation.',
    labelNames: ['operation'] as const,
    registers: [this.registry],
  });

  constructor(gauges: {
    indexOffers: () => number;
    indexReloadSeconds: () => number;
    catalogVersion: () => number;
    clicksLost: () => number;
    clicksPending: () => number;
  }) {
    client.collectDefaultMetrics({ register: this.registry, prefix: 'sidenote_' });
    const gauge = (name: string, help: string, read: () => number) =>
      new client.Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(read());
        },
      });
    gauge('sidenote_offer_index_offers', 'Offers in the live index.', gauges.indexOffers);
    gauge('sidenote_offer_index_reload_seconds', 'Duration of the last index reload (read, build, swap).', gauges.indexReloadSeconds);
    gauge('sidenote_catalog_version', 'Catalog version this instance serves.', gauges.catalogVersion);
    gauge('sidenote_clicks_lost_total', 'Clicks dropped because the database stayed down longer than the retry buffer.', gauges.clicksLost);
    gauge('sidenote_clicks_pending', 'Clicks waiting to be written.', gauges.clicksPending);
  }

  flushObserver(writer: string): FlushObserver {
    return (size, ms, ok) => {
      this.batchSize.observe({ writer }, size);
      this.flushSeconds.observe({ writer, ok: String(ok) }, ms / 1000);
    };
  }
}

/** Counts counter-store failures without changing what callers see. */
export function instrumentCounterStore<T extends CounterStore>(store: T, metrics: Metrics): T {
  const wrapped = Object.create(store) as T;
  for (const op of ['hit', 'claimFirst', 'refund', 'loadSpend', 'raiseSpend', 'readSpend', 'putIfAbsent', 'get', 'delete', 'ping'] as const) {
    // Looked up at call time, so a store whose method is replaced later (tests) stays wrapped.
    (wrapped as unknown as Record<string, unknown>)[op] = (...args: unknown[]) =>
      (store[op] as (...a: unknown[]) => Promise<unknown>).apply(store, args).catch((err: unknown) => {
        if (err instanceof CounterStoreUnavailable || (err as { code?: string })?.code === 'COUNTER_STORE_UNAVAILABLE') {
          metrics.counterStoreErrors.inc({ operation: op });
        }
        throw err;
      });
  }
  return wrapped;
}
