// Webhook endpoints as an operator manages them: add one (its URL checked, its secret made and
// shown once), list them, remove one, read its recent deliveries.
import { Refusal } from '../errors/error-registry.js';
import { NotFoundError } from '../apps/app-repository.js';
import { newId } from '../util/ids.js';
import type { EventType } from './notifications.js';
import { checkTarget, UnsafeTarget } from './webhook-targets.js';
import { newWebhookSecret } from './webhook-signing.js';
import type { DeliveryRow, EndpointRow, WebhookRepository } from './webhook-repository.js';

/** Deliveries listed per endpoint. */
const RECENT_DELIVERIES = 100;

export class WebhookEndpoints {
  constructor(
    private readonly repo: WebhookRepository,
    private readonly opts: { allowPrivateTargets: boolean; now: () => number },
  ) {}

  async add(url: string, eventTypes: EventType[], description = ''): Promise<EndpointRow & { secret: string }> {
    try {
      await checkTarget(url, this.opts.allowPrivateTargets);
    } catch (err) {
      // The reason, never the URL: what the caller sent is not echoed back.
      if (err instanceof UnsafeTarget) throw new Refusal('invalid_request', { message: err.message }, 'webhook target refused');
      throw err;
    }
    const secret = newWebhookSecret();
    const row = await this.repo.createEndpoint({ id: newId('whk'), url, secret, eventTypes, description: description.trim() });
    return { ...row, secret };
  }

  list(): Promise<EndpointRow[]> {
    return this.repo.listEndpoints();
  }

  async remove(id: string): Promise<EndpointRow> {
    const row = await this.repo.removeEndpoint(id, new Date(this.opts.now()));
    if (!row) throw new NotFoundError(`no webhook endpoint ${id}`);
    return row;
  }

  async deliveries(id: string): Promise<{ endpoint_id: string; deliveries: Omit<DeliveryRow, 'endpoint_id'>[] }> {
    if (!(await this.repo.endpoint(id))) throw new NotFoundError(`no webhook endpoint ${id}`);
    const rows = await this.repo.deliveries(id, RECENT_DELIVERIES);
    return { endpoint_id: id, deliveries: rows.map(({ endpoint_id: _, ...d }) => d) };
  }
}
