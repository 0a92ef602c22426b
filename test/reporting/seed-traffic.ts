// Real traffic through the public API, for the reporting tests: two apps, served and refused
// decides, rendered and qualified events, a click through /r/ and a signed conversion, and a
// test-key decide that reports leave out unless asked. Returns what the reports must count.
import type { FastifyInstance } from 'fastify';
import { ADMIN, bearer, createTestApp, type TestApp, createHost } from '../helpers/test-env.js';
import { koreanTurn } from '../helpers/envelopes.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { signConversion } from '../../src/conversions/conversion-signature.js';

const BROWSER_UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';

export interface SeededTraffic {
  hostA: { app_id: string; serving_key: string; test_key: string };
  hostB: { app_id: string; serving_key: string };
}

export async function seedTraffic(app: FastifyInstance, waitForClicks: (n: number) => Promise<void>): Promise<SeededTraffic> {
  // One campaign named, one not (reports show its id).
  const catalog = miniCatalog();
  catalog.campaigns![0].name = 'Jeju ocean-view hotels';
  await app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: catalog });
  const hostA = await createHost(app, 'Host A');
  const hostB = await createHost(app, 'Host B');
  let n = 0;
  const decide = async (key: string, message: string, extra: object = {}) =>
    (
      await app.inject({
        method: 'POST',
        url: '/v1/offers/decide',
        headers: bearer(key),
        payload: koreanTurn(message, { session: { token: `user-${++n}` }, ...extra }),
      })
    ).json();
  const event = async (key: string, url: string, d: { offer_id: string; decision_id: string }) => {
    const res = await app.inject({
      method: 'POST',
      url,
      headers: { ...bearer(key), 'idempotency-key': `seed-event-${++n}` },
      payload: { offer_snapshot_id: d.offer_id, decision_id: d.decision_id },
    });
    if (res.statusCode !== 200) throw new Error(`seed event ${url}: ${res.statusCode} ${res.body}`);
  };

  // Host A: 4 served (jeju hotels), 2 refused by policy, 1 with no live locale.
  const served = [];
  for (let i = 0; i < 4; i++) served.push(await decide(hostA.serving_key, '제주도 호텔 최저가 알려줘'));
  for (let i = 0; i < 2; i++) await decide(hostA.serving_key, '우울증 때문에 여행 가도 될까');
  await decide(hostA.serving_key, '東京のホテル', { locale: 'ja-JP' });
  if (!served.every((d) => d.serve)) throw new Error(`seed decides did not serve: ${JSON.stringify(served)}`);
  // Rendered: 3 of 4; qualified: 2 of those; one click; one conversion.
  for (const d of served.slice(0, 3)) await event(hostA.serving_key, '/v1/events/rendered', d);
  for (const d of served.slice(0, 2)) await event(hostA.serving_key, '/v1/events/qualified-impression', d);
  await app.inject({ method: 'GET', url: new URL(served[0].link).pathname, headers: { 'user-agent': BROWSER_UA } });
  await waitForClicks(1);
  const c = {
    offer_snapshot_id: served[0].offer_id,
    decision_id: served[0].decision_id,
    timestamp: Math.floor(Date.now() / 1000),
    nonce: `seed-nonce-${Date.now()}`,
  };
  const conversion = await app.inject({
    method: 'POST',
    url: '/v1/events/conversion',
    headers: bearer(hostA.serving_key),
    payload: { ...c, signature: signConversion(hostA.conversion_secret, c) },
  });
  if (conversion.statusCode !== 200) throw new Error(`seed conversion: ${conversion.statusCode} ${conversion.body}`);

  // Host B: 1 served (iPhone, English), 1 low intent.
  const b = await decide(hostB.serving_key, 'cheapest iphone 16 price?', { locale: 'en-US', country: 'US' });
  if (!b.serve) throw new Error(`seed decide for B did not serve: ${JSON.stringify(b)}`);
  await decide(hostB.serving_key, '오늘 날씨 어때?');
  // A test key's decide: left out of reports unless include_test=true.
  await decide(hostA.test_key, '제주도 호텔 최저가 알려줘');
  return { hostA, hostB };
}

/** A test app with the seeded traffic in it, its click recorded (clicks are written behind the
 *  redirect), for the report tests to read back. */
export async function seededReportingApp(): Promise<{ t: TestApp; seeded: SeededTraffic }> {
  const t = await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 100_000, decideTimeBudgetMs: 2_000 });
  const seeded = await seedTraffic(t.app, async (n) => {
    for (let i = 0; i < 100; i++) {
      const r = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM clicks');
      if (Number(r.rows[0].n) >= n) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('click not recorded');
  });
  return { t, seeded };
}
