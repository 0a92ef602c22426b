// The clicks table: the batch insert behind the click recorder (which also counts the decisions
// a counted click reaches in the report rollups) and a decision's click count. A click's id is
// made before its redirect is answered, so a batch retried after a failure whose outcome was
// unknown inserts each click once (ON CONFLICT), and its funnel step at most once (a mark).
import type { Database } from '../db/database.js';
import { batchInsert } from '../persistence/batch-insert.js';
import { decisionsReaching } from '../decisions/decision-repository.js';
import { sinceDecision } from '../persistence/decision-time.js';
import { foldFunnelSteps } from '../reporting/report-repository.js';

export interface ClickRow {
  id: string;
  decisionId: string;
  appId: string;
  offerSnapshotId: string;
  createdAt: Date;
  ipHash: string | null;
  userAgentBot: boolean;
  counted: boolean;
  notCountedReason: string | null;
}

const INSERT_CLICKS = batchInsert<ClickRow>(
  'clicks',
  [
    { name: 'id', type: 'text', value: (r) => r.id },
    { name: 'decision_id', type: 'text', value: (r) => r.decisionId },
    { name: 'app_id', type: 'text', value: (r) => r.appId },
    { name: 'offer_snapshot_id', type: 'text', value: (r) => r.offerSnapshotId },
    { name: 'created_at', type: 'timestamptz', value: (r) => r.createdAt },
    { name: 'ip_hash', type: 'text', value: (r) => r.ipHash },
    { name: 'user_agent_bot', type: 'boolean', value: (r) => r.userAgentBot },
    { name: 'counted', type: 'boolean', value: (r) => r.counted },
    { name: 'not_counted_reason', type: 'text', value: (r) => r.notCountedReason },
  ],
  // (id, created_at): the partition key must be in it; a retried batch repeats both.
  { onConflict: '(id, created_at) DO NOTHING', returning: 'decision_id, counted' },
);

const INSERT_CLICKS_COUNTED = `
WITH inserted AS (
${INSERT_CLICKS.sql}
), reached AS (
  SELECT DISTINCT decision_id, 'click' AS step FROM inserted WHERE counted
), ${foldFunnelSteps('reached', decisionsReaching('reached'), 'funnel')}
SELECT count(*) FROM inserted`;

export class ClickRepository {
  constructor(private readonly db: Database) {}

  async insert(rows: ClickRow[]): Promise<void> {
    await this.db.query(INSERT_CLICKS_COUNTED, INSERT_CLICKS.params(rows));
  }

  /** Every click that arrived for a decision, counted or not (the decision lookup's `clicks`). */
  async countOfDecision(decisionId: string): Promise<number> {
    const r = await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM clicks WHERE decision_id = $1 AND ${sinceDecision('created_at')}`, [
      decisionId,
    ]);
    return r.rows[0].n;
  }
}
