// Campaign control without a catalog import: an operator pauses, resumes, rebudgets or ends a
// campaign through the admin API; the instance that took the change serves it at once, another
// instance on the same database within its poll, spend already made stays, controls outlive
// imports until returned to the catalog, and every change is recorded with before and after.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bearer, createTestApp, type TestApp, createHost } from '../helpers/test-env.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { koreanTurn } from '../helpers/envelopes.js';

const CAMPAIGN = 'cmp.jeju-hotels';
const BID = 2_000_000;

describe('campaign control', () => {
  let a: Awaited<ReturnType<typeof createTestApp>>;
  let b: TestApp;
  let key: string;
  let sessions = 0;
  // A session of its own each time: the campaign's frequency cap never answers for it.
  const hotel = () => koreanTurn('제주도 호텔 최저가 알려줘', { session: { token: `s-${++sessions}` } });
  const decide = async (t: TestApp) => (await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(key), payload: hotel() })).json();
  const servesCampaign = async (t: TestApp) => {
    const answer = await decide(t);
    return answer.serve === true && answer.advertiser === 'Haneul Stay';
  };
  const patch = (payload: unknown, id = CAMPAIGN) =>
    a.app.inject({ method: 'PATCH', url: `/admin/campaigns/${id}/control`, headers: ADMIN, payload: payload as object });
  const read = async (id = CAMPAIGN) => (await a.app.inject({ method: 'GET', url: `/admin/campaigns/${id}/control`, headers: ADMIN })).json();

  beforeAll(async () => {
    a = await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 1_000_000 });
    // A second instance on the same database and counters, polling the catalog version.
    b = await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 1_000_000, catalogPollMs: 200 }, { testDb: a.testDb, counters: a.counters });
    await a.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
    key = (await createHost(a.app, 'Host')).serving_key;
    await until(() => servesCampaign(b));
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('starts with no controls: it serves as the catalog says', async () => {
    const v = await read();
    expect(v).toMatchObject({
      campaign_id: CAMPAIGN,
      archived: false,
      overrides: {},
      updated_at: null,
      changes: [],
      effective: { status: 'active', budget: { total_micros: 1_000_000_000, daily_micros: 100_000_000 }, ends_at: null },
    });
    expect(v.catalog).toEqual(v.effective);
    expect(await servesCampaign(a)).toBe(true);
  });

  it('pauses at once on the instance that took it, within the poll on another, and resumes the same way', async () => {
    const paused = await patch({ status: 'paused', changed_by: 'ops: Mina' });
    expect(paused.statusCode).toBe(200);
    expect(paused.json()).toMatchObject({ effective: { status: 'paused' }, catalog: { status: 'active' }, overrides: { status: 'paused' } });
    expect(await servesCampaign(a)).toBe(false);
    const answer = await decide(a);
    expect(answer.serve).toBe(false);
    await until(async () => !(await servesCampaign(b)));

    expect((await patch({ status: 'active' })).json().effective.status).toBe('active');
    expect(await servesCampaign(a)).toBe(true);
    await until(() => servesCampaign(b));
    const changes = (await read()).changes;
    expect(changes.map((c: { after: { status: string } }) => c.after.status)).toEqual(['active', 'paused']);
    expect(changes[1]).toMatchObject({ changed_by: 'ops: Mina', channel: 'admin_api', before: { status: 'active' }, after: { status: 'paused' } });
    expect(changes[0].changed_by).toBe('admin API');
  });

  it("keeps spend already made: a daily budget lowered to today's spend exhausts the campaign, raised again it serves", async () => {
    // Serves so far today, each at the bid: lower the daily budget to exactly that spend.
    const today = await spentToday();
    expect(today).toBeGreaterThan(0);
    const lowered = await patch({ budget: { daily_micros: today } });
    expect(lowered.json()).toMatchObject({
      effective: { budget: { daily_micros: today, total_micros: 1_000_000_000 } },
      overrides: { budget: { daily_micros: today } },
    });
    const answer = await decide(a);
    expect(answer.serve).toBe(false);
    expect(answer.reason_codes).toContain('BUDGET_EXHAUSTED');
    expect(await spentToday()).toBe(today);
    await patch({ budget: { daily_micros: today + BID } });
    expect(await servesCampaign(a)).toBe(true);
    expect(await spentToday()).toBe(today + BID);
  });

  it('ends a campaign with an end date in the past, and "never" returns it', async () => {
    await patch({ ends_at: '2020-01-01T00:00:00Z' });
    expect(await servesCampaign(a)).toBe(false);
    const never = await patch({ ends_at: null, budget: { daily_micros: 100_000_000 } });
    expect(never.json()).toMatchObject({ effective: { ends_at: null }, overrides: { ends_at: null } });
    expect(await servesCampaign(a)).toBe(true);
  });

  it('outlives a catalog import until returned to the catalog, and clearing follows the catalog again', async () => {
    await patch({ status: 'paused' });
    const changed = miniCatalog();
    changed.campaigns![0].bid_micros = BID + 1;
    const imported = await a.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: changed });
    expect(imported.json().changed).toBe(true);
    expect((await read()).effective.status).toBe('paused');
    expect(await servesCampaign(a)).toBe(false);

    const followed = await patch({ follow_catalog: ['status'] });
    expect(followed.json()).toMatchObject({ effective: { status: 'active', ends_at: null }, overrides: { ends_at: null } });
    expect(await servesCampaign(a)).toBe(true);

    const all = { follow_catalog: ['status', 'budget.total_micros', 'budget.daily_micros', 'ends_at'] };
    const cleared = await patch(all);
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json()).toMatchObject({ overrides: {}, updated_at: null });
    expect(cleared.json().effective).toEqual(cleared.json().catalog);
    // Nothing to change: no change recorded.
    const count = (await read()).changes.length;
    await patch(all);
    expect((await read()).changes.length).toBe(count);
  });

  it('refuses bad changes in the API error format without echoing them, and changes nothing', async () => {
    const before = await read();
    const bad: unknown[] = [
      { status: 'ended' },
      { status: 'paused', follow_catalog: ['status'] },
      { budget: { daily_micros: 5 }, follow_catalog: ['budget.daily_micros'] },
      { budget: { daily_micros: -1 } },
      { budget: { daily_micros: 1.5 } },
      { ends_at: 'tomorrow <script>' },
      { ends_at: '2027-01-01T00:00:00' },
      { follow_catalog: ['bid_micros'] },
      { changed_by: '   ' },
      { extra: 1 },
    ];
    for (const body of bad) {
      const res = await patch(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toBe('invalid_request');
      expect(res.body).not.toContain('<script>');
    }
    expect((await patch({ status: 'paused' }, 'cmp.nothere')).statusCode).toBe(404);
    expect((await patch({ status: 'paused' }, 'Not An Id')).statusCode).toBe(400);
    expect((await a.app.inject({ method: 'GET', url: `/admin/campaigns/${CAMPAIGN}/control`, headers: bearer(key) })).statusCode).toBe(401);
    expect(await read()).toEqual(before);
  });

  it('refuses an end date before the campaign starts', async () => {
    const starting = miniCatalog();
    starting.campaigns![0].starts_at = '2030-01-01T00:00:00Z';
    await a.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: starting });
    const res = await patch({ ends_at: '2029-01-01T00:00:00Z' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_request', message: 'ends_at must be after the campaign starts (starts_at)' });
  });

  /** Today's spend of the campaign, from the ledger. */
  async function spentToday(): Promise<number> {
    const r = await a.db.query<{ micros: string }>(
      `SELECT coalesce(sum(spend_micros), 0)::text AS micros FROM campaign_spend_daily
        WHERE campaign_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date`,
      [CAMPAIGN],
    );
    return Number(r.rows[0].micros);
  }
});

async function until(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not within the time allowed');
    await new Promise((r) => setTimeout(r, 50));
  }
}
