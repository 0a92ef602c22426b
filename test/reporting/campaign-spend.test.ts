// GET /admin/reports, spend_by_campaign: spend today and lifetime against the budgets, pacing,
// projected exhaustion, CTR and eCPM, exact for known traffic made through the public API at
// known times (the app runs on a clock the test sets).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bearer, createTestApp, usingRealPostgres, usingRealRedis, type TestApp, createHost } from '../helpers/test-env.js';
import { miniCatalog } from '../helpers/mini-catalog.js';

const stores = `${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'in-process counters'}`;
const adult = { age_band: '18_plus', contextual_offer_consent: true };
const surface = { clickable: true, disclosure_capable: true };
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

// Yesterday 03:00 UTC (inside 7 days, outside 24 hours), then today 06:00 UTC: a quarter of the day gone.
const YESTERDAY = Date.parse('2026-11-19T03:00:00Z');
const TODAY = Date.parse('2026-11-20T06:00:00Z');

describe(`campaign spend in reports (${stores})`, () => {
  let t: TestApp;
  let clock = YESTERDAY;

  beforeAll(async () => {
    t = await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 100_000, decideTimeBudgetMs: 2_000 }, undefined, { now: () => clock });
    const catalog = miniCatalog();
    // Hotels: named, a large daily budget. Phones: no name (the id stands in), a daily budget two
    // serves spend half of.
    catalog.campaigns![0].name = 'Jeju hotels · winter';
    catalog.campaigns![1].budget = { total_micros: 10_000_000, daily_micros: 4_000_000 };
    expect((await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: catalog })).statusCode).toBe(200);
    const host = await createHost(t.app, 'Host');
    let n = 0;
    const decide = async (key: string, message: string, extra: object = {}) => {
      const d = (
        await t.app.inject({
          method: 'POST',
          url: '/v1/offers/decide',
          headers: bearer(key),
          payload: { message, locale: 'ko-KR', country: 'KR', audience: adult, native_surface: surface, session: { token: `user-${++n}` }, ...extra },
        })
      ).json();
      if (!d.serve) throw new Error(`expected a serve: ${JSON.stringify(d)}`);
      return d;
    };
    const event = async (path: string, d: { offer_id: string; decision_id: string }) => {
      const res = await t.app.inject({
        method: 'POST',
        url: path,
        headers: { ...bearer(host.serving_key), 'idempotency-key': `spend-event-${++n}` },
        payload: { offer_snapshot_id: d.offer_id, decision_id: d.decision_id },
      });
      expect(res.statusCode).toBe(200);
    };
    const hotel = () => decide(host.serving_key, '제주도 호텔 최저가 알려줘');
    const phone = () => decide(host.serving_key, 'cheapest iphone 16 price?', { locale: 'en-US', country: 'US' });

    // Yesterday: one hotel serve (2.00 spent), rendered.
    await event('/v1/events/rendered', await hotel());
    // Today, a minute before the report's end (a range ends before `until`).
    clock = TODAY - 60_000;
    // Today: three hotel serves (6.00). All rendered, one of them twice (still one impression),
    // two qualified, one clicked: CTR 1/2.
    const hotels = [await hotel(), await hotel(), await hotel()];
    for (const d of hotels) await event('/v1/events/rendered', d);
    await event('/v1/events/rendered', hotels[0]);
    for (const d of hotels.slice(0, 2)) await event('/v1/events/qualified-impression', d);
    await t.app.inject({ method: 'GET', url: new URL(hotels[0].link).pathname, headers: { 'user-agent': BROWSER_UA } });
    // Two phone serves (2.00 of a 4.00 daily budget); a qualified impression with no render before
    // it does not count, so no CTR.
    const phones = [await phone(), await phone()];
    await event('/v1/events/qualified-impression', phones[0]);
    // A test key's serve spends nothing and is left out unless asked for.
    await decide(host.test_key, '제주도 호텔 최저가 알려줘');
    for (let i = 0; i < 100; i++) {
      if (Number((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM clicks')).rows[0].n) >= 1) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    clock = TODAY;
  }, 60_000);
  afterAll(() => t?.close());

  const spendRows = async (query: string) => {
    const res = await t.app.inject({ url: `/admin/reports${query}`, headers: ADMIN });
    expect(res.statusCode).toBe(200);
    return Object.fromEntries(res.json().spend_by_campaign.map((r: { campaign_id: string }) => [r.campaign_id, r]));
  };

  it('gives spend today and lifetime against the budgets, pacing and projected exhaustion', async () => {
    const rows = await spendRows('?range=24h');
    expect(Object.keys(rows)).toEqual(['cmp.jeju-hotels', 'cmp.phones']);
    expect(rows['cmp.jeju-hotels']).toEqual({
      campaign_id: 'cmp.jeju-hotels',
      name: 'Jeju hotels · winter',
      advertiser_id: 'adv.haneul-stay',
      advertiser_name: 'Haneul Stay',
      status: 'active',
      last_control_change: null,
      bid_micros: 2_000_000,
      // 6.00 of 100.00 is 6% of the budget in 25% of the day: pacing 0.24; at that rate the
      // budget would last 100 hours, so it does not run out today.
      today: {
        day: '2026-11-20',
        spend_micros: 6_000_000,
        budget_micros: 100_000_000,
        budget_used: 0.06,
        day_elapsed: 0.25,
        pacing: 0.24,
        exhausts_at: null,
        exhausted: false,
      },
      lifetime: { spend_micros: 8_000_000, budget_micros: 1_000_000_000, budget_used: 0.008 },
      // 6.00 over 3 rendered impressions: 2,000.00 per thousand.
      range: { spend_micros: 6_000_000, served: 3, rendered: 3, qualified: 2, clicks: 1, ctr: 0.5, ecpm_micros: 2_000_000_000 },
    });
    expect(rows['cmp.phones']).toEqual({
      campaign_id: 'cmp.phones',
      name: 'cmp.phones',
      advertiser_id: 'adv.gadget-harbor',
      advertiser_name: 'Gadget Harbor',
      status: 'active',
      last_control_change: null,
      bid_micros: 1_000_000,
      // Half the budget in a quarter of the day: pacing 2, and 4.00 is reached at 12:00 UTC.
      today: {
        day: '2026-11-20',
        spend_micros: 2_000_000,
        budget_micros: 4_000_000,
        budget_used: 0.5,
        day_elapsed: 0.25,
        pacing: 2,
        exhausts_at: '2026-11-20T12:00:00.000Z',
        exhausted: false,
      },
      lifetime: { spend_micros: 2_000_000, budget_micros: 10_000_000, budget_used: 0.2 },
      range: { spend_micros: 2_000_000, served: 2, rendered: 0, qualified: 0, clicks: 0, ctr: null, ecpm_micros: null },
    });
  });

  it('takes CTR and eCPM over the range asked for, and test traffic only when asked', async () => {
    const week = await spendRows('?range=7d');
    // Yesterday's serve joins: 8.00 over 4 rendered impressions.
    expect(week['cmp.jeju-hotels'].range).toEqual({
      spend_micros: 8_000_000,
      served: 4,
      rendered: 4,
      qualified: 2,
      clicks: 1,
      ctr: 0.5,
      ecpm_micros: 2_000_000_000,
    });
    expect(week['cmp.jeju-hotels'].today.spend_micros).toBe(6_000_000);
    const withTest = await spendRows('?range=24h&include_test=true');
    // The test serve counts as served but spends nothing, here or in the ledger.
    expect(withTest['cmp.jeju-hotels'].range).toMatchObject({ spend_micros: 6_000_000, served: 4 });
    expect(withTest['cmp.jeju-hotels'].today.spend_micros).toBe(6_000_000);
  });

  it('names campaigns in the funnel too', async () => {
    const res = await t.app.inject({ url: '/admin/reports?range=24h', headers: ADMIN });
    expect(res.json().funnel_by_campaign.map((r: { id: string; name: string }) => [r.id, r.name])).toEqual([
      ['cmp.jeju-hotels', 'Jeju hotels · winter'],
      ['cmp.phones', 'cmp.phones'],
    ]);
  });
});
