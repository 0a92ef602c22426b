// Catalog persistence: import (a checked catalog written in one transaction, its offers in
// bounded batches), export, and the read that feeds each instance's offer index and serving view.
import type { Database, Queryable } from '../db/database.js';
import { newId } from '../util/ids.js';
import { batchInsert } from '../persistence/batch-insert.js';
import type { Advertiser, Catalog, Campaign } from './catalog-schema.js';
import { validateCatalog } from './catalog-validation.js';
import { ADVISORY_LOCKS } from '../db/advisory-locks.js';
import { CatalogHasher, OfferPreparer, type ImportPlan, type PreparedOffer, type SnapshotContent } from './catalog-import-plan.js';

export type { SnapshotContent } from './catalog-import-plan.js';

export interface ImportReport {
  changed: boolean;
  version: number;
  snapshots_created: number;
  offers: number;
  offers_archived: number;
  campaigns: number;
  advertisers: number;
}

/** Offers per batch statement: a batch is a few hundred kilobytes of snapshot content, so each
 *  statement stays far inside the query timeout and the transaction yields between batches. */
export const OFFER_BATCH_SIZE = 1000;
/** Advertisers and campaigns per statement. */
const HEAD_BATCH_SIZE = 2000;

export class CatalogRepository {
  constructor(private readonly db: Database) {}

  async version(): Promise<number> {
    const r = await this.db.query<{ version: number }>('SELECT version FROM catalog_state WHERE id = 1');
    return r.rows[0]?.version ?? 0;
  }

  async isEmpty(): Promise<boolean> {
    return (await this.version()) === 0;
  }

  /** Imports a whole catalog held in memory (the demo catalog, tests): checked by
   *  validateCatalog, then written as a file's import is (write). */
  async import(input: unknown): Promise<ImportReport> {
    const catalog = validateCatalog(input);
    const { offers, ...head } = catalog;
    const preparer = new OfferPreparer(head);
    const hasher = new CatalogHasher();
    for (const o of offers) hasher.addOffer(o);
    const plan: ImportPlan = { head, catalogHash: hasher.digest(head), offers: offers.length };
    async function* batches() {
      for (let i = 0; i < offers.length; i += OFFER_BATCH_SIZE) yield offers.slice(i, i + OFFER_BATCH_SIZE).map((o) => preparer.prepare(o));
    }
    return this.write(plan, batches());
  }

  /** Writes a checked catalog declaratively: what it lists is live, what it omits is archived
   *  (kept for the decisions that reference it). Offers whose content changed get a new
   *  immutable snapshot; unchanged offers keep theirs. One transaction, so readers see the old
   *  catalog or the new one, never a part, and the version moves once. The offers come in
   *  batches (from the import worker, or from memory); `onWritten` hears the running count.
   *  `beforeCommit` writes, in the same transaction, whatever must hold exactly when the catalog
   *  does (an import job's success): a crash can then never leave one without the other. */
  async write(
    plan: ImportPlan,
    batches: AsyncIterable<PreparedOffer[]>,
    onWritten?: (offersWritten: number) => void,
    beforeCommit?: (tx: Queryable, report: ImportReport) => Promise<void>,
  ): Promise<ImportReport> {
    const { head } = plan;
    const counts = { offers: plan.offers, campaigns: head.campaigns.length, advertisers: head.advertisers.length };
    return this.db.transaction(async (tx) => {
      // Writers of an older version take only this lock; importers also hold importRunning.
      await tx.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCKS.catalogImport]);
      const state = await tx.query<{ version: number; catalog_hash: Uint8Array }>('SELECT version, catalog_hash FROM catalog_state WHERE id = 1');
      const current = state.rows[0];
      if (current && Buffer.from(current.catalog_hash).equals(Buffer.from(plan.catalogHash))) {
        const unchanged = { changed: false, version: current.version, snapshots_created: 0, offers_archived: 0, ...counts };
        await beforeCommit?.(tx, unchanged);
        return unchanged;
      }
      const version = (current?.version ?? 0) + 1;
      // Each batch statement leaves every offer pointing at an existing snapshot, so the check
      // runs per statement rather than for a million rows at COMMIT.
      await tx.query('SET CONSTRAINTS offers_current_snapshot IMMEDIATE');
      await tx.query(
        `INSERT INTO catalog_state (id, version, catalog_hash, taxonomy, imported_at) VALUES (1, $1, $2, $3, now())
         ON CONFLICT (id) DO UPDATE SET version = $1, catalog_hash = $2, taxonomy = $3, imported_at = now()`,
        [version, Buffer.from(plan.catalogHash), JSON.stringify(head.taxonomy)],
      );
      await upsertAdvertisers(tx, head.advertisers);
      await upsertNetworks(tx, head);
      await upsertCampaigns(tx, head.campaigns);
      let created = 0;
      let written = 0;
      for await (const batch of batches) {
        created += await upsertOfferBatch(tx, batch, version);
        written += batch.length;
        onWritten?.(written);
      }
      if (written !== plan.offers) throw new Error(`catalog import: ${written} offers written of ${plan.offers}`);
      const archived = await tx.query('UPDATE offers SET archived_at = now() WHERE archived_at IS NULL AND catalog_version IS DISTINCT FROM $1', [version]);
      const report = { changed: true, version, snapshots_created: created, offers_archived: archived.rowCount, ...counts };
      await beforeCommit?.(tx, report);
      return report;
    });
  }

  /** Of the ids given, the categories and advertisers the current catalog does not have. */
  async unknownIds(categoryIds: readonly string[], advertiserIds: readonly string[]): Promise<{ category_ids: string[]; advertiser_ids: string[] }> {
    const r = await this.db.query<{ category_ids: string[]; advertiser_ids: string[] }>(
      `SELECT
         ARRAY(SELECT c FROM unnest($1::text[]) c
                WHERE NOT EXISTS (SELECT 1 FROM catalog_state s, jsonb_array_elements(s.taxonomy->'categories') x WHERE x->>'id' = c)
                ORDER BY c) AS category_ids,
         ARRAY(SELECT a FROM unnest($2::text[]) a
                WHERE NOT EXISTS (SELECT 1 FROM advertisers WHERE id = a AND archived_at IS NULL)
                ORDER BY a) AS advertiser_ids`,
      [categoryIds, advertiserIds],
    );
    return r.rows[0];
  }

  async export(): Promise<Catalog> {
    const state = await this.db.query<{ taxonomy: Catalog['taxonomy'] }>('SELECT taxonomy FROM catalog_state WHERE id = 1');
    const advertisers = await this.db.query<{ id: string; name: string; status: 'active' | 'suspended'; entity_id: string | null; destinations: string[] }>(
      `SELECT a.id, a.name, a.status, a.entity_id,
              coalesce(array_agg(d.url_prefix ORDER BY d.url_prefix) FILTER (WHERE d.url_prefix IS NOT NULL), '{}') AS destinations
         FROM advertisers a LEFT JOIN advertiser_destinations d ON d.advertiser_id = a.id
        WHERE a.archived_at IS NULL GROUP BY a.id ORDER BY a.id`,
    );
    const networks = await this.db.query<{
      id: string;
      name: string;
      adapter: string;
      partner_marker: string;
      link_template: string | null;
      destinations: string[];
    }>('SELECT id, name, adapter, partner_marker, link_template, destinations FROM affiliate_networks WHERE archived_at IS NULL ORDER BY id');
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
   *  advertiser's name and budgets as they serve: what the spend report shows beside the
   *  ledger's figures. */
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
      changed_at: Date | null;
      changed_by: string | null;
    }>(
      // Status and budgets as they serve: with the operators' controls (EFFECTIVE_CAMPAIGNS),
      // and who changed them last.
      `SELECT e.id, e.name, e.advertiser_id, a.name AS advertiser_name, e.status, e.archived_at IS NOT NULL AS archived,
              e.bid_micros, e.budget_daily_micros, e.budget_total_micros, last.changed_at, last.changed_by
         FROM (${EFFECTIVE_CAMPAIGNS}) e JOIN advertisers a ON a.id = e.advertiser_id
         LEFT JOIN LATERAL (SELECT x.changed_at, x.changed_by FROM campaign_control_changes x
                             WHERE x.campaign_id = e.id ORDER BY x.id DESC LIMIT 1) last ON true
        ORDER BY e.id`,
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
      lastControlChange: c.changed_at && c.changed_by ? { changedAt: c.changed_at.toISOString(), changedBy: c.changed_by } : null,
    }));
  }

  // Campaign controls (src/campaigns/campaign-controls.ts): operators' overrides of a campaign's
  // status, budgets and end date, laid over the catalog's values wherever a campaign serves
  // (EFFECTIVE_CAMPAIGNS). A change holds the catalog writers' lock, so it and an import never
  // interleave, and moves the catalog version in the same transaction: every instance's poll
  // then reloads the campaign as it now serves.

  /** The campaign's catalog values, overrides and effective values; null when no campaign has
   *  this id. */
  async campaignControl(campaignId: string, q: Queryable = this.db): Promise<StoredControl | null> {
    const catalog = await q.query<SettingsRow & { archived: boolean; starts_at: Date | null }>(
      `SELECT status, budget_total_micros, budget_daily_micros, ends_at, starts_at, archived_at IS NOT NULL AS archived
         FROM campaigns WHERE id = $1`,
      [campaignId],
    );
    const row = catalog.rows[0];
    if (!row) return null;
    const effective = await q.query<SettingsRow>(`${EFFECTIVE_CAMPAIGNS} WHERE c.id = $1`, [campaignId]);
    const control = await q.query<ControlRow>(
      'SELECT status, budget_total_micros, budget_daily_micros, ends_at_set, ends_at, updated_at FROM campaign_controls WHERE campaign_id = $1',
      [campaignId],
    );
    return {
      campaign_id: campaignId,
      archived: row.archived,
      starts_at: row.starts_at ? row.starts_at.toISOString() : null,
      catalog: settings(row),
      effective: settings(effective.rows[0]),
      overrides: overridesOf(control.rows[0]),
      updated_at: control.rows[0] ? control.rows[0].updated_at.toISOString() : null,
    };
  }

  /** Replaces the campaign's overrides with those `next` makes of the campaign as stored (read
   *  inside the transaction; `next` may refuse by throwing; none: follow the catalog again) and
   *  records the change, unless nothing changes. Returns the campaign as it now stands, or null
   *  when no campaign has this id. */
  async replaceCampaignControl(
    campaignId: string,
    next: (current: StoredControl) => CampaignOverrides,
    by: { changedBy: string; channel: ControlChange['channel'] },
    /** Runs in the change's transaction once it is recorded: what it writes commits with it. */
    recorded: (tx: Queryable, change: ControlChange) => Promise<void> = async () => {},
  ): Promise<StoredControl | null> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCKS.catalogImport]);
      const before = await this.campaignControl(campaignId, tx);
      if (!before) return null;
      const overrides = next(before);
      if (sameOverrides(before.overrides, overrides)) return before;
      if (Object.keys(overrides).length === 0) {
        await tx.query('DELETE FROM campaign_controls WHERE campaign_id = $1', [campaignId]);
      } else {
        await tx.query(
          `INSERT INTO campaign_controls (campaign_id, status, budget_total_micros, budget_daily_micros, ends_at_set, ends_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, now())
           ON CONFLICT (campaign_id) DO UPDATE SET status = EXCLUDED.status, budget_total_micros = EXCLUDED.budget_total_micros,
             budget_daily_micros = EXCLUDED.budget_daily_micros, ends_at_set = EXCLUDED.ends_at_set, ends_at = EXCLUDED.ends_at,
             updated_at = now()`,
          [
            campaignId,
            overrides.status ?? null,
            overrides.budget_total_micros ?? null,
            overrides.budget_daily_micros ?? null,
            overrides.ends_at !== undefined,
            overrides.ends_at ?? null,
          ],
        );
      }
      const after = (await this.campaignControl(campaignId, tx))!;
      const change = await tx.query<{ changed_at: Date }>(
        `INSERT INTO campaign_control_changes (campaign_id, changed_by, channel, before, after) VALUES ($1, $2, $3, $4, $5) RETURNING changed_at`,
        [campaignId, by.changedBy, by.channel, JSON.stringify(before.effective), JSON.stringify(after.effective)],
      );
      await recorded(tx, {
        changed_at: new Date(change.rows[0].changed_at).toISOString(),
        changed_by: by.changedBy,
        channel: by.channel,
        before: before.effective,
        after: after.effective,
      });
      // A new catalog version: every instance's poll reloads what serves (catalog-runtime.ts).
      await tx.query('UPDATE catalog_state SET version = version + 1 WHERE id = 1');
      return after;
    });
  }

  /** The campaign's recorded changes, newest first. */
  async campaignControlChanges(campaignId: string, limit: number): Promise<ControlChange[]> {
    const r = await this.db.query<{
      changed_at: Date;
      changed_by: string;
      channel: ControlChange['channel'];
      before: CampaignSettings;
      after: CampaignSettings;
    }>(
      `SELECT changed_at, changed_by, channel, before, after FROM campaign_control_changes
        WHERE campaign_id = $1 ORDER BY id DESC LIMIT $2`,
      [campaignId, limit],
    );
    return r.rows.map((c) => ({ ...c, changed_at: c.changed_at.toISOString() }));
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

  /** Everything an instance serves, read in one consistent snapshot (one REPEATABLE READ
   *  transaction, so a version and its offers agree even while an import commits): the head
   *  first, then the live offers in batches through a cursor, so neither this side nor the
   *  database client ever holds every row at once. Snapshot content comes as JSON text: the
   *  caller (the catalog loader's worker) parses it, not the driver on the serving thread. */
  async readServingCatalog(
    batchSize: number,
    onHead: (head: ServingCatalogHead) => Promise<void> | void,
    onOffers: (rows: ServingOfferRow[]) => Promise<void> | void,
  ): Promise<void> {
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`batch size must be a positive integer, not ${batchSize}`);
    await this.db.transaction(async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      // Read in a function of its own: nothing here holds the head (its taxonomy is the larger
      // part) while the offers are read.
      await onHead(await readServingHead(tx));
      await tx.query(
        `DECLARE serving_offers NO SCROLL CURSOR FOR
         SELECT s.id AS snapshot_id, o.campaign_id, s.content::text AS content
           FROM offers o JOIN offer_snapshots s ON s.id = o.current_snapshot_id
          WHERE o.archived_at IS NULL`,
      );
      for (;;) {
        const batch = await tx.query<ServingOfferRow>(`FETCH FORWARD ${batchSize} FROM serving_offers`);
        if (batch.rows.length > 0) await onOffers(batch.rows);
        if (batch.rows.length < batchSize) break;
      }
    });
  }

  /** The same all at once, content parsed: for tests and tools, never the serving path (a large
   *  catalog would sit whole on the heap). */
  async loadServingCatalog(): Promise<ServingCatalogRows> {
    let head: ServingCatalogHead | undefined;
    const offers: ServingCatalogRows['offers'] = [];
    await this.readServingCatalog(
      5000,
      (h) => {
        head = h;
      },
      (rows) => {
        for (const r of rows) offers.push({ snapshot_id: r.snapshot_id, campaign_id: r.campaign_id, content: JSON.parse(r.content) as SnapshotContent });
      },
    );
    const { offers: _count, ...rest } = head as ServingCatalogHead;
    return { ...rest, offers };
  }
}

/** What an instance serves apart from its offers, and how many offers follow. */
export interface ServingCatalogHead {
  version: number;
  taxonomy: Catalog['taxonomy'] | null;
  offers: number;
  campaigns: Campaign[];
  advertisers: { id: string; name: string; status: string; entity_id: string | null; destinations: string[] }[];
  networks: { id: string; name: string; adapter: string; partner_marker: string; link_template: string | null; destinations: string[] }[];
}

/** One live offer's current snapshot, its content as JSON text. */
export interface ServingOfferRow {
  snapshot_id: string;
  campaign_id: string;
  content: string;
}

/** The serving rows all at once, content parsed (tests and tools build whole index documents
 *  from them: index-document.ts). */
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
  /** The last change of its controls (campaign_control_changes); null when never controlled. */
  lastControlChange: { changedAt: string; changedBy: string } | null;
}

/** Campaigns as they serve: each field a control sets (campaign_controls) replaces the
 *  catalog's. Campaign controls read the same columns for their before and after. */
export const EFFECTIVE_CAMPAIGNS = `SELECT c.id, c.name, c.advertiser_id,
         coalesce(k.status, c.status) AS status,
         c.starts_at,
         CASE WHEN k.ends_at_set THEN k.ends_at ELSE c.ends_at END AS ends_at,
         c.countries, c.bid_micros, c.priority,
         coalesce(k.budget_total_micros, c.budget_total_micros) AS budget_total_micros,
         coalesce(k.budget_daily_micros, c.budget_daily_micros) AS budget_daily_micros,
         c.frequency_cap_count, c.frequency_cap_window_s, c.offer_ttl_s, c.archived_at
    FROM campaigns c LEFT JOIN campaign_controls k ON k.campaign_id = c.id`;

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

/** The head of what an instance serves, inside readServingCatalog's transaction. */
async function readServingHead(tx: Queryable): Promise<ServingCatalogHead> {
  const state = await tx.query<{ version: number; taxonomy: Catalog['taxonomy'] }>('SELECT version, taxonomy FROM catalog_state WHERE id = 1');
  const count = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM offers WHERE archived_at IS NULL');
  // The catalog's campaigns with their operators' controls laid over them (campaign_controls):
  // what serves is the effective value.
  const campaigns = await tx.query<CampaignRow>(`${EFFECTIVE_CAMPAIGNS} WHERE c.archived_at IS NULL`);
  const advertisers = await tx.query<{ id: string; name: string; status: string; entity_id: string | null; destinations: string[] }>(
    `SELECT a.id, a.name, a.status, a.entity_id,
            coalesce(array_agg(d.url_prefix) FILTER (WHERE d.url_prefix IS NOT NULL), '{}') AS destinations
       FROM advertisers a LEFT JOIN advertiser_destinations d ON d.advertiser_id = a.id
      WHERE a.archived_at IS NULL GROUP BY a.id`,
  );
  const networks = await tx.query<ServingCatalogHead['networks'][number]>(
    'SELECT id, name, adapter, partner_marker, link_template, destinations FROM affiliate_networks WHERE archived_at IS NULL',
  );
  return {
    version: state.rows[0]?.version ?? 0,
    taxonomy: state.rows[0]?.taxonomy ?? null,
    offers: count.rows[0]?.n ?? 0,
    campaigns: campaigns.rows.map(campaignFromRow),
    advertisers: advertisers.rows,
    networks: networks.rows,
  };
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

function chunks<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

const UPSERT_ADVERTISERS = batchInsert<Advertiser>(
  'advertisers',
  [
    { name: 'id', type: 'text', value: (a) => a.id },
    { name: 'name', type: 'text', value: (a) => a.name },
    { name: 'status', type: 'text', value: (a) => a.status },
    { name: 'entity_id', type: 'text', value: (a) => a.entity_id },
  ],
  {
    onConflict: `(id) DO UPDATE SET name = EXCLUDED.name, status = EXCLUDED.status, entity_id = EXCLUDED.entity_id, archived_at = NULL, updated_at = now()
       WHERE (advertisers.name, advertisers.status, advertisers.entity_id, advertisers.archived_at)
             IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.status, EXCLUDED.entity_id, NULL::timestamptz)`,
  },
);

const INSERT_DESTINATIONS = batchInsert<{ advertiserId: string; prefix: string }>(
  'advertiser_destinations',
  [
    { name: 'advertiser_id', type: 'text', value: (d) => d.advertiserId },
    { name: 'url_prefix', type: 'text', value: (d) => d.prefix },
  ],
  { onConflict: 'DO NOTHING' },
);

async function upsertAdvertisers(tx: Queryable, advertisers: Advertiser[]) {
  for (const batch of chunks(advertisers, HEAD_BATCH_SIZE)) {
    await tx.query(UPSERT_ADVERTISERS.sql, UPSERT_ADVERTISERS.params(batch));
    const destinations = batch.flatMap((a) => a.destinations.map((prefix) => ({ advertiserId: a.id, prefix })));
    // The allowlists become exactly the file's: entries it no longer lists go.
    await tx.query(
      `DELETE FROM advertiser_destinations d WHERE d.advertiser_id = ANY($1::text[])
          AND NOT EXISTS (SELECT 1 FROM unnest($2::text[], $3::text[]) AS k(advertiser_id, url_prefix)
                           WHERE k.advertiser_id = d.advertiser_id AND k.url_prefix = d.url_prefix)`,
      [batch.map((a) => a.id), destinations.map((d) => d.advertiserId), destinations.map((d) => d.prefix)],
    );
    await tx.query(INSERT_DESTINATIONS.sql, INSERT_DESTINATIONS.params(destinations));
  }
  await tx.query('UPDATE advertisers SET archived_at = now() WHERE archived_at IS NULL AND NOT (id = ANY($1::text[]))', [advertisers.map((a) => a.id)]);
}

// A handful per catalog, and their allowlists are arrays of URLs (which may hold commas): one
// statement each.
async function upsertNetworks(tx: Queryable, c: Pick<Catalog, 'affiliate_networks'>) {
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

const UPSERT_CAMPAIGNS = batchInsert<Campaign>(
  'campaigns',
  [
    { name: 'id', type: 'text', value: (c) => c.id },
    { name: 'advertiser_id', type: 'text', value: (c) => c.advertiser_id },
    { name: 'status', type: 'text', value: (c) => c.status },
    { name: 'starts_at', type: 'timestamptz', value: (c) => c.starts_at },
    { name: 'ends_at', type: 'timestamptz', value: (c) => c.ends_at },
    // Country codes are two capital letters: safe to travel comma-joined.
    { name: 'countries', type: 'text[]', value: (c) => c.countries },
    { name: 'bid_micros', type: 'bigint', value: (c) => c.bid_micros },
    { name: 'priority', type: 'int', value: (c) => c.priority },
    { name: 'budget_total_micros', type: 'bigint', value: (c) => c.budget.total_micros },
    { name: 'budget_daily_micros', type: 'bigint', value: (c) => c.budget.daily_micros },
    { name: 'frequency_cap_count', type: 'int', value: (c) => c.frequency_cap.count },
    { name: 'frequency_cap_window_s', type: 'int', value: (c) => c.frequency_cap.window_seconds },
    { name: 'offer_ttl_s', type: 'int', value: (c) => c.offer_ttl_seconds },
    { name: 'name', type: 'text', value: (c) => c.name },
  ],
  {
    onConflict: `(id) DO UPDATE SET advertiser_id = EXCLUDED.advertiser_id, status = EXCLUDED.status, starts_at = EXCLUDED.starts_at,
        ends_at = EXCLUDED.ends_at, countries = EXCLUDED.countries, bid_micros = EXCLUDED.bid_micros, priority = EXCLUDED.priority,
        budget_total_micros = EXCLUDED.budget_total_micros, budget_daily_micros = EXCLUDED.budget_daily_micros,
        frequency_cap_count = EXCLUDED.frequency_cap_count, frequency_cap_window_s = EXCLUDED.frequency_cap_window_s,
        offer_ttl_s = EXCLUDED.offer_ttl_s, name = EXCLUDED.name, archived_at = NULL, updated_at = now()`,
  },
);

async function upsertCampaigns(tx: Queryable, campaigns: Campaign[]) {
  for (const batch of chunks(campaigns, HEAD_BATCH_SIZE)) await tx.query(UPSERT_CAMPAIGNS.sql, UPSERT_CAMPAIGNS.params(batch));
  await tx.query('UPDATE campaigns SET archived_at = now() WHERE archived_at IS NULL AND NOT (id = ANY($1::text[]))', [campaigns.map((c) => c.id)]);
}

// Which offers of a batch already have a snapshot holding their content (read only).
const KNOWN_SNAPSHOTS = `
SELECT s.offer_id, s.id FROM offer_snapshots s
  JOIN unnest($1::text[], $2::bytea[]) AS k(offer_id, content_hash) ON s.offer_id = k.offer_id AND s.content_hash = k.content_hash`;

// The batch in one statement: the missing snapshots, and every offer upserted, stamped with the
// import's version and pointing at its snapshot. Each row of either table refers to one of the
// other written by the same statement, and the foreign keys are checked at its end. The content
// travels as one JSON array ($8): no per-element escaping on this thread, one parse on the server.
const WRITE_OFFERS = `
WITH created AS (
  INSERT INTO offer_snapshots (id, offer_id, content_hash, content)
  SELECT k.id, k.offer_id, k.content_hash, j.content
    FROM unnest($5::text[], $6::text[], $7::bytea[]) WITH ORDINALITY AS k(id, offer_id, content_hash, n)
    JOIN jsonb_array_elements($8::jsonb) WITH ORDINALITY AS j(content, n) USING (n)
)
INSERT INTO offers (id, campaign_id, current_snapshot_id, catalog_version)
SELECT b.id, b.campaign_id, b.snapshot_id, $4 FROM unnest($1::text[], $2::text[], $3::text[]) AS b(id, campaign_id, snapshot_id)
ON CONFLICT (id) DO UPDATE SET campaign_id = EXCLUDED.campaign_id, archived_at = NULL, catalog_version = EXCLUDED.catalog_version,
  current_snapshot_id = EXCLUDED.current_snapshot_id,
  updated_at = CASE WHEN offers.current_snapshot_id IS DISTINCT FROM EXCLUDED.current_snapshot_id THEN now() ELSE offers.updated_at END`;

/** One batch of offers in two statements; returns the snapshots it created. */
async function upsertOfferBatch(tx: Queryable, batch: PreparedOffer[], version: number): Promise<number> {
  if (batch.length === 0) return 0;
  const known = await tx.query<{ offer_id: string; id: string }>(KNOWN_SNAPSHOTS, [batch.map((o) => o.id), batch.map((o) => Buffer.from(o.contentHash))]);
  const snapshotOf = new Map(known.rows.map((r) => [r.offer_id, r.id]));
  const missing = batch.filter((o) => !snapshotOf.has(o.id));
  for (const o of missing) snapshotOf.set(o.id, newId('snp'));
  await tx.query(WRITE_OFFERS, [
    batch.map((o) => o.id),
    batch.map((o) => o.campaignId),
    batch.map((o) => snapshotOf.get(o.id)),
    version,
    missing.map((o) => snapshotOf.get(o.id)),
    missing.map((o) => o.id),
    missing.map((o) => Buffer.from(o.contentHash)),
    `[${missing.map((o) => o.content).join(',')}]`,
  ]);
  return missing.length;
}

// Campaign controls' shapes.
/** The fields a control can set, as they serve. */
export interface CampaignSettings {
  status: 'active' | 'paused' | 'ended';
  budget_total_micros: number;
  budget_daily_micros: number;
  ends_at: string | null;
}

/** What a control sets; an absent field follows the catalog. */
export interface CampaignOverrides {
  status?: 'active' | 'paused';
  budget_total_micros?: number;
  budget_daily_micros?: number;
  /** null: never ends. */
  ends_at?: string | null;
}

export interface ControlChange {
  changed_at: string;
  changed_by: string;
  channel: 'admin_api' | 'cli';
  before: CampaignSettings;
  after: CampaignSettings;
}

export interface StoredControl {
  campaign_id: string;
  archived: boolean;
  starts_at: string | null;
  catalog: CampaignSettings;
  effective: CampaignSettings;
  overrides: CampaignOverrides;
  updated_at: string | null;
}

interface SettingsRow {
  status: CampaignSettings['status'];
  budget_total_micros: string | number;
  budget_daily_micros: string | number;
  ends_at: Date | null;
}

interface ControlRow {
  status: 'active' | 'paused' | null;
  budget_total_micros: string | number | null;
  budget_daily_micros: string | number | null;
  ends_at_set: boolean;
  ends_at: Date | null;
  updated_at: Date;
}

const settings = (r: SettingsRow): CampaignSettings => ({
  status: r.status,
  budget_total_micros: Number(r.budget_total_micros),
  budget_daily_micros: Number(r.budget_daily_micros),
  ends_at: r.ends_at ? r.ends_at.toISOString() : null,
});

function overridesOf(r: ControlRow | undefined): CampaignOverrides {
  if (!r) return {};
  const o: CampaignOverrides = {};
  if (r.status !== null) o.status = r.status;
  if (r.budget_total_micros !== null) o.budget_total_micros = Number(r.budget_total_micros);
  if (r.budget_daily_micros !== null) o.budget_daily_micros = Number(r.budget_daily_micros);
  if (r.ends_at_set) o.ends_at = r.ends_at ? r.ends_at.toISOString() : null;
  return o;
}

function sameOverrides(a: CampaignOverrides, b: CampaignOverrides): boolean {
  const keys = ['status', 'budget_total_micros', 'budget_daily_micros', 'ends_at'] as const;
  return keys.every((k) => k in a === k in b && (k === 'ends_at' ? sameTime(a.ends_at, b.ends_at) : a[k] === b[k]));
}

function sameTime(a: string | null | undefined, b: string | null | undefined): boolean {
  return a === b || (typeof a === 'string' && typeof b === 'string' && Date.parse(a) === Date.parse(b));
}
