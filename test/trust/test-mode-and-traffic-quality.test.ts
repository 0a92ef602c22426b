// Test keys never move live numbers and can ask for any outcome; clicks and impressions that
// do not count are recorded with the reason why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bearer, createTestApp, usingRealPostgres, usingRealRedis, type TestApp, createHost } from '../helpers/test-env.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { TEST_TRIGGERS } from '../../src/decide/test-mode.js';
import { koreanTurn } from '../helpers/envelopes.js';

const stores = `${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'in-process counters'}`;
const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
const ko = (extra: object = {}) => koreanTurn('제주도 호텔 최저가', extra);

describe(`test mode and traffic quality (${stores})`, () => {
  let t: TestApp;
  let live: string;
  let test: string;
  const decide = async (payload: object, key: string) =>
    (await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(key), payload })).json();
  const click = (link: string, opts: { ua?: string; ip?: string; method?: 'GET' | 'HEAD' } = {}) =>
    t.app.inject({
      method: opts.method ?? 'GET',
      url: new URL(link).pathname,
      headers: { 'user-agent': opts.ua ?? UA },
      remoteAddress: opts.ip ?? '10.60.0.1',
    });
  const clickRows = async (decisionId: string, n = 1) => {
    for (let i = 0; i < 100; i++) {
      const r = await t.db.query<{ counted: boolean; not_counted_reason: string | null; ip_hash: string }>(
        'SELECT counted, not_counted_reason, ip_hash FROM clicks WHERE decision_id = $1 ORDER BY created_at',
        [decisionId],
      );
      if (r.rows.length >= n) return r.rows;
      await new Promise((res) => setTimeout(res, 20));
    }
    throw new Error('click not recorded');
  };

  beforeAll(async () => {
    // A roomy decide budget: these tests need fills, which a loaded machine must not turn into TIMEOUT.
    t = await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 100_000, decideTimeBudgetMs: 2_000 });
    const c = miniCatalog();
    c.campaigns![0].budget = { total_micros: 100_000_000, daily_micros: 4_000_000 }; // two live serves a day
    await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: c });
    const created = await createHost(t.app, 'Trust');
    live = created.serving_key;
    test = created.test_key;
  });
  afterAll(() => t?.close());

  describe('test keys', () => {
    it('give each reason code on demand through documented digest ids', async () => {
      for (const [id, code] of Object.entries(TEST_TRIGGERS)) {
        const body = await decide(ko({ message: '안녕', session: { digest: { category_ids: [id] } } }), test);
        expect(body.reason_codes, id).toEqual([code]);
        expect(body.serve).toBe(code === 'MATCHED');
        // A forced block is told from a real one in the record (the lookup's explanation says `test`).
        const row = await t.db.query<{ policy_reasons: string[] }>('SELECT policy_reasons FROM decisions WHERE id = $1', [body.decision_id]);
        expect(row.rows[0].policy_reasons, id).toEqual(code === 'POLICY_BLOCK' ? ['sensitive:test'] : []);
      }
      // Live keys do not get triggers: the id is just an unknown digest id.
      expect((await decide(ko({ message: '안녕', session: { digest: { category_ids: ['sidenote.test.matched'] } } }), live)).reason_codes).toEqual([
        'LOW_INTENT',
      ]);
    });

    it('never move live budgets or frequency caps, and their events are marked test', async () => {
      const session = { token: 'shared-session' };
      for (let i = 0; i < 5; i++) expect((await decide(ko({ session }), test)).serve).toBe(true);
      const first = await decide(ko({ session }), live);
      expect(first.serve).toBe(true);
      expect((await decide(ko({ session }), live)).serve).toBe(true);
      expect((await decide(ko({ session: { token: 'other' } }), live)).reason_codes).toEqual(['BUDGET_EXHAUSTED']);

      const d = await decide(ko(), test);
      const ev = await t.app.inject({
        method: 'POST',
        url: '/v1/events/rendered',
        headers: { ...bearer(test), 'idempotency-key': 'test-render-1' },
        payload: { offer_snapshot_id: d.offer_id, decision_id: d.decision_id },
      });
      expect(ev.json()).toMatchObject({ ok: true, inserted: true, billable: false });
      const row = await t.db.query<{ test: boolean; counted: boolean; not_counted_reason: string }>(
        'SELECT test, counted, not_counted_reason FROM events WHERE id = $1',
        [ev.json().event_id],
      );
      expect(row.rows[0]).toEqual({ test: true, counted: false, not_counted_reason: 'test' });
      expect((await click(d.link, { ip: '10.61.0.1' })).statusCode).toBe(302);
      expect((await clickRows(d.decision_id))[0]).toMatchObject({ counted: false, not_counted_reason: 'test' });
      const decision = await t.db.query<{ test: boolean }>('SELECT test FROM decisions WHERE id = $1', [d.decision_id]);
      expect(decision.rows[0].test).toBe(true);
    });
  });

  describe('not-counted events carry their reason', () => {
    it('no_prior_render: a qualified impression before any rendered one', async () => {
      const liveApp = await createHost(t.app, 'Order');
      const d = await decide({ ...ko(), message: 'cheapest iphone 16', locale: 'en' }, liveApp.serving_key);
      expect(d.serve).toBe(true);
      const post = (url: string, key: string, body: object = { offer_snapshot_id: d.offer_id, decision_id: d.decision_id }) =>
        t.app.inject({ method: 'POST', url, headers: { ...bearer(liveApp.serving_key), 'idempotency-key': key }, payload: body });
      const early = await post('/v1/events/qualified-impression', 'q-early-1');
      const noDecision = await post('/v1/events/qualified-impression', 'q-nodecision-1', { offer_snapshot_id: d.offer_id });
      expect((await post('/v1/events/rendered', 'rendered-1')).statusCode).toBe(200);
      const after = await post('/v1/events/qualified-impression', 'q-after-1');
      for (const r of [early, noDecision, after]) expect(r.statusCode).toBe(200);
      const rows = await t.db.query<{ id: string; counted: boolean; not_counted_reason: string | null }>(
        'SELECT id, counted, not_counted_reason FROM events WHERE id = ANY($1::text[])',
        [[early.json().event_id, noDecision.json().event_id, after.json().event_id]],
      );
      const byId = new Map(rows.rows.map((r) => [r.id, r]));
      expect(byId.get(early.json().event_id)).toMatchObject({ counted: false, not_counted_reason: 'no_prior_render' });
      expect(byId.get(noDecision.json().event_id)).toMatchObject({ counted: false, not_counted_reason: 'no_prior_render' });
      expect(byId.get(after.json().event_id)).toMatchObject({ counted: true, not_counted_reason: null });
    });

    it('expired, bot, HEAD, duplicate (decision and visitor) and rate_limited clicks redirect but do not count', async () => {
      const liveApp = await createHost(t.app, 'Clicks');
      const en = (m: string) => ({ ...ko(), locale: 'en', message: m });
      const d1 = await decide(en('cheapest iphone 16'), liveApp.serving_key);
      const d2 = await decide(en('iphone 16 price'), liveApp.serving_key);
      expect(d1.offer_id).toBe(d2.offer_id);

      // Expired: a link whose expiry passed.
      const claims = t.app.links.verify(new URL(d1.link).pathname.slice(3))!;
      const expired = t.app.links.sign({ ...claims, decisionId: d1.decision_id, expiresAt: Math.floor(Date.now() / 1000) - 1 });
      expect((await t.app.inject({ method: 'GET', url: `/r/${expired}`, headers: { 'user-agent': UA }, remoteAddress: '10.70.0.1' })).statusCode).toBe(302);
      expect((await clickRows(d1.decision_id))[0]).toMatchObject({ counted: false, not_counted_reason: 'expired' });

      // HEAD and link-preview bots.
      const d3 = await decide(en('buy iphone 16'), liveApp.serving_key);
      const head = await click(d3.link, { method: 'HEAD', ip: '10.70.0.2' });
      expect(head.statusCode).toBe(302);
      expect((await click(d3.link, { ua: 'facebookexternalhit/1.1', ip: '10.70.0.3' })).statusCode).toBe(302);
      expect((await clickRows(d3.decision_id, 2)).map((r) => r.not_counted_reason)).toEqual(['bot', 'bot']);

      // The same visitor (address + browser) on the same offer through another decision.
      const d4 = await decide(en('iphone 16 best price'), liveApp.serving_key);
      const d5 = await decide(en('iphone 16 cheapest'), liveApp.serving_key);
      expect((await click(d4.link, { ip: '10.70.0.4' })).statusCode).toBe(302);
      expect((await clickRows(d4.decision_id))[0]).toMatchObject({ counted: true });
      expect((await click(d5.link, { ip: '10.70.0.4' })).statusCode).toBe(302);
      expect((await clickRows(d5.decision_id))[0]).toMatchObject({ counted: false, not_counted_reason: 'duplicate' });

      // One address, two clicks within a minute (other browsers, other decisions): the second is over the 1/min limit.
      const d6 = await decide(en('iphone 16 compare'), liveApp.serving_key);
      const d7 = await decide(en('buy iphone 16 now'), liveApp.serving_key);
      expect((await click(d6.link, { ip: '10.70.0.5', ua: `${UA} A` })).statusCode).toBe(302);
      expect((await clickRows(d6.decision_id))[0]).toMatchObject({ counted: true });
      expect((await click(d7.link, { ip: '10.70.0.5', ua: `${UA} B` })).statusCode).toBe(302);
      const limited = (await clickRows(d7.decision_id))[0];
      expect(limited).toMatchObject({ counted: false, not_counted_reason: 'rate_limited' });
      // Addresses are stored only as a keyed, truncated hash.
      expect(limited.ip_hash).toMatch(/^[\w-]{16}$/);
      expect(limited.ip_hash).not.toContain('10.70');
    });
  });
});
