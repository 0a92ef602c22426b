// GET /v1/reports: a host's own numbers with its serving key, equal to what the operator's
// report shows for that app, and nothing of any other app.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bearer, usingRealPostgres, usingRealRedis, type TestApp } from '../helpers/test-env.js';
import { seededReportingApp, type SeededTraffic } from './seed-traffic.js';

const stores = `${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'in-process counters'}`;

describe(`host reports (${stores})`, () => {
  let t: TestApp;
  let seeded: SeededTraffic;

  beforeAll(async () => {
    ({ t, seeded } = await seededReportingApp());
  }, 60_000);
  afterAll(() => t?.close());

  const hostReport = async (key: string, query = '') => {
    const res = await t.app.inject({ url: `/v1/reports${query}`, headers: bearer(key) });
    expect(res.statusCode).toBe(200);
    return res.json();
  };
  const operatorReport = async (query: string) => (await t.app.inject({ url: `/admin/reports${query}`, headers: ADMIN })).json();

  it('gives a host its own funnel and no-fill reasons, per UTC day over 30 days by default', async () => {
    const r = await hostReport(seeded.hostA.serving_key);
    expect(r).toMatchObject({ app_id: seeded.hostA.app_id, range: '30d', bucket_seconds: 86_400, include_test: false });
    expect(r.totals).toEqual({
      decides: 7,
      fills: 4,
      fill_rate: 0.571,
      no_fill_reasons: { POLICY_BLOCK: 2, LOCALE_NOT_LIVE: 1 },
      rendered: 3,
      qualified: 2,
      clicks: 1,
      conversions: 1,
      conversions_occurred: 1,
    });
    expect(r.buckets.length).toBeGreaterThanOrEqual(30);
    expect(r.buckets.every((b: { at: string }) => b.at.endsWith('T00:00:00.000Z'))).toBe(true);
    const sum = (k: string) => r.buckets.reduce((n: number, b: Record<string, number>) => n + b[k], 0);
    expect(['decides', 'fills', 'rendered', 'qualified', 'clicks', 'conversions', 'conversions_occurred'].map(sum)).toEqual([7, 4, 3, 2, 1, 1, 1]);
  });

  it("has the operator dashboard's figures for that app, in every range", async () => {
    for (const [key, appId] of [
      [seeded.hostA.serving_key, seeded.hostA.app_id],
      [seeded.hostB.serving_key, seeded.hostB.app_id],
    ]) {
      for (const range of ['1h', '24h', '7d', '30d']) {
        const host = await hostReport(key, `?range=${range}`);
        const op = await operatorReport(`?range=${range}&app_id=${appId}`);
        const { decides, fills, fill_rate, rendered, qualified, clicks, conversions, conversions_occurred } = op.totals;
        expect(host.totals, range).toMatchObject({ decides, fills, fill_rate, rendered, qualified, clicks, conversions, conversions_occurred });
        expect(host.buckets.map((b: { decides: number }) => b.decides)).toEqual(op.timeline.map((p: { decides: number }) => p.decides));
        expect(host.buckets.map((b: { no_fill_reasons: object }) => b.no_fill_reasons)).toEqual(
          op.timeline.map((p: { no_fill_reasons: object }) => p.no_fill_reasons),
        );
      }
    }
  });

  it('shows nothing of another app, and test traffic only when asked', async () => {
    const b = await hostReport(seeded.hostB.serving_key, '?range=1h');
    expect(b.totals).toMatchObject({ decides: 2, fills: 1, rendered: 0 });
    expect(JSON.stringify(b)).not.toContain(seeded.hostA.app_id);
    // Host A's test key is Host A's: its own test decide joins when asked.
    expect((await hostReport(seeded.hostA.serving_key, '?range=1h&include_test=true')).totals).toMatchObject({ decides: 8, fills: 5 });
    expect((await hostReport(seeded.hostB.serving_key, '?range=1h&include_test=true')).totals).toMatchObject({ decides: 2, fills: 1 });
  });

  it('needs a serving key, and rejects bad parameters with 400 without echoing them', async () => {
    expect((await t.app.inject({ url: '/v1/reports' })).json()).toEqual({ ok: false, error: 'missing_api_key' });
    expect((await t.app.inject({ url: '/v1/reports', headers: ADMIN })).statusCode).toBe(401);
    for (const q of ['?range=2h', '?app_id=app_other', '?include_test=yes', '?range=CANARY-q']) {
      const res = await t.app.inject({ url: `/v1/reports${q}`, headers: bearer(seeded.hostA.serving_key) });
      expect(res.statusCode, q).toBe(400);
      expect(res.json()).toMatchObject({ ok: false, error: 'invalid_request' });
      expect(res.body).not.toContain('CANARY');
    }
  });
});
