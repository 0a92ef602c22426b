// Conversions as advertisers send them: late (event_time, within the attribution window after
// the decision), deduplicated by their own order id, and in batches answered item by item.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signConversion, type SignedConversion } from '../../src/conversions/conversion-signature.js';
import { koreanTurn } from '../helpers/envelopes.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { ADMIN, bearer, createTestApp, usingRealPostgres, usingRealRedis, type TestApp, type TestDatabase, createHost } from '../helpers/test-env.js';

const DAY = 86_400_000;
// Every instance here runs on one clock that started at noon UTC today and ticks in real time:
// the reports' daily buckets and "the day it happened" cannot move under the test at midnight.
const started = Date.now();
const NOON = Date.parse(`${new Date(started).toISOString().slice(0, 10)}T12:00:00Z`);
const clock = () => NOON + (Date.now() - started);
const stores = `${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'in-process counters'}`;

describe(`late and batched conversions (${stores})`, () => {
  let t: TestApp & { testDb: TestDatabase };
  let host: { app_id: string; serving_key: string; conversion_secret: string };
  let n = 0;

  const serve = async (instance: TestApp) => {
    const res = await instance.app.inject({
      method: 'POST',
      url: '/v1/offers/decide',
      headers: bearer(host.serving_key),
      payload: koreanTurn('제주도 호텔 최저가 알려줘'),
    });
    expect(res.json().serve).toBe(true);
    return res.json() as { decision_id: string; offer_id: string };
  };
  /** Signed now, as an advertiser's back end signs what it sends. */
  const signed = (body: Omit<SignedConversion, 'timestamp' | 'nonce'> & { timestamp?: number; nonce?: string }, secret = host.conversion_secret) => {
    const b = { timestamp: Math.floor(clock() / 1000), nonce: `nonce-late-${Date.now()}-${++n}`, ...body };
    return { ...b, signature: signConversion(secret, b) };
  };
  const post = (url: string, payload: unknown) => t.app.inject({ method: 'POST', url, headers: bearer(host.serving_key), payload: payload as object });
  const occurredAt = async (conversionId: string) =>
    (
      await t.db.query<{ occurred_at: Date | string | null; order_id: string | null }>('SELECT occurred_at, order_id FROM conversions WHERE id = $1', [
        conversionId,
      ])
    ).rows[0];

  /** A decision made `daysAgo` days ago, by an instance whose clock reads then. */
  const decidedDaysAgo = async (daysAgo: number) => {
    const past = await createTestApp(
      { loadDemoCatalog: false, decideRateLimitPerMinute: 100_000 },
      { testDb: t.testDb, counters: t.counters, now: () => clock() - daysAgo * DAY },
    );
    try {
      return { ...(await serve(past)), at: clock() - daysAgo * DAY };
    } finally {
      await past.close();
    }
  };

  beforeAll(async () => {
    t = await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 100_000 }, undefined, { now: clock });
    await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
    host = await createHost(t.app, 'Late host');
  });
  afterAll(() => t?.close());

  it('records a conversion that happened days before it was sent, with when it happened, within the window after the decision', async () => {
    const d = await decidedDaysAgo(5);
    const eventTime = Math.floor((d.at + 2 * DAY) / 1000);
    const res = await post('/v1/events/conversion', signed({ offer_snapshot_id: d.offer_id, decision_id: d.decision_id, event_time: eventTime }));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, inserted: true });
    expect(new Date((await occurredAt(res.json().conversion_id)).occurred_at!).getTime()).toBe(eventTime * 1000);

    // The signature covers event_time: moved, it no longer verifies.
    const moved = { ...signed({ offer_snapshot_id: d.offer_id, decision_id: d.decision_id, event_time: eventTime }), event_time: eventTime - 60 };
    expect((await post('/v1/events/conversion', moved)).json()).toEqual({ ok: false, error: 'invalid_signature' });
    // Before the offer was shown, or in the future: not a conversion of it.
    const before = Math.floor((d.at - DAY) / 1000);
    expect((await post('/v1/events/conversion', signed({ offer_snapshot_id: d.offer_id, decision_id: d.decision_id, event_time: before }))).json()).toEqual({
      ok: false,
      error: 'invalid_conversion',
    });
    const future = Math.floor((clock() + DAY) / 1000);
    expect((await post('/v1/events/conversion', signed({ offer_snapshot_id: d.offer_id, event_time: future }))).json()).toEqual({
      ok: false,
      error: 'invalid_conversion',
    });
  });

  it('refuses a conversion that happened after the attribution window, however fresh its signature', async () => {
    const d = await decidedDaysAgo(33);
    const inWindow = Math.floor((d.at + 29 * DAY) / 1000);
    const late = Math.floor((d.at + 31 * DAY) / 1000);
    expect(
      (await post('/v1/events/conversion', signed({ offer_snapshot_id: d.offer_id, decision_id: d.decision_id, event_time: inWindow }))).json(),
    ).toMatchObject({
      ok: true,
      inserted: true,
    });
    expect((await post('/v1/events/conversion', signed({ offer_snapshot_id: d.offer_id, decision_id: d.decision_id, event_time: late }))).json()).toEqual({
      ok: false,
      error: 'expired_conversion',
    });
  });

  it('counts a late conversion on the day it happened, and its decision in the funnel of the day it was made, the same in the host report and the dashboard', async () => {
    type Bucket = { at: string; conversions: number; conversions_occurred: number };
    const report = async () => {
      const host_ = (await t.app.inject({ method: 'GET', url: '/v1/reports?range=30d', headers: bearer(host.serving_key) })).json();
      const admin = (await t.app.inject({ method: 'GET', url: `/admin/reports?range=30d&app_id=${host.app_id}`, headers: ADMIN })).json();
      expect(admin.timeline.map((b: Bucket) => [b.at, b.conversions, b.conversions_occurred])).toEqual(
        host_.buckets.map((b: Bucket) => [b.at, b.conversions, b.conversions_occurred]),
      );
      expect(admin.totals.conversions_occurred).toBe(host_.totals.conversions_occurred);
      return host_ as { totals: { conversions: number; conversions_occurred: number }; buckets: Bucket[] };
    };
    const dayOf = (ms: number) => `${new Date(ms).toISOString().slice(0, 10)}T00:00:00.000Z`;
    const d = await decidedDaysAgo(4);
    const before = await report();
    // Bought three days after the offer was shown, sent a day later.
    const boughtAt = d.at + 3 * DAY;
    const res = await post(
      '/v1/events/conversion',
      signed({ offer_snapshot_id: d.offer_id, decision_id: d.decision_id, event_time: Math.floor(boughtAt / 1000) }),
    );
    expect(res.json()).toMatchObject({ ok: true, inserted: true });
    // And a second purchase of the same decision, in a batch, sent as it happened.
    const batch = await post('/v1/events/conversions/batch', { conversions: [signed({ offer_snapshot_id: d.offer_id, decision_id: d.decision_id })] });
    expect(batch.json()).toMatchObject({ inserted: 1 });
    const after = await report();

    const changed = (k: 'conversions' | 'conversions_occurred') =>
      Object.fromEntries(after.buckets.flatMap((b, i) => (b[k] !== before.buckets[i][k] ? [[b.at, b[k] - before.buckets[i][k]]] : [])));
    expect(after.buckets.map((b) => b.at)).toEqual(before.buckets.map((b) => b.at));
    // The funnel counts the decision once, on the day it was made.
    expect(changed('conversions')).toEqual({ [dayOf(d.at)]: 1 });
    // Each conversion counts on its own day.
    expect(changed('conversions_occurred')).toEqual({ [dayOf(boughtAt)]: 1, [dayOf(clock())]: 1 });
    expect(after.totals.conversions_occurred - before.totals.conversions_occurred).toBe(2);
    expect(after.totals.conversions - before.totals.conversions).toBe(1);
  });

  it("counts an advertiser's order once: a resent order with a new nonce answers the first conversion, and so does its retry", async () => {
    const d = await serve(t);
    const orderId = `order-${Date.now()}`;
    const first = await post('/v1/events/conversion', signed({ offer_snapshot_id: d.offer_id, decision_id: d.decision_id, order_id: orderId }));
    expect(first.json()).toMatchObject({ ok: true, inserted: true });
    expect((await occurredAt(first.json().conversion_id)).order_id).toBe(orderId);
    const resent = signed({ offer_snapshot_id: d.offer_id, order_id: orderId });
    const again = await post('/v1/events/conversion', resent);
    expect(again.json()).toEqual({ ...first.json(), inserted: false });
    expect((await post('/v1/events/conversion', resent)).json()).toEqual(again.json());
    const rows = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM conversions WHERE order_id = $1', [orderId]);
    expect(rows.rows[0].n).toBe(1);
  });

  it('answers a batch item by item: inserted, duplicate and invalid with the reason, the good ones recorded whatever the bad ones', async () => {
    const d = await serve(t);
    const orderId = `order-batch-${Date.now()}`;
    const good = signed({ offer_snapshot_id: d.offer_id, decision_id: d.decision_id, order_id: orderId, event_time: Math.floor(clock() / 1000) - 60 });
    const sameOrder = signed({ offer_snapshot_id: d.offer_id, order_id: orderId });
    const badSignature = { ...signed({ offer_snapshot_id: d.offer_id }), signature: 'ab'.repeat(32) };
    const { nonce: _, ...noNonce } = signed({ offer_snapshot_id: d.offer_id });
    const unknown = signed({ offer_snapshot_id: 'snp_0000000000000000000000' });
    const stale = signed({ offer_snapshot_id: d.offer_id, timestamp: Math.floor(clock() / 1000) - 3600 });
    const res = await post('/v1/events/conversions/batch', { conversions: [good, sameOrder, badSignature, noNonce, unknown, stale, 'not an object'] });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ ok: true, inserted: 1, duplicates: 1, invalid: 5 });
    expect(body.results.map((r: { status: string; error?: string }) => [r.status, r.error])).toEqual([
      ['inserted', undefined],
      ['duplicate', undefined],
      ['invalid', 'invalid_signature'],
      ['invalid', 'invalid_conversion'],
      ['invalid', 'unknown_snapshot'],
      ['invalid', 'expired_conversion'],
      ['invalid', 'invalid_conversion'],
    ]);
    expect(body.results[1].conversion_id).toBe(body.results[0].conversion_id);
    expect(body.results[3].message).toBe('failed validation: nonce');
    // Nothing of a refused item is echoed back.
    expect(JSON.stringify(body)).not.toContain('not an object');

    // The whole batch again: what was recorded answers duplicate, nothing twice.
    const retry = (await post('/v1/events/conversions/batch', { conversions: [good, sameOrder] })).json();
    expect(retry).toMatchObject({ inserted: 0, duplicates: 2, invalid: 0 });
    expect(retry.results.map((r: { conversion_id: string }) => r.conversion_id)).toEqual([body.results[0].conversion_id, body.results[0].conversion_id]);
  });

  it('takes a thousand conversions in one batch and refuses a bigger or empty one in the API format', async () => {
    const d = await serve(t);
    const conversions = Array.from({ length: 1000 }, (_, i) =>
      signed({ offer_snapshot_id: d.offer_id, decision_id: d.decision_id, order_id: `bulk-${Date.now()}-${i}` }),
    );
    const res = await post('/v1/events/conversions/batch', { conversions });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ inserted: 1000, duplicates: 0, invalid: 0 });
    for (const payload of [{ conversions: [...conversions, conversions[0]] }, { conversions: [] }, { conversion: conversions.slice(0, 1) }]) {
      const refused = await post('/v1/events/conversions/batch', payload);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ ok: false, error: 'invalid_conversion' });
    }
  }, 120_000);
});
