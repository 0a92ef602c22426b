// Signed notifications: an operator subscribes a URL to events; a campaign paused, resumed or out
// of budget and a catalog import finished or failed are delivered from the outbox with Standard Webhooks
// headers (verified here with the `standardwebhooks` package, written by others), retried while
// the receiver is down, visible through the admin API, and never sent to a private address
// unless configuration allows it, neither when registered nor when connected to.
import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bearer, createTestApp, type TestApp, createHost } from '../helpers/test-env.js';
import { koreanTurn } from '../helpers/envelopes.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.js';
import { isPublicAddress } from '../../src/webhooks/webhook-targets.js';

const CAMPAIGN = 'cmp.jeju-hotels';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A receiver on 127.0.0.1 that is down (nothing listens on its port) until `up()`. */
async function receiver() {
  const probe = http.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    up: () => new Promise<void>((r) => server.listen(port, '127.0.0.1', r)),
    close: () => new Promise<void>((r) => (server.listening ? server.close(() => r()) : r())),
  };
}

async function until(check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('webhook targets', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ loadDemoCatalog: false });
  });
  afterAll(async () => t?.close());

  it.each([
    ['loopback', 'http://127.0.0.1:8080/hook'],
    ['loopback by name', 'http://localhost/hook'],
    ['IPv6 loopback', 'http://[::1]/hook'],
    ['private', 'https://10.1.2.3/hook'],
    ['private 192.168', 'https://192.168.0.10/hook'],
    ['cloud metadata (link-local)', 'http://169.254.169.254/latest/meta-data/'],
    ['carrier-grade NAT', 'http://100.64.0.1/hook'],
    ['unspecified', 'http://0.0.0.0/hook'],
    ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]/hook'],
    ['not http', 'ftp://ops.example.com/hook'],
    ['credentials', 'https://user:secret-pass@ops.example.com/hook'],
    ['not a URL', 'ops.example.com/hook'],
  ])('refuses a %s target with 400, without echoing it', async (_, url) => {
    const res = await t.app.inject({ method: 'POST', url: '/admin/webhooks', headers: ADMIN, payload: { url, event_types: ['campaign.paused'] } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_request');
    expect(res.body).not.toContain(url);
    expect(res.body).not.toContain('secret-pass');
  });

  it('refuses bad bodies and ids in the error format', async () => {
    const post = (payload: unknown) => t.app.inject({ method: 'POST', url: '/admin/webhooks', headers: ADMIN, payload: payload as object });
    expect((await post({ url: 'https://ops.example.com/h', event_types: [] })).statusCode).toBe(400);
    expect((await post({ url: 'https://ops.example.com/h', event_types: ['campaign.deleted'] })).statusCode).toBe(400);
    expect((await post({ url: 'https://ops.example.com/h', event_types: ['campaign.paused', 'campaign.paused'] })).statusCode).toBe(400);
    expect((await post({ url: 'https://ops.example.com/h', event_types: ['campaign.paused'], extra: 1 })).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'DELETE', url: '/admin/webhooks/nope', headers: ADMIN })).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'DELETE', url: '/admin/webhooks/whk_unknown1', headers: ADMIN })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/admin/webhooks/whk_unknown1/deliveries', headers: ADMIN })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/admin/webhooks' })).statusCode).toBe(401);
  });

  it('classifies addresses: only public unicast ones are targets', () => {
    for (const a of ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '8.8.8.8']) expect(isPublicAddress(a), a).toBe(true);
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.1.1',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:10.0.0.1',
      '224.0.0.1',
      'nope',
    ])
      expect(isPublicAddress(a), a).toBe(false);
  });
});

describe('webhook deliveries', () => {
  let t: TestApp;
  let hook: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    t = await createTestApp({
      loadDemoCatalog: false,
      webhookAllowPrivateTargets: true,
      webhookPollMs: 50,
      webhookRetryDelaysMs: '100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100',
    });
    await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
  });
  afterAll(async () => t?.close());

  const added: string[] = [];
  const add = async (url: string, event_types: string[]) => {
    const res = await t.app.inject({ method: 'POST', url: '/admin/webhooks', headers: ADMIN, payload: { url, event_types, description: 'tests' } });
    expect(res.statusCode).toBe(201);
    added.push(res.json().id);
    return res.json() as { id: string; secret: string };
  };
  // Each test starts with no endpoint and no receiver, whatever the one before it left.
  afterEach(async () => {
    await hook?.close();
    for (const id of added.splice(0)) await t.app.inject({ method: 'DELETE', url: `/admin/webhooks/${id}`, headers: ADMIN });
  });
  const deliveries = async (id: string) => (await t.app.inject({ method: 'GET', url: `/admin/webhooks/${id}/deliveries`, headers: ADMIN })).json();
  const pause = (status: 'paused' | 'active') =>
    t.app.inject({ method: 'PATCH', url: `/admin/campaigns/${CAMPAIGN}/control`, headers: ADMIN, payload: { status, changed_by: 'ops: Mina' } });

  it('delivers a pause after the receiver was down for a while, signed as Standard Webhooks say, with one id across attempts', async () => {
    hook = await receiver();
    const endpoint = await add(hook.url, ['campaign.paused', 'campaign.resumed']);
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect((await pause('paused')).statusCode).toBe(200);
    // Down: the attempts fail and are retried.
    await until(async () => (await deliveries(endpoint.id)).deliveries[0]?.attempts >= 3);
    const pending = (await deliveries(endpoint.id)).deliveries[0];
    expect(pending).toMatchObject({ event_type: 'campaign.paused', last_error: 'connection refused', last_status: null, delivered_at: null, failed_at: null });
    expect(pending.next_attempt_at).not.toBeNull();

    await hook.up();
    await until(() => hook.received.length === 1);
    const [got] = hook.received;
    // An independent implementation of the scheme accepts it; a wrong secret does not.
    const verified = new Webhook(endpoint.secret).verify(got.body, got.headers as Record<string, string>) as { type: string; data: Record<string, unknown> };
    expect(verified).toMatchObject({ type: 'campaign.paused', data: { campaign_id: CAMPAIGN, status: 'paused', changed_by: 'ops: Mina' } });
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got.body, got.headers as Record<string, string>)).toThrow();
    expect(got.headers['webhook-id']).toBe(pending.id);
    expect(got.headers['content-type']).toBe('application/json');

    await until(async () => (await deliveries(endpoint.id)).deliveries[0].delivered_at !== null);
    const done = (await deliveries(endpoint.id)).deliveries[0];
    expect(done.attempts).toBeGreaterThanOrEqual(4);
    expect(done).toMatchObject({ last_status: 204, last_error: null, next_attempt_at: null, failed_at: null });

    // Resuming is its own event; nothing is sent twice.
    await pause('active');
    await until(() => hook.received.length === 2);
    expect(JSON.parse(hook.received[1].body)).toMatchObject({ type: 'campaign.resumed', data: { status: 'active' } });
    await new Promise((r) => setTimeout(r, 300));
    expect(hook.received).toHaveLength(2);
    await t.app.inject({ method: 'DELETE', url: `/admin/webhooks/${endpoint.id}`, headers: ADMIN });
  });

  it('commits a pause and its announcement together: when the announcement cannot be written, the pause is not made either', async () => {
    hook = await receiver();
    const endpoint = await add(hook.url, ['campaign.paused']);
    const status = async () => (await t.app.inject({ method: 'GET', url: `/admin/campaigns/${CAMPAIGN}/control`, headers: ADMIN })).json();
    const changesBefore = (await status()).changes.length;
    // The outbox refuses every row, as a full disk or a lost connection would refuse the write.
    await t.db.exec(`CREATE FUNCTION refuse_delivery() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'outbox unavailable'; END $$;
      CREATE TRIGGER refuse_delivery BEFORE INSERT ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION refuse_delivery();`);
    try {
      const refused = await pause('paused');
      expect(refused.statusCode).toBeGreaterThanOrEqual(500);
      expect(refused.json()).toMatchObject({ ok: false });
      expect((await status()).effective.status).toBe('active');
      expect((await status()).changes).toHaveLength(changesBefore);
    } finally {
      await t.db.exec('DROP TRIGGER refuse_delivery ON webhook_deliveries; DROP FUNCTION refuse_delivery();');
    }
    // Retried whole once the outbox takes rows again: the pause and its one delivery.
    expect((await pause('paused')).statusCode).toBe(200);
    expect((await deliveries(endpoint.id)).deliveries).toHaveLength(1);
    expect((await pause('active')).statusCode).toBe(200);
  });

  it('announces catalog imports, succeeded and failed, only to the endpoints subscribed to them', async () => {
    hook = await receiver();
    await hook.up();
    const imports = await add(hook.url, ['catalog.import.succeeded', 'catalog.import.failed']);
    const good = miniCatalog();
    good.offers![0].title = `${good.offers![0].title} (new)`;
    expect((await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: good })).statusCode).toBe(200);
    const bad = miniCatalog();
    (bad.offers![0] as { campaign_id: string }).campaign_id = 'cmp.nope';
    // A job, and a synchronous PUT (it answers a small catalog's problems to its caller at
    // once, before any job: subscribers hear of it all the same).
    expect((await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: bad })).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'POST', url: '/admin/catalog/imports', headers: ADMIN, payload: bad })).statusCode).toBe(202);
    await pause('paused');
    await pause('active');
    await until(() => hook.received.length >= 3);
    await new Promise((r) => setTimeout(r, 300));
    // Deliveries due at the same poll are sent side by side: they may arrive in either order.
    const events = hook.received.map(
      (r) => new Webhook(imports.secret).verify(r.body, r.headers as Record<string, string>) as { type: string; data: Record<string, unknown> },
    );
    expect(events).toHaveLength(3);
    expect(events.find((e) => e.type === 'catalog.import.succeeded')?.data).toMatchObject({ changed: true });
    const failed = events.filter((e) => e.type === 'catalog.import.failed').map((e) => e.data);
    expect(failed).toHaveLength(2);
    expect(failed).toContainEqual({ job_id: expect.stringMatching(/^imp_/), error: 'invalid_catalog' });
    expect(failed).toContainEqual({ job_id: null, error: 'invalid_catalog' });
    await t.app.inject({ method: 'DELETE', url: `/admin/webhooks/${imports.id}`, headers: ADMIN });
  });

  it('lists endpoints without secrets; a removed endpoint gets nothing more and its pending deliveries stop', async () => {
    hook = await receiver();
    const endpoint = await add(hook.url, ['campaign.paused']);
    const list = (await t.app.inject({ method: 'GET', url: '/admin/webhooks', headers: ADMIN })).json();
    expect(list.endpoints.map((e: { id: string }) => e.id)).toEqual([endpoint.id]);
    expect(JSON.stringify(list)).not.toContain(endpoint.secret);
    await pause('paused');
    await until(async () => (await deliveries(endpoint.id)).deliveries[0]?.attempts >= 1);
    const removed = await t.app.inject({ method: 'DELETE', url: `/admin/webhooks/${endpoint.id}`, headers: ADMIN });
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toMatchObject({ id: endpoint.id, event_types: ['campaign.paused'] });
    expect((await t.app.inject({ method: 'GET', url: '/admin/webhooks', headers: ADMIN })).json().endpoints).toEqual([]);
    await hook.up();
    await pause('active');
    await pause('paused');
    await new Promise((r) => setTimeout(r, 400));
    expect(hook.received).toHaveLength(0);
    await pause('active');
  });

  it('announces a campaign out of its daily budget once per day, however many decides it refuses', async () => {
    hook = await receiver();
    await hook.up();
    const budget = await add(hook.url, ['campaign.budget_exhausted']);
    const key = (await createHost(t.app, 'Host')).serving_key;
    const daily = await t.app.inject({
      method: 'PATCH',
      url: `/admin/campaigns/${CAMPAIGN}/control`,
      headers: ADMIN,
      payload: { budget: { daily_micros: 0 } },
    });
    expect(daily.statusCode).toBe(200);
    for (let i = 0; i < 3; i++) {
      const answer = await t.app.inject({
        method: 'POST',
        url: '/v1/offers/decide',
        headers: bearer(key),
        payload: koreanTurn('제주도 호텔 최저가 알려줘', { session: { token: `s-${i}` } }),
      });
      expect(answer.json()).toMatchObject({ serve: false, reason_codes: expect.arrayContaining(['BUDGET_EXHAUSTED']) });
    }
    await until(() => hook.received.length === 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(hook.received).toHaveLength(1);
    const event = new Webhook(budget.secret).verify(hook.received[0].body, hook.received[0].headers as Record<string, string>);
    expect(event).toMatchObject({
      type: 'campaign.budget_exhausted',
      data: { campaign_id: CAMPAIGN, limit: 'daily', day: new Date().toISOString().slice(0, 10) },
    });
    await t.app.inject({ method: 'PATCH', url: `/admin/campaigns/${CAMPAIGN}/control`, headers: ADMIN, payload: { follow_catalog: ['budget.daily_micros'] } });
    await t.app.inject({ method: 'DELETE', url: `/admin/webhooks/${budget.id}`, headers: ADMIN });
  });

  it('keeps a delivery failed when its endpoint is removed while an attempt is in flight', async () => {
    const repo = t.app.repositories.webhooks;
    await t.app.webhookDispatcher.stop();
    try {
      const endpoint = await add('http://127.0.0.1:9/never', ['campaign.resumed']);
      expect(await repo.enqueue('campaign.resumed', 'in-flight-test', { type: 'campaign.resumed' }, () => 'msg_inflight1')).toBe(1);
      // Due by a second from now: the row's next_attempt_at is the database's now(), in
      // microseconds, which a JavaScript Date taken within the same millisecond reads as later.
      const soon = () => new Date(Date.now() + 1000);
      const claimed = (await repo.claimDue(soon(), 10, 100)).filter((d) => d.id === 'msg_inflight1');
      expect(claimed).toHaveLength(1);
      await t.app.inject({ method: 'DELETE', url: `/admin/webhooks/${endpoint.id}`, headers: ADMIN });
      // The attempt ends after the removal and asks for a retry: the delivery stays failed.
      await repo.recordAttempt('msg_inflight1', new Date(), { delivered: false, status: 503, error: 'status 503', retryAt: new Date() });
      const [row] = (await repo.deliveries(endpoint.id, 10)).filter((d) => d.id === 'msg_inflight1');
      expect(row.failed_at).not.toBeNull();
      expect(row.next_attempt_at).toBeNull();
      await new Promise((r) => setTimeout(r, 20));
      expect((await repo.claimDue(soon(), 10, 100)).some((d) => d.id === 'msg_inflight1')).toBe(false);
    } finally {
      t.app.webhookDispatcher.start();
    }
  });

  it('forgets ended deliveries after their retention, never pending ones', async () => {
    const repo = t.app.repositories.webhooks;
    const { rows } = await t.db.query<{ ended: number; pending: number }>(
      'SELECT count(*) FILTER (WHERE delivered_at IS NOT NULL OR failed_at IS NOT NULL)::int AS ended, count(*) FILTER (WHERE delivered_at IS NULL AND failed_at IS NULL)::int AS pending FROM webhook_deliveries',
    );
    expect(rows[0].ended).toBeGreaterThan(0);
    expect(await repo.forgetDeliveriesBefore(new Date(Date.now() - 60_000))).toBe(0);
    expect(await repo.forgetDeliveriesBefore(new Date(Date.now() + 60_000))).toBe(rows[0].ended);
    const left = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries');
    expect(left.rows[0].n).toBe(rows[0].pending);
  });

  it('gives a delivery up after its last retry, and never connects to a private address a name resolves to unless allowed', async () => {
    hook = await receiver();
    await hook.up();
    // Registered by a name while private targets were allowed; delivered by an instance that does not allow them.
    const endpoint = await add(hook.url.replace('127.0.0.1', 'localhost'), ['campaign.paused']);
    await t.app.webhookDispatcher.stop();
    const strict = new WebhookDispatcher(t.app.repositories.webhooks, {
      pollMs: 50,
      timeoutMs: 1000,
      retryDelaysMs: [10],
      allowPrivateTargets: false,
      now: Date.now,
      log: { warn: () => {} },
    });
    await pause('paused');
    await until(async () => (await strict.deliverDue()) > 0 && (await deliveries(endpoint.id)).deliveries[0]?.attempts === 1);
    expect((await deliveries(endpoint.id)).deliveries[0]).toMatchObject({ last_error: 'unsafe target', failed_at: null });
    await new Promise((r) => setTimeout(r, 20));
    await until(async () => (await strict.deliverDue()) > 0);
    expect((await deliveries(endpoint.id)).deliveries[0]).toMatchObject({ attempts: 2, last_error: 'unsafe target', next_attempt_at: null });
    expect((await deliveries(endpoint.id)).deliveries[0].failed_at).not.toBeNull();
    expect(hook.received).toHaveLength(0);
  });
});
