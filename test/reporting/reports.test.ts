// GET /admin/reports: exact numbers for traffic made through the public API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, usingRealPostgres, usingRealRedis, type TestApp } from '../helpers/test-env.js';
import { seededReportingApp, type SeededTraffic } from './seed-traffic.js';

const stores = `${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'in-process counters'}`;

describe(`reports (${stores})`, () => {
  let t: TestApp;
  let seeded: SeededTraffic;

  beforeAll(async () => {
    ({ t, seeded } = await seededReportingApp());
  }, 60_000);
  afterAll(() => t?.close());

  const report = async (query = '') => {
    const res = await t.app.inject({ url: `/admin/reports${query}`, headers: ADMIN });
    expect(res.statusCode).toBe(200);
    return res.json();
  };

  it('counts the funnel per app and in total, leaving test traffic out', async () => {
    const r = await report('?range=1h');
    expect(r.totals).toEqual({ decides: 9, fills: 5, fill_rate: 0.556, rendered: 3, qualified: 2, clicks: 1, conversions: 1, conversions_occurred: 1 });
    const byApp = Object.fromEntries(r.funnel_by_app.map((a: { id: string }) => [a.id, a]));
    expect(byApp[seeded.hostA.app_id]).toEqual({
      id: seeded.hostA.app_id,
      name: 'Host A',
      decides: 7,
      served: 4,
      rendered: 3,
      qualified: 2,
      clicks: 1,
      conversions: 1,
    });
    expect(byApp[seeded.hostB.app_id]).toEqual({
      id: seeded.hostB.app_id,
      name: 'Host B',
      decides: 2,
      served: 1,
      rendered: 0,
      qualified: 0,
      clicks: 0,
      conversions: 0,
    });
    expect(r.funnel_by_campaign).toEqual([
      { id: 'cmp.jeju-hotels', name: 'Jeju ocean-view hotels', decides: 4, served: 4, rendered: 3, qualified: 2, clicks: 1, conversions: 1 },
      { id: 'cmp.phones', name: 'cmp.phones', decides: 1, served: 1, rendered: 0, qualified: 0, clicks: 0, conversions: 0 },
    ]);
  });

  it('has every bucket of the range, with no-fill reasons and latency where there was traffic', async () => {
    const r = await report('?range=1h');
    expect(r.bucket_seconds).toBe(60);
    expect(r.timeline.length).toBeGreaterThanOrEqual(60);
    expect(r.timeline.length).toBeLessThanOrEqual(61);
    const sum = (k: 'decides' | 'fills') => r.timeline.reduce((n: number, p: Record<string, number>) => n + p[k], 0);
    expect(sum('decides')).toBe(9);
    expect(sum('fills')).toBe(5);
    const reasons: Record<string, number> = {};
    for (const p of r.timeline) for (const [k, v] of Object.entries(p.no_fill_reasons as Record<string, number>)) reasons[k] = (reasons[k] ?? 0) + v;
    expect(reasons).toEqual({ POLICY_BLOCK: 2, LOCALE_NOT_LIVE: 1, LOW_INTENT: 1 });
    const busy = r.timeline.filter((p: { decides: number }) => p.decides > 0);
    for (const p of busy) {
      expect(p.latency_ms.p50).toBeGreaterThan(0);
      expect(p.latency_ms.p99).toBeGreaterThanOrEqual(p.latency_ms.p50);
    }
    expect(
      r.timeline
        .filter((p: { decides: number }) => p.decides === 0)
        .every((p: { latency_ms: unknown; fill_rate: unknown }) => p.latency_ms === null && p.fill_rate === null),
    ).toBe(true);
  });

  it('ranks matched categories and entities', async () => {
    const r = await report('?range=24h');
    expect(r.bucket_seconds).toBe(1800);
    expect(r.top_entities[0]).toEqual({ id: 'place.jeju', decides: 4 });
    expect(r.top_categories.map((c: { id: string }) => c.id)).toContain('travel.hotels');
  });

  it('filters by app and includes test traffic only when asked', async () => {
    const onlyB = await report(`?range=7d&app_id=${seeded.hostB.app_id}`);
    expect(onlyB.totals).toMatchObject({ decides: 2, fills: 1 });
    expect(onlyB.funnel_by_app.map((a: { id: string }) => a.id)).toEqual([seeded.hostB.app_id]);
    const withTest = await report('?range=1h&include_test=true');
    expect(withTest.totals).toMatchObject({ decides: 10, fills: 6 });
  });

  it('needs the admin key and rejects bad parameters with 400', async () => {
    expect((await t.app.inject({ url: '/admin/reports' })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/admin/reports', headers: { authorization: `Bearer ${seeded.hostA.serving_key}` } })).statusCode).toBe(401);
    for (const q of ['?range=2h', '?app_id=DROP%20TABLE', '?include_test=yes', '?extra=1']) {
      const res = await t.app.inject({ url: `/admin/reports${q}`, headers: ADMIN });
      expect(res.statusCode, q).toBe(400);
      expect(res.json()).toMatchObject({ ok: false, error: 'invalid_request' });
    }
  });
});
