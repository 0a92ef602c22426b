// Day partitions of the history tables for tests and benchmarks that write history of past days
// straight through the repositories: made as the service made them on those days, retention off.
import type { Database } from '../src/db/database.js';
import { HISTORY_TABLES, HistoryMaintenance, type HistoryTable } from '../src/db/history-partitions.js';

const DAY = 86_400_000;

/** Retention off for every history table. */
export const KEEP_HISTORY: Record<HistoryTable, number> = Object.fromEntries(Object.keys(HISTORY_TABLES).map((t) => [t, 0])) as Record<HistoryTable, number>;

/** Makes the partitions of every day from the day before `fromMs` to a day after `untilMs`. */
export async function makeHistoryPartitions(db: Database, fromMs: number, untilMs = fromMs): Promise<void> {
  for (let at = fromMs; ; at += 7 * DAY) {
    await new HistoryMaintenance(db, { retentionDays: KEEP_HISTORY, daysAhead: 8 }, { now: () => at }).run({ wait: true });
    if (at + 7 * DAY > untilMs) break;
  }
}
