// What a checked catalog becomes before it is written: the head (taxonomy, advertisers, networks,
// campaigns) as it is, each offer as the row material of its snapshot (content, content hash),
// and one hash of the whole catalog that says whether it differs from the one imported last.
// Pure: the import worker runs it on a file's offers one at a time, CatalogRepository.import on
// an in-memory document.
import { createHash } from 'node:crypto';
import type { CatalogHead, Offer } from './catalog-schema.js';

/** What a snapshot freezes: the offer as served, with the advertiser identity shown beside it. */
export interface SnapshotContent {
  offer: Offer;
  advertiser_id: string;
  advertiser_name: string;
}

/** One offer, ready to write: its snapshot's content as JSON and that content's hash. */
export interface PreparedOffer {
  id: string;
  campaignId: string;
  /** SHA-256 of the canonical content: equal content, equal hash, so an unchanged offer keeps its snapshot. */
  contentHash: Uint8Array;
  /** The SnapshotContent as canonical JSON. */
  content: string;
}

/** A checked catalog without its offers, which follow in batches. */
export interface ImportPlan {
  head: CatalogHead;
  /** Of the whole catalog as normalised (catalogHash): the same catalog again changes nothing. */
  catalogHash: Uint8Array;
  offers: number;
}

/** Turns each offer of a checked catalog into its snapshot's row material. */
export class OfferPreparer {
  private readonly advertiserOfCampaign: Map<string, string>;
  private readonly advertiserName: Map<string, string>;
  constructor(head: CatalogHead) {
    this.advertiserOfCampaign = new Map(head.campaigns.map((c) => [c.id, c.advertiser_id]));
    this.advertiserName = new Map(head.advertisers.map((a) => [a.id, a.name]));
  }

  prepare(offer: Offer): PreparedOffer {
    const advertiserId = this.advertiserOfCampaign.get(offer.campaign_id) as string;
    const content: SnapshotContent = { offer, advertiser_id: advertiserId, advertiser_name: this.advertiserName.get(advertiserId) as string };
    const json = canonicalJson(content);
    return { id: offer.id, campaignId: offer.campaign_id, contentHash: createHash('sha256').update(json).digest(), content: json };
  }
}

/** The hash of a whole catalog, its offers fed one at a time in any order. List order,
 *  allowlist order and time-zone spelling carry no meaning, so an exported-then-reimported
 *  catalog hashes equal. Each offer adds its own digest (its id is in it); the digests are
 *  sorted before they are hashed together, so the file's order does not count. */
export class CatalogHasher {
  private readonly offerDigests: string[] = [];

  addOffer(offer: Offer): void {
    this.offerDigests.push(createHash('sha256').update(canonicalJson(offer)).digest('hex'));
  }

  digest(head: CatalogHead): Uint8Array {
    const hash = createHash('sha256').update(canonicalJson(normalizedHead(head)));
    this.offerDigests.sort();
    for (const d of this.offerDigests) hash.update(d);
    return hash.digest();
  }
}

function normalizedHead(c: CatalogHead) {
  const byId = <T extends { id: string }>(list: T[]) => [...list].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const iso = (t: string | null) => (t === null ? null : new Date(t).toISOString());
  return {
    taxonomy: {
      ...c.taxonomy,
      categories: byId(c.taxonomy.categories),
      entities: byId(c.taxonomy.entities),
      sensitive_topics: byId(c.taxonomy.sensitive_topics),
    },
    advertisers: byId(c.advertisers).map((a) => ({ ...a, destinations: [...a.destinations].sort() })),
    campaigns: byId(c.campaigns).map((x) => ({ ...x, starts_at: iso(x.starts_at), ends_at: iso(x.ends_at) })),
    affiliate_networks: byId(c.affiliate_networks),
  };
}

/** JSON with object keys sorted, so equal content always hashes equal. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}
