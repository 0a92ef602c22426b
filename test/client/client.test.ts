// The typed host client against a listening server, and against servers that misbehave:
// every doubt is "do not render", never an exception.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp, type TestApp, createHost } from '../helpers/test-env.js';
import { SidenoteClient } from '../../src/client/sidenote-client.js';
import { handleTurn } from '../../examples/host-integration.js';
import { koreanTurn } from '../helpers/envelopes.js';

const envelope = koreanTurn('제주도 오션뷰 호텔 최저가 알려줘');

async function fakeServer(handler: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

describe('host client and example integration', () => {
  let t: TestApp;
  let url: string;
  let app: { serving_key: string; conversion_secret: string };
  beforeAll(async () => {
    // Roomy budgets: a loaded CI machine must not turn the fill this test needs into a TIMEOUT.
    t = await createTestApp({ decideTimeBudgetMs: 2_000 });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    app = await createHost(t.app, 'Client');
  });
  afterAll(() => t?.close());

  it('runs the example host integration end to end against a started server', async () => {
    const client = new SidenoteClient({ baseUrl: url, apiKey: app.serving_key, conversionSecret: app.conversion_secret, decideTimeoutMs: 3_000 });
    const report = await handleTurn(client, '제주도 오션뷰 호텔 최저가 알려줘');
    expect(report.rendered).toBe(true);
    expect(report.surface).toMatchObject({ label: '광고', advertiser: expect.any(String) });
    expect(report.surface!.href).toMatch(/\/r\/v2\./);
    expect(report.steps).toEqual([expect.stringMatching(/^shown: \[광고\]/), 'rendered event: recorded', 'qualified impression: recorded']);
    // A retried render report is the same event, thanks to the per-decision key.
    const again = await client.rendered({ offerSnapshotId: report.offerSnapshotId!, decisionId: report.decisionId });
    expect(again).toMatchObject({ ok: true, value: { inserted: false } });
    const conversion = await client.conversion({ offerSnapshotId: report.offerSnapshotId!, decisionId: report.decisionId, nonce: 'order-000123' });
    expect(conversion).toMatchObject({ ok: true, value: { inserted: true, billable: false, ledger_written: false } });
    // The back end's batch, a day's orders sent later: signed by the client, answered per item.
    const batch = await client.conversionBatch([
      { offerSnapshotId: report.offerSnapshotId!, decisionId: report.decisionId, orderId: 'order-000124', eventTime: new Date(Date.now() - 1000) },
      { offerSnapshotId: report.offerSnapshotId!, decisionId: report.decisionId, orderId: 'order-000124' },
    ]);
    expect(batch).toMatchObject({ ok: true, value: { inserted: 1, duplicates: 1, invalid: 0 } });
    const decision = await client.decision(report.decisionId!);
    expect(decision).toMatchObject({ ok: true, value: { events: { offer_rendered: 1, qualified_impression: 1, conversions: 2 } } });
    const why = await client.explanation(report.decisionId!);
    expect(why.ok && why.value.locale).toBe('ko');
    // No-fill is "do not render".
    expect(await handleTurn(client, '오늘 날씨 어때')).toMatchObject({ rendered: false, steps: ['no offer (no_fill)'] });
    // The app's own numbers, read back through the same client (the rollups are written behind
    // the answers: wait until both decides are counted).
    let numbers = await client.report({ range: '1h' });
    for (let i = 0; i < 100 && !(numbers.ok && numbers.value.totals.decides >= 2); i++) {
      await new Promise((r) => setTimeout(r, 50));
      numbers = await client.report({ range: '1h' });
    }
    expect(numbers).toMatchObject({
      ok: true,
      value: { range: '1h', totals: { decides: 2, fills: 1, no_fill_reasons: { LOW_INTENT: 1 }, rendered: 1, qualified: 1 } },
    });
  });

  it('answers bad keys and misbehaving servers with "do not render"', async () => {
    expect(await new SidenoteClient({ baseUrl: url, apiKey: 'sk_live_wrong' }).decide(envelope)).toEqual({
      render: false,
      why: 'error',
      status: 401,
      error: 'invalid_api_key',
    });
    const slow = await fakeServer((_req, res) => setTimeout(() => res.end('{}'), 1000));
    const garbage = await fakeServer((_req, res) => res.end('<html>oops</html>'));
    const wrongShape = await fakeServer((_req, res) => res.end(JSON.stringify({ serve: true, link: 'https://evil.example' })));
    try {
      expect(await new SidenoteClient({ baseUrl: slow.url, apiKey: 'k', decideTimeoutMs: 100 }).decide(envelope)).toEqual({ render: false, why: 'timeout' });
      expect(await new SidenoteClient({ baseUrl: garbage.url, apiKey: 'k' }).decide(envelope)).toEqual({ render: false, why: 'malformed_response' });
      expect(await new SidenoteClient({ baseUrl: wrongShape.url, apiKey: 'k' }).decide(envelope)).toEqual({ render: false, why: 'malformed_response' });
      expect(await new SidenoteClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k' }).decide(envelope)).toEqual({ render: false, why: 'network_error' });
    } finally {
      await Promise.all([slow.close(), garbage.close(), wrongShape.close()]);
    }
  });

  it('reads the answers of a newer server that added fields, as the contract grows', async () => {
    // The real service, with a field of a later version added to every answer.
    const newer = await fakeServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const upstream = await fetch(`${url}${req.url}`, {
        method: req.method,
        headers: { authorization: req.headers.authorization ?? '', 'content-type': 'application/json' },
        body: req.method === 'GET' ? undefined : Buffer.concat(chunks),
      });
      res.statusCode = upstream.status;
      res.end(JSON.stringify({ ...(await upstream.json()), added_in_a_later_version: { any: 'shape' } }));
    });
    try {
      const client = new SidenoteClient({ baseUrl: newer.url, apiKey: app.serving_key, decideTimeoutMs: 3_000 });
      expect(await client.decide(envelope)).toMatchObject({ render: true, offer: { disclosure: '광고' } });
      expect(await client.decide(koreanTurn('안녕'))).toMatchObject({ render: false, why: 'no_fill' });
      expect(await client.report({ range: '1h' })).toMatchObject({ ok: true, value: { app_id: expect.any(String) } });
      // A field it knows, of the wrong type, is still malformed.
      const wrongType = await fakeServer((_req, res) => res.end(JSON.stringify({ serve: false, reason_codes: 'LOW_INTENT', added: 1 })));
      try {
        expect(await new SidenoteClient({ baseUrl: wrongType.url, apiKey: 'k' }).decide(envelope)).toEqual({ render: false, why: 'malformed_response' });
      } finally {
        await wrongType.close();
      }
    } finally {
      await newer.close();
    }
  });

  it('retries events on 503 and gives up cleanly', async () => {
    let calls = 0;
    const flaky = await fakeServer((_req, res) => {
      calls++;
      if (calls < 3) {
        res.writeHead(503, { 'retry-after': '1', 'content-type': 'application/json' });
        res.end('{"ok":false,"error":"service_unavailable"}');
      } else {
        res.end(JSON.stringify({ ok: true, inserted: true, event_id: 'evt_1', offer_snapshot_id: 'snp_1', type: 'offer_rendered', billable: false }));
      }
    });
    try {
      const client = new SidenoteClient({ baseUrl: flaky.url, apiKey: 'k', eventRetries: 2 });
      expect(await client.rendered({ offerSnapshotId: 'snp_1', decisionId: 'dec_1' })).toMatchObject({ ok: true, value: { event_id: 'evt_1' } });
      expect(calls).toBe(3);
      const none = new SidenoteClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k', eventRetries: 1 });
      expect(await none.rendered({ offerSnapshotId: 'snp_1' })).toEqual({ ok: false, status: null, error: 'network_error' });
    } finally {
      await flaky.close();
    }
  });
});
