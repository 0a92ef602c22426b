// Property test of decide's input handling: any JSON of any shape and depth, huge strings,
// prototype-pollution keys, unicode edge cases, non-JSON bodies and wrong content types get a
// 200 or a 4xx with a correct error body — never a 5xx, never a hang.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bearer, createTestApp, type TestApp, createHost } from '../helpers/test-env.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 400);

describe('decide under fuzzed input', () => {
  let t: TestApp;
  let key: string;
  let cases = 0;
  beforeAll(async () => {
    t = await createTestApp({ decideRateLimitPerMinute: 1_000_000 });
    key = (await createHost(t.app, 'Fuzz')).serving_key;
  });
  afterAll(async () => {
    // The count of cases is part of what this suite proves (docs/reliability.md reads it).
    console.log(`envelope fuzz: ${cases} cases, 0 server errors`);
    await t?.close();
  });

  const send = async (payload: string, contentType = 'application/json') => {
    cases++;
    const res = await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: { ...bearer(key), 'content-type': contentType }, payload });
    expect(res.statusCode, payload.slice(0, 200)).toBeLessThan(500);
    const body = res.json();
    if (res.statusCode === 200) {
      expect(typeof body.serve).toBe('boolean');
      expect(body.decision_id).toMatch(/^dec_/);
      expect(Array.isArray(body.reason_codes)).toBe(true);
    } else {
      expect(body.ok).toBe(false);
      expect(typeof body.error).toBe('string');
      if (res.statusCode === 400) expect(['INVALID_ENVELOPE', 'FORBIDDEN_IDENTITY_FIELD']).toContain(body.error);
    }
    return res;
  };

  const envelopeLike = fc.record(
    {
      message: fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 200 }), fc.constant('가'.repeat(4001)), fc.integer()),
      session: fc.oneof(
        fc.record(
          {
            token: fc.string({ maxLength: 140 }),
            digest: fc.dictionary(
              fc.constantFrom('intent_type', 'category_ids', 'entity_ids', 'safety', 'generated_at', 'budget_bucket', 'extra'),
              fc.jsonValue({ maxDepth: 3 }),
            ),
          },
          { requiredKeys: [] },
        ),
        fc.jsonValue({ maxDepth: 3 }),
      ),
      locale: fc.oneof(fc.constantFrom('ko-KR', 'en', 'ja', 'KO', 'x'), fc.string({ maxLength: 20 })),
      country: fc.string({ maxLength: 10 }),
      audience: fc.record(
        { age_band: fc.constantFrom('18_plus', 'under_13', 'adult', 1), contextual_offer_consent: fc.oneof(fc.boolean(), fc.constant('true')) },
        { requiredKeys: [] },
      ),
      native_surface: fc.oneof(fc.record({ clickable: fc.boolean(), disclosure_capable: fc.boolean() }), fc.jsonValue({ maxDepth: 2 })),
      email: fc.string(),
      __proto__: fc.jsonValue({ maxDepth: 2 }),
      constructor: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: [] },
  );

  it('answers envelope-shaped bodies with 200 or a named 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(envelopeLike, async (body) => void (await send(JSON.stringify(body)))),
      { numRuns: RUNS },
    );
  });

  it('answers arbitrary JSON of any shape with 200 or a named 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 8 }), async (body) => void (await send(JSON.stringify(body) ?? 'null'))),
      { numRuns: RUNS },
    );
  });

  it('refuses deep nesting, duplicate keys, pollution keys and non-JSON without a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 20_000 }), async (depth) => {
        await send(`{"native_surface":{"clickable":true,"disclosure_capable":true},"x":${'['.repeat(depth)}${']'.repeat(depth)}}`);
      }),
      { numRuns: 30 },
    );
    for (const raw of [
      '{"native_surface":{"clickable":true,"disclosure_capable":true},"native_surface":{"clickable":false,"disclosure_capable":true}}',
      '{"__proto__":{"admin":true},"native_surface":{"clickable":true,"disclosure_capable":true}}',
      '{"constructor":{"prototype":{"x":1}},"native_surface":{"clickable":true,"disclosure_capable":true}}',
      '{"message":"\\ud800","native_surface":{"clickable":true,"disclosure_capable":true}}',
      '{"message":"\\u0000\\u202e\\ufeff","native_surface":{"clickable":true,"disclosure_capable":true}}',
      'not json at all',
      '',
      '{"a":',
      'null',
      '[]',
      '1e999',
    ]) {
      await send(raw);
    }
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 200 }),
        fc.constantFrom(
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/xml',
          'multipart/form-data; boundary=x',
          'application/json; charset=latin1',
        ),
        async (payload, type) => {
          await send(payload, type);
        },
      ),
      { numRuns: 100 },
    );
    // Nothing polluted the prototype along the way.
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});
