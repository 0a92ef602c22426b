// Events check the decision they name, and its rendered event, through batched, remembered
// lookups (src/decisions/decision-repository.ts, src/events/event-repository.ts). Concurrent
// events of one event-loop turn share a query, so mixed answers in one batch must still reach
// the right requests, and a qualified impression must see the rendered event committed just
// before it, on any instance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bearer, createTestApp, usingRealPostgres, usingRealRedis, type TestApp, type TestDatabase, createHost } from '../helpers/test-env.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { koreanTurn } from '../helpers/envelopes.js';

const stores = `${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'in-process counters'}`;
// Postgres with in-process counters allows one instance only (src/db/sole-instance-lock.ts): there
// the "other" instance is the same one, and the test still proves a "no" is never remembered.
const secondInstanceAllowed = usingRealRedis || !usingRealPostgres;
const envelope = koreanTurn('제주도 호텔 최저가 알려줘');

describe(`batched decision checks for events (${stores})`, () => {
  let t: TestApp;
  let testDb: TestDatabase;
  let other: TestApp;
  let hostA: { serving_key: string };
  let hostB: { serving_key: string };
  let n = 0;

  beforeAll(async () => {
    t = await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 100_000 });
    testDb = (t as TestApp & { testDb: TestDatabase }).testDb;
    await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
    hostA = await createHost(t.app, 'A');
    hostB = await createHost(t.app, 'B');
    // A second instance on the same stores, with its own (empty) memory of decisions.
    other = secondInstanceAllowed
      ? await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 100_000 }, { testDb: testDb, counters: t.counters })
      : t;
  });
  afterAll(async () => {
    if (other !== t) await other?.close();
    await t?.close();
  });

  const serve = async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/offers/decide',
      headers: bearer(hostA.serving_key),
      payload: { ...envelope, session: { token: `s-${++n}` } },
    });
    expect(res.json()).toMatchObject({ serve: true });
    return res.json() as { decision_id: string; offer_id: string };
  };
  const event = (app: TestApp, url: string, key: string, body: object) =>
    app.app.inject({ method: 'POST', url, headers: { ...bearer(key), 'idempotency-key': `batch-${Date.now()}-${++n}` }, payload: body });

  it('answers each concurrent event of a mixed batch by its own decision', async () => {
    const served = [];
    for (let i = 0; i < 12; i++) served.push(await serve());
    const requests = [
      ...served.map((d) => ({
        expect: 200,
        res: event(t, '/v1/events/rendered', hostA.serving_key, { offer_snapshot_id: d.offer_id, decision_id: d.decision_id }),
      })),
      // Another app naming A's decisions, and decisions that do not exist, in the same turn.
      ...served
        .slice(0, 4)
        .map((d) => ({ expect: 404, res: event(t, '/v1/events/rendered', hostB.serving_key, { offer_snapshot_id: d.offer_id, decision_id: d.decision_id }) })),
      ...served.slice(0, 4).map((d) => ({
        expect: 404,
        res: event(t, '/v1/events/rendered', hostA.serving_key, { offer_snapshot_id: d.offer_id, decision_id: `${d.decision_id.slice(0, -3)}zzz` }),
      })),
    ];
    const answers = await Promise.all(requests.map(async (r) => ({ expect: r.expect, status: (await r.res).statusCode })));
    expect(answers.map((a) => a.status)).toEqual(answers.map((a) => a.expect));
  });

  it('counts a qualified impression after a render, on this instance and on another', async () => {
    const [a, b, c] = [await serve(), await serve(), await serve()];
    // No render yet: not counted, and that negative answer must not be remembered.
    const early = await event(other, '/v1/events/qualified-impression', hostA.serving_key, { offer_snapshot_id: a.offer_id, decision_id: a.decision_id });
    expect(early.statusCode).toBe(200);
    for (const d of [a, b]) {
      expect((await event(t, '/v1/events/rendered', hostA.serving_key, { offer_snapshot_id: d.offer_id, decision_id: d.decision_id })).statusCode).toBe(200);
    }
    // Rendered on `t`: `t` remembers it, `other` must ask Postgres and find it.
    for (const app of [t, other]) {
      const q = await event(app, '/v1/events/qualified-impression', hostA.serving_key, { offer_snapshot_id: a.offer_id, decision_id: a.decision_id });
      expect(q.statusCode).toBe(200);
    }
    // Never rendered: asked twice, neither counts (a "no" is never remembered as a "yes").
    for (let i = 0; i < 2; i++)
      await event(other, '/v1/events/qualified-impression', hostA.serving_key, { offer_snapshot_id: c.offer_id, decision_id: c.decision_id });
    const counted = await t.db.query<{ decision_id: string; counted: boolean; not_counted_reason: string | null }>(
      "SELECT decision_id, counted, not_counted_reason FROM events WHERE type = 'qualified_impression' AND decision_id = ANY($1::text[])",
      [[a.decision_id, c.decision_id]],
    );
    const rows = (list: unknown[][]) => list.map((r) => JSON.stringify(r)).sort();
    expect(rows(counted.rows.map((r) => [r.decision_id, r.counted, r.not_counted_reason]))).toEqual(
      rows([
        [a.decision_id, false, 'no_prior_render'],
        [a.decision_id, true, null],
        [a.decision_id, true, null],
        [c.decision_id, false, 'no_prior_render'],
        [c.decision_id, false, 'no_prior_render'],
      ]),
    );
  });
});
