// The live index through N-API: errors carry stable codes, and a rebuild happens off the
// event loop and swaps in atomically while matching goes on.
import { describe, expect, it } from 'vitest';
import { IndexBuildError, LiveOfferIndex, OfferIndexBuilder, discardStagedIndex, type IndexDocument, type IndexIds } from '../../src/native/offer-index.js';
import { generateDocument, generateQuery, Rng } from '../../testkit/generated-catalog.js';

/** A document's index built in chunks of `size` offers, as the catalog loader's worker does. */
function buildInChunks(doc: IndexDocument, size: number) {
  const builder = new OfferIndexBuilder(doc.taxonomy, doc.offers.length);
  for (let i = 0; i < doc.offers.length; i += size) builder.addOffers(doc.offers.slice(i, i + size));
  const taxonomy = builder.taxonomyIds();
  const ids: IndexIds = {
    category: (p) => taxonomy.categories[p],
    entity: (p) => taxonomy.entities[p],
    sensitiveTopic: (p) => taxonomy.sensitive_topics[p],
    offer: (p) => {
      const o = doc.offers[p];
      return { snapshotId: o.snapshot_id, offerId: o.offer_id, campaignId: o.campaign_id, advertiserId: o.advertiser_id };
    },
  };
  return { staged: builder.finish(), ids };
}

describe('LiveOfferIndex', () => {
  it('is empty and not ready before its first load', () => {
    const index = new LiveOfferIndex();
    expect(index.stats()).toMatchObject({ ready: false, offers: 0, version: 0 });
    const r = index.match({ message: 'anything', language: 'en', kind: 'sponsored', nowMs: 0, topK: 8 });
    expect(r.candidates).toEqual([]);
  });

  it('refuses a kind it does not know at the boundary (it once matched any kind)', async () => {
    const index = new LiveOfferIndex();
    await index.load(JSON.stringify(generateDocument(1, 20, 10)));
    const query = { message: 'hotel', language: 'en', nowMs: 0, topK: 8 };
    expect(() => index.match({ ...query, kind: 'any' as 'sponsored' })).toThrow(/does not match any variant of enum `BindingOfferKind`/);
    expect(() => index.match({ ...query, kind: 'affiliate' })).not.toThrow();
  });

  it('rejects bad documents with stable codes and keeps the index in use', async () => {
    const index = new LiveOfferIndex();
    const doc = generateDocument(1, 50, 20);
    await index.load(JSON.stringify(doc));
    await expect(index.load('{not json')).rejects.toMatchObject({ code: 'INDEX_INVALID_DOCUMENT' });
    const bad = { ...doc, offers: [{ ...doc.offers[0], entity_ids: ['nobody'] }] };
    const err = await index.load(JSON.stringify(bad)).catch((e) => e);
    expect(err).toBeInstanceOf(IndexBuildError);
    expect(err.code).toBe('INDEX_UNKNOWN_ID');
    expect(err.message).toBe('offers[0].entity_ids[0]: unknown entity id "nobody"');
    expect(() => index.loadSync('[]')).toThrow(IndexBuildError);
    expect(index.stats()).toMatchObject({ ready: true, offers: 50, version: 1 });
  });

  it('builds a large index in the background and swaps it in while matching continues', async () => {
    const index = new LiveOfferIndex();
    const small = generateDocument(2, 100, 50);
    index.loadSync(JSON.stringify(small));
    const big = generateDocument(3, 200_000, 5_000);
    const queries = Array.from({ length: 50 }, (_, i) => generateQuery(small, new Rng(i + 1)));
    const pending = index.load(Buffer.from(JSON.stringify(big)));
    let matchedDuringBuild = 0;
    let done = false;
    void pending.then(() => (done = true));
    // The event loop stays free: matching keeps answering from the old index during the build.
    while (!done) {
      for (const q of queries) {
        const r = index.match(q);
        for (const c of r.candidates) expect(c.snapshotId.startsWith('snp_')).toBe(true);
      }
      matchedDuringBuild += queries.length;
      await new Promise((r) => setImmediate(r));
    }
    const stats = await pending;
    expect(matchedDuringBuild).toBeGreaterThan(0);
    expect(stats).toMatchObject({ ready: true, offers: 200_000, version: 2 });
    expect(stats.buildMillis).toBeGreaterThan(0);
    expect(index.stats().offers).toBe(200_000);
  }, 60_000);

  it('decodes compact results with the ids of the index that produced them, across reloads', async () => {
    const index = new LiveOfferIndex();
    for (let generation = 1; generation <= 3; generation++) {
      // Each load has other ids at the same positions, so stale id tables would show.
      const doc = JSON.parse(
        JSON.stringify(generateDocument(100 + generation, 400 - 50 * generation, 60))
          .replace(/"e(\d+)"/g, `"g${generation}e$1"`)
          .replaceAll('snp_', `snp_g${generation}`),
      );
      if (generation === 2) index.loadSync(JSON.stringify(doc));
      else await index.load(JSON.stringify(doc));
      const snapshots = new Set(doc.offers.map((o: { snapshot_id: string }) => o.snapshot_id));
      let candidates = 0;
      for (let i = 0; i < 200; i++) {
        const q = generateQuery(doc, new Rng(generation * 1000 + i));
        const compact = index.match(q);
        expect(compact).toEqual(index.matchJson(q));
        for (const c of compact.candidates) expect(snapshots.has(c.snapshotId)).toBe(true);
        // Every entity is this generation's, or a city of the core's place pack, which joins every
        // catalog ("ord" in a generated message is Chicago's airport).
        for (const e of compact.signalEntityIds) expect(e.startsWith(`g${generation}e`) || e.startsWith('place.'), e).toBe(true);
        candidates += compact.candidates.length;
      }
      expect(candidates).toBeGreaterThan(0);
    }
  });

  it('builds from the document in chunks into the same index as from the whole document', () => {
    const doc = generateDocument(7, 5_000, 400);
    const whole = new LiveOfferIndex();
    whole.loadSync(JSON.stringify(doc));
    const chunked = new LiveOfferIndex();
    const { staged, ids } = buildInChunks(doc, 333);
    expect(staged).toMatchObject({ offers: 5_000 });
    expect(chunked.install(staged, ids)).toMatchObject({ ready: true, offers: 5_000, version: 1 });
    expect(chunked.stats()).toEqual({ ...whole.stats(), buildMillis: chunked.stats().buildMillis });
    let candidates = 0;
    for (let i = 0; i < 2_000; i++) {
      const q = generateQuery(doc, new Rng(i + 1));
      const expected = whole.matchJson(q);
      expect(chunked.matchJson(q)).toEqual(expected);
      // Decoded with the ids it was installed with, as with the index's own.
      expect(chunked.match(q)).toEqual(expected);
      candidates += expected.candidates.length;
    }
    expect(candidates).toBeGreaterThan(500);
  });

  it('keeps the index in use when a chunked build fails, and a failed builder takes no more', () => {
    const index = new LiveOfferIndex();
    const doc = generateDocument(8, 200, 40);
    const first = buildInChunks(doc, 50);
    index.install(first.staged, first.ids);
    const builder = new OfferIndexBuilder(doc.taxonomy, 100);
    builder.addOffers(doc.offers.slice(0, 60));
    const err = (() => {
      try {
        builder.addOffers([{ ...doc.offers[60], entity_ids: ['nobody'] }]);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(IndexBuildError);
    expect(err).toMatchObject({ code: 'INDEX_UNKNOWN_ID', message: 'offers[60].entity_ids[0]: unknown entity id "nobody"' });
    expect(() => builder.addOffers(doc.offers.slice(61, 62))).toThrow(expect.objectContaining({ code: 'INDEX_BUILDER_SPENT' }));
    expect(() => new OfferIndexBuilder({ ...doc.taxonomy, categories: [{ id: 'a', parent_id: 'b', aliases: { ko: [], en: [] } }] }, 0)).toThrow(
      expect.objectContaining({ code: 'INDEX_UNKNOWN_ID' }),
    );
    expect(index.stats()).toMatchObject({ ready: true, offers: 200, version: 1 });
  });

  it('installs a staged index once; a discarded one never', () => {
    const index = new LiveOfferIndex();
    const doc = generateDocument(9, 100, 30);
    const a = buildInChunks(doc, 40);
    index.install(a.staged, a.ids);
    expect(() => index.install(a.staged, a.ids)).toThrow(expect.objectContaining({ code: 'INDEX_NOT_STAGED' }));
    const b = buildInChunks(doc, 40);
    discardStagedIndex(b.staged);
    expect(() => index.install(b.staged, b.ids)).toThrow(expect.objectContaining({ code: 'INDEX_NOT_STAGED' }));
    expect(index.stats()).toMatchObject({ offers: 100, version: 1 });
  });
});
