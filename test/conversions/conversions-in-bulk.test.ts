// Conversions without an order id go to Postgres in bulk: the conversions of concurrent requests
// share one statement (the group-commit writer), each request is answered for its own row, every
// one is counted once in the report rollups, and a nonce sent twice in one batch is spent once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signConversion, type SignedConversion } from '../../src/conversions/conversion-signature.js';
import { koreanTurn } from '../helpers/envelopes.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { ADMIN, bearer, createTestApp, usingRealPostgres, usingRealRedis, type TestApp, type TestDatabase, createHost } from '../helpers/test-env.js';

const stores = `${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'in-process counters'}`;

describe(`conversions in bulk (${stores})`, () => {
  let t: TestApp & { testDb: TestDatabase };
  let host: { app_id: string; serving_key: string; conversion_secret: string };
  let n = 0;

  const serve = async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/offers/decide',
      headers: bearer(host.serving_key),
      payload: koreanTurn('제주도 호텔 최저가 알려줘'),
    });
    expect(res.json().serve).toBe(true);
    return res.json() as { decision_id: string; offer_id: string };
  };
  const signed = (body: Omit<SignedConversion, 'timestamp' | 'nonce'> & { nonce?: string }) => {
    const b = { timestamp: Math.floor(Date.now() / 1000), nonce: `nonce-bulk-${Date.now()}-${++n}`, ...body };
    return { ...b, signature: signConversion(host.conversion_secret, b) };
  };
  const post = (payload: unknown) =>
    t.app.inject({ method: 'POST', url: '/v1/events/conversion', headers: bearer(host.serving_key), payload: payload as object });
  const rowsOf = async (decisionId: string) =>
    (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM conversions WHERE decision_id = $1', [decisionId])).rows[0].n;
  const countedFor = async (appId: string) =>
    (await t.db.query<{ n: number }>('SELECT coalesce(sum(conversions), 0)::int AS n FROM report_conversion_rollups WHERE app_id = $1 AND grain = 60', [appId]))
      .rows[0].n;

  beforeAll(async () => {
    t = await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 100_000 });
    await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
    host = await createHost(t.app, 'Bulk host');
  });
  afterAll(() => t?.close());

  it('records concurrent conversions in fewer statements than requests, each answered and counted once', async () => {
    const d = await serve();
    const counted = await countedFor(host.app_id);
    const flushes = t.app.writers.conversions.stats.flushes;
    const responses = await Promise.all(Array.from({ length: 40 }, () => post(signed({ offer_snapshot_id: d.offer_id, decision_id: d.decision_id }))));
    for (const r of responses) expect(r.json()).toMatchObject({ ok: true, inserted: true });
    expect(new Set(responses.map((r) => r.json().conversion_id)).size).toBe(40);
    expect(t.app.writers.conversions.stats.flushes - flushes).toBeLessThan(40);
    expect(t.app.writers.conversions.stats.largestBatch).toBeGreaterThan(1);
    expect(await rowsOf(d.decision_id)).toBe(40);
    expect((await countedFor(host.app_id)) - counted).toBe(40);
  });

  it('spends a nonce sent twice in one batch once: the same body again is the same conversion, another body is refused', async () => {
    const d = await serve();
    const counted = await countedFor(host.app_id);
    const body = signed({ offer_snapshot_id: d.offer_id, decision_id: d.decision_id });
    const [a, b] = (await Promise.all([post(body), post(body)])).map((r) => r.json());
    expect([a.inserted, b.inserted].sort()).toEqual([false, true]);
    expect(a.conversion_id).toBe(b.conversion_id);

    const other = await serve();
    const nonce = `nonce-bulk-shared-${Date.now()}`;
    const answers = (
      await Promise.all([
        post(signed({ offer_snapshot_id: d.offer_id, decision_id: d.decision_id, nonce })),
        post(signed({ offer_snapshot_id: other.offer_id, decision_id: other.decision_id, nonce })),
      ])
    ).map((r) => r.json());
    // Whichever the batch holds first is recorded; the other is refused.
    expect(answers.filter((a) => a.ok && a.inserted)).toHaveLength(1);
    expect(answers.filter((a) => !a.ok)).toEqual([{ ok: false, error: 'invalid_conversion' }]);
    expect((await rowsOf(d.decision_id)) + (await rowsOf(other.decision_id))).toBe(2);
    expect((await countedFor(host.app_id)) - counted).toBe(2);
  });
});
