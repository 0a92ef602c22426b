// The in-memory side of the catalog that every request reads: snapshot content by id,
// campaigns, advertiser allowlists and affiliate networks. Built off the serving thread from the
// same rows as the native offer index (catalog-load.ts) and swapped in together with it, so an
// index hit always finds its snapshot. The offers live in shared memory (offer-table.ts); the
// campaigns, advertisers, networks and names, far fewer, as plain maps.
import type { Campaign, Offer, OfferKind } from './catalog-schema.js';
import { AFFILIATE_READY, OfferTable, type ServedSnapshot } from './offer-table.js';
import { isUnderPrefix } from './destinations.js';
import type { MatchCandidate } from '../native/offer-index.js';
import type { AffiliateNetworkView } from '../affiliate/networks/network-adapter.js';
import { NETWORK_ADAPTERS } from '../affiliate/networks/index.js';

export interface ServedAdvertiser {
  id: string;
  name: string;
  active: boolean;
  entityId: string | null;
  destinations: string[];
}

/** Everything a serving view is made of, as the catalog loader assembles it. */
export interface ServingCatalogParts {
  version: number;
  campaigns: Map<string, Campaign>;
  advertisers: Map<string, ServedAdvertiser>;
  networks: Map<string, AffiliateNetworkView>;
  names: Map<string, { ko: string; en: string }>;
  places: Set<string>;
  offers: OfferTable;
  /** Per `kind:language`, the position of the offer a test key's forced fill serves. */
  testFills: Map<string, number>;
}

/** Whether an affiliate offer can be served: its network exists, has an adapter to build the
 *  link, and allowlists the offer's destination. */
export function affiliateReady(offer: Pick<Offer, 'network_id' | 'destination_url'>, networks: ReadonlyMap<string, AffiliateNetworkView>): boolean {
  const network = networks.get(offer.network_id ?? '');
  return Boolean(network && NETWORK_ADAPTERS.has(network.adapter) && isUnderPrefix(offer.destination_url, network.destinations));
}

export type { ServedSnapshot } from './offer-table.js';

/** The live snapshots by id: found in the offer table, read out when asked for. */
export interface ServedSnapshots {
  readonly size: number;
  has(snapshotId: string): boolean;
  get(snapshotId: string): ServedSnapshot | undefined;
}

export class ServingCatalog {
  readonly version: number;
  readonly campaigns: ReadonlyMap<string, Campaign>;
  readonly advertisers: ReadonlyMap<string, ServedAdvertiser>;
  readonly networks: ReadonlyMap<string, AffiliateNetworkView>;
  /** Display names of categories and entities, for user-facing explanations. */
  readonly names: ReadonlyMap<string, { ko: string; en: string }>;
  /** Entities that are places (a city, an island): naming one says where, not what to buy. */
  readonly places: ReadonlySet<string>;
  /** The offers, at their positions in the offer index built beside this view. */
  readonly offers: OfferTable;
  readonly snapshots: ServedSnapshots;
  private readonly testFills: ReadonlyMap<string, number>;

  constructor(parts: ServingCatalogParts) {
    this.version = parts.version;
    this.campaigns = parts.campaigns;
    this.advertisers = parts.advertisers;
    this.networks = parts.networks;
    this.names = parts.names;
    this.places = parts.places;
    this.offers = parts.offers;
    this.testFills = parts.testFills;
    const offers = parts.offers;
    this.snapshots = {
      size: offers.size,
      has: (id) => offers.positionOf(id) >= 0,
      get: (id) => {
        const at = offers.positionOf(id);
        return at < 0 ? undefined : offers.snapshot(at);
      },
    };
  }

  static empty(): ServingCatalog {
    return new ServingCatalog({
      version: 0,
      campaigns: new Map(),
      advertisers: new Map(),
      networks: new Map(),
      names: new Map(),
      places: new Set(),
      offers: OfferTable.empty(),
      testFills: new Map(),
    });
  }

  /** Whether a matched offer can be served as `kind` from this view: its snapshot and campaign
   *  are here, and an affiliate offer's network can build its link. */
  servable(c: Pick<MatchCandidate, 'snapshotId' | 'campaignId'>, kind: OfferKind): boolean {
    const at = this.offers.positionOf(c.snapshotId);
    if (at < 0 || !this.campaigns.has(c.campaignId)) return false;
    return kind === 'sponsored' || (this.offers.flags(at) & AFFILIATE_READY) !== 0;
  }

  /** A test key's forced fill: the servable live offer of this kind and language with the lowest
   *  snapshot id (picked when the view was built). */
  testFill(kind: OfferKind, language: string): MatchCandidate | null {
    const at = this.testFills.get(`${kind}:${language}`);
    if (at === undefined) return null;
    return { ...this.offers.offer(at), score: 0, matchedCategoryIds: [], matchedEntityIds: [], impliedCategoryIds: [] };
  }
}
