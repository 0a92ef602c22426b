// Catalog persistence: import (validate, then write in one transaction), export, and the
// read that feeds each instance's offer index and serving view.
import { createHash } from 'node:crypto';
import type { Database, Queryable } from '../db/database.js';
import { newId } from '../util/ids.js';
import { batchInsert } from '../persistence/batch-insert.js';
import type { Catalog, Campaign, Offer } from './catalog-schema.js';
import { validateCatalog } from './catalog-validation.js';
import { ADVISORY_LOCKS } from '../db/advisory-locks.js';

export interface ImportReport {
  changed: boolean;
  version: number;
  snapshots_created: number;
  offers: number;
  offers_archived: number;
  campaigns: number;
  advertisers: number;
}

/** What a snapshot freezes: the offer as served, with the advertiser identity shown beside it. */
export interface SnapshotContent {
  offer: Offer;
  advertiser_id: string;
  advertiser_name: string;
}

export class CatalogRepository {
  constructor(private readonly db: Database) {}

  async version(): Promise<number> {
    const r = await this.db.query<{ version: number }>('SELECT version FROM catalog_state WHERE id = 1');
    return r.rows[0]?.version ?? 0;
  }

  async isEmpty(): Promise<boolean> {
    return (await this.version()) === 0;
  }

  /** Imports a whole catalog declaratively: what the file lists is live, what it omits is
   *  archived (kept for the decisions that reference it). Offers whose content changed get a
   *  new immutable snapshot; unchanged offers keep theirs. */
  async import(input: unknown): Promise<ImportReport> {
    const catalog = validateCatalog(input);
    const catalogHash = createHash('sha256').update(canonicalJson(normalizedForHash(catalog))).digest();
    return this.db.transaction(async (tx) => {
      // One import at a time across instances.
      await tx.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCKS.catalogImport]);
      const state = await tx.query<{ version: number; catalog_hash: Uint8Array }>(
        'SELECT version, catalog_hash FROM catalog_state WHERE id = 1',
      );
      const current = state.rows[0];
      const counts = {
        offers: catalog.offers.length,
        campaigns: catalog.campaigns.length,
        advertisers: catalog.advertisers.length,
      };
      if (current && Buffer.from(current.catalog_hash).equals(catalogHash)) {
        return { changed: false, version: current.version, snapshots_created: 0, offers_archived: 0, ...counts };
      }
      const version = (current?.version ?? 0) + 1;
      await tx.query(
        `INSERT INTO catalog_state (id, version, catalog_hash, taxonomy, imported_at) VALUES (1, $1, $2, $3, now())
         ON CONFLICT (id) DO UPDATE SET version = $1, catalog_hash = $2, taxonomy = $3, imported_at = now()`,
        [version, catalogHash, JSON.stringify(catalog.taxonomy)],
      );
      await upsertAdvertisers(tx, catalog);
      await upsertNetworks(tx, catalog);
      await upsertCampaigns(tx, catalog.campaigns);
      const { created, archived } = await upsertOffers(tx, catalog);
      return { changed: true, version, snapshots_created: created, offers_archived: archived, ...counts };
    });
  }

  async export(): Promise<Catalog> {
    const state = await this.db.query<{ taxonomy: Catalog['taxonomy'] }>('SELECT taxonomy FROM catalog_state WHERE id = 1');
    const advertisers = await this.db.query<{ id: string; name: string; status: 'active' | 'suspended'; entity_id: string | null; destinations: string[] }>(
      `SELECT a.id, a.name, a.status, a.entity_id,
              coalesce(array_agg(d.url_prefix ORDER BY d.url_prefix) FILTER (WHERE d.url_prefix IS NOT NULL), '{}') AS destinations
         FROM advertisers a LEFT JOIN advertiser_destinations d ON d.advertiser_id = a.id
        WHERE a.archived_at IS NULL GROUP BY a.id ORDER BY a.id`,
    );
    const networks = await this.db.query<{ id: string; name: string; adapter: string; partner_marker: string; link_template: string | null; destinations: string[] }>(
      'SELECT id, name, adapter, partner_marker, link_template, destinations FROM affiliate_networks WHERE archived_at IS NULL ORDER BY id',
    );
    const campaigns = await this.db.query<CampaignRow>('SELECT * FROM campaigns WHERE archived_at IS NULL ORDER BY id');
    const offers = await this.db.query<{ content: SnapshotContent }>(
      `SELECT s.content FROM offers o JOIN offer_snapshots s ON s.id = o.current_snapshot_id
        WHERE o.archived_at IS NULL ORDER BY o.id`,
    );
    return {
      version: 1,
      taxonomy: state.rows[0]?.taxonomy ?? {
        categories: [],
        entities: [],
        sensitive_topics: [],
        intent_cues: { purchase: { ko: [], en: [] }, compare: { ko: [], en: [] } },
      },
      advertisers: advertisers.rows,
      affiliate_networks: networks.rows,
      campaigns: campaigns.rows.map(campaignFromRow),
      offers: offers.rows.map((r) => r.content.offer),
    };
  }

  /** Every campaign ever imported (archived ones too, so old traffic keeps its name) with its
   *  advertiser's name and budgets: what the spend report shows beside the ledger's figures. */
  async campaignsForReport(): Promise<ReportCampaign[]> {
    const r = await this.db.query<{
      id: string;
      name: string | null;
      advertiser_id: string;
      advertiser_name: string;
      status: Campaign['status'];
      archived: boolean;
      bid_micros: string | number;
      budget_daily_micros: string | number;
      budget_total_micros: string | number;
    }>(
      `SELECT c.id, c.name, c.advertiser_id, a.name AS advertiser_name, c.status, c.archived_at IS NOT NULL AS archived,
              c.bid_micros, c.budget_daily_micros, c.budget_total_micros
         FROM campaigns c JOIN advertisers a ON a.id = c.advertiser_id ORDER BY c.id`,
    );
    return r.rows.map((c) => ({
      id: c.id,
      name: c.name,
      advertiserId: c.advertiser_id,
      advertiserName: c.advertiser_name,
      status: c.status,
      archived: c.archived,
      bidMicros: Number(c.bid_micros),
      budgetDailyMicros: Number(c.budget_daily_micros),
      budgetTotalMicros: Number(c.budget_total_micros),
    }));
  }

  /** Whether a snapshot with this id exists (live or archived: snapshots are never deleted). */
  async snapshotExists(snapshotId: string): Promise<boolean> {
    const r = await this.db.query('SELECT 1 FROM offer_snapshots WHERE id = $1', [snapshotId]);
    return r.rows.length > 0;
  }

  /** The advertiser shown with a snapshot, as frozen in it. */
  async snapshotAdvertiserName(snapshotId: string): Promise<string | null> {
    const r = await this.db.query<{ name: string }>("SELECT content->>'advertiser_name' AS name FROM offer_snapshots WHERE id = $1", [snapshotId]);
    return r.rows[0]?.name ?? null;
  }

  /** Everything an instance needs to serve: taxonomy and every live snapshot with its campaign. */
  async loadServingCatalog(): Promise<ServingCatalogRows> {
    return this.db.transaction(async (tx) => {
      // One consistent view even while an import commits.
      const state = await tx.query<{ version: number; taxonomy: Catalog['taxonomy'] }>(
        'SELECT version, taxonomy FROM catalog_state WHERE id = 1',
      );
      const offers = await tx.query<{ snapshot_id: string; content: SnapshotContent; campaign_id: string }>(
        `SELECT s.id AS snapshot_id, s.content, o.campaign_id
           FROM offers o JOIN offer_snapshots s ON s.id = o.current_snapshot_id
          WHERE o.archived_at IS NULL`,
      );
      const campaigns = await tx.query<CampaignRow>('SELECT * FROM campaigns WHERE archived_at IS NULL');
      const advertisers = await tx.query<{ id: string; name: string; status: string; entity_id: string | null; destinations: string[] }>(
        `SELECT a.id, a.name, a.status, a.entity_id,
                coalesce(array_agg(d.url_prefix) FILTER (WHERE d.url_prefix IS NOT NULL), '{}') AS destinations
           FROM advertisers a LEFT JOIN advertiser_destinations d ON d.advertiser_id = a.id
          WHERE a.archived_at IS NULL GROUP BY a.id`,
      );
      const networks = await tx.query<{ id: string; name: string; adapter: string; partner_marker: string; link_template: string | null; destinations: string[] }>(
        'SELECT id, name, adapter, partner_marker, link_template, destinations FROM affiliate_networks WHERE archived_at IS NULL',
      );
      return {
        version: state.rows[0]?.version ?? 0,
        taxonomy: state.rows[0]?.taxonomy ?? null,
        offers: offers.rows,
        campaigns: campaigns.rows.map(campaignFromRow),
        advertisers: advertisers.rows,
        networks: networks.rows,
      };
    });
  }
}

export interface ServingCatalogRows {
  version: number;
  taxonomy: Catalog['taxonomy'] | null;
  offers: { snapshot_id: string; content: SnapshotContent; campaign_id: string }[];
  campaigns: Campaign[];
  advertisers: { id: string; name: string; status: string; entity_id: string | null; destinations: string[] }[];
  networks: { id: string; name: string; adapter: string; partner_marker: string; link_template: string | null; destinations: string[] }[];
}

/** A campaign as the spend report names and budgets it. */
export interface ReportCampaign {
  id: string;
  /** The catalog's display name; null when it has none. */
  name: string | null;
  advertiserId: string;
  advertiserName: string;
  status: Campaign['status'];
  archived: boolean;
  bidMicros: number;
  budgetDailyMicros: number;
  budgetTotalMicros: number;
}

interface CampaignRow {
  id: string;
  name: string | null;
  advertiser_id: string;
  status: Campaign['status'];
  starts_at: Date | null;
  ends_at: Date | null;
  countries: string[];
  bid_micros: number;
  priority: number;
  budget_total_micros: number;
  budget_daily_micros: number;
  frequency_cap_count: number;
  frequency_cap_window_s: number;
  offer_ttl_s: number;
}

function campaignFromRow(r: CampaignRow): Campaign {
  return {
    id: r.id,
    name: r.name,
    advertiser_id: r.advertiser_id,
    status: r.status,
    starts_at: r.starts_at ? r.starts_at.toISOString() : null,
    ends_at: r.ends_at ? r.ends_at.toISOString() : null,
    countries: r.countries,
    bid_micros: Number(r.bid_micros),
    priority: r.priority,
    budget: { total_micros: Number(r.budget_total_micros), daily_micros: Number(r.budget_daily_micros) },
    frequency_cap: { count: r.frequency_cap_count, window_seconds: r.frequency_cap_window_s },
    offer_ttl_seconds: r.offer_ttl_s,
  };
}

async function upsertAdvertisers(tx: Queryable, c: Catalog) {
  const ids = c.advertisers.map((a) => a.id);
  for (const a of c.advertisers) {
    await tx.query(
      `INSERT INTO advertisers (id, name, status, entity_id, archived_at, updated_at) VALUES ($1, $2, $3, $4, NULL, now())
       ON CONFLICT (id) DO UPDATE SET name = $2, status = $3, entity_id = $4, archived_at = NULL, updated_at = now()
       WHERE (advertisers.name, advertisers.status, advertisers.entity_id, advertisers.archived_at)
             IS DISTINCT FROM ($2, $3, $4, NULL::timestamptz)`,
      [a.id, a.name, a.status, a.entity_id],
    );
    await tx.query('DELETE FROM advertiser_destinations WHERE advertiser_id = $1 AND NOT (url_prefix = ANY($2::text[]))', [
      a.id,
      a.destinations,
    ]);
    await tx.query(
      `INSERT INTO advertiser_destinations (advertiser_id, url_prefix) SELECT $1, unnest($2::text[])
       ON CONFLICT DO NOTHING`,
      [a.id, a.destinations],
    );
  }
  await tx.query('UPDATE advertisers SET archived_at = now() WHERE archived_at IS NULL AND NOT (id = ANY($1::text[]))', [ids]);
}

async function upsertNetworks(tx: Queryable, c: Catalog) {
  for (const n of c.affiliate_networks) {
    await tx.query(
      `INSERT INTO affiliate_networks (id, name, adapter, partner_marker, link_template, destinations)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (id) DO UPDATE SET name = $2, adapter = $3, partner_marker = $4, link_template = $5, destinations = $6,
         archived_at = NULL, updated_at = now()`,
      [n.id, n.name, n.adapter, n.partner_marker, n.link_template, n.destinations],
    );
  }
  await tx.query('UPDATE affiliate_networks SET archived_at = now() WHERE archived_at IS NULL AND NOT (id = ANY($1::text[]))', [
    c.affiliate_networks.map((n) => n.id),
  ]);
}

async function upsertCampaigns(tx: Queryable, campaigns: Campaign[]) {
  for (const c of campaigns) {
    await tx.query(
      `INSERT INTO campaigns (id, advertiser_id, status, starts_at, ends_at, countries, bid_micros, priority,
          budget_total_micros, budget_daily_micros, frequency_cap_count, frequency_cap_window_s, offer_ttl_s, name)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
       ON CONFLICT (id) DO UPDATE SET advertiser_id = $2, status = $3, starts_at = $4, ends_at = $5, countries = $6,
          bid_micros = $7, priority = $8, budget_total_micros = $9, budget_daily_micros = $10,
          frequency_cap_count = $11, frequency_cap_window_s = $12, offer_ttl_s = $13, name = $14, archived_at = NULL, updated_at = now()`,
      [
        c.id,
        c.advertiser_id,
        c.status,
        c.starts_at,
        c.ends_at,
        c.countries,
        c.bid_micros,
        c.priority,
        c.budget.total_micros,
        c.budget.daily_micros,
        c.frequency_cap.count,
        c.frequency_cap.window_seconds,
        c.offer_ttl_seconds,
        c.name,
      ],
    );
  }
  await tx.query('UPDATE campaigns SET archived_at = now() WHERE archived_at IS NULL AND NOT (id = ANY($1::text[]))', [
    campaigns.map((c) => c.id),
  ]);
}

const UPSERT_OFFERS = batchInsert<Offer>(
  'offers',
  [
    { name: 'id', type: 'text', value: (o) => o.id },
    { name: 'campaign_id', type: 'text', value: (o) => o.campaign_id },
  ],
  { onConflict: '(id) DO UPDATE SET campaign_id = EXCLUDED.campaign_id, archived_at = NULL' },
);

const INSERT_SNAPSHOTS = batchInsert<{ id: string; offerId: string; hash: Buffer; content: SnapshotContent }>('offer_snapshots', [
  { name: 'id', type: 'text', value: (s) => s.id },
  { name: 'offer_id', type: 'text', value: (s) => s.offerId },
  { name: 'content_hash', type: 'bytea', value: (s) => s.hash },
  { name: 'content', type: 'jsonb', value: (s) => JSON.stringify(s.content) },
]);

/** Offers in set-based statements (a fixed number of round trips whatever the catalog size):
 *  upsert the offers, find which (offer, content) pairs already have a snapshot, insert the
 *  missing snapshots, point every offer at its current one, archive the rest. */
async function upsertOffers(tx: Queryable, c: Catalog): Promise<{ created: number; archived: number }> {
  const advertiserOfCampaign = new Map(c.campaigns.map((x) => [x.id, x.advertiser_id]));
  const advertiserName = new Map(c.advertisers.map((a) => [a.id, a.name]));
  const rows = c.offers.map((offer) => {
    const advertiserId = advertiserOfCampaign.get(offer.campaign_id) as string;
    const content: SnapshotContent = { offer, advertiser_id: advertiserId, advertiser_name: advertiserName.get(advertiserId) as string };
    return { offer, content, hash: createHash('sha256').update(canonicalJson(content)).digest() };
  });
  await tx.query(UPSERT_OFFERS.sql, UPSERT_OFFERS.params(rows.map((r) => r.offer)));
  const existing = await tx.query<{ offer_id: string; id: string }>(
    `SELECT s.offer_id, s.id FROM offer_snapshots s
       JOIN unnest($1::text[], $2::bytea[]) AS k(offer_id, content_hash)
         ON s.offer_id = k.offer_id AND s.content_hash = k.content_hash`,
    [rows.map((r) => r.offer.id), rows.map((r) => r.hash)],
  );
  const snapshotOf = new Map(existing.rows.map((r) => [r.offer_id, r.id]));
  const missing = rows.filter((r) => !snapshotOf.has(r.offer.id));
  for (const r of missing) snapshotOf.set(r.offer.id, newId('snp'));
  if (missing.length > 0) {
    await tx.query(
      INSERT_SNAPSHOTS.sql,
      INSERT_SNAPSHOTS.params(missing.map((r) => ({ id: snapshotOf.get(r.offer.id) as string, offerId: r.offer.id, hash: r.hash, content: r.content }))),
    );
  }
  await tx.query(
    `UPDATE offers o SET current_snapshot_id = k.snapshot_id, updated_at = now()
       FROM unnest($1::text[], $2::text[]) AS k(offer_id, snapshot_id)
      WHERE o.id = k.offer_id AND o.current_snapshot_id IS DISTINCT FROM k.snapshot_id`,
    [rows.map((r) => r.offer.id), rows.map((r) => snapshotOf.get(r.offer.id))],
  );
  const archived = await tx.query('UPDATE offers SET archived_at = now() WHERE archived_at IS NULL AND NOT (id = ANY($1::text[]))', [
    rows.map((r) => r.offer.id),
  ]);
  return { created: missing.length, archived: archived.rowCount };
}

/** The catalog as compared between imports: list order, allowlist order and time-zone spelling
 *  carry no meaning, so an exported-then-reimported catalog counts as unchanged. */
function normalizedForHash(c: Catalog) {
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
    offers: byId(c.offers),
    affiliate_networks: byId(c.affiliate_networks),
  };
}

/** JSON with object keys sorted, so equal content always hashes equal. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]]))
      : v,
  );
}
