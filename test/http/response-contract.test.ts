// With checkResponses (on in every test: test/helpers/test-env.ts), each answer is parsed with
// the schema its route publishes in /openapi.json before it is sent, so the whole suite checks
// that handlers answer what the document promises. Here: the check itself.
import Fastify from 'fastify';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import httpConventions from '../../src/http/conventions.js';
import { response } from '../../src/http/openapi.js';

const Answer = z.strictObject({ ok: z.literal(true), count: z.int() }).describe('An answer.');

async function appAnswering(answer: unknown, checkResponses: boolean) {
  const app = Fastify({ logger: false });
  await app.register(httpConventions, { checkResponses });
  app.get(
    '/thing',
    { schema: { response: { 200: response(Answer, 'The thing.', { one: { summary: 'One', value: { ok: true, count: 1 } } }) } } },
    async () => answer,
  );
  return app;
}

describe('answers checked against their published schema', () => {
  it('sends an answer the schema admits', async () => {
    const app = await appAnswering({ ok: true, count: 2 }, true);
    const res = await app.inject({ url: '/thing' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, count: 2 });
  });

  it('refuses one it does not (an extra field, a wrong type) as a 500, never sending it', async () => {
    for (const wrong of [
      { ok: true, count: 2, secret: 'x' },
      { ok: true, count: '2' },
    ]) {
      const app = await appAnswering(wrong, true);
      const res = await app.inject({ url: '/thing' });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ ok: false, error: 'internal_error' });
    }
  });

  it('costs nothing when off (production default): the answer goes as it is', async () => {
    const app = await appAnswering({ ok: true, count: 2, extra: 1 }, false);
    expect((await app.inject({ url: '/thing' })).json()).toEqual({ ok: true, count: 2, extra: 1 });
  });
});
