import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, usingRealPostgres, type TestDatabase } from '../helpers/test-db.js';
import { CatalogRepository } from '../../src/catalog/catalog-repository.js';
import { CatalogValidationError } from '../../src/catalog/catalog-validation.js';
import { Catalog } from '../../src/catalog/catalog-schema.js';
import { miniCatalog } from '../helpers/mini-catalog.js';

describe(`catalog import (${usingRealPostgres ? 'Postgres' : 'PGlite'})`, () => {
  let t: TestDatabase;
  let repo: CatalogRepository;
  beforeAll(async () => {
    t = await createTestDatabase();
    repo = new CatalogRepository(t.db);
  });
  afterAll(() => t.drop());

  const snapshotCount = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM offer_snapshots')).rows[0].n;

  it('imports a catalog, creating one snapshot per offer', async () => {
    const report = await repo.import(miniCatalog());
    expect(report).toMatchObject({ changed: true, version: 1, snapshots_created: 3, offers: 3, campaigns: 2, advertisers: 2 });
    expect(await snapshotCount()).toBe(3);
  });

  it('is idempotent: the same file again creates nothing', async () => {
    const report = await repo.import(miniCatalog());
    expect(report).toMatchObject({ changed: false, version: 1, snapshots_created: 0 });
    expect(await snapshotCount()).toBe(3);
  });

  it('creates a new snapshot only for the offer that changed, and keeps the old one', async () => {
    const c = miniCatalog();
    c.offers![0].title = '제주 오션뷰 호텔 겨울 특가';
    c.campaigns![1].priority = 9; // campaign settings are not snapshot content
    const report = await repo.import(c);
    expect(report).toMatchObject({ changed: true, version: 2, snapshots_created: 1 });
    expect(await snapshotCount()).toBe(4);
    const current = await t.db.query<{ id: string; title: string }>(
      `SELECT s.id, s.content->'offer'->>'title' AS title FROM offers o JOIN offer_snapshots s ON s.id = o.current_snapshot_id
       WHERE o.id = 'off.jeju-hotel-ko'`,
    );
    expect(current.rows[0].title).toBe('제주 오션뷰 호텔 겨울 특가');
  });

  it('archives offers a new file omits, and exports what is live', async () => {
    const c = miniCatalog();
    c.offers = c.offers!.filter((o) => o.id !== 'off.iphone-en');
    const report = await repo.import(c);
    expect(report.offers_archived).toBe(1);
    const exported = await repo.export();
    expect(exported.offers.map((o) => o.id).sort()).toEqual(['off.jeju-hotel-en', 'off.jeju-hotel-ko']);
    // The export is itself a valid catalog that imports as "unchanged".
    expect(Catalog.safeParse(exported).success).toBe(true);
    expect((await repo.import(exported)).changed).toBe(false);
  });

  it('serves the live snapshots with their campaigns and allowlists', async () => {
    const rows = await repo.loadServingCatalog();
    expect(rows.offers).toHaveLength(2);
    expect(rows.advertisers.find((a) => a.id === 'adv.haneul-stay')?.destinations).toEqual(['https://www.haneulstay.example/']);
    expect(rows.campaigns.find((x) => x.id === 'cmp.jeju-hotels')?.frequency_cap).toEqual({ count: 2, window_seconds: 3600 });
  });

  const rejects = async (mutate: (c: ReturnType<typeof miniCatalog>) => void, field: string) => {
    const c = miniCatalog();
    mutate(c);
    const err = await repo.import(c).catch((e) => e);
    expect(err).toBeInstanceOf(CatalogValidationError);
    expect((err as CatalogValidationError).problems.join('\n')).toContain(field);
  };

  it('rejects a bad file with a message naming the field, and writes nothing', async () => {
    const before = await repo.version();
    await rejects((c) => (c.offers![1].campaign_id = 'cmp.nope'), 'offers[1].campaign_id: unknown campaign "cmp.nope"');
    await rejects((c) => (c.offers![0].destination_url = 'https://evil.example/jeju'), 'offers[0].destination_url: not on the allowlist');
    await rejects((c) => (c.offers![0].destination_url = 'http://www.haneulstay.example/x'), 'offers[0].destination_url');
    await rejects((c) => (c.campaigns![0].priority = 11), 'campaigns[0].priority');
    await rejects((c) => ((c.campaigns![0] as Record<string, unknown>).colour = 'red'), 'campaigns[0]');
    await rejects((c) => (c.taxonomy.categories![1].parent_id = 'nowhere'), 'taxonomy.categories[1].parent_id');
    await rejects((c) => (c.taxonomy.categories![0].parent_id = 'travel.hotels'), 'cycle');
    await rejects((c) => (c.offers![2].targeting.entity_ids = ['product.unknown']), 'offers[2].targeting.entity_ids[0]');
    await rejects((c) => c.offers!.push({ ...c.offers![0] }), 'offers[3].id: duplicate id');
    await rejects((c) => (c.advertisers![0].destinations = ['https://x.example/?q=1']), 'advertisers[0].destinations[0]');
    await rejects((c) => (c.taxonomy.entities![0].id = 'Bad Id'), 'taxonomy.entities[0].id');
    await rejects((c) => (c.taxonomy.entities![0].within = ['place.nowhere']), 'taxonomy.entities[0].within[0]: unknown entity "place.nowhere"');
    await rejects(
      (c) => (c.taxonomy.entities![0].within = ['product.iphone-16']),
      'taxonomy.entities[0].within[0]: "product.iphone-16" is a product, not a place',
    );
    await rejects((c) => (c.taxonomy.entities![0].within = ['place.jeju']), 'does not lie within itself');
    // A product may lie within the place it belongs to, and within nothing else of another kind.
    await rejects(
      (c) => (c.taxonomy.entities![1].within = ['brand.gadget-harbor']),
      'taxonomy.entities[1].within[0]: "brand.gadget-harbor" is a brand, not a product',
    );
    expect(await repo.version()).toBe(before);
  });

  it('takes a product within the place it belongs to', async () => {
    const c = miniCatalog();
    c.taxonomy.entities![1].within = ['place.jeju'];
    await repo.import(c);
    expect((await repo.export()).taxonomy.entities?.find((e) => e.id === 'product.iphone-16')?.within).toEqual(['place.jeju']);
  });
});
