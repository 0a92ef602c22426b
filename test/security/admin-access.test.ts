// Nobody administers Sidenote without the admin key, whatever the spelling of the path
// (issue 13 §1). The router decodes and matches paths its own way; the key check must hold for
// every spelling that reaches an admin handler, and with no ADMIN_KEY the admin API must not
// exist at all. Each case also proves that no handler ran: no app, key or secret appeared, no
// key was revoked, the catalog did not change and no report was read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, METRICS_AUTH, bearer, createTestApp, type TestApp, createHost } from '../helpers/test-env.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { adultOnSurface } from '../helpers/envelopes.js';

/** Every admin operation, with a body a handler would accept. `:app` and `:key` are filled in. */
const OPERATIONS: Array<{ method: 'GET' | 'POST' | 'PUT'; path: string; body?: unknown }> = [
  { method: 'GET', path: '/admin/apps' },
  { method: 'POST', path: '/admin/apps', body: { name: 'Intruder' } },
  { method: 'POST', path: '/admin/apps/:app/keys', body: { kind: 'serving', mode: 'live' } },
  { method: 'POST', path: '/admin/keys/:key/revoke' },
  { method: 'POST', path: '/admin/apps/:app/conversion-secrets' },
  { method: 'GET', path: '/admin/catalog' },
  { method: 'PUT', path: '/admin/catalog', body: 'attacker-catalog' },
  { method: 'POST', path: '/admin/catalog/imports', body: 'attacker-catalog' },
  { method: 'GET', path: '/admin/catalog/imports/imp_attacker0001' },
  { method: 'GET', path: '/admin/reports' },
];

const encodeAll = (s: string) => [...s].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
const encodeAt = (s: string, i: number) => s.slice(0, i) + encodeAll(s[i]) + s.slice(i + 1);

/** The spellings an attacker tries for one admin path (which starts with `/admin/`). */
function spellings(path: string): string[] {
  const rest = path.slice('/admin/'.length);
  const [first, ...more] = rest.split('/');
  const tail = more.length ? `/${more.join('/')}` : '';
  const out = new Set<string>([path]);
  for (let i = 0; i < 'admin'.length; i++) out.add(`/${encodeAt('admin', i)}/${rest}`);
  for (const c of ['%61', '%41']) out.add(`/${c}dmin/${rest}`);
  out.add(`/${encodeAll('admin')}/${rest}`);
  out.add(`/${encodeAll('admin').toUpperCase()}/${rest}`);
  out.add(`/admin/${encodeAt(first, 0)}${tail}`);
  out.add(`/${encodeAll('admin')}/${encodeAll(first)}${tail}`);
  out.add(`/Admin/${rest}`);
  out.add(`/ADMIN/${rest.toUpperCase()}`);
  out.add(`//admin/${rest}`);
  out.add(`/admin//${rest}`);
  out.add(`${path}/`);
  out.add(`${path}//`);
  out.add(`/x/../admin/${rest}`);
  out.add(`/admin/./${rest}`);
  out.add(`/admin/x/../${rest}`);
  out.add(`/%2e%2e/admin/${rest}`);
  out.add(`/x/%2e%2e/admin/${rest}`);
  out.add(`/admin;x=1/${rest}`);
  out.add(`${path};x=1`);
  out.add(`/admin%2f${rest}`);
  out.add(`/admin%2F${rest}`);
  out.add(`${path}?admin=1`);
  out.add(`${path}#frag`);
  out.add(`/admin%20/${rest}`);
  out.add(`/%20admin/${rest}`);
  out.add(`/admin%00/${rest}`);
  out.add(`/admin\\${rest}`);
  return [...out];
}

interface World {
  apps: number;
  keys: number;
  secrets: number;
  revoked: number;
  catalogVersion: number;
  importJobs: number;
}

async function world(t: TestApp): Promise<World> {
  const q = async (sql: string) => Number((await t.db.query<{ n: number }>(sql)).rows[0].n);
  return {
    apps: await q('SELECT count(*)::int AS n FROM apps'),
    keys: await q('SELECT count(*)::int AS n FROM api_keys'),
    secrets: await q('SELECT count(*)::int AS n FROM conversion_secrets'),
    revoked: await q('SELECT count(*)::int AS n FROM api_keys WHERE revoked_at IS NOT NULL'),
    catalogVersion: await q('SELECT coalesce(max(version), 0)::int AS n FROM catalog_state'),
    importJobs: await q('SELECT count(*)::int AS n FROM catalog_import_jobs'),
  };
}

/** Admin requests answered 2xx so far, from the service's own request metrics. */
async function adminSuccesses(t: TestApp): Promise<number> {
  const text = (await t.app.inject({ method: 'GET', url: '/metrics', headers: METRICS_AUTH })).body;
  let n = 0;
  for (const m of text.matchAll(/^sidenote_http_requests_total\{([^}]*)\} (\d+)$/gm)) {
    if (/route="\/admin/.test(m[1]) && /status="2/.test(m[1])) n += Number(m[2]);
  }
  return n;
}

describe('admin API: access by route, never by URL text', () => {
  let t: TestApp;
  let appId: string;
  let keyId: string;
  let servingKey: string;

  beforeAll(async () => {
    t = await createTestApp({ loadDemoCatalog: false });
    expect((await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() })).statusCode).toBe(200);
    const created = await createHost(t.app, 'Victim host');
    appId = created.app_id;
    keyId = created.serving_key_id;
    servingKey = created.serving_key;
  });
  afterAll(() => t?.close());

  const cases = () => OPERATIONS.flatMap((op) => spellings(op.path.replace(':app', appId).replace(':key', keyId)).map((url) => ({ ...op, url })));

  const send = (c: { method: string; url: string; body?: unknown }, headers: Record<string, string>) =>
    t.app.inject({
      method: c.method as 'GET',
      url: c.url,
      headers: c.body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(c.body === undefined ? {} : { payload: JSON.stringify(c.body) }),
    });

  for (const [name, headers] of [
    ['no key', {}],
    ['a wrong key', bearer('admin-key-for-tests-0123456789-wrong')],
    ['a serving key', bearer('sk_live_00000000000000000000000000000000')],
    ['the key in another scheme', { authorization: 'Basic admin-key-for-tests-0123456789' }],
  ] as const) {
    it(`answers 401 or 404 to every admin route under every spelling with ${name}, and runs no handler`, async () => {
      const before = await world(t);
      const answeredBefore = await adminSuccesses(t);
      const leaks: string[] = [];
      for (const c of cases()) {
        const res = await send(c, headers);
        if (![401, 404].includes(res.statusCode)) leaks.push(`${c.method} ${c.url} → ${res.statusCode}`);
        else expect(res.json().ok, `${c.method} ${c.url}`).toBe(false);
      }
      expect(leaks).toEqual([]);
      expect(await world(t)).toEqual(before);
      // No admin handler answered (a report read leaves no other trace).
      expect(await adminSuccesses(t)).toBe(answeredBefore);
      // The victim's key still serves.
      const decide = await t.app.inject({
        method: 'POST',
        url: '/v1/offers/decide',
        headers: bearer(servingKey),
        payload: {
          message: 'hello',
          locale: 'en-US',
          ...adultOnSurface(),
        },
      });
      expect(decide.statusCode).toBe(200);
    });
  }

  it('still serves the operator who has the key, on the canonical path', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/admin/apps', headers: ADMIN });
    expect(res.statusCode).toBe(200);
    expect(res.json().apps.map((a: { id: string }) => a.id)).toContain(appId);
  });

  it('does not reveal which admin paths exist through 405 to a caller without the key', async () => {
    for (const url of ['/admin/apps', '/%61dmin/apps', '/admin/catalog']) {
      const res = await t.app.inject({ method: 'DELETE', url });
      expect(res.statusCode, url).toBe(401);
      expect(res.headers.allow, url).toBeUndefined();
    }
  });
});

describe('admin API with no ADMIN_KEY: it does not exist', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ adminKey: undefined });
  });
  afterAll(() => t?.close());

  it('answers 404 to every admin route under every spelling, with or without a key, and runs no handler', async () => {
    const before = await world(t);
    const leaks: string[] = [];
    for (const op of OPERATIONS) {
      for (const url of spellings(op.path.replace(':app', 'app_abc').replace(':key', 'key_abc'))) {
        for (const headers of [{}, ADMIN, bearer('')]) {
          const res = await t.app.inject({
            method: op.method,
            url,
            headers: op.body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
            ...(op.body === undefined ? {} : { payload: JSON.stringify(op.body) }),
          });
          if (res.statusCode !== 404) leaks.push(`${op.method} ${url} → ${res.statusCode}`);
          else expect(res.json()).toEqual({ ok: false, error: 'not_found' });
        }
      }
    }
    expect(leaks).toEqual([]);
    expect(await world(t)).toEqual(before);
  });

  it('lists no admin operation in /openapi.json', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/admin'))).toEqual([]);
  });
});
