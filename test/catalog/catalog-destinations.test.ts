// Catalog import refuses destinations whose host is not a public domain name on the default port:
// IP literals (also the numeric forms the URL parser turns into IPs), localhost and private-use
// names, single-label hosts, other ports and IDN labels that mix scripts. The rules apply to
// offers' destination_url and image_url, advertisers' and networks' allowlists and link
// templates; each problem names the field and the rule, and every one in a file is reported.
// The redirect applies the same rules again at click time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, usingRealPostgres, usingRealRedis, type TestApp } from '../helpers/test-env.js';
import { miniCatalog, miniCatalogWithAffiliates } from '../helpers/mini-catalog.js';
import { CatalogValidationError, validateCatalog } from '../../src/catalog/catalog-validation.js';
import { allowedDestination, destinationHostProblem } from '../../src/catalog/destinations.js';
import type { CatalogInput } from '../../src/catalog/catalog-schema.js';

const stores = `${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'in-process counters'}`;

/** Unsafe origins and the rule each must be refused by. */
const UNSAFE: Array<[string, RegExp]> = [
  ['https://127.0.0.1', /IP address \(127\.0\.0\.1\)/],
  ['https://10.0.0.5', /IP address/],
  ['https://169.254.169.254', /IP address/],
  ['https://2130706433', /IP address \(127\.0\.0\.1\)/], // decimal
  ['https://0x7f.1', /IP address \(127\.0\.0\.1\)/], // hex and short form
  ['https://127.1', /IP address \(127\.0\.0\.1\)/],
  ['https://017700000001', /IP address \(127\.0\.0\.1\)/], // octal
  ['https://%31%32%37.0.0.1', /IP address \(127\.0\.0\.1\)/], // percent-encoded
  ['https://[::1]', /IP address/],
  ['https://[::ffff:127.0.0.1]', /IP address/],
  ['https://[2001:db8::1]', /IP address/],
  ['https://localhost', /local or private network/],
  ['https://LOCALHOST', /local or private network/],
  ['https://shop.localhost', /local or private network/],
  ['https://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ', /local or private network/], // what the parser maps to localhost
  ['https://printer.local', /local or private network/],
  ['https://metadata.google.internal', /local or private network/],
  ['https://nas.home.arpa', /local or private network/],
  ['https://intranet', /single label/],
  ['https://localhost.', /end with a dot/],
  ['https://shop.example.', /end with a dot/],
  ['https://shop.example:8443', /port 8443/],
  ['https://shop.example:80', /port 80/],
  ['https://xn--pple-43d.com', /xn--pple-43d \("аpple"\) mixes scripts \(Cyrillic, Latin\)/], // Cyrillic а + Latin
  ['https://аpple.com', /mixes scripts \(Cyrillic, Latin\)/], // the same, typed in Unicode
  ['https://www.xn--pypal-4ve.com', /mixes scripts \(Cyrillic, Latin\)/], // "pаypal"
  ['https://xn--mazon-c9d.com', /mixes scripts \(Greek, Latin\)/], // "αmazon"
];

/** Hosts that are fine, IDNs included. */
const SAFE = [
  'https://shop.example',
  'https://www.haneulstay.example',
  'https://shop.example:443',
  'https://xn--9y5b2p.example',
  'https://xn--eckwd4c7c.jp',
  'https://xn--1lqs71d.jp',
  'https://a-1.b2.example',
];

function problemsOf(c: CatalogInput): string[] {
  try {
    validateCatalog(c);
  } catch (err) {
    expect(err).toBeInstanceOf(CatalogValidationError);
    return (err as CatalogValidationError).problems;
  }
  return [];
}

const expectRefused = (problems: string[], field: string, rule: RegExp, what: string) => {
  const line = problems.find((p) => p.startsWith(`${field}: `) && rule.test(p));
  expect(line, `${what}: ${field} ${rule} in ${JSON.stringify(problems)}`).toBeDefined();
  expect(line!.length, line).toBeLessThan(160);
};

describe('catalog destination hosts', () => {
  it("refuses each unsafe host in an offer's destination_url and image_url, naming the field and the rule", () => {
    for (const [origin, rule] of UNSAFE) {
      const c = miniCatalog();
      c.offers![0].destination_url = `${origin}/jeju`;
      c.offers![1].image_url = `${origin}/img.png`;
      const problems = problemsOf(c);
      expectRefused(problems, 'offers[0].destination_url', rule, origin);
      expectRefused(problems, 'offers[1].image_url', rule, origin);
    }
  });

  it('refuses each unsafe host in advertiser and network allowlists and in link templates', () => {
    for (const [origin, rule] of UNSAFE) {
      const c = miniCatalogWithAffiliates();
      c.advertisers![0].destinations = [`${origin}/`];
      c.affiliate_networks![1].destinations = ['https://www.staylink-hotels.example/hotel/', `${origin}/hotel/`];
      c.affiliate_networks!.push({
        id: 'tmpl',
        name: 'Template',
        adapter: 'template',
        partner_marker: 'p1',
        link_template: `${origin}/click?pid={marker}&sub={sub_id}&url={destination}`,
        destinations: ['https://www.skyfare.example/'],
      });
      const problems = problemsOf(c);
      expectRefused(problems, 'advertisers[0].destinations[0]', rule, origin);
      expectRefused(problems, 'affiliate_networks[1].destinations[1]', rule, origin);
      expectRefused(problems, 'affiliate_networks[2].link_template', rule, origin);
    }
  });

  it('reports every unsafe destination of a file at once, alongside its other problems', () => {
    const c = miniCatalogWithAffiliates();
    UNSAFE.forEach(([origin], i) => {
      c.offers!.push({ ...c.offers![0], id: `off.unsafe-${i}`, destination_url: `${origin}/x` });
    });
    c.advertisers![1].destinations = ['https://intranet/', 'https://shop.example:8443/'];
    c.taxonomy.categories![0].aliases!.en = ['travel', 'a']; // an alias problem in the same file
    const problems = problemsOf(c);
    const base = miniCatalogWithAffiliates().offers!.length;
    UNSAFE.forEach(([origin, rule], i) => expectRefused(problems, `offers[${base + i}].destination_url`, rule, origin));
    expectRefused(problems, 'advertisers[1].destinations[0]', /single label/, 'intranet');
    expectRefused(problems, 'advertisers[1].destinations[1]', /port 8443/, 'port');
    expect(problems.some((p) => p.startsWith('taxonomy.categories[0].aliases.en[1]: '))).toBe(true);
  });

  it('accepts public hosts, including single-script IDNs (Hangul, Japanese, Han)', () => {
    for (const origin of SAFE) expect(destinationHostProblem(`${origin}/`), origin).toBeNull();
    const c = miniCatalog();
    c.advertisers![0].destinations = ['https://www.haneulstay.example/', 'https://xn--9y5b2p.example/'];
    c.offers![0].destination_url = 'https://xn--9y5b2p.example/호텔';
    c.offers![1].image_url = 'https://xn--eckwd4c7c.jp/a.png';
    expect(problemsOf(c)).toEqual([]);
  });

  it('the redirect re-checks the same rules at click time, even for a host on the allowlist', () => {
    for (const [origin] of UNSAFE) {
      expect(allowedDestination(`${origin}/x`, [`${origin}/`]), origin).toBeNull();
    }
    expect(allowedDestination('https://shop.example/x', ['https://shop.example/'])).toBe('https://shop.example/x');
  });
});

describe(`catalog destination hosts over the admin API (${stores})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ loadDemoCatalog: false });
    expect((await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() })).statusCode).toBe(200);
  });
  afterAll(() => t?.close());

  it('400 invalid_catalog naming each unsafe destination, and nothing changes', async () => {
    const before = (await t.app.inject({ method: 'GET', url: '/admin/catalog', headers: ADMIN })).json();
    const c = miniCatalog();
    c.advertisers![0].destinations = ['https://www.haneulstay.example/', 'https://2130706433/'];
    c.offers![0].destination_url = 'https://0x7f.1/jeju';
    c.offers![2].destination_url = 'https://xn--pple-43d.com/';
    const res = await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: c });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_catalog');
    const problems: string[] = res.json().problems;
    expectRefused(problems, 'advertisers[0].destinations[1]', /IP address/, 'allowlist');
    expectRefused(problems, 'offers[0].destination_url', /IP address/, 'offer');
    expectRefused(problems, 'offers[2].destination_url', /mixes scripts/, 'offer');
    expect((await t.app.inject({ method: 'GET', url: '/admin/catalog', headers: ADMIN })).json()).toEqual(before);
  });
});
