// Delivers the outbox: every instance polls for due deliveries, claims a few with a lease, POSTs
// each to its endpoint with Standard Webhooks headers and records the attempt. A 2xx is
// delivered; anything else (another status, a timeout, a refused connection, an unsafe address)
// is retried after the next delay of the schedule, and failed for good after the last. Redirects
// are not followed. What is recorded of a failure is a short reason, never the receiver's body.
import http from 'node:http';
import https from 'node:https';
import { signedHeaders } from './webhook-signing.js';
import { deliveryTarget, safeLookup } from './webhook-targets.js';
import type { ClaimedDelivery, WebhookRepository } from './webhook-repository.js';

export interface DispatcherOptions {
  pollMs: number;
  timeoutMs: number;
  /** Delay before each retry; its length is how many retries there are. */
  retryDelaysMs: number[];
  allowPrivateTargets: boolean;
  now: () => number;
  log: { warn(obj: object, msg: string): void };
}

/** Deliveries claimed per poll. */
const BATCH = 20;
/** The largest answer body read (and thrown away) before the connection is let go. */
const MAX_ANSWER_BYTES = 64 * 1024;

interface Outcome {
  status: number | null;
  error: string | null;
}

export class WebhookDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly repo: WebhookRepository,
    private readonly opts: DispatcherOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** One poll: claim what is due and attempt each (also what the tests call). */
  async deliverDue(): Promise<number> {
    const now = new Date(this.opts.now());
    const claimed = await this.repo.claimDue(now, this.opts.timeoutMs + 5_000, BATCH);
    await Promise.all(claimed.map((d) => this.attempt(d)));
    return claimed.length;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.deliverDue()
        .then(() => undefined)
        .catch((err) => this.opts.log.warn({ err: { type: (err as Error).name } }, 'webhook deliveries not claimed; trying again at the next poll'))
        .finally(() => {
          this.running = null;
          this.schedule();
        });
    }, this.opts.pollMs);
    this.timer.unref();
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    const outcome = await this.send(d);
    const at = new Date(this.opts.now());
    const delivered = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
    const delay = this.opts.retryDelaysMs[d.attempts];
    const retryAt = delivered || delay === undefined ? null : new Date(at.getTime() + delay);
    await this.repo
      .recordAttempt(d.id, at, { delivered, status: outcome.status, error: delivered ? null : outcome.error, retryAt })
      .catch((err) => this.opts.log.warn({ err: { type: (err as Error).name } }, 'webhook attempt not recorded; it is tried again after its lease'));
  }

  private async send(d: ClaimedDelivery): Promise<Outcome> {
    let url: URL;
    try {
      url = deliveryTarget(d.url, this.opts.allowPrivateTargets);
    } catch {
      return { status: null, error: 'unsafe target' };
    }
    const headers = {
      ...signedHeaders(d.secret, d.id, Math.floor(this.opts.now() / 1000), d.payload),
      'content-type': 'application/json',
      'user-agent': 'Sidenote-Webhooks/1',
    };
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<Outcome>((resolve) => {
      const req = client.request(url, { method: 'POST', headers, timeout: this.opts.timeoutMs, lookup: safeLookup(this.opts.allowPrivateTargets) }, (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        res.on('error', () => {});
        res.on('close', () => resolve({ status: res.statusCode ?? null, error: `status ${res.statusCode}` }));
      });
      req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
      req.on('error', (err: NodeJS.ErrnoException) => resolve({ status: null, error: reason(err) }));
      req.end(d.payload);
    });
  }
}

function reason(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'EUNSAFE':
      return 'unsafe target';
    case 'ETIMEDOUT':
      return 'timeout';
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ECONNRESET':
      return 'connection reset';
    default:
      return 'connection failed';
  }
}
