// Reads of the spend ledger (migration 002): what each campaign has spent in all and on one UTC
// day, as committed. The ledger is written with the decision rows (src/decide/decision-recorder.ts).
import type { Database } from '../db/database.js';
import type { LedgerSpend } from '../counters/counter-store.js';

const SPEND_OF = `
SELECT c.id AS campaign_id, coalesce(t.spend_micros, 0) AS total, coalesce(d.spend_micros, 0) AS today
FROM unnest($1::text[]) AS c(id)
LEFT JOIN campaign_spend_total t ON t.campaign_id = c.id
LEFT JOIN campaign_spend_daily d ON d.campaign_id = c.id AND d.day = $2::date`;

export class SpendLedger {
  constructor(private readonly db: Database) {}

  /** Lifetime and `day` spend of each campaign (0 for one that never spent). */
  async spendOf(campaignIds: readonly string[], day: string): Promise<LedgerSpend[]> {
    if (campaignIds.length === 0) return [];
    const r = await this.db.query<{ campaign_id: string; total: number; today: number }>(SPEND_OF, [[...campaignIds], day]);
    return r.rows.map((row) => ({ campaignId: row.campaign_id, totalMicros: Number(row.total), day, dayMicros: Number(row.today) }));
  }
}
