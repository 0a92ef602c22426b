// The serving view's offers in shared memory (src/catalog/offer-table.ts): what goes in comes out
// at the same position and under the same snapshot id, across chunk edges and threads' copies.
import { describe, expect, it } from 'vitest';
import type { SnapshotContent } from '../../src/catalog/catalog-import-plan.js';
import {
  encodeServed,
  OFFERS_PER_CHUNK,
  OfferTable,
  OfferTableWriter,
  shareStrings,
  shareTaxonomyIds,
  type OfferRecord,
} from '../../src/catalog/offer-table.js';

/** Offers with every optional field set or not, in both languages. */
function content(i: number): SnapshotContent {
  const some = (v: string) => (i % 3 === 0 ? null : v);
  return {
    offer: {
      id: `off.${i}`,
      campaign_id: `cmp.${i % 7}`,
      kind: i % 4 === 0 ? 'affiliate' : 'sponsored',
      network_id: i % 4 === 0 ? 'net.trip' : null,
      locale: i % 2 ? 'ko' : 'en',
      title: i % 2 ? `제주 호텔 ${i} 특가 🏝️ "바다"` : `Hotel deal ${i}`,
      description: some(`설명 ${i}\n두 줄`),
      image_url: i % 5 === 0 ? `https://img.example/${i}.png` : null,
      cta: some('Book'),
      disclosure: i % 7 === 0 ? '광고' : null,
      destination_url: `https://adv-${i % 3}.example/offers/${i}`,
      targeting: { category_ids: ['travel.hotels'], entity_ids: [], budget_buckets: [] },
    },
    advertiser_id: `adv.${i % 3}`,
    advertiser_name: `Advertiser ${i % 3}`,
  };
}

function record(i: number): OfferRecord {
  return {
    snapshotId: `snp_${i.toString(36).padStart(8, '0')}`,
    offerId: `off.${i}`,
    campaignIndex: i % 7,
    advertiserIndex: i % 3,
    served: encodeServed(content(i)),
    flags: i % 5 === 0 ? 1 : 0,
  };
}

function table(n: number): OfferTable {
  const writer = new OfferTableWriter();
  for (let i = 0; i < n; i++) writer.add(record(i));
  const { lookup } = writer.finish();
  return new OfferTable({
    // As the serving thread gets them: chunks as sent, through a structured clone.
    chunks: structuredClone(writer.chunks),
    campaignIds: shareStrings(Array.from({ length: 7 }, (_, i) => `cmp.${i}`)),
    advertiserIds: shareStrings(['adv.0', 'adv.1', 'adv.2']),
    lookup,
    ...shareTaxonomyIds({ categories: ['travel', 'travel.hotels'], entities: ['place.jeju', '브랜드.한글'], sensitive_topics: [] }),
  });
}

describe('the offer table', () => {
  it('gives back every offer at its position and by its snapshot id, across chunks', () => {
    const n = 2 * OFFERS_PER_CHUNK + 17;
    const t = table(n);
    expect(t.size).toBe(n);
    for (let i = 0; i < n; i++) {
      const r = record(i);
      expect(t.positionOf(r.snapshotId)).toBe(i);
      expect(t.offer(i)).toEqual({ snapshotId: r.snapshotId, offerId: r.offerId, campaignId: `cmp.${i % 7}`, advertiserId: `adv.${i % 3}` });
      // What was served, as imported: everything but the targeting, which is the index's.
      const { targeting: _, ...offer } = content(i).offer;
      expect(t.snapshot(i)).toEqual({ ...content(i), offer });
      expect(t.flags(i)).toBe(r.flags);
    }
    expect(t.category(1)).toBe('travel.hotels');
    expect(t.entity(1)).toBe('브랜드.한글');
  });

  it('finds nothing for ids it does not hold', () => {
    const t = table(300);
    for (const id of ['', 'snp_', 'snp_zzzzzzzz', `${record(5).snapshotId}x`, record(5).snapshotId.slice(0, -1), '제주']) expect(t.positionOf(id)).toBe(-1);
    expect(OfferTable.empty().positionOf(record(0).snapshotId)).toBe(-1);
    expect(OfferTable.empty().size).toBe(0);
  });
});
