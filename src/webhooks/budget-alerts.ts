// A campaign whose lifetime budget or daily cap can no longer pay a serve, announced once: the
// first refused claim on an instance publishes `campaign.budget_exhausted` (the outbox's event
// key makes it once across instances too: once per campaign for the lifetime budget, once per
// campaign and UTC day for the daily cap). Called on the decide path, so it only looks in a set
// and never waits for the database.
import type { Notifications } from './notifications.js';

/** The day and lifetime entries kept before the set is cleared (a new day clears it anyway). */
const MAX_REMEMBERED = 10_000;

export class BudgetAlerts {
  private readonly announced = new Set<string>();
  private day = '';

  constructor(private readonly notifications: Pick<Notifications, 'publish'>) {}

  /** A claim of `campaignId` was refused by its budget: `daily` when the day's cap refused it. */
  exhausted(campaignId: string, limit: 'total' | 'daily', day: string): void {
    if (day !== this.day || this.announced.size >= MAX_REMEMBERED) {
      this.announced.clear();
      this.day = day;
    }
    const key = limit === 'daily' ? `${campaignId}:daily:${day}` : `${campaignId}:total`;
    if (this.announced.has(key)) return;
    this.announced.add(key);
    void this.notifications.publish('campaign.budget_exhausted', key, { campaign_id: campaignId, limit, day: limit === 'daily' ? day : null });
  }
}
