// Retention of the report rollups: minute rows once no report range reads them (8 days), half-hour
// rows and funnel marks with the decisions they count (DECISIONS_RETENTION_DAYS), and nothing
// when a retention is 0 (kept for ever). Without it the rollups grow with every decide for ever.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppRepository } from '../../src/apps/app-repository.js';
import { HISTORY_TABLES, HistoryMaintenance, type HistoryTable } from '../../src/db/history-partitions.js';
import { DecisionRepository } from '../../src/decisions/decision-repository.js';
import { MINUTE_ROLLUP_RETENTION_DAYS, ReportRepository } from '../../src/reporting/report-repository.js';
import { createTestDatabase, usingRealPostgres, type TestDatabase } from '../helpers/test-env.js';
import { decisionAt, noActivity } from '../../testkit/decision-records.js';

const DAY = 86_400_000;
const NOW = Math.floor(Date.now() / DAY) * DAY + 12 * 3_600_000;
const AGES = [1, 10, 100];
const keepAll = Object.fromEntries(Object.keys(HISTORY_TABLES).map((t) => [t, 0])) as Record<HistoryTable, number>;
describe(`report rollup retention (${usingRealPostgres ? 'Postgres' : 'PGlite'})`, () => {
  let t: TestDatabase;
  const rows = async (grain: number) =>
    (await t.db.query<{ at: Date }>('SELECT at FROM report_rollups WHERE grain = $1 ORDER BY at', [grain])).rows.map((r) =>
      Math.round((NOW - r.at.getTime()) / DAY),
    );
  const marks = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM report_funnel_marks')).rows[0].n;

  beforeAll(async () => {
    t = await createTestDatabase();
    const app = await new AppRepository(t.db).createApp('Retention');
    const decisions = new DecisionRepository(t.db, noActivity);
    for (const age of AGES) {
      const at = NOW - age * DAY;
      await new HistoryMaintenance(t.db, { retentionDays: keepAll, daysAhead: 1 }, { now: () => at }).run({ wait: true });
      const d = decisionAt(app.app_id, at, undefined, { matchedCategoryIds: ['travel'], latencyUs: 1_000 });
      await decisions.insert([d]);
      await t.db.query("INSERT INTO report_funnel_marks (decision_id, step, decided_at) VALUES ($1, 'rendered', $2)", [d.id, d.createdAt.toISOString()]);
    }
  });
  afterAll(() => t?.drop());

  it('keeps everything when every retention is 0', async () => {
    const reports = new ReportRepository(t.db);
    const keyExpiry = [
      { name: 'minutes', days: 0, forgetBefore: (b: Date) => reports.forgetRollupsBefore(60, b) },
      { name: 'marks', days: 0, forgetBefore: (b: Date) => reports.forgetFunnelMarksBefore(b) },
    ];
    const report = await new HistoryMaintenance(t.db, { retentionDays: keepAll, daysAhead: 1, keyExpiry }, { now: () => NOW }).run({ wait: true });
    expect(report?.keysForgotten).toEqual({});
    expect(await rows(60)).toEqual([100, 10, 1]);
    expect(await marks()).toBe(3);
  });

  it('drops minute rows past 8 days, half-hour rows and funnel marks with their decisions', async () => {
    const reports = new ReportRepository(t.db);
    const keyExpiry = [
      { name: 'minutes', days: MINUTE_ROLLUP_RETENTION_DAYS, forgetBefore: (b: Date) => reports.forgetRollupsBefore(60, b) },
      { name: 'half hours', days: 90, forgetBefore: (b: Date) => reports.forgetRollupsBefore(1800, b) },
      { name: 'marks', days: 90, forgetBefore: (b: Date) => reports.forgetFunnelMarksBefore(b) },
    ];
    const report = await new HistoryMaintenance(t.db, { retentionDays: keepAll, daysAhead: 1, keyExpiry }, { now: () => NOW }).run({ wait: true });
    // One decide writes a row to each of the four rollup tables it touches (counts, reasons,
    // latency, matched ids) at each grain.
    expect(report?.keysForgotten).toEqual({ minutes: 2 * 4, 'half hours': 4, marks: 1 });
    expect(await rows(60)).toEqual([1]);
    expect(await rows(1800)).toEqual([10, 1]);
    expect(await marks()).toBe(2);
  });
});
