// Tracked-link tokens are opaque: a link pasted into a
// chat log, a browser history or an advertiser's access log must not tell anyone which app showed
// it, which decision it came from or where it goes. v2 tokens are sealed with AES-256-GCM; any
// change to a single byte is refused; legacy v1 links already handed out keep redirecting until
// their own expiry and are refused after it.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bearer, createTestApp, usingRealPostgres, usingRealRedis, type TestApp, createHost } from '../helpers/test-env.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { signLegacyV1Link } from '../helpers/legacy-link.js';
import { TrackedLinkSigner, type TrackedLinkClaims } from '../../src/links/tracked-link.js';
import { adultOnSurface } from '../helpers/envelopes.js';

const stores = `${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'in-process counters'}`;
const LINK_SECRET = 'tracked-link-secret-for-token-tests-0123456789';
const BROWSER_UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';

const sampleClaims = (over: Partial<TrackedLinkClaims> = {}): TrackedLinkClaims => ({
  decisionId: 'dec_7Hc2mQ9xLp4Rt8Vw2Ky6Zb',
  snapshotId: 'snp_3Fg8hJ2kLm5Nq7Rs9Tv1Wx',
  appId: 'app_9Zy8Xw7Vu6Ts5Rq4Po3Nm2',
  advertiserId: 'adv.haneul-stay',
  destination: 'https://www.haneulstay.example/jeju?src=sidenote',
  expiresAt: 1_900_000_000,
  test: false,
  ...over,
});

/** Every way the token could give a value away: the text itself, the base64url encoding of the
 *  value at each alignment, and the bytes (and their text, and JSON) of any part decoded as
 *  base64url from each starting character. Returns what it found, empty when nothing leaks. */
function revelations(token: string, values: string[]): string[] {
  const found: string[] = [];
  const parts = new Set([token, token.slice(3), ...token.split('.'), ...token.split(/[^A-Za-z0-9_-]/)]);
  for (const value of values) {
    const bytes = Buffer.from(value, 'utf8');
    if (token.includes(value) || token.toLowerCase().includes(value.toLowerCase())) found.push(`text has ${value}`);
    for (let k = 0; k < 3; k++) {
      // The characters of `value` encoded after k other bytes, without the edge characters its neighbours share.
      const encoded = Buffer.concat([Buffer.alloc(k, 0x20), bytes]).toString('base64url');
      const core = encoded.slice(Math.ceil((k * 4) / 3) + 1, -2);
      if (core.length >= 6 && token.includes(core)) found.push(`base64url of ${value} at alignment ${k}`);
    }
    for (const part of parts) {
      for (let skip = 0; skip < 4; skip++) {
        const decoded = Buffer.from(part.slice(skip), 'base64url');
        if (decoded.includes(bytes)) found.push(`bytes of ${value} in part decoded from ${skip}`);
        if (decoded.toString('latin1').toLowerCase().includes(value.toLowerCase())) found.push(`latin1 text of ${value} from ${skip}`);
      }
    }
  }
  for (const part of parts) {
    try {
      JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
      found.push(`a part decodes to JSON`);
    } catch {
      // expected: opaque bytes are not JSON
    }
  }
  return [...new Set(found)];
}

/** Identifying values of a set of claims, and the parts of them that identify on their own. */
function identifying(c: TrackedLinkClaims): string[] {
  const host = new URL(c.destination).hostname;
  const idBodies = [c.decisionId, c.snapshotId, c.appId].map((id) => id.slice(id.indexOf('_') + 1)).filter((b) => b.length >= 8);
  return [c.decisionId, c.snapshotId, c.appId, c.advertiserId, c.destination, host, host.split('.').sort((a, b) => b.length - a.length)[0], ...idBodies];
}

describe('tracked-link tokens (unit)', () => {
  const signer = new TrackedLinkSigner(Buffer.from(LINK_SECRET, 'utf8'));

  it('is v2, URL-safe and reveals none of app, advertiser, decision, snapshot or destination', () => {
    for (const c of [sampleClaims(), sampleClaims({ destination: 'https://www.haneulstay.example/제주/호텔?q=오션뷰', test: true })]) {
      const token = signer.sign(c);
      expect(token.startsWith('v2.')).toBe(true);
      expect(token).toMatch(/^v2\.[A-Za-z0-9_-]+$/);
      expect(revelations(token, identifying(c))).toEqual([]);
    }
  });

  it('the leak detector itself finds what a readable token gives away', () => {
    // Without this the test above could pass by looking in the wrong places.
    const c = sampleClaims();
    expect(revelations(signLegacyV1Link(LINK_SECRET, c), identifying(c)).length).toBeGreaterThan(5);
  });

  it('round-trips every field, from empty to the longest values, and seals the same claims differently each time', () => {
    const cases = [
      sampleClaims(),
      sampleClaims({ test: true, expiresAt: 0 }),
      sampleClaims({ expiresAt: 0xffff_ffff }),
      sampleClaims({ destination: 'https://www.haneulstay.example/jeju/호텔?q=제주&x=%00\u2028', advertiserId: 'adv.가' }),
      // The widest each field can be: 255-byte ids; a destination at the catalog's 2,048 characters.
      sampleClaims({ decisionId: 'd'.repeat(255), snapshotId: 's'.repeat(255), appId: 'a'.repeat(255), advertiserId: 'v'.repeat(255) }),
      sampleClaims({ advertiserId: 'v'.repeat(64), destination: `https://x.example/${'p'.repeat(2030)}` }),
      sampleClaims({ decisionId: '', snapshotId: '', appId: '', advertiserId: '', destination: '' }),
    ];
    for (const c of cases) {
      const token = signer.sign(c);
      expect(token.length).toBeLessThanOrEqual(4096);
      expect(signer.verify(token)).toEqual(c);
      expect(signer.sign(c)).not.toBe(token); // a fresh nonce per token
    }
    // Links stay short: a typical one is about as long as the readable v1 was.
    const typical = signer.sign(sampleClaims());
    expect(typical.length).toBeLessThanOrEqual(signLegacyV1Link(LINK_SECRET, sampleClaims()).length + 8);
  });

  it('refuses every single-byte change, every truncation and extension, another version and another key', () => {
    const token = signer.sign(sampleClaims());
    const raw = Buffer.from(token.slice(3), 'base64url');
    for (let i = 0; i < raw.length; i++) {
      for (const mask of [0x01, 0x80, 0xff]) {
        const flipped = Buffer.from(raw);
        flipped[i] ^= mask;
        expect(signer.verify(`v2.${flipped.toString('base64url')}`), `byte ${i} ^ ${mask}`).toBeNull();
      }
    }
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < token.length; i++) {
      for (const ch of [alphabet[(alphabet.indexOf(token[i]) + 1) % 64], '.', '=', '+', '/', ' ', '%']) {
        const changed = token.slice(0, i) + ch + token.slice(i + 1);
        if (changed !== token) expect(signer.verify(changed), `char ${i} → ${ch}`).toBeNull();
      }
    }
    for (let n = 0; n < token.length; n++) expect(signer.verify(token.slice(0, n)), `first ${n}`).toBeNull();
    for (const bad of [`${token}A`, `${token}AA`, `${token}AAAA`, `${token}=`, `${token}.`, `v2.${Buffer.concat([raw, raw]).toString('base64url')}`]) {
      expect(signer.verify(bad), bad.slice(-6)).toBeNull();
    }
    const body = token.slice(3);
    for (const version of ['v1.', 'v3.', 'V2.', 'v2..', '', 'v2']) expect(signer.verify(version + body), version).toBeNull();
    expect(new TrackedLinkSigner(Buffer.from(`${LINK_SECRET}-other`, 'utf8')).verify(token)).toBeNull();
    // Garbage of any shape is null, never an exception.
    for (const junk of ['', 'v2.', 'v2.A', `v2.${'A'.repeat(52)}`, `v2.${'_'.repeat(4093)}`, 'v2.\u0000', '%00', `v2.${'A'.repeat(5000)}`]) {
      expect(signer.verify(junk)).toBeNull();
    }
  });

  it('keeps reading v1 tokens until their expiry, and only authentic ones', () => {
    const now = Date.UTC(2026, 10, 22);
    const live = sampleClaims({ expiresAt: now / 1000 + 60 });
    expect(signer.verify(signLegacyV1Link(LINK_SECRET, live), now)).toEqual(live);
    expect(signer.verify(signLegacyV1Link(LINK_SECRET, live), now + 61_000)).toBeNull();
    expect(signer.verify(signLegacyV1Link(`${LINK_SECRET}-other`, live), now)).toBeNull();
    // Never issued again.
    expect(signer.sign(live).startsWith('v1.')).toBe(false);
  });

  it('derives the client-address key exactly as before (stored address hashes stay comparable)', () => {
    const expected = createHmac('sha256', Buffer.from(LINK_SECRET, 'utf8')).update('derive:click-ip').digest();
    expect(signer.deriveKey('click-ip').equals(expected)).toBe(true);
    expect(signer.deriveKey('click-ip').equals(signer.deriveKey('other'))).toBe(false);
  });
});

describe(`tracked-link tokens over HTTP (${stores})`, () => {
  let t: TestApp;
  let key: string;
  let appId: string;
  const signer = new TrackedLinkSigner(Buffer.from(LINK_SECRET, 'utf8'));
  let address = 0;
  const click = (token: string, method: 'GET' | 'HEAD' = 'GET') =>
    t.app.inject({ method, url: `/r/${token}`, headers: { 'user-agent': BROWSER_UA }, remoteAddress: `10.88.${Math.floor(++address / 250)}.${address % 250}` });
  const serve = async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/offers/decide',
      headers: bearer(key),
      payload: {
        message: '제주도 호텔 최저가',
        locale: 'ko',
        country: 'KR',
        ...adultOnSurface(),
      },
    });
    expect(res.json().serve, res.body).toBe(true);
    return res.json() as { decision_id: string; offer_id: string; link: string };
  };
  const clickRows = async (decisionId: string, n: number) => {
    let rows: Array<{ counted: boolean; not_counted_reason: string | null; app_id: string }> = [];
    for (let i = 0; i < 100 && rows.length < n; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 20));
      rows = (
        await t.db.query<{ counted: boolean; not_counted_reason: string | null; app_id: string }>(
          'SELECT counted, not_counted_reason, app_id FROM clicks WHERE decision_id = $1',
          [decisionId],
        )
      ).rows;
    }
    return rows;
  };

  beforeAll(async () => {
    t = await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 100_000, linkSigningSecret: LINK_SECRET, decideTimeBudgetMs: 5000 });
    await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
    const created = await createHost(t.app, 'Tokens');
    key = created.serving_key;
    appId = created.app_id;
  });
  afterAll(() => t?.close());

  it("decide's link is an opaque v2 token that redirects and names nothing", async () => {
    const d = await serve();
    const token = new URL(d.link).pathname.slice('/r/'.length);
    expect(token.startsWith('v2.')).toBe(true);
    const destination = 'https://www.haneulstay.example/jeju?src=sidenote';
    const values = [
      d.decision_id,
      d.offer_id,
      appId,
      'adv.haneul-stay',
      'haneul',
      destination,
      'www.haneulstay.example',
      ...[d.decision_id, d.offer_id, appId].map((id) => id.slice(4)),
    ];
    expect(revelations(token, values)).toEqual([]);
    const res = await click(token);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(destination);
    expect((await clickRows(d.decision_id, 1))[0]).toMatchObject({ counted: true, app_id: appId });
  });

  it('400 invalid_link, never a 5xx, for a token with any byte changed, cut short, of another version or key', async () => {
    const token = new URL((await serve()).link).pathname.slice('/r/'.length);
    const raw = Buffer.from(token.slice(3), 'base64url');
    const bad: string[] = [
      token.slice(0, -1),
      token.slice(0, 40),
      `v3.${token.slice(3)}`,
      `v1.${token.slice(3)}`,
      `v1.${token.slice(3)}.AAAAAAAAAAAAAAAAAAAAAA`,
    ];
    for (let i = 0; i < raw.length; i += 7) {
      const flipped = Buffer.from(raw);
      flipped[i] ^= 0x01;
      bad.push(`v2.${flipped.toString('base64url')}`);
    }
    bad.push(new TrackedLinkSigner(Buffer.from('another-deployment-secret-0123456789abcdef', 'utf8')).sign(signer.verify(token)!));
    for (const b of bad) {
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await click(b, method);
        expect(res.statusCode, b).toBe(400);
        expect(res.headers.location).toBeUndefined();
        if (method === 'GET') expect(res.json()).toEqual({ ok: false, error: 'invalid_link' });
      }
    }
  });

  it('a v1 link handed out before the deploy still redirects and counts until it expires, then is invalid_link', async () => {
    const d = await serve();
    const claims = signer.verify(new URL(d.link).pathname.slice('/r/'.length))!;
    const nowS = Math.floor(Date.now() / 1000);
    const v1 = signLegacyV1Link(LINK_SECRET, { ...claims, expiresAt: nowS + 3600 });
    const res = await click(v1);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(claims.destination);
    expect(await clickRows(d.decision_id, 1)).toMatchObject([{ counted: true, app_id: appId }]);

    const expired = signLegacyV1Link(LINK_SECRET, { ...claims, expiresAt: nowS - 1 });
    const late = await click(expired);
    expect(late.statusCode).toBe(400);
    expect(late.json()).toEqual({ ok: false, error: 'invalid_link' });
    // A v1 link re-pointed by someone without the secret is refused as before.
    const [v, payload, mac] = v1.split('.');
    const repointed = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), u: 'https://evil.example/' })).toString(
      'base64url',
    );
    expect((await click(`${v}.${repointed}.${mac}`)).json()).toEqual({ ok: false, error: 'invalid_link' });
  });

  it('documents the token as v2 (or legacy v1) in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const param = doc.paths['/r/{token}'].get.parameters.find((p: { name: string }) => p.name === 'token');
    const pattern = new RegExp(param.schema.pattern);
    expect(pattern.test(signer.sign(sampleClaims()))).toBe(true);
    expect(pattern.test(signLegacyV1Link(LINK_SECRET, sampleClaims()))).toBe(true);
    expect(pattern.test('v3.AAAA')).toBe(false);
    expect(param.schema.description ?? param.description).toMatch(/v2/);
  });
});
