// The user's message is processed in memory and never written anywhere: not the database,
// not Redis, not a log line, not an error body. Many decides with unique markers, then search
// every store for them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { bearer, createTestApp, usingRealPostgres, usingRealRedis, type TestApp, createHost } from '../helpers/test-env.js';
import { dumpDatabase, dumpRedis } from '../helpers/dump.js';
import { adultOnSurface } from '../helpers/envelopes.js';

const MARKER = `CANARY${randomBytes(6).toString('hex')}`;

describe(`the message is never stored or logged (${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'memory'})`, () => {
  let t: TestApp;
  const bodies: string[] = [];
  beforeAll(async () => {
    t = await createTestApp({ logLevel: 'trace', decideRateLimitPerMinute: 100_000 });
    const { serving_key } = await createHost(t.app, 'Privacy');
    const messages = [
      (i: number) => `제주도 호텔 최저가 ${MARKER}-${i}`,
      (i: number) => `cheapest iphone 16 deal ${MARKER}-${i}`,
      (i: number) => `${MARKER}-${i} 우울증 상담`,
      (i: number) => `what's the weather ${MARKER}-${i}`,
    ];
    for (let i = 0; i < 400; i++) {
      const message = messages[i % messages.length](i);
      const variants = [
        {
          message,
          locale: 'ko-KR',
          country: 'KR',
          session: { token: `s${i % 7}` },
          ...adultOnSurface(),
        },
        { message, locale: 'ja', native_surface: { clickable: true, disclosure_capable: true } },
        { message, email: 'x@y.z', native_surface: { clickable: true, disclosure_capable: true } },
        { message, unknown: true, native_surface: { clickable: true, disclosure_capable: true } },
        { message: message.repeat(200) }, // over 4000 characters
      ];
      const res = await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(serving_key), payload: variants[i % variants.length] });
      expect(res.statusCode).toBeLessThan(500);
      bodies.push(res.body);
    }
    // Malformed JSON carrying the marker.
    const raw = await t.app.inject({
      method: 'POST',
      url: '/v1/offers/decide',
      headers: { ...bearer(serving_key), 'content-type': 'application/json' },
      payload: `{"message": "${MARKER} unterminated`,
    });
    bodies.push(raw.body);
  });
  afterAll(() => t?.close());

  it('is in no response body', () => {
    expect(bodies.length).toBe(401);
    for (const b of bodies) expect(b).not.toContain(MARKER);
  });

  it('is in no log line', () => {
    expect(t.logs.lines.length).toBeGreaterThan(400);
    expect(t.logs.text).not.toContain(MARKER);
  });

  it('is in no database row', async () => {
    const dump = await dumpDatabase(t.db);
    expect(dump).toContain('decisions:'); // the dump did read the decision records
    expect(dump).not.toContain(MARKER);
  });

  if (usingRealRedis)
    it('is in no Redis key, value or slow-log entry', async () => {
      const dump = await dumpRedis(process.env.REDIS_URL!, '');
      expect(dump).not.toContain(MARKER);
    });
});
