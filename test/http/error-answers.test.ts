// One place turns a thrown error into an answer (src/http/errors.ts): a refusal at the status
// the error registry gives it, a store outage as 503 with retry-after (nothing was written), and
// anything else, a bug, as a logged 500. Routes used to catch everything as 503, so a bug read as
// an outage and a host retried it forever; these tests fail on that code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS, Refusal } from '../../src/errors/error-registry.js';
import { DatabaseUnavailable, isDatabaseOutage } from '../../src/db/database.js';
import { CounterStoreUnavailable } from '../../src/counters/counter-store.js';
import { ADMIN, bearer, createTestApp, type TestApp, createHost } from '../helpers/test-env.js';
import { miniCatalog } from '../helpers/mini-catalog.js';

describe('error answers', () => {
  let t: TestApp;
  let host: { serving_key: string };
  const rendered = (marker = 'errtest') =>
    t.app.inject({
      method: 'POST',
      url: '/v1/events/rendered',
      headers: { ...bearer(host.serving_key), 'idempotency-key': `err-answers-${Math.random()}` },
      payload: { offer_snapshot_id: `snp_${marker}` },
    });

  beforeAll(async () => {
    t = await createTestApp({ loadDemoCatalog: false });
    await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
    host = await createHost(t.app, 'Errors');
  });
  afterAll(() => t?.close());

  const withRecord = async (impl: () => Promise<never>, fn: () => Promise<void>) => {
    // Recording an impression starts by asking the catalog whether its snapshot exists.
    const catalog = t.app.repositories.catalog;
    const original = catalog.snapshotExists;
    catalog.snapshotExists = impl;
    try {
      await fn();
    } finally {
      catalog.snapshotExists = original;
    }
  };

  it('answers a bug as 500 internal_error and logs where it happened, not what it said', async () => {
    await withRecord(
      async () => {
        throw new TypeError('secret-marker-7781 cannot be read');
      },
      async () => {
        const res = await rendered();
        expect(res.statusCode).toBe(500);
        expect(res.json()).toEqual({ ok: false, error: 'internal_error' });
        expect(res.headers['retry-after']).toBeUndefined();
      },
    );
    const line = t.logs.lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request failed');
    expect(line).toMatchObject({ level: 50, err: { type: 'TypeError' } });
    expect(line.err.frames).toContain('error-answers.test.ts');
    expect(t.logs.text).not.toContain('secret-marker-7781');
  });

  it('answers a store outage as 503 service_unavailable with retry-after', async () => {
    for (const outage of [new DatabaseUnavailable(new Error('Connection terminated unexpectedly')), new CounterStoreUnavailable()]) {
      await withRecord(
        async () => {
          throw outage;
        },
        async () => {
          const res = await rendered();
          expect(res.statusCode).toBe(503);
          expect(res.json()).toEqual({ ok: false, error: 'service_unavailable' });
          expect(res.headers['retry-after']).toBe(String(ERRORS.service_unavailable.retry_after_seconds));
        },
      );
    }
  });

  it('answers a refusal at the status the registry gives it', async () => {
    await withRecord(
      async () => {
        throw new Refusal('idempotency_key_reused');
      },
      async () => {
        const res = await rendered();
        expect(res.statusCode).toBe(ERRORS.idempotency_key_reused.status);
        expect(res.json()).toEqual({ ok: false, error: 'idempotency_key_reused' });
      },
    );
    // And a real one, end to end: an unknown snapshot is the domain's refusal.
    const res = await rendered('unknownsnapshot');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ ok: false, error: 'unknown_snapshot' });
  });
});

describe('what counts as a database outage', () => {
  const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });
  it('is the server or the connection, never the statement', () => {
    for (const e of [
      pgError('ECONNREFUSED'),
      pgError('08006'),
      pgError('57P01'),
      pgError('57014'),
      pgError('53300'),
      pgError('40001'),
      new Error('Connection terminated unexpectedly'),
      new Error('Query read timeout'),
      new Error('timeout exceeded when trying to connect'),
    ]) {
      expect(isDatabaseOutage(e), e.message + (e as { code?: string }).code).toBe(true);
    }
    for (const e of [pgError('42601', 'syntax error'), pgError('23505', 'duplicate key'), pgError('22P02'), new TypeError('x is undefined'), 'not an error']) {
      expect(isDatabaseOutage(e)).toBe(false);
    }
  });
});
