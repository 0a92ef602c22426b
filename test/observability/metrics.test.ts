// /metrics is scraped and carries the series operators alert on, labelled by route patterns and
// reason codes only — never a message, a token or an id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, METRICS_AUTH, bearer, createTestApp, type TestApp, createHost } from '../helpers/test-env.js';
import { startMetricsListener } from '../../src/observability/metrics-routes.js';
import { koreanTurn } from '../helpers/envelopes.js';

describe('/metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    const { serving_key } = await createHost(t.app, 'Metrics');
    const payload = (message: string) => koreanTurn(message);
    const served = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/offers/decide',
        headers: bearer(serving_key),
        payload: payload('제주도 오션뷰 호텔 최저가 METRICS-CANARY'),
      })
    ).json();
    expect(served.serve).toBe(true);
    await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(serving_key), payload: payload('오늘 날씨 METRICS-CANARY') });
    await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(serving_key), payload: { ...payload('x'), email: 'METRICS-CANARY' } });
    await t.app.inject({ method: 'GET', url: new URL(served.link).pathname, headers: { 'user-agent': 'Mozilla/5.0' } });
    await t.app.inject({
      method: 'POST',
      url: '/v1/events/rendered',
      headers: { ...bearer(serving_key), 'idempotency-key': 'metrics-render-1' },
      payload: { offer_snapshot_id: served.offer_id, decision_id: served.decision_id },
    });
  });
  afterAll(() => t?.close());

  it('exposes request, decide, group-commit, counter-store and index series', async () => {
    const res = await t.app.inject({ url: '/metrics', headers: METRICS_AUTH });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    const text = res.body;
    expect(text).toMatch(/sidenote_http_requests_total\{route="\/v1\/offers\/decide",method="POST",status="200"\} 2/);
    expect(text).toMatch(/sidenote_http_request_duration_seconds_bucket\{le="0\.05",route="\/v1\/offers\/decide",method="POST"\}/);
    expect(text).toMatch(/sidenote_decide_outcomes_total\{kind="offer",reason_code="MATCHED"\} 1/);
    expect(text).toMatch(/sidenote_decide_outcomes_total\{kind="offer",reason_code="LOW_INTENT"\} 1/);
    expect(text).toMatch(/sidenote_decide_outcomes_total\{kind="offer",reason_code="FORBIDDEN_IDENTITY_FIELD"\} 1/);
    expect(text).toMatch(/sidenote_group_commit_batch_rows_count\{writer="decisions"\} \d+/);
    expect(text).toMatch(/sidenote_group_commit_flush_seconds_count\{writer="events",ok="true"\} 1/);
    expect(text).toContain('sidenote_counter_store_errors_total');
    expect(text).toMatch(/sidenote_offer_index_offers \d+/);
    expect(text).toMatch(/sidenote_offer_index_reload_seconds [\d.e-]+/);
    expect(text).toMatch(/sidenote_catalog_version 1/);
    expect(text).toMatch(/sidenote_clicks_lost_total 0/);
    // Node's default series under their standard names, and which build this is.
    expect(text).toContain('process_resident_memory_bytes');
    expect(text).not.toContain('sidenote_process_');
    expect(text).toMatch(/^# TYPE sidenote_clicks_lost_total counter$/m);
    expect(text).toMatch(/^sidenote_build_info\{version="\d+\.\d+\.\d+",node_version="v\d+[^"]*"\} 1$/m);
    // Route patterns, not URLs: no tokens, ids or message text in any label.
    expect(text).toContain('route="/r/:token"');
    expect(text).not.toMatch(/route="\/r\/v1\./);
    expect(text).not.toContain('METRICS-CANARY');
    expect(text).not.toMatch(/dec_[0-9A-Za-z]{10}/);
  });

  // The series say how the business runs: not for the public port without the token.
  it('answers on the API port only to the metrics token', async () => {
    for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: ADMIN.authorization }]) {
      const res = await t.app.inject({ url: '/metrics', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ ok: false, error: 'invalid_metrics_token' });
    }
  });

  it('does not exist on the API port without METRICS_TOKEN', async () => {
    const bare = await createTestApp({ metricsToken: undefined });
    try {
      expect((await bare.app.inject({ url: '/metrics', headers: METRICS_AUTH })).statusCode).toBe(404);
    } finally {
      await bare.close();
    }
  });

  it('is served by a listener of its own, which answers nothing else', async () => {
    const listener = await startMetricsListener(
      async () => ({ contentType: t.app.metrics.registry.contentType, body: await t.app.metrics.registry.metrics() }),
      {
        host: '127.0.0.1',
        port: 0,
      },
    );
    try {
      const res = await fetch(listener.url);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('sidenote_decide_outcomes_total');
      const other = await fetch(listener.url.replace('/metrics', '/v1/offers/decide'));
      expect(other.status).toBe(404);
      expect(await other.json()).toEqual({ ok: false, error: 'not_found' });
    } finally {
      await listener.close();
    }
  });
});
