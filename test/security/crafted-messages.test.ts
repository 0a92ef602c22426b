// A crafted message cannot stall the service (issue: "one request can stall the whole service
// for 12–28 seconds"). The messages are the core's corpus of slow inputs
// (crates/sidenote-core/tests/slow-inputs/): 4,000-character chains of places with "switching
// away from" cues that once cost 12–28 s of CPU in one native call, which the handler budget
// cannot interrupt, and the costliest messages the search found since. Each must be answered
// inside the tests' 2 s decide budget (once it was a TIMEOUT after the stall), and the service
// must answer its health check right after.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp, createHost } from '../helpers/test-env.js';
import { adultOnSurface } from '../helpers/envelopes.js';

const CORPUS = fileURLToPath(new URL('../../crates/sidenote-core/tests/slow-inputs/', import.meta.url));
const messages = readdirSync(CORPUS)
  .filter((f) => f.endsWith('.txt'))
  .sort()
  .map((file) => ({ file, message: readFileSync(`${CORPUS}${file}`, 'utf8') }));

describe('crafted messages', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await createHost(t.app, 'Crafted')).serving_key;
  });
  afterAll(() => t?.close());

  it('the corpus holds the attacks', () => {
    expect(messages.filter((m) => m.file.startsWith('attack-')).length).toBeGreaterThanOrEqual(4);
  });

  for (const locale of ['ko-KR', 'en-US']) {
    it(`every slow input is answered inside the decide budget, not TIMEOUT (${locale})`, async () => {
      for (const { file, message } of messages) {
        expect([...message].length, file).toBeLessThanOrEqual(4000);
        const res = await t.app.inject({
          method: 'POST',
          url: '/v1/offers/decide',
          headers: bearer(key),
          payload: {
            message,
            locale,
            country: locale.slice(3),
            ...adultOnSurface(),
          },
        });
        expect(res.statusCode, file).toBe(200);
        expect(res.json().reason_codes, file).not.toContain('TIMEOUT');
        expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, file).toBe(200);
      }
    });
  }
});
