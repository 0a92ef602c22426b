// Every answer carries `x-request-id`: the caller's own when it is an opaque id, so a host's logs
// and ours share it, else a new UUID; never free text the caller sent. A decide's request_id is
// the same id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servingEnvelope } from '../helpers/host-traffic.js';
import { bearer, createTestApp, type TestApp, createHost } from '../helpers/test-env.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('request ids', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ decideTimeBudgetMs: 2_000 });
    key = (await createHost(t.app, 'Ids')).serving_key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('names every answer, success or error, with a new UUID when the caller sent none', async () => {
    const answers = [
      await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(key), payload: servingEnvelope() }),
      await t.app.inject({ method: 'POST', url: '/v1/offers/decide', payload: servingEnvelope() }),
      await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(key), payload: { message: 1 } }),
      await t.app.inject({ method: 'GET', url: '/no/such/route' }),
      await t.app.inject({ method: 'GET', url: '/healthz' }),
      await t.app.inject({ method: 'GET', url: '/r/v2.not-a-token' }),
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([200, 401, 400, 404, 200, 400]);
    const ids = answers.map((a) => a.headers['x-request-id']);
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
    expect(answers[0].json().request_id).toBe(ids[0]);
  });

  it("takes the caller's own opaque id, and never free text", async () => {
    const own = '01JDZ8Q4M7T3X9V2K5N8R6P1WC';
    const res = await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: { ...bearer(key), 'x-request-id': own }, payload: servingEnvelope() });
    expect(res.headers['x-request-id']).toBe(own);
    expect(res.json().request_id).toBe(own);
    for (const text of ['jane.doe@example.com', 'short', 'with spaces in it ok', 'x'.repeat(65), '제주도-호텔-요청-아이디']) {
      const other = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': text } });
      expect(other.headers['x-request-id'], text).toMatch(UUID);
    }
  });
});
