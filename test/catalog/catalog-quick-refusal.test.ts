// The synchronous import refuses a small catalog that is not JSON or fails its checks on the
// serving thread, before a job or a worker (starting one costs about 250 ms, which the contract
// test paid on every one of its hundreds of refused PUTs). The answer is the one the worker
// gives: the same problems, in the same order. A small good catalog is imported on this thread
// too, with no worker at all.
import { Readable } from 'node:stream';
import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, usingRealPostgres, type TestDatabase } from '../helpers/test-db.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { CatalogRepository } from '../../src/catalog/catalog-repository.js';
import { catalogImportJobs, type CatalogImportJobs } from '../../src/catalog/catalog-import-jobs.js';
import { startCatalogWorker } from '../../src/catalog/worker-threads.js';
import { QUICK_CHECK_MAX_BYTES } from '../../src/catalog/catalog-importer.js';
import type { WorkerInput } from '../../src/catalog/catalog-import-messages.js';

const body = (text: string) => Readable.from([Buffer.from(text)]);

/** What an import answered: its report, or its refusal's code and details. */
async function answer(p: Promise<unknown>): Promise<unknown> {
  try {
    return { report: await p };
  } catch (err) {
    const e = err as { code?: string; details?: unknown; problems?: string[] };
    return { refused: e.code, details: e.details };
  }
}

describe(`synchronous catalog import, quick refusal (${usingRealPostgres ? 'Postgres' : 'PGlite'})`, () => {
  let t: TestDatabase;
  let jobs: CatalogImportJobs;
  let workers = 0;
  beforeAll(async () => {
    t = await createTestDatabase();
    jobs = catalogImportJobs(t.db, new CatalogRepository(t.db), {
      maxBytes: 1 << 30,
      startWorker: (input: WorkerInput): Worker => {
        workers++;
        return startCatalogWorker('catalog-import-worker', input, { maxOldGenerationSizeMb: 256 });
      },
    });
  });
  afterAll(async () => {
    await jobs?.close();
    await t?.drop();
  });

  const broken = () => {
    const c = miniCatalog() as Record<string, any>;
    c.version = 2; // a schema problem
    c.campaigns[0].advertiser_id = 'adv.nobody'; // a reference problem (listed only once the schema holds)
    c.offers[1].title = 42;
    return c;
  };
  const badReferences = () => {
    const c = miniCatalog() as Record<string, any>;
    c.campaigns[0].advertiser_id = 'adv.nobody';
    c.offers[0].targeting.category_ids = ['no.such.category'];
    return c;
  };
  // The same catalog with trailing white space past the quick check's size: the worker's answer.
  const padded = (c: object) => `${JSON.stringify(c)}${' '.repeat(QUICK_CHECK_MAX_BYTES)}`;

  it('refuses a small wrong catalog without starting a worker, with the answer the worker gives', async () => {
    for (const c of [broken(), badReferences()]) {
      workers = 0;
      const quick = await answer(jobs.importToEnd(body(JSON.stringify(c))));
      expect(workers).toBe(0);
      expect(quick).toMatchObject({ refused: 'invalid_catalog' });
      // The same file past the quick check's size goes to the worker and fails the same way.
      const slow = await answer(jobs.importToEnd(body(padded(c))));
      expect(workers).toBe(1);
      expect(slow).toEqual(quick);
    }
  });

  it('refuses a small body that is not JSON without starting a worker', async () => {
    workers = 0;
    expect(await answer(jobs.importToEnd(body('{"version": 1, "taxonomy": ')))).toMatchObject({ refused: 'invalid_request' });
    expect(workers).toBe(0);
  });

  it('imports a small good catalog on this thread, and the worker finds the same catalog in it', async () => {
    workers = 0;
    const here = (await answer(jobs.importToEnd(body(JSON.stringify(miniCatalog()))))) as { report: { version: number } };
    expect(here).toMatchObject({ report: { changed: true, offers: 3 } });
    expect(workers).toBe(0);
    // The same catalog past the quick check's size, through the worker: the same hash, so the
    // same version, unchanged.
    const there = await answer(jobs.importToEnd(body(padded(miniCatalog()))));
    expect(workers).toBe(1);
    expect(there).toMatchObject({ report: { changed: false, offers: 3, version: here.report.version } });
  });
});
