// Catalog imports as jobs through the admin API (issue 18): a job goes through its states with
// growing progress while decides keep being answered, refuses a bad file with every problem and
// its path and writes nothing, runs one at a time, answers bad requests in the API's error format,
// and a job whose runner is gone reads as failed. Nothing here is timed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bearer, createTestApp, usingRealPostgres, type TestApp, type TestDatabase, createHost } from '../helpers/test-env.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { generatedCatalog, bodiesForGenerated } from '../../bench/catalogs.js';
import { CatalogImportJobRepository } from '../../src/catalog/catalog-import-job-repository.js';
import { ADVISORY_LOCKS } from '../../src/db/advisory-locks.js';

const STATES = ['queued', 'validating', 'writing', 'succeeded'];
const CANARY = 'canary-7f3a9-never-echoed';

type Json = Record<string, any>;

async function follow(t: TestApp, location: string, onPoll?: () => Promise<void>): Promise<Json[]> {
  const seen: Json[] = [];
  for (let i = 0; i < 3000; i++) {
    const res = await t.app.inject({ method: 'GET', url: location, headers: ADMIN });
    expect(res.statusCode).toBe(200);
    const job = res.json();
    seen.push(job);
    if (job.state === 'succeeded' || job.state === 'failed') return seen;
    await onPoll?.();
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the job did not finish');
}

const post = (t: TestApp, payload: unknown, headers: Record<string, string> = ADMIN) =>
  t.app.inject({
    method: 'POST',
    url: '/admin/catalog/imports',
    headers: { ...headers, 'content-type': 'application/json' },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

describe(`catalog import jobs (${usingRealPostgres ? 'Postgres' : 'PGlite'})`, () => {
  let t: TestApp & { testDb: TestDatabase };
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ decideRateLimitPerMinute: 1_000_000 });
    key = (await createHost(t.app, 'Import host')).test_key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('imports 1,500 offers through its states with growing progress while decides keep being answered', { timeout: 120_000 }, async () => {
    const generated = generatedCatalog(1_500, 150);
    const text = JSON.stringify(generated.catalog);
    const decideBodies = bodiesForGenerated(generated, 8);
    const started = await post(t, text);
    expect(started.statusCode).toBe(202);
    const accepted = started.json();
    expect(accepted).toMatchObject({ state: 'queued', progress: { bytes_total: Buffer.byteLength(text), offers_written: 0 }, report: null, error: null });
    expect(started.headers.location).toBe(`/admin/catalog/imports/${accepted.id}`);

    const decides: number[] = [];
    const seen = await follow(t, started.headers.location as string, async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/offers/decide',
        headers: bearer(key),
        payload: decideBodies[decides.length % decideBodies.length],
      });
      decides.push(res.statusCode);
    });
    const done = seen.at(-1)!;
    expect(done.state, JSON.stringify(done.error)).toBe('succeeded');
    // States only move forward, progress only grows.
    const order = seen.map((j) => STATES.indexOf(j.state));
    expect(order.every((s, i) => s >= 0 && (i === 0 || s >= order[i - 1]))).toBe(true);
    for (const field of ['bytes_read', 'offers_read', 'offers_checked', 'offers_written']) {
      const values = seen.map((j) => j.progress[field]);
      expect(
        values.every((v, i) => i === 0 || v >= values[i - 1]),
        field,
      ).toBe(true);
    }
    expect(Date.parse(done.started_at)).toBeLessThanOrEqual(Date.parse(done.validated_at));
    expect(Date.parse(done.validated_at)).toBeLessThanOrEqual(Date.parse(done.finished_at));
    expect(done.progress).toEqual({
      bytes_total: Buffer.byteLength(text),
      bytes_read: Buffer.byteLength(text),
      offers_read: 1_500,
      offers_checked: 1_500,
      offers_total: 1_500,
      offers_written: 1_500,
    });
    expect(done.report).toMatchObject({ changed: true, offers: 1_500, snapshots_created: 1_500, campaigns: 75, advertisers: 15 });
    // Decides were answered throughout (a fill or a no-fill, never an error).
    expect(decides.length).toBeGreaterThan(0);
    expect(decides.every((s) => s === 200)).toBe(true);
    // This instance serves the new catalog as soon as the job reads succeeded.
    const exported = (await t.app.inject({ method: 'GET', url: '/admin/catalog', headers: ADMIN })).json();
    expect(exported.offers).toHaveLength(1_500);
    const served = await Promise.all(decideBodies.map((b) => t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(key), payload: b })));
    expect(served.some((r) => r.json().serve === true)).toBe(true);
  });

  it('fails a catalog with schema problems, listing each with its path, and writes nothing', { timeout: 60_000 }, async () => {
    const before = (await t.app.inject({ method: 'GET', url: '/admin/catalog', headers: ADMIN })).json();
    const c = miniCatalog() as Json;
    c.offers[2].locale = 'fr';
    c.campaigns[0].bid_micros = -1;
    c.offers[0].title = CANARY.repeat(10);
    c.offers[1].campaign_id = 'cmp.nope'; // a reference problem: not listed while the schema fails
    const started = await post(t, c);
    expect(started.statusCode).toBe(202);
    const done = (await follow(t, started.headers.location as string)).at(-1)!;
    expect(done.state).toBe('failed');
    expect(done.error.ok).toBe(false);
    expect(done.error.error).toBe('invalid_catalog');
    expect(done.error.problems).toEqual([
      expect.stringMatching(/^campaigns\[0\]\.bid_micros: /),
      expect.stringMatching(/^offers\[0\]\.title: /),
      expect.stringMatching(/^offers\[2\]\.locale: /),
    ]);
    expect(JSON.stringify(done)).not.toContain(CANARY);
    expect(done.report).toBeNull();
    expect((await t.app.inject({ method: 'GET', url: '/admin/catalog', headers: ADMIN })).json()).toEqual(before);
  });

  it('fails a catalog with reference problems, listing each with its path', { timeout: 60_000 }, async () => {
    const c = miniCatalog() as Json;
    c.offers[1].campaign_id = 'cmp.nope';
    c.offers[2].targeting.entity_ids = ['product.unknown'];
    c.offers.push({ ...c.offers[0] });
    const done = (await follow(t, (await post(t, c)).headers.location as string)).at(-1)!;
    expect(done.error.error).toBe('invalid_catalog');
    expect(done.error.problems).toEqual([
      'offers[3].id: duplicate id "off.jeju-hotel-ko" (first at offers[0])',
      'offers[1].campaign_id: unknown campaign "cmp.nope"',
      'offers[2].targeting.entity_ids[0]: unknown entity "product.unknown"',
    ]);
  });

  it('fails a body that stops being JSON half way, without quoting it', { timeout: 60_000 }, async () => {
    const text = JSON.stringify(miniCatalog()).slice(0, 400) + CANARY;
    const started = await post(t, text);
    expect(started.statusCode).toBe(202);
    const done = (await follow(t, started.headers.location as string)).at(-1)!;
    expect(done.state).toBe('failed');
    expect(done.error).toEqual({ ok: false, error: 'invalid_request', message: 'the catalog is not valid JSON' });
  });

  it('waits a moment for the lock of an import that has already recorded its end, instead of refusing the next', { timeout: 120_000 }, async () => {
    // A job records its end, then lets the lock go: a client that saw it finish and starts the
    // next at once meets the lock still held, by no unfinished job. Held here for 300 ms.
    await t.db.withConnection(async (conn) => {
      await conn.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCKS.catalogImportRunning]);
      const next = post(t, JSON.stringify(miniCatalog()).slice(0, 200));
      await new Promise((r) => setTimeout(r, 300));
      await conn.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCKS.catalogImportRunning]);
      const started = await next;
      expect(started.statusCode).toBe(202);
      expect((await follow(t, started.headers.location as string)).at(-1)!.state).toBe('failed');
    });
  });

  it('answers what it can tell at once in the error format: empty, not an object, not JSON, unknown and malformed ids', async () => {
    for (const [payload, message] of [
      ['', 'the catalog is empty'],
      ['  \n', 'the catalog is empty'],
      [`${CANARY} {}`, 'the catalog is not a JSON object'],
      ['[1, 2]', 'the catalog is not a JSON object'],
    ]) {
      const res = await post(t, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toEqual({ ok: false, error: 'invalid_request', message });
    }
    const text = await t.app.inject({ method: 'POST', url: '/admin/catalog/imports', headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: CANARY });
    expect(text.statusCode).toBe(415);
    expect(text.json()).toEqual({ ok: false, error: 'unsupported_media_type' });
    const unknown = await t.app.inject({ method: 'GET', url: '/admin/catalog/imports/imp_doesNotExist0000', headers: ADMIN });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ ok: false, error: 'not_found' });
    const malformed = await t.app.inject({ method: 'GET', url: `/admin/catalog/imports/${CANARY}`, headers: ADMIN });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error).toBe('invalid_request');
    expect(malformed.body).not.toContain(CANARY);
  });

  it('refuses every catalog operation without the admin key', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong-key-0123456789012345' }] as Record<string, string>[]) {
      const started = await post(t, miniCatalog(), headers);
      expect(started.statusCode).toBe(401);
      expect(started.json()).toEqual({ ok: false, error: 'invalid_admin_key' });
      const read = await t.app.inject({ method: 'GET', url: '/admin/catalog/imports/imp_abc', headers });
      expect(read.statusCode).toBe(401);
    }
  });

  it('runs one import at a time: a second one is refused while the first runs, naming it', { timeout: 120_000 }, async () => {
    const first = await post(t, generatedCatalog(1_200, 120, 3).catalog);
    expect(first.statusCode).toBe(202);
    const id = first.json().id;
    // The first holds the import from before its 202 until it ends; its worker alone takes longer
    // to start than these two requests.
    const second = await post(t, miniCatalog());
    expect(second.statusCode).toBe(409);
    expect(second.json()).toEqual({ ok: false, error: 'import_in_progress', job_id: id });
    const put = await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
    expect(put.statusCode).toBe(409);
    expect((await follow(t, first.headers.location as string)).at(-1)!.state).toBe('succeeded');
    // Then the next one may run.
    const again = await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ changed: true, offers: 3, offers_archived: 1_200 });
  });

  it('reads a job whose runner is gone as failed: import_interrupted', async () => {
    const jobs = new CatalogImportJobRepository(t.db);
    // Recorded by a process that no longer exists: another runner, and on Postgres a backend
    // that holds no import lock.
    const backend = usingRealPostgres ? (await t.db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid : null;
    await jobs.create({ id: 'imp_orphaned0001', bytesTotal: 10, runner: 'host:1:gone', runnerPid: backend });
    await jobs.enter('imp_orphaned0001', 'validating');
    const res = await t.app.inject({ method: 'GET', url: '/admin/catalog/imports/imp_orphaned0001', headers: ADMIN });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ state: 'failed', error: { ok: false, error: 'import_interrupted' } });
    expect(res.json().finished_at).not.toBeNull();
  });

  it('reads a job killed right after its catalog committed as succeeded, never as interrupted', { timeout: 120_000 }, async () => {
    // The instance stops for good between the catalog's commit and anything after it: its reload
    // never returns, and (on Postgres) its import lock's session is ended as a dead process' is.
    const stuck = await createTestApp({}, { testDb: t.testDb, counters: t.counters });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    try {
      stuck.app.catalogRuntime.reload = () => held;
      const before = await stuck.app.repositories.catalog.version();
      const catalog = miniCatalog();
      catalog.offers!.pop();
      const started = await post(stuck, catalog);
      expect(started.statusCode).toBe(202);
      for (let i = 0; i < 1200 && (await stuck.app.repositories.catalog.version()) === before; i++) await new Promise((r) => setTimeout(r, 25));
      const version = await stuck.app.repositories.catalog.version();
      expect(version).toBe(before + 1);
      const row = await new CatalogImportJobRepository(t.db).get(started.json().id);
      if (usingRealPostgres) await t.db.query('SELECT pg_terminate_backend($1)', [row!.runner_pid]);
      // Read by another instance, whose view of the runner is that it is gone.
      let job: Json = {};
      for (let i = 0; i < 200; i++) {
        job = (await t.app.inject({ method: 'GET', url: started.headers.location as string, headers: ADMIN })).json();
        if (job.state === 'succeeded' || job.state === 'failed') break;
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(job).toMatchObject({ state: 'succeeded', report: { changed: true, version }, error: null });
    } finally {
      release();
      await stuck.close().catch(() => {});
    }
  });

  it('rolls a running job back when its instance shuts down, and the job reads interrupted', { timeout: 120_000 }, async () => {
    const other = await createTestApp({}, { testDb: t.testDb, counters: t.counters });
    const versionBefore = (await t.app.inject({ method: 'GET', url: '/admin/catalog', headers: ADMIN })).json().offers.length;
    const started = await post(other, generatedCatalog(3_000, 300, 5).catalog);
    expect(started.statusCode).toBe(202);
    await other.close();
    const job = (await t.app.inject({ method: 'GET', url: started.headers.location as string, headers: ADMIN })).json();
    expect(job).toMatchObject({ state: 'failed', error: { error: 'import_interrupted' } });
    expect((await t.app.inject({ method: 'GET', url: '/admin/catalog', headers: ADMIN })).json().offers.length).toBe(versionBefore);
  });
});

// PGlite belongs to one process: there a second app on the same handle is not another instance.
describe.skipIf(!usingRealPostgres)('catalog import jobs across instances (Postgres)', () => {
  it('any instance answers for a job another runs, and sees it end', { timeout: 120_000 }, async () => {
    const a = await createTestApp();
    const b = await createTestApp({}, { testDb: a.testDb, counters: a.counters });
    try {
      const started = await post(a, generatedCatalog(2_000, 200, 9).catalog);
      expect(started.statusCode).toBe(202);
      const elsewhere = (await b.app.inject({ method: 'GET', url: started.headers.location as string, headers: ADMIN })).json();
      expect(elsewhere.id).toBe(started.json().id);
      expect(['queued', 'validating', 'writing', 'succeeded']).toContain(elsewhere.state);
      // b cannot start another while a's runs.
      expect((await post(b, miniCatalog())).statusCode).toBe(409);
      const done = (await follow(b, started.headers.location as string)).at(-1)!;
      expect(done).toMatchObject({ state: 'succeeded', report: { offers: 2_000 } });
    } finally {
      await b.close();
      await a.close();
    }
  });
});

describe('catalog import limits', () => {
  it('answers 413 in the error format for a catalog over CATALOG_IMPORT_MAX_BYTES, on both imports', async () => {
    const limit = Buffer.byteLength(JSON.stringify(miniCatalog())) + 100;
    const t = await createTestApp({ catalogImportMaxBytes: limit });
    try {
      const big = JSON.stringify({ ...miniCatalog(), $schema: CANARY.repeat(200) });
      for (const method of ['POST', 'PUT'] as const) {
        const res = await t.app.inject({
          method,
          url: method === 'POST' ? '/admin/catalog/imports' : '/admin/catalog',
          headers: { ...ADMIN, 'content-type': 'application/json' },
          payload: big,
        });
        expect(res.statusCode, method).toBe(413);
        expect(res.json()).toEqual({ ok: false, error: 'payload_too_large' });
      }
      // A catalog under the limit still imports.
      expect((await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
