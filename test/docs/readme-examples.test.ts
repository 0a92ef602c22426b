// The README's request examples, sent as written to a service on the demo catalog: each answer
// has exactly the fields the README shows after it, with the same values wherever the README
// gives one (an elided value, written with "…", matches anything).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp, createHost } from '../helpers/test-env.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** Each `curl … $BASE/<path> … -d '<json>'` block followed by a ```json answer block. */
function examples(): { path: string; body: unknown; answer: Record<string, unknown> }[] {
  const out = [];
  const re = /```sh\n(curl -s \$BASE(\/v1\/offers\/[a-z]+)[\s\S]*?-d '(\{[\s\S]*?\})'\n)```\s*\n```json\n([\s\S]*?)```/g;
  for (const m of README.matchAll(re)) {
    // Elided values ("…", "dec_…") become strings JSON can read.
    const answer = JSON.parse(m[4].replace(/: "([^"]*)"/g, (_s, v: string) => `: ${JSON.stringify(v)}`));
    out.push({ path: m[2], body: JSON.parse(m[3]), answer });
  }
  return out;
}

describe('README examples against real answers', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await createHost(t.app, 'README')).serving_key;
  });
  afterAll(() => t?.close());

  it('finds the decide and affiliate examples', () => {
    expect(examples().map((e) => e.path)).toEqual(['/v1/offers/decide', '/v1/offers/affiliate']);
  });

  for (const example of examples()) {
    it(`answers ${example.path} with the fields and values the README shows`, async () => {
      const res = await t.app.inject({ method: 'POST', url: example.path, headers: bearer(key), payload: example.body as object });
      expect(res.statusCode).toBe(200);
      const actual = res.json();
      // Optional creative fields the README leaves out are allowed; every field it shows must be there.
      const optional = new Set(['image_url', 'description', 'cta', 'title']);
      expect(
        Object.keys(actual)
          .filter((k) => !optional.has(k))
          .sort(),
      ).toEqual(
        Object.keys(example.answer)
          .filter((k) => !optional.has(k))
          .sort(),
      );
      for (const [field, shown] of Object.entries(example.answer)) {
        if (typeof shown === 'string' && shown.includes('…')) {
          const [prefix] = shown.split('…');
          expect(String(actual[field]).startsWith(prefix.replace(/^https:\/\/sidenote\.example/, 'http://sidenote.test')), `${field}`).toBe(true);
        } else {
          expect(actual[field], field).toEqual(shown);
        }
      }
    });
  }
});
