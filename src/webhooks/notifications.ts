// Signed notifications: what happened, enqueued for every endpoint subscribed to its type. The
// payload is the Standard Webhooks shape (`type`, `timestamp`, `data`); the dispatcher
// (webhook-dispatcher.ts) delivers it. A change with a transaction of its own (a campaign paused
// or resumed, a catalog import's success) enqueues its event in it, so the two commit together;
// an event without one (a job's failure, a budget found exhausted) never fails the work that
// caused it: if it cannot be enqueued it is logged and lost.
import type { Queryable } from '../db/database.js';
import { newId } from '../util/ids.js';
import type { WebhookRepository } from './webhook-repository.js';

/** Every event type an endpoint can subscribe to. */
export const EVENT_TYPES = ['campaign.paused', 'campaign.resumed', 'campaign.budget_exhausted', 'catalog.import.succeeded', 'catalog.import.failed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

interface Log {
  warn(obj: object, msg: string): void;
}

export class Notifications {
  constructor(
    private readonly repo: WebhookRepository,
    private readonly now: () => number,
    private readonly log: Log,
  ) {}

  /** Enqueues `type` once per subscribed endpoint; `key` names the event, so the same event
   *  published twice (by two instances, or a retry) is delivered once. Given the transaction of
   *  the change it announces, it is enqueued in it (the outbox): the event commits with the
   *  change, and a failure to enqueue fails the change, to be retried whole. */
  async publish(type: EventType, key: string, data: Record<string, unknown>, within?: Queryable): Promise<void> {
    const payload = { type, timestamp: new Date(this.now()).toISOString(), data };
    try {
      await this.repo.enqueue(type, `${type}:${key}`, payload, () => newId('msg'), within);
    } catch (err) {
      if (within) throw err;
      this.log.warn({ err: { type: (err as Error).name }, event: type }, 'webhook event not enqueued');
    }
  }
}
