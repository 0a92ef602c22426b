// The warm-up before the port opens (src/health/warm-up.ts) runs every part of a first decide
// (the matcher, the request path to the key check, the decision insert) and leaves no trace in
// the database: no decision row, no ledger or rollup change (its refused requests count only
// against a documentation address); a decide after it is answered as usual. Whether it makes the first decide fast is a timing, shown by CI's README
// start (one try of the printed curl), not asserted here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servingEnvelope } from '../helpers/host-traffic.js';
import { bearer, createTestApp, usingRealPostgres, type TestApp, createHost } from '../helpers/test-env.js';
import { warmUp } from '../../src/health/warm-up.js';

describe(`warm-up before the port opens (${usingRealPostgres ? 'Postgres' : 'PGlite'})`, () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ decideTimeBudgetMs: 2_000 });
    key = (await createHost(t.app, 'Warm host')).serving_key;
  });
  afterAll(async () => {
    await t?.close();
  });

  const count = async (sql: string) => Number((await t.db.query<{ n: string }>(sql)).rows[0].n);
  const trace = async () => ({
    decisions: await count('SELECT count(*) AS n FROM decisions'),
    rollups: await count('SELECT count(*) AS n FROM report_rollups'),
    spend: await count('SELECT coalesce(sum(spend_micros), 0) AS n FROM campaign_spend_total'),
  });

  it('reads, matches and rehearses a decide, and leaves no row, spend or rollup behind', async () => {
    const before = await trace();
    const requestsBefore = await t.app.metrics.registry.getSingleMetricAsString('sidenote_http_requests_total');
    const report = await warmUp(t.app);
    // Not counted as anyone's traffic either.
    expect(await t.app.metrics.registry.getSingleMetricAsString('sidenote_http_requests_total')).toBe(requestsBefore);
    expect(report.ms).toBeGreaterThan(0);
    const after = await trace();
    expect(after).toEqual(before);
    const res = await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(key), payload: servingEnvelope() });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ serve: true });
    expect(await count('SELECT count(*) AS n FROM decisions')).toBe(before.decisions + 1);
  });

  it('warms a database with no app yet without failing', async () => {
    const empty = await createTestApp({ loadDemoCatalog: false });
    try {
      await expect(warmUp(empty.app)).resolves.toMatchObject({ ms: expect.any(Number) });
      expect(Number((await empty.db.query<{ n: string }>('SELECT count(*) AS n FROM decisions')).rows[0].n)).toBe(0);
    } finally {
      await empty.close();
    }
  });
});
