// One load of the catalog an instance serves, in two halves that talk in messages:
//
// - ServingCatalogBuild (the catalog loader's worker thread): takes the head and the live offers
//   as the repository reads them, parses each snapshot, feeds the native index builder in chunks
//   and writes the offers into shared memory; sends the small parts of the serving view
//   (campaigns, advertisers, names) in short messages as it goes, and the staged index last.
// - ServingCatalogAssembly (the serving thread): collects those messages into a ServingCatalog.
//   Each message is a moment's work, so decides keep being answered between them.
//
// Both run in one thread too (tests compare that with what the worker makes).
import type { Campaign } from './catalog-schema.js';
import type { ServingCatalogHead, ServingOfferRow } from './catalog-repository.js';
import type { SnapshotContent } from './catalog-import-plan.js';
import { indexOffer, indexTaxonomy } from './index-document.js';
import {
  AFFILIATE_READY,
  encodeServed,
  OfferTable,
  OfferTableWriter,
  shareStrings,
  shareTaxonomyIds,
  type OfferChunkParts,
  type OfferTableParts,
} from './offer-table.js';
import { affiliateReady, ServingCatalog, type ServedAdvertiser } from './serving-catalog.js';
import { OfferIndexBuilder, type IndexOffer, type StagedIndex } from '../native/offer-index.js';
import type { AffiliateNetworkView } from '../affiliate/networks/network-adapter.js';

/** Campaigns, advertisers or names per message: each takes the serving thread well under a
 *  millisecond to take in. */
const ITEMS_PER_MESSAGE = 500;

/** What the building side sends the serving side. */
export type ToServing =
  | { kind: 'head'; version: number; networks: AffiliateNetworkView[] }
  | { kind: 'campaigns'; campaigns: Campaign[] }
  | { kind: 'advertisers'; advertisers: ServedAdvertiser[] }
  | { kind: 'names'; names: [string, { ko: string; en: string }][] }
  | { kind: 'places'; places: string[] }
  | { kind: 'offers'; chunk: OfferChunkParts }
  | CatalogBuilt;

/** The last message: the staged index and the rest of the offer table. */
export interface CatalogBuilt {
  kind: 'built';
  staged: StagedIndex;
  table: Omit<OfferTableParts, 'chunks'>;
  testFills: [string, number][];
  offers: number;
}

function* inPieces<T>(list: readonly T[]): Generator<T[]> {
  for (let i = 0; i < list.length; i += ITEMS_PER_MESSAGE) yield list.slice(i, i + ITEMS_PER_MESSAGE);
}

export class ServingCatalogBuild {
  private readonly campaigns: Map<string, Campaign>;
  private readonly campaignIndex: Map<string, number>;
  private readonly advertisers: Map<string, ServingCatalogHead['advertisers'][number]>;
  private readonly advertiserIndex: Map<string, number>;
  private readonly networks: Map<string, AffiliateNetworkView>;
  private readonly builder: OfferIndexBuilder;
  private readonly table = new OfferTableWriter();
  /** Per `kind:language`: the servable offer with the lowest snapshot id so far. */
  private readonly testFills = new Map<string, { position: number; snapshotId: string }>();
  // Made at once, so the head (its taxonomy is the larger part) is not kept while offers are read.
  private readonly campaignIds: OfferTableParts['campaignIds'];
  private readonly advertiserIds: OfferTableParts['advertiserIds'];

  constructor(
    head: ServingCatalogHead,
    private readonly send: (m: ToServing) => void,
  ) {
    this.campaigns = new Map(head.campaigns.map((c) => [c.id, c]));
    this.campaignIndex = new Map(head.campaigns.map((c, i) => [c.id, i]));
    this.advertisers = new Map(head.advertisers.map((a) => [a.id, a]));
    this.advertiserIndex = new Map(head.advertisers.map((a, i) => [a.id, i]));
    const networks = head.networks.map((n) => ({
      id: n.id,
      name: n.name,
      adapter: n.adapter,
      partnerMarker: n.partner_marker,
      linkTemplate: n.link_template,
      destinations: n.destinations,
    }));
    this.networks = new Map(networks.map((n) => [n.id, n]));
    // The taxonomy is checked and its matcher built first: a bad one fails before any offer is read.
    this.builder = new OfferIndexBuilder(indexTaxonomy(head.taxonomy), head.offers);
    this.campaignIds = shareStrings(head.campaigns.map((c) => c.id));
    this.advertiserIds = shareStrings(head.advertisers.map((a) => a.id));

    send({ kind: 'head', version: head.version, networks });
    for (const campaigns of inPieces(head.campaigns)) send({ kind: 'campaigns', campaigns });
    for (const advertisers of inPieces(head.advertisers)) {
      send({
        kind: 'advertisers',
        advertisers: advertisers.map((a) => ({ id: a.id, name: a.name, active: a.status === 'active', entityId: a.entity_id, destinations: a.destinations })),
      });
    }
    const t = head.taxonomy;
    const named = [...(t?.categories ?? []), ...(t?.entities ?? [])];
    for (const piece of inPieces(named)) send({ kind: 'names', names: piece.map((x) => [x.id, x.name]) });
    const places = (t?.entities ?? []).filter((e) => e.kind === 'place').map((e) => e.id);
    for (const piece of inPieces(places)) send({ kind: 'places', places: piece });
  }

  /** The next live offers, as read: each indexable one takes the next position. */
  addOffers(rows: readonly ServingOfferRow[]): void {
    const documents: IndexOffer[] = [];
    for (const row of rows) {
      const content = JSON.parse(row.content) as SnapshotContent;
      const campaign = this.campaigns.get(row.campaign_id);
      const document = indexOffer(row.snapshot_id, content, campaign, this.advertisers.get(content.advertiser_id));
      // Not servable (campaign not live, advertiser suspended): not in the index, not in the view.
      if (!document) continue;
      const offer = content.offer;
      const flags = offer.kind === 'affiliate' && affiliateReady(offer, this.networks) ? AFFILIATE_READY : 0;
      const position = this.table.size;
      if (offer.kind === 'sponsored' || flags & AFFILIATE_READY) {
        const key = `${offer.kind}:${offer.locale}`;
        const fill = this.testFills.get(key);
        if (!fill || row.snapshot_id < fill.snapshotId) this.testFills.set(key, { position, snapshotId: row.snapshot_id });
      }
      const chunk = this.table.add({
        snapshotId: row.snapshot_id,
        offerId: offer.id,
        campaignIndex: this.campaignIndex.get(document.campaign_id) as number,
        advertiserIndex: this.advertiserIndex.get(document.advertiser_id) as number,
        served: encodeServed(content),
        flags,
      });
      documents.push(document);
      if (chunk) this.send({ kind: 'offers', chunk });
    }
    if (documents.length > 0) this.builder.addOffers(documents);
  }

  /** Builds the index (staged in the addon, not live) and sends the last of the view. */
  finish(): void {
    const { last, lookup } = this.table.finish();
    if (last) this.send({ kind: 'offers', chunk: last });
    const staged = this.builder.finish();
    this.send({
      kind: 'built',
      staged,
      table: {
        campaignIds: this.campaignIds,
        advertiserIds: this.advertiserIds,
        lookup,
        ...shareTaxonomyIds(this.builder.taxonomyIds()),
      },
      testFills: [...this.testFills].map(([key, fill]) => [key, fill.position]),
      offers: this.table.size,
    });
  }
}

/** The serving side: takes the build's messages in and, at `built`, makes the view. */
export class ServingCatalogAssembly {
  private version = 0;
  private readonly campaigns = new Map<string, Campaign>();
  private readonly advertisers = new Map<string, ServedAdvertiser>();
  private networks = new Map<string, AffiliateNetworkView>();
  private readonly names = new Map<string, { ko: string; en: string }>();
  private readonly places = new Set<string>();
  private readonly chunks: OfferChunkParts[] = [];

  /** Takes one message in; at the last one returns the view and the index staged for it. */
  take(m: ToServing): { view: ServingCatalog; staged: StagedIndex } | null {
    switch (m.kind) {
      case 'head':
        this.version = m.version;
        this.networks = new Map(m.networks.map((n) => [n.id, n]));
        return null;
      case 'campaigns':
        for (const c of m.campaigns) this.campaigns.set(c.id, c);
        return null;
      case 'advertisers':
        for (const a of m.advertisers) this.advertisers.set(a.id, a);
        return null;
      case 'names':
        for (const [id, name] of m.names) this.names.set(id, name);
        return null;
      case 'places':
        for (const id of m.places) this.places.add(id);
        return null;
      case 'offers':
        this.chunks.push(m.chunk);
        return null;
      case 'built': {
        const view = new ServingCatalog({
          version: this.version,
          campaigns: this.campaigns,
          advertisers: this.advertisers,
          networks: this.networks,
          names: this.names,
          places: this.places,
          offers: new OfferTable({ ...m.table, chunks: this.chunks }),
          testFills: new Map(m.testFills),
        });
        return { view, staged: m.staged };
      }
    }
  }
}
