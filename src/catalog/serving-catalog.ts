// The in-memory side of the catalog that every request reads: snapshot content by id,
// campaigns, advertiser allowlists and affiliate networks. Built from the same rows as the
// native offer index and swapped together with it, so an index hit always finds its snapshot.
import type { Campaign } from './catalog-schema.js';
import type { ServingCatalogRows, SnapshotContent } from './catalog-repository.js';
import type { AffiliateNetworkView } from '../affiliate/networks/network-adapter.js';

export interface ServedAdvertiser {
  id: string;
  name: string;
  active: boolean;
  entityId: string | null;
  destinations: string[];
}

export class ServingCatalog {
  readonly snapshots = new Map<string, SnapshotContent>();
  readonly campaigns = new Map<string, Campaign>();
  readonly advertisers = new Map<string, ServedAdvertiser>();
  readonly networks = new Map<string, AffiliateNetworkView>();
  /** Display names of categories and entities, for user-facing explanations. */
  readonly names = new Map<string, { ko: string; en: string }>();
  /** Entities that are places (a city, an island): naming one says where, not what to buy. */
  readonly places = new Set<string>();

  constructor(readonly version: number) {}

  static empty(): ServingCatalog {
    return new ServingCatalog(0);
  }

  static fromRows(rows: ServingCatalogRows): ServingCatalog {
    const view = new ServingCatalog(rows.version);
    for (const o of rows.offers) view.snapshots.set(o.snapshot_id, o.content);
    for (const c of rows.campaigns) view.campaigns.set(c.id, c);
    for (const x of [...(rows.taxonomy?.categories ?? []), ...(rows.taxonomy?.entities ?? [])]) view.names.set(x.id, x.name);
    for (const e of rows.taxonomy?.entities ?? []) if (e.kind === 'place') view.places.add(e.id);
    for (const a of rows.advertisers) {
      view.advertisers.set(a.id, {
        id: a.id,
        name: a.name,
        active: a.status === 'active',
        entityId: a.entity_id,
        destinations: a.destinations,
      });
    }
    for (const n of rows.networks) {
      view.networks.set(n.id, {
        id: n.id,
        name: n.name,
        adapter: n.adapter,
        partnerMarker: n.partner_marker,
        linkTemplate: n.link_template,
        destinations: n.destinations,
      });
    }
    return view;
  }
}
