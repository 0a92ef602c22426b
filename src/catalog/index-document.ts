// What the native core builds its offer index from: the taxonomy, and every live snapshot with
// its campaign's eligibility and scoring inputs flattened in. The catalog loader (off the serving
// thread) hands it over in pieces, an offer at a time; buildIndexDocument makes it whole for
// tests and tools.
import type { Catalog, Campaign } from './catalog-schema.js';
import type { ServingCatalogRows, SnapshotContent } from './catalog-repository.js';
import type { IndexDocument, IndexOffer, IndexTaxonomy } from '../native/offer-index.js';

const NO_ALIASES = { ko: [], en: [] };
export function indexTaxonomy(t: Catalog['taxonomy'] | null): IndexTaxonomy {
  return {
    categories: (t?.categories ?? []).map((c) => ({
      id: c.id,
      parent_id: c.parent_id,
      aliases: c.aliases,
      weak_aliases: c.weak_aliases ?? NO_ALIASES,
      negative_contexts: c.negative_contexts ?? NO_ALIASES,
    })),
    entities: (t?.entities ?? []).map((e) => ({
      id: e.id,
      kind: e.kind,
      aliases: e.aliases,
      category_ids: e.category_ids,
      weak_aliases: e.weak_aliases ?? NO_ALIASES,
      negative_contexts: e.negative_contexts ?? NO_ALIASES,
      within: e.within ?? [],
    })),
    sensitive_topics: (t?.sensitive_topics ?? []).map((s) => ({
      id: s.id,
      aliases: s.aliases,
      negative_contexts: s.negative_contexts ?? NO_ALIASES,
      context_aliases: s.context_aliases ?? NO_ALIASES,
      said_of_the_user: s.said_of_the_user ?? false,
    })),
    // A kind left out (a taxonomy stored before it existed) is read by the core as having none.
    intent_cues: t?.intent_cues ?? {},
  };
}

/** The index's view of one live snapshot, or null when it cannot be served: its campaign is not
 *  live, or its advertiser is gone or suspended. */
export function indexOffer(
  snapshotId: string,
  content: SnapshotContent,
  campaign: Campaign | undefined,
  advertiser: { id: string; status: string; entity_id: string | null } | undefined,
): IndexOffer | null {
  if (!campaign || !advertiser || advertiser.status !== 'active') return null;
  const o = content.offer;
  return {
    snapshot_id: snapshotId,
    offer_id: o.id,
    campaign_id: campaign.id,
    advertiser_id: advertiser.id,
    advertiser_entity_id: advertiser.entity_id,
    kind: o.kind,
    locale: o.locale,
    category_ids: o.targeting.category_ids,
    entity_ids: o.targeting.entity_ids,
    budget_buckets: o.targeting.budget_buckets,
    countries: campaign.countries,
    campaign_status: campaign.status,
    starts_at_ms: campaign.starts_at ? Date.parse(campaign.starts_at) : null,
    ends_at_ms: campaign.ends_at ? Date.parse(campaign.ends_at) : null,
    priority: campaign.priority,
    bid_micros: campaign.bid_micros,
  };
}

/** The whole document at once (tests and benchmarks). */
export function buildIndexDocument(rows: ServingCatalogRows): IndexDocument {
  const campaigns = new Map(rows.campaigns.map((c) => [c.id, c]));
  const advertisers = new Map(rows.advertisers.map((a) => [a.id, a]));
  const offers: IndexOffer[] = [];
  for (const { snapshot_id, content, campaign_id } of rows.offers) {
    const offer = indexOffer(snapshot_id, content, campaigns.get(campaign_id), advertisers.get(content.advertiser_id));
    if (offer) offers.push(offer);
  }
  return { taxonomy: indexTaxonomy(rows.taxonomy), offers };
}
