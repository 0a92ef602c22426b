// Prometheus metrics (prom-client). Labels are only ever route patterns, methods, status codes,
// reason codes and writer names: never the message or any other user-controlled string.
import { readFileSync } from 'node:fs';
import client from 'prom-client';
import type { CounterStore } from '../counters/counter-store.js';
import { CounterStoreUnavailable } from '../counters/counter-store.js';

const SIDENOTE_VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

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

  // Label children bound once per label set: prom-client otherwise builds and hashes the label
  // set on every call, on every request. The sets are bounded (route patterns, statuses, codes).
  private readonly requestSeries = new Map<string, { requests: client.Counter.Internal; duration: client.Histogram.Internal<string> }>();
  private readonly outcomeSeries = new Map<string, client.Counter.Internal>();

  private quiet = false;

  /** Runs `fn` with requests and decide outcomes not counted: the start's warm-up, which runs
   *  before the port opens, is no one's traffic (src/health/warm-up.ts). */
  async unrecorded<T>(fn: () => Promise<T>): Promise<T> {
    this.quiet = true;
    try {
      return await fn();
    } finally {
      this.quiet = false;
    }
  }

  /** One answered request: counted and timed under its route pattern, method and status. */
  observeRequest(route: string, method: string, status: number, seconds: number): void {
    if (this.quiet) return;
    const key = `${method} ${route} ${status}`;
    let series = this.requestSeries.get(key);
    if (!series) {
      series = { requests: this.httpRequests.labels(route, method, String(status)), duration: this.httpDuration.labels(route, method) };
      this.requestSeries.set(key, series);
    }
    series.requests.inc();
    series.duration.observe(seconds);
  }

  /** One decide answer (or refusal) of a kind, by reason code. */
  countDecideOutcome(kind: string, reasonCode: string): void {
    if (this.quiet) return;
    const key = `${kind} ${reasonCode}`;
    let series = this.outcomeSeries.get(key);
    if (!series) {
      series = this.decideOutcomes.labels(kind, reasonCode);
      this.outcomeSeries.set(key, series);
    }
    series.inc();
  }

  constructor(gauges: {
    indexOffers: () => number;
    indexReloadSeconds: () => number;
    indexReloadServingThreadSeconds: () => number;
    indexReloadFailures: () => number;
    catalogVersion: () => number;
    clicksLost: () => number;
    clicksPending: () => number;
  }) {
    // Unprefixed, as stock Node.js dashboards expect (process_cpu_seconds_total, nodejs_heap_…).
    client.collectDefaultMetrics({ register: this.registry });
    // Except three gauges prom-client names like counters, which `promtool check metrics` rejects.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
      this.registry.removeSingleMetric(name);
    }
    // How a series of several cluster workers adds up in the primary's scrape (src/cluster.ts).
    type Aggregate = 'sum' | 'max';
    const gauge = (name: string, help: string, read: () => number, aggregator: Aggregate) =>
      new client.Gauge({
        name,
        help,
        registers: [this.registry],
        aggregator,
        collect() {
          this.set(read());
        },
      });
    gauge('sidenote_offer_index_offers', 'Offers in the live index.', gauges.indexOffers, 'max');
    gauge('sidenote_offer_index_reload_seconds', 'Duration of the last index reload (read, build, swap).', gauges.indexReloadSeconds, 'max');
    gauge(
      'sidenote_offer_index_reload_serving_thread_seconds',
      'Serving-thread time of the last index reload (taking in what the loader worker built, and the swap).',
      gauges.indexReloadServingThreadSeconds,
      'max',
    );
    gauge('sidenote_catalog_version', 'Catalog version this instance serves.', gauges.catalogVersion, 'max');
    gauge('sidenote_clicks_pending', 'Clicks waiting to be written.', gauges.clicksPending, 'sum');
    // Counters: they only grow. Their owners keep the count; the scrape catches up to it.
    let failuresSeen = 0;
    new client.Counter({
      name: 'sidenote_offer_index_reload_failures_total',
      help: 'Index reloads that failed; the previous catalog kept serving.',
      registers: [this.registry],
      collect() {
        const failures = gauges.indexReloadFailures();
        if (failures > failuresSeen) this.inc(failures - failuresSeen);
        failuresSeen = Math.max(failuresSeen, failures);
      },
    });
    let lostSeen = 0;
    new client.Counter({
      name: 'sidenote_clicks_lost_total',
      help: 'Clicks dropped because the database stayed down longer than the retry buffer.',
      registers: [this.registry],
      collect() {
        const lost = gauges.clicksLost();
        if (lost > lostSeen) this.inc(lost - lostSeen);
        lostSeen = Math.max(lostSeen, lost);
      },
    });
    new client.Gauge({
      name: 'sidenote_build_info',
      help: 'Always 1; the labels say which build this is.',
      labelNames: ['version', 'node_version'] as const,
      registers: [this.registry],
      aggregator: 'max',
    }).set({ version: SIDENOTE_VERSION, node_version: process.version }, 1);
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
  for (const op of ['hits', 'claimFirst', 'refund', 'loadSpend', 'raiseSpend', 'readSpend', 'putIfAbsent', 'marksAndHits', 'get', 'delete', 'ping'] as const) {
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
