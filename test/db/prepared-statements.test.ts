// Which statements Postgres keeps prepared on a pooled connection. The writers' batch statements
// are prepared once per connection (parse and plan skipped on every flush). The report's
// statements are planned with their values on every call: prepared under a name, Postgres moved
// them to a generic plan after five runs on a connection, and a 7-day report over 5 million
// decisions went from ~50 ms to ~700 ms (bench/RESULTS.md, "Reports").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { AppRepository } from '../../src/apps/app-repository.js';
import { DecisionRepository } from '../../src/decisions/decision-repository.js';
import { ReportRepository } from '../../src/reporting/report-repository.js';
import { createTestDatabase, usingRealPostgres, type TestDatabase } from '../helpers/test-env.js';
import { decisionAt, noActivity } from '../../testkit/decision-records.js';
import { makeHistoryPartitions } from '../../testkit/history-partitions.js';

describe.runIf(usingRealPostgres)('prepared statements (Postgres)', () => {
  let t: TestDatabase;
  let one: Database;
  beforeAll(async () => {
    t = await createTestDatabase();
    // One connection, so every statement below and the probe run on the same session.
    one = await openDatabase({ databaseUrl: t.url, dataDir: 'memory', poolSize: 1 });
    await makeHistoryPartitions(one, Date.now());
  });
  afterAll(async () => {
    await one?.close();
    await t?.drop();
  });

  it('the decision writer is prepared once; report statements are planned with their values every time', async () => {
    const appId = (await new AppRepository(one).createApp('prepared')).app_id;
    await new DecisionRepository(one, noActivity).insert([decisionAt(appId, Date.now())]);
    const reports = new ReportRepository(one);
    const until = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 60_000);
    for (let i = 0; i < 7; i++) {
      await reports.figures({ from: new Date(until.getTime() - 7 * 86_400_000), until, appId: null, includeTest: false, bucketSeconds: 21_600 });
    }
    const prepared = await one.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements');
    expect(prepared.rows.some((r) => r.statement.includes('INSERT INTO decisions'))).toBe(true);
    expect(prepared.rows.filter((r) => /report_\w*rollups/.test(r.statement) && !r.statement.includes('INSERT INTO'))).toEqual([]);
  });
});
