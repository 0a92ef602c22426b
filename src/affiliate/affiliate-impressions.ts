// Affiliate impression tokens and the click intents that present them. A token is a
// capability: 256 random bits handed to the host once; only its SHA-256 is stored.
import { Refusal } from '../errors/error-registry.js';
import { newId, sha256 } from '../util/ids.js';
import type { AffiliateImpressionRepository, AffiliateImpressionRow } from './affiliate-impression-repository.js';

export type NewAffiliateImpression = Omit<AffiliateImpressionRow, 'id'>;

export interface RecordedClickIntent {
  ok: true;
  inserted: boolean;
  click_intent_id: string;
  billable: false;
}

export class AffiliateImpressions {
  constructor(
    private readonly impressions: AffiliateImpressionRepository,
    private readonly now: () => number = Date.now,
  ) {}

  async create(i: NewAffiliateImpression): Promise<void> {
    await this.impressions.insert({ id: newId('aim'), ...i });
  }

  /** Analytics only: a click intent never moves a budget or a bill. Refuses an unknown or
   *  expired token (unknown_impression). */
  async recordClickIntent(token: string, eventId: string, occurredAt: Date | null): Promise<RecordedClickIntent> {
    const impression = await this.impressions.findByTokenHash(sha256(token));
    if (!impression || impression.expiresAt.getTime() < this.now()) throw new Refusal('unknown_impression');
    const id = newId('cli');
    const inserted = await this.impressions.insertClickIntent({
      id,
      impressionId: impression.id,
      impressionCreatedAt: impression.createdAt,
      eventId,
      occurredAt,
      createdAt: new Date(this.now()),
    });
    if (inserted) return { ok: true, inserted: true, click_intent_id: id, billable: false };
    const existing = await this.impressions.clickIntentId(impression.id, impression.createdAt, eventId);
    return { ok: true, inserted: false, click_intent_id: existing, billable: false };
  }
}
