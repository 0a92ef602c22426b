// The serving view's offers in shared memory (src/catalog/offer-table.ts): what goes in comes out
// at the same position and under the same snapshot id, across chunk edges and threads' copies.
import { describe, expect, it } from 'vitest';
import { OFFERS_PER_CHUNK, OfferTable, OfferTableWriter, shareStrings, shareTaxonomyIds, type OfferRecord } from '../../src/catalog/offer-table.js';

function record(i: number): OfferRecord {
  return {
    snapshotId: `snp_${i.toString(36).padStart(8, '0')}`,
    offerId: `off.${i}`,
    campaignIndex: i % 7,
    advertiserIndex: i % 3,
    content: JSON.stringify({ offer: { id: `off.${i}`, title: i % 2 ? `제주 호텔 ${i} 특가 🏝️` : `Hotel deal ${i}` }, advertiser_id: `adv.${i % 3}` }),
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
      expect(t.content(i)).toEqual(JSON.parse(r.content));
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
