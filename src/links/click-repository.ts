// The clicks table: the batch insert behind the click recorder. A click's id is made before its
// redirect is answered, so a batch retried after a failure whose outcome was unknown inserts
// each click once (ON CONFLICT).
import type { Database } from '../db/database.js';
import { batchInsert } from '../persistence/batch-insert.js';

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
  { onConflict: '(id) DO NOTHING' },
);

export class ClickRepository {
  constructor(private readonly db: Database) {}

  async insert(rows: ClickRow[]): Promise<void> {
    await this.db.query(INSERT_CLICKS.sql, INSERT_CLICKS.params(rows));
  }
}
