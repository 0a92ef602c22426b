// Loading the served catalog off the serving thread (src/catalog/catalog-loader.ts): the worker's
// index and view serve what the index built whole from the same rows served; a reload that fails
// leaves the previous catalog serving, counted and logged; another instance's import is picked
// up; the worker is kept between loads, and ended after a failed one, after a large one and on
// stop.
import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogRepository } from '../../src/catalog/catalog-repository.js';
import { CatalogLoader, CatalogLoadFailed } from '../../src/catalog/catalog-loader.js';
import { ServingCatalogAssembly, ServingCatalogBuild } from '../../src/catalog/catalog-load.js';
import { buildIndexDocument } from '../../src/catalog/index-document.js';
import { startCatalogWorker } from '../../src/catalog/worker-threads.js';
import { discardStagedIndex, LiveOfferIndex } from '../../src/native/offer-index.js';
import { generateQuery, Rng } from '../../testkit/generated-catalog.js';
import { ADMIN, bearer, createTestApp, METRICS_AUTH, type TestApp, createHost } from '../helpers/test-env.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { adultOnSurface } from '../helpers/envelopes.js';

/** Starts load workers as the loader would, keeping each and the promise of its exit. */
function countedWorkers() {
  const workers: { worker: Worker; exited: Promise<unknown> }[] = [];
  const counted = (...args: Parameters<typeof startCatalogWorker>) => {
    const worker = startCatalogWorker(...args);
    workers.push({ worker, exited: once(worker, 'exit') });
    return worker;
  };
  return { workers, counted };
}

const stores = process.env.DATABASE_URL ? 'Postgres: the worker reads on its own connection' : 'PGlite: the worker is fed the rows';

describe(`the catalog loaded off the serving thread (${stores})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it('matches and serves the demo catalog as the index built whole from the same rows does', async () => {
    const rows = await new CatalogRepository(t.db).loadServingCatalog();
    const document = buildIndexDocument(rows);
    const whole = new LiveOfferIndex();
    whole.loadSync(JSON.stringify(document));
    const { index, serving } = t.app.catalogRuntime;
    expect(index.stats()).toEqual({ ...whole.stats(), version: index.stats().version, buildMillis: index.stats().buildMillis });

    let candidates = 0;
    for (let i = 0; i < 3_000; i++) {
      const q = generateQuery(document, new Rng(i + 1));
      const expected = whole.match(q);
      // The live index, decoded with the ids of the view it went live with.
      expect(index.match(q)).toEqual(expected);
      for (const c of expected.candidates) expect(serving.servable(c, 'sponsored')).toBe(true);
      candidates += expected.candidates.length;
    }
    expect(candidates).toBeGreaterThan(1_000);

    // Every live snapshot, its content as stored; the campaigns, allowlists and names.
    expect(serving.snapshots.size).toBe(document.offers.length);
    for (const row of rows.offers) {
      // As imported, but for the targeting, which is the index's.
      const { targeting: _, ...offer } = row.content.offer;
      expect(serving.snapshots.get(row.snapshot_id)).toEqual({ ...row.content, offer });
    }
    expect(serving.snapshots.get('snp_unknown')).toBeUndefined();
    expect(serving.snapshots.has('')).toBe(false);
    expect([...serving.campaigns.values()]).toEqual(expect.arrayContaining(rows.campaigns));
    expect(serving.campaigns.size).toBe(rows.campaigns.length);
    for (const a of rows.advertisers) expect(serving.advertisers.get(a.id)).toMatchObject({ name: a.name, destinations: a.destinations });
    expect(serving.names.get('travel.hotels')).toEqual(rows.taxonomy?.categories.find((c) => c.id === 'travel.hotels')?.name);
    expect([...serving.places].sort()).toEqual(
      rows.taxonomy?.entities
        .filter((e) => e.kind === 'place')
        .map((e) => e.id)
        .sort(),
    );
    expect(serving.networks.size).toBe(rows.networks.length);
    // The forced fill of a test key: the lowest snapshot id of each kind and language.
    for (const [kind, language] of [
      ['sponsored', 'ko'],
      ['sponsored', 'en'],
      ['affiliate', 'ko'],
    ] as const) {
      const lowest = rows.offers
        .filter((o) => o.content.offer.kind === kind && o.content.offer.locale === language)
        .map((o) => o.snapshot_id)
        .sort()[0];
      expect(serving.testFill(kind, language)?.snapshotId).toBe(lowest);
    }
  });

  it('builds the same view on its worker as in one thread', async () => {
    const repo = new CatalogRepository(t.db);
    const inThread = new ServingCatalogAssembly();
    const made: { catalog: ReturnType<ServingCatalogAssembly['take']> } = { catalog: null };
    let build: ServingCatalogBuild | undefined;
    const take = (m: Parameters<ServingCatalogAssembly['take']>[0]) => {
      made.catalog = inThread.take(m) ?? made.catalog;
    };
    // Small batches, so the offers cross in several chunks.
    await repo.readServingCatalog(
      7,
      (head) => {
        build = new ServingCatalogBuild(head, take);
      },
      (rows) => build?.addOffers(rows),
    );
    build?.finish();
    const loader = new CatalogLoader(repo, t.db.connectionString ?? null, { batchSize: 7 });
    const loaded = await loader.load();
    await loader.stop();
    const local = made.catalog;
    if (!local) throw new Error('the build in this thread made no catalog');
    try {
      const view = loaded.view;
      expect(view.version).toBe(local.view.version);
      expect(view.offers.size).toBe(local.view.offers.size);
      for (let p = 0; p < view.offers.size; p++) {
        const id = view.offers.offer(p).snapshotId;
        expect(view.snapshots.get(id)).toEqual(local.view.snapshots.get(id));
        expect(view.offers.flags(p)).toBe(local.view.offers.flags(local.view.offers.positionOf(id)));
      }
      expect([...view.campaigns]).toEqual([...local.view.campaigns]);
      expect([...view.advertisers]).toEqual([...local.view.advertisers]);
      expect([...view.names]).toEqual([...local.view.names]);
      expect(loaded.staged.offers).toBe(local.staged.offers);
    } finally {
      discardStagedIndex(loaded.staged);
      discardStagedIndex(local.staged);
    }
  });
});

describe(`catalog reloads (${stores})`, () => {
  const base = () => adultOnSurface({ locale: 'ko-KR', country: 'KR' });

  it('keeps serving the previous catalog when a reload fails, counts and logs it, and loads the next good one', async () => {
    const t = await createTestApp({ loadDemoCatalog: false });
    try {
      await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
      const { serving_key } = await createHost(t.app, 'Reload');
      const ask = () =>
        t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(serving_key), payload: { ...base(), message: '제주도 호텔 최저가' } });
      expect((await ask()).json().serve).toBe(true);
      const runtime = t.app.catalogRuntime;
      const before = { version: runtime.serving.version, index: runtime.index.stats().version };

      // A taxonomy the index cannot build (a category its own parent), written past the import's
      // checks: what a bad migration or a hand edit could leave.
      await t.db.query(
        `UPDATE catalog_state SET version = version + 1,
           taxonomy = jsonb_set(taxonomy, '{categories,1,parent_id}', taxonomy->'categories'->1->'id') WHERE id = 1`,
      );
      const err = await runtime.reload().catch((e) => e);
      expect(err).toBeInstanceOf(CatalogLoadFailed);
      expect(err.code).toBe('INDEX_CATEGORY_CYCLE');
      expect({ version: runtime.serving.version, index: runtime.index.stats().version }).toEqual(before);
      expect((await ask()).json().serve).toBe(true);
      expect(t.logs.text).toContain('offer index reload failed; the previous catalog keeps serving');
      expect(t.logs.text).toContain('INDEX_CATEGORY_CYCLE');
      const metrics = (await t.app.inject({ method: 'GET', url: '/metrics', headers: METRICS_AUTH })).body;
      expect(metrics).toMatch(/^sidenote_offer_index_reload_failures_total [1-9]\d*$/m);

      // Fixed by the next import: loaded and served.
      const next = miniCatalog();
      next.offers![0].title = '제주 바다 전망 호텔 특가';
      expect((await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: next })).statusCode).toBe(200);
      expect(runtime.serving.version).toBeGreaterThan(before.version + 1);
      expect(runtime.index.stats().version).toBe(before.index + 1);
      expect((await ask()).json().serve).toBe(true);
    } finally {
      await t.close();
    }
  });

  it("picks up another instance's import by polling, index and view together", async () => {
    const a = await createTestApp({ loadDemoCatalog: false });
    const b = await createTestApp({ loadDemoCatalog: false }, { testDb: a.testDb, counters: a.counters });
    try {
      expect(b.app.catalogRuntime.serving.snapshots.size).toBe(0);
      await a.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
      const version = a.app.catalogRuntime.serving.version;
      for (let i = 0; i < 100 && b.app.catalogRuntime.serving.version !== version; i++) await new Promise((r) => setTimeout(r, 100));
      expect(b.app.catalogRuntime.serving.version).toBe(version);
      const { serving_key } = await createHost(b.app, 'Poll');
      const res = await b.app.inject({
        method: 'POST',
        url: '/v1/offers/decide',
        headers: bearer(serving_key),
        payload: { ...base(), message: '제주도 호텔 최저가' },
      });
      expect(res.json()).toMatchObject({ serve: true });
      expect(b.app.catalogRuntime.serving.snapshots.get(res.json().offer_id)).toBeDefined();
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('keeps its worker between loads, ends it after a load that failed (the next starts another), and ends the idle one on stop', async () => {
    const t = await createTestApp();
    try {
      const { workers, counted } = countedWorkers();
      const loader = new CatalogLoader(new CatalogRepository(t.db), t.db.connectionString ?? null, { startWorker: counted });
      const versions: number[] = [];
      for (let i = 0; i < 3; i++) {
        const loaded = await loader.load();
        versions.push(loaded.view.version);
        discardStagedIndex(loaded.staged);
      }
      expect(versions).toEqual([versions[0], versions[0], versions[0]]);
      expect(workers).toHaveLength(1);
      await loader.stop();
      await workers[0].exited;

      // A worker that cannot read: each failed load's worker is ended, and the next starts anew.
      const broken = new CatalogLoader(new CatalogRepository(t.db), 'postgres://nobody:nothing@127.0.0.1:1/none', { startWorker: counted });
      await expect(broken.load()).rejects.toBeInstanceOf(CatalogLoadFailed);
      await workers[1].exited;
      await expect(broken.load()).rejects.toBeInstanceOf(CatalogLoadFailed);
      await workers[2].exited;
      expect(workers).toHaveLength(3);
      await broken.stop();
    } finally {
      await t.close();
    }
  });

  it('ends the worker after a load of a large catalog instead of keeping its grown heap idle', async () => {
    const t = await createTestApp();
    try {
      const { workers, counted } = countedWorkers();
      // The demo catalog counts as large here: every load's worker ends, and the next starts anew.
      const loader = new CatalogLoader(new CatalogRepository(t.db), t.db.connectionString ?? null, { startWorker: counted, keepWorkerMaxOffers: 0 });
      for (let i = 0; i < 2; i++) {
        const loaded = await loader.load();
        expect(loaded.staged.offers).toBeGreaterThan(0);
        discardStagedIndex(loaded.staged);
        await workers[i].exited;
      }
      expect(workers).toHaveLength(2);
      await loader.stop();
    } finally {
      await t.close();
    }
  });

  it('ends the load and its worker on stop; nothing goes live', async () => {
    const t = await createTestApp();
    try {
      const workers: Worker[] = [];
      const loader = new CatalogLoader(new CatalogRepository(t.db), t.db.connectionString ?? null, {
        startWorker: (...args) => {
          const w = startCatalogWorker(...args);
          workers.push(w);
          return w;
        },
      });
      const load = loader.load().catch((e: Error) => e);
      const exited = once(workers[0], 'exit');
      await loader.stop();
      expect(await load).toMatchObject({ message: 'the catalog load was stopped' });
      await exited;
      expect(workers).toHaveLength(1);
      expect(workers[0].threadId).toBe(-1);
      await expect(loader.load()).rejects.toThrow('the catalog loader is stopped');
    } finally {
      await t.close();
    }
  });
});
