// Keeps this instance's offer index and serving view in step with the catalog in the database.
// Every instance polls the catalog version (one indexed single-row read) and, when it moved,
// rebuilds the native index off the event loop and swaps it in atomically; requests keep being
// served from the previous index meanwhile. Polling works the same on PGlite and Postgres.
import type { FastifyBaseLogger } from 'fastify';
import type { CatalogRepository, ServingCatalogRows } from './catalog-repository.js';
import { ServingCatalog } from './serving-catalog.js';
import type { LiveOfferIndex, IndexDocument } from '../native/offer-index.js';

export class CatalogRuntime {
  private view = ServingCatalog.empty();
  private timer: NodeJS.Timeout | null = null;
  private reloading: Promise<void> | null = null;
  lastReloadMs = 0;
  lastError: string | null = null;
  /** Runs before a catalog with campaigns this instance has not served yet is swapped in (the
   *  spend keeper loads their spend, so they are known from their first decide). */
  beforeNewCampaigns: ((campaignIds: string[]) => Promise<void>) | null = null;

  constructor(
    private readonly repo: CatalogRepository,
    readonly index: LiveOfferIndex,
    private readonly log: FastifyBaseLogger,
    private readonly pollMs: number,
  ) {}

  get serving(): ServingCatalog {
    return this.view;
  }

  get ready(): boolean {
    return this.index.stats().ready;
  }

  async start(): Promise<void> {
    await this.reload();
    this.timer = setInterval(() => void this.checkVersion(), this.pollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Reloads now (after an import on this instance); concurrent calls share one reload. */
  reload(): Promise<void> {
    this.reloading ??= this.doReload().finally(() => {
      this.reloading = null;
    });
    return this.reloading;
  }

  private async checkVersion(): Promise<void> {
    try {
      const version = await this.repo.version();
      if (version !== this.view.version || !this.ready) await this.reload();
    } catch (err) {
      // Database unreachable: keep serving the index we have.
      this.lastError = (err as Error).message;
    }
  }

  private async doReload(): Promise<void> {
    const started = performance.now();
    const rows = await this.repo.loadServingCatalog();
    const view = ServingCatalog.fromRows(rows);
    await this.index.load(JSON.stringify(buildIndexDocument(rows)));
    const added = [...view.campaigns.keys()].filter((id) => !this.view.campaigns.has(id));
    if (added.length > 0) await this.beforeNewCampaigns?.(added);
    this.view = view;
    this.lastReloadMs = performance.now() - started;
    this.lastError = null;
    this.log.info({ catalogVersion: rows.version, offers: rows.offers.length, ms: Math.round(this.lastReloadMs) }, 'offer index loaded');
  }
}

const NO_ALIASES = { ko: [], en: [] };
// A taxonomy stored before a cue list existed reads as having none.
const NO_CUES = {
  purchase: NO_ALIASES,
  compare: NO_ALIASES,
  negation: NO_ALIASES,
  negation_before: NO_ALIASES,
  after_sales: NO_ALIASES,
  not_commercial: NO_ALIASES,
  clause_break: NO_ALIASES,
  purpose: NO_ALIASES,
  purpose_before: NO_ALIASES,
};

/** The document the native core builds its index from: taxonomy plus every live snapshot with
 *  its campaign's eligibility and scoring inputs flattened in. */
export function buildIndexDocument(rows: ServingCatalogRows): IndexDocument {
  const campaigns = new Map(rows.campaigns.map((c) => [c.id, c]));
  const advertisers = new Map(rows.advertisers.map((a) => [a.id, a]));
  const offers: IndexDocument['offers'] = [];
  for (const { snapshot_id, content, campaign_id } of rows.offers) {
    const campaign = campaigns.get(campaign_id);
    const advertiser = advertisers.get(content.advertiser_id);
    if (!campaign || !advertiser || advertiser.status !== 'active') continue;
    const o = content.offer;
    offers.push({
      snapshot_id,
      offer_id: o.id,
      campaign_id,
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
    });
  }
  const t = rows.taxonomy;
  return {
    taxonomy: {
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
      })),
      sensitive_topics: t?.sensitive_topics ?? [],
      intent_cues: { ...NO_CUES, ...t?.intent_cues },
    },
    offers,
  };
}
