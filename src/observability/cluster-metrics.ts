// In a cluster (src/cluster.ts) every worker answers the API port's token-protected `/metrics`
// with the whole cluster's series, as the primary's listener does: a scrape that lands on any
// worker reads the same totals (it read one worker's before: 10, 25, 10, 25 of 35). The worker
// asks the primary over the cluster's IPC channel; the primary's prom-client aggregator asks
// every worker in turn.
import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import type { AggregatorRegistry, RegistryContentType } from 'prom-client';

const ASK = 'sidenote:cluster-metrics';
const ANSWER = 'sidenote:cluster-metrics:answer';
const TIMEOUT_MS = 5_000;

export interface Scrape {
  contentType: string;
  body: string;
}

interface Answer {
  type: typeof ANSWER;
  id: string;
  scrape?: Scrape;
}

/** Primary: answers every worker's request for the cluster's series. */
export function answerClusterScrapes(aggregator: AggregatorRegistry<RegistryContentType>): void {
  cluster.on('message', (worker, message: { type?: string; id?: string }) => {
    if (message?.type !== ASK || typeof message.id !== 'string') return;
    const id = message.id;
    aggregator.clusterMetrics().then(
      (body) => worker.send({ type: ANSWER, id, scrape: { contentType: aggregator.contentType, body } } satisfies Answer),
      () => worker.send({ type: ANSWER, id } satisfies Answer),
    );
  });
}

/** Worker: the whole cluster's series, from the primary. Rejects when it does not answer. */
export function clusterScrape(): Promise<Scrape> {
  const id = randomUUID();
  return new Promise((resolve, reject) => {
    const onMessage = (message: Answer) => {
      if (message?.type !== ANSWER || message.id !== id) return;
      done();
      if (message.scrape) resolve(message.scrape);
      else reject(new Error('the primary could not collect the cluster metrics'));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error('the primary did not answer for the cluster metrics'));
    }, TIMEOUT_MS);
    const done = () => {
      clearTimeout(timer);
      process.off('message', onMessage);
    };
    process.on('message', onMessage);
    process.send?.({ type: ASK, id });
  });
}
