// Decision records and the campaign spend ledger written with them, and every read of either:
// the batched writes behind the decision recorder (src/decide/decision-recorder.ts), the
// ownership checks events and conversions need, the lookup hosts call, and the ledger's figures.
//
// Every event and conversion checks the decision it names. Those checks are batched with
// DataLoader (the lookups of one event-loop turn become one `= ANY($1)` query) and their
// positive answers are remembered, because what they check (app, snapshot, time, test mode) is
// fixed when the row is written; the one later change, a TIMEOUT correction, clears a snapshot
// the host was never shown. On loopback a query's socket write costs the sender tens of
// microseconds, so one query per request was most of an event's CPU.
//
// The statement that inserts a batch of decision rows also adds each served decision's spend to
// the ledger (campaign_spend_daily / campaign_spend_total), so the ledger can never disagree with
// the rows: the ledger tables belong to this repository for that reason.
import DataLoader from 'dataloader';
import type { Database } from '../db/database.js';
import type { LedgerSpend } from '../counters/counter-store.js';
import { batchInsert, type BatchColumn } from '../persistence/batch-insert.js';
import { campaignKey, foldDecisions } from '../reporting/report-repository.js';
import { decisionIdTime } from '../util/ids.js';
import type { DecisionKind, ImpressionCounts } from './decision-schemas.js';

export interface DecisionRecord {
  id: string;
  appId: string;
  requestId: string;
  kind: DecisionKind;
  test: boolean;
  createdAt: Date;
  serve: boolean;
  reasonCodes: string[];
  offerSnapshotId: string | null;
  campaignId: string | null;
  expiresAt: Date | null;
  locale: string | null;
  country: string | null;
  intentType: string | null;
  messageIntent: string | null;
  /** Served: the categories asked for that the offer met; else every category the turn named. */
  matchedCategoryIds: string[];
  matchedEntityIds: string[];
  /** Served: the offer's categories met only as implied by a named entity (evidence that won). */
  impliedCategoryIds: string[];
  droppedDigestIds: number;
  /** What a POLICY_BLOCK stood on (gates.ts, PolicyReason); empty otherwise. */
  policyReasons: string[];
  /** The core's reading spent its step budget: only its policy reading is whole. */
  readingOverBudget: boolean;
  /** The app's brand-safety exclusions set aside an offer that otherwise fitted. */
  excludedByApp: boolean;
  latencyUs: number;
  /** What this decision spent of its campaign's budget: the bid when served live, else 0. */
  spendMicros: number;
}

// One column list for both inserts of decision rows. Lists (reason codes, ids) travel as
// comma-joined text (batch-insert.ts says why).
const DECISION_COLUMNS: readonly BatchColumn<DecisionRecord>[] = [
  { name: 'id', type: 'text', value: (r) => r.id },
  { name: 'app_id', type: 'text', value: (r) => r.appId },
  { name: 'request_id', type: 'text', value: (r) => r.requestId },
  { name: 'kind', type: 'text', value: (r) => r.kind },
  { name: 'test', type: 'boolean', value: (r) => r.test },
  { name: 'created_at', type: 'timestamptz', value: (r) => r.createdAt },
  { name: 'serve', type: 'boolean', value: (r) => r.serve },
  { name: 'reason_codes', type: 'text[]', value: (r) => r.reasonCodes },
  { name: 'offer_snapshot_id', type: 'text', value: (r) => r.offerSnapshotId },
  { name: 'campaign_id', type: 'text', value: (r) => r.campaignId },
  { name: 'expires_at', type: 'timestamptz', value: (r) => r.expiresAt },
  { name: 'locale', type: 'text', value: (r) => r.locale },
  { name: 'country', type: 'text', value: (r) => r.country },
  { name: 'intent_type', type: 'text', value: (r) => r.intentType },
  { name: 'cue_intent', type: 'text', value: (r) => r.messageIntent },
  { name: 'matched_category_ids', type: 'text[]', value: (r) => r.matchedCategoryIds },
  { name: 'matched_entity_ids', type: 'text[]', value: (r) => r.matchedEntityIds },
  { name: 'dropped_digest_ids', type: 'int', value: (r) => r.droppedDigestIds },
  { name: 'latency_us', type: 'int', value: (r) => r.latencyUs },
  { name: 'spend_micros', type: 'bigint', value: (r) => r.spendMicros },
  { name: 'implied_category_ids', type: 'text[]', value: (r) => r.impliedCategoryIds },
  { name: 'policy_reasons', type: 'text[]', value: (r) => r.policyReasons },
  { name: 'reading_over_budget', type: 'boolean', value: (r) => r.readingOverBudget },
  { name: 'excluded_by_app', type: 'boolean', value: (r) => r.excludedByApp },
];

// What the report rollups count of a decision row (report-repository.ts, foldDecisions).
const ROLLUP_COLUMNS = 'app_id, test, created_at, serve, campaign_id, spend_micros, reason_codes, latency_us, matched_category_ids, matched_entity_ids';

const DECISION_ROWS = batchInsert('decisions', DECISION_COLUMNS, { returning: `id, ${ROLLUP_COLUMNS}, 1 AS sign` });

// The rows, their spend in the ledger and their counts in the report rollups: one statement.
// Its parts take row locks in a fixed order (ledger, then rollups, each in key order), so two
// instances' batches never deadlock. A served row counts once its decide confirms the answer
// went out in time: until then its id is in unconfirmed_serves (migrations 011 and 018).
const INSERT_DECISIONS = `
WITH inserted AS (
${DECISION_ROWS.sql}
), pending AS (
  INSERT INTO unconfirmed_serves (id, created_at) SELECT id, created_at FROM inserted WHERE serve
), spent AS (
  SELECT campaign_id, (created_at AT TIME ZONE 'UTC')::date AS day, sum(spend_micros)::bigint AS micros, count(*)::bigint AS serves
  FROM inserted WHERE spend_micros > 0 GROUP BY 1, 2
), daily AS (
  -- In campaign order, so that two instances' batches lock ledger rows in the same order.
  INSERT INTO campaign_spend_daily AS s (campaign_id, day, spend_micros, serves)
  SELECT campaign_id, day, micros, serves FROM spent ORDER BY campaign_id, day
  ON CONFLICT (campaign_id, day) DO UPDATE SET spend_micros = s.spend_micros + EXCLUDED.spend_micros, serves = s.serves + EXCLUDED.serves
), total AS (
  INSERT INTO campaign_spend_total AS s (campaign_id, spend_micros, serves)
  SELECT campaign_id, sum(micros), sum(serves) FROM spent GROUP BY 1 ORDER BY 1
  ON CONFLICT (campaign_id) DO UPDATE SET spend_micros = s.spend_micros + EXCLUDED.spend_micros, serves = s.serves + EXCLUDED.serves
), ${foldDecisions('inserted', 'decided')}
SELECT count(*) FROM inserted`;

// A decide that timed out answered TIMEOUT: its record must say so, whatever its pipeline had
// written by then (the recorder batches both statements below, see decision-recorder.ts).
//
// The TIMEOUT row of a decide whose pipeline wrote no row: inserted unless a row with that id
// exists (a write whose outcome was unknown may have committed after all). Returns the ids
// inserted; an id not returned needs CORRECT_TIMED_OUT.
// created_at is the time the id carries (ids.ts), so (id, created_at) is the id.
const TIMEOUT_ROWS = batchInsert('decisions', DECISION_COLUMNS, { onConflict: '(id, created_at) DO NOTHING', returning: `id, ${ROLLUP_COLUMNS}, 1 AS sign` });
const INSERT_TIMEOUTS = `
WITH inserted AS (
${TIMEOUT_ROWS.sql}
), ${foldDecisions('inserted', 'decided')}
SELECT id FROM inserted`;

// Turns rows that were written into TIMEOUT rows, takes a served row's spend off the ledger, and
// moves the row's counts in the report rollups from what was written to what it now says, in
// one statement. Every sub-statement reads the rows as they were before it. `created_at` (the
// time each id carries) names the day partitions to read.
//
// `onlyUnconfirmed`: only rows still unconfirmed (the sweep of unconfirmed serves). Their
// unconfirmed_serves rows are locked as they are read, so a confirmation committing meanwhile
// (which deletes that row) takes the decision out of the sweep. Either way the rows corrected
// leave unconfirmed_serves, and so does a listed id whose decision row is gone.
const correctTimedOut = (onlyUnconfirmed: boolean) => `
WITH target AS (
  SELECT d.id, d.serve, d.campaign_id, d.spend_micros, (d.created_at AT TIME ZONE 'UTC')::date AS day, t.latency_us,
         d.app_id, d.test, d.created_at, d.reason_codes, d.latency_us AS written_latency_us, d.matched_category_ids, d.matched_entity_ids
  FROM unnest($1::text[], $2::int[]) AS t(id, latency_us)${onlyUnconfirmed ? ' JOIN unconfirmed_serves u ON u.id = t.id' : ''}
  JOIN decisions d ON d.id = t.id
  WHERE d.created_at = ANY($3::timestamptz[])
  FOR UPDATE OF d${onlyUnconfirmed ? ', u' : ''}
), settled AS (
  DELETE FROM unconfirmed_serves u WHERE u.id = ANY($1::text[])
), rollup_change AS (
  SELECT app_id, test, created_at, serve, campaign_id, spend_micros, reason_codes, written_latency_us AS latency_us,
         matched_category_ids, matched_entity_ids, -1 AS sign
  FROM target
  UNION ALL
  SELECT app_id, test, created_at, false, NULL, 0, '{TIMEOUT}'::text[], latency_us, matched_category_ids, matched_entity_ids, 1
  FROM target
), corrected AS (
  UPDATE decisions d SET serve = false, reason_codes = '{TIMEOUT}', offer_snapshot_id = NULL, campaign_id = NULL,
    expires_at = NULL, spend_micros = 0, latency_us = target.latency_us
  FROM target WHERE d.id = target.id AND d.created_at = target.created_at
), unspent AS (
  SELECT campaign_id, day, sum(spend_micros)::bigint AS micros, count(*)::bigint AS serves
  FROM target WHERE serve AND spend_micros > 0 GROUP BY 1, 2
), daily AS (
  UPDATE campaign_spend_daily s SET spend_micros = s.spend_micros - u.micros, serves = s.serves - u.serves
  FROM unspent u WHERE s.campaign_id = u.campaign_id AND s.day = u.day
), total AS (
  UPDATE campaign_spend_total s SET spend_micros = s.spend_micros - u.micros, serves = s.serves - u.serves
  FROM (SELECT campaign_id, sum(micros) AS micros, sum(serves) AS serves FROM unspent GROUP BY 1) u
  WHERE s.campaign_id = u.campaign_id
), ${foldDecisions('rollup_change', 'decided')}
SELECT count(*) FROM target`;
const CORRECT_TIMED_OUT = correctTimedOut(false);
const CORRECT_UNCONFIRMED = correctTimedOut(true);

// Served rows whose answer went out in time: counted from now on, never swept.
const CONFIRM_SERVES = 'DELETE FROM unconfirmed_serves WHERE id = ANY($1::text[])';

// Served rows still unconfirmed, written before $1: their decide never confirmed them. (An id
// whose decision row is gone, its day dropped, comes back with no latency: the sweep's
// correction then only clears it.)
const UNCONFIRMED_BEFORE = `
SELECT u.id, coalesce(d.latency_us, 0) AS latency_us
FROM unconfirmed_serves u LEFT JOIN decisions d ON d.id = u.id AND d.created_at = u.created_at
WHERE u.created_at < $1::timestamptz ORDER BY u.created_at LIMIT $2`;

/** For the report rollups' funnel (foldFunnelSteps): the decisions named in CTE `reached`, with
 *  what their counts are kept under. Each is found by its primary key (id, the time its id
 *  carries) in its one day partition (migration 009); `LIMIT 1` keeps each lookup a probe of its
 *  own, so the planner cannot turn it into a scan of every day kept. Ids from before ids carried
 *  a time are probed in every partition. */
export const decisionsReaching = (reached: string) => {
  const columns = `d.id, d.created_at, d.app_id, d.test, ${campaignKey('d.serve', 'd.campaign_id')} AS campaign_id`;
  return `
  SELECT ${columns} FROM (SELECT DISTINCT decision_id FROM ${reached} WHERE decision_id_time(decision_id) IS NOT NULL) x
  CROSS JOIN LATERAL (SELECT * FROM decisions d WHERE d.id = x.decision_id AND d.created_at = decision_id_time(x.decision_id) LIMIT 1) d
  UNION ALL
  SELECT ${columns} FROM (SELECT DISTINCT decision_id FROM ${reached} WHERE decision_id_time(decision_id) IS NULL) x
  CROSS JOIN LATERAL (SELECT * FROM decisions d WHERE d.id = x.decision_id LIMIT 1) d`;
};

// Lifetime and one UTC day's spend of each campaign, as committed (0 for one that never spent).
const SPEND_OF = `
SELECT c.id AS campaign_id, coalesce(t.spend_micros, 0) AS total, coalesce(d.spend_micros, 0) AS today
FROM unnest($1::text[]) AS c(id)
LEFT JOIN campaign_spend_total t ON t.campaign_id = c.id
LEFT JOIN campaign_spend_daily d ON d.campaign_id = c.id AND d.day = $2::date`;

/** Thrown to roll a rehearsal back. */
class RolledBack extends Error {}

/** The time each decision id carries: its row's created_at, which names its day partition. */
function idTimes(rows: ReadonlyArray<{ id: string }>): Date[] {
  const times = rows.map((r) => new Date(decisionIdTime(r.id) ?? Number.NaN));
  if (times.some((t) => Number.isNaN(t.getTime()))) throw new Error('decision ids that carry their time are needed here');
  return times;
}

/** What the explanation names beyond the decision lookup's fields. */
export interface DecisionEvidence {
  implied_category_ids: string[];
  policy_reasons: string[];
  reading_over_budget: boolean;
  excluded_by_app: boolean;
}

export interface DecisionOwnership {
  appId: string;
  offerSnapshotId: string | null;
  createdAt: Date;
  test: boolean;
}

export interface DecisionMetadata {
  decision_id: string;
  request_id: string;
  kind: DecisionKind;
  test: boolean;
  created_at: string;
  serve: boolean;
  reason_codes: string[];
  offer_snapshot_id: string | null;
  campaign_id: string | null;
  expires_at: string | null;
  locale: string | null;
  country: string | null;
  intent_type: string | null;
  matched_category_ids: string[];
  matched_entity_ids: string[];
  dropped_digest_ids: number;
  latency_ms: number;
  events: ImpressionCounts & {
    clicks: number;
    conversions: number;
    click_intents: number;
  };
}

/** What followed a decision, counted by the repositories that own those tables (events,
 *  clicks, conversions, click intents). Passed in by app.ts, so this folder imports none of them. */
export interface DecisionActivity {
  events: { countsOfDecision(decisionId: string): Promise<ImpressionCounts> };
  clicks: { countOfDecision(decisionId: string): Promise<number> };
  conversions: { countOfDecision(decisionId: string): Promise<number> };
  clickIntents: { clickIntentsOfDecision(decisionId: string): Promise<number> };
}

/** Remembered positive answers per repository; cleared whole when full (they are cheap to refetch). */
const MAX_REMEMBERED = 100_000;

export class DecisionRepository {
  private readonly owners = new Map<string, DecisionOwnership>();
  private readonly ownershipLoader: DataLoader<string, DecisionOwnership | null>;

  constructor(
    private readonly db: Database,
    private readonly activity: DecisionActivity,
  ) {
    // Batching only: the loader's own per-key memo would keep negative answers and grow without
    // bound; positives are remembered below instead.
    this.ownershipLoader = new DataLoader((ids) => this.loadOwnership(ids), { cache: false, maxBatchSize: 1000 });
  }

  /** Inserts a batch of decision rows and adds their spend to the ledger, in one statement. */
  async insert(rows: DecisionRecord[]): Promise<void> {
    checkCreatedAt(rows);
    await this.db.query(INSERT_DECISIONS, DECISION_ROWS.params(rows));
  }

  /** Runs the insert of `rows` (rows, ledger, rollups) and their confirmation, and rolls both
   *  back: at start, so that the first decide does not pay for the statements' first run (on
   *  PGlite, tens of ms). */
  async rehearseInsert(rows: DecisionRecord[]): Promise<void> {
    checkCreatedAt(rows);
    await this.db
      .transaction(async (tx) => {
        await tx.query(INSERT_DECISIONS, DECISION_ROWS.params(rows));
        await tx.query(CONFIRM_SERVES, [rows.map((r) => r.id)]);
        throw new RolledBack();
      })
      .catch((err) => {
        if (!(err instanceof RolledBack)) throw err;
      });
  }

  /** Inserts TIMEOUT rows whose id is not taken yet; returns the ids inserted. */
  async insertTimedOut(rows: DecisionRecord[]): Promise<Set<string>> {
    checkCreatedAt(rows);
    const r = await this.db.query<{ id: string }>(INSERT_TIMEOUTS, TIMEOUT_ROWS.params(rows));
    return new Set(r.rows.map((x) => x.id));
  }

  /** Turns written rows into TIMEOUT rows and takes a served row's spend off the ledger. */
  async correctTimedOut(rows: ReadonlyArray<{ id: string; latencyUs: number }>, onlyUnconfirmed = false): Promise<number> {
    const r = await this.db.query<{ count: string }>(onlyUnconfirmed ? CORRECT_UNCONFIRMED : CORRECT_TIMED_OUT, [
      rows.map((r) => r.id),
      rows.map((r) => r.latencyUs),
      idTimes(rows),
    ]);
    return Number(r.rows[0]?.count ?? 0);
  }

  /** Served rows whose answer went out in time: they count from now on. */
  async confirmServes(ids: readonly string[]): Promise<void> {
    await this.db.query(CONFIRM_SERVES, [ids]);
  }

  /** Served rows written before `before` and never confirmed (at most `limit`, oldest first). */
  async unconfirmedBefore(before: Date, limit: number): Promise<Array<{ id: string; latencyUs: number }>> {
    const r = await this.db.query<{ id: string; latency_us: number }>(UNCONFIRMED_BEFORE, [before.toISOString(), limit]);
    return r.rows.map((x) => ({ id: x.id, latencyUs: x.latency_us }));
  }

  /** The ledger's figures: lifetime and `day` spend of each campaign (0 for one that never spent). */
  async spendOf(campaignIds: readonly string[], day: string): Promise<LedgerSpend[]> {
    if (campaignIds.length === 0) return [];
    const r = await this.db.query<{ campaign_id: string; total: number; today: number }>(SPEND_OF, [[...campaignIds], day]);
    return r.rows.map((row) => ({ campaignId: row.campaign_id, totalMicros: Number(row.total), day, dayMicros: Number(row.today) }));
  }

  private async loadOwnership(ids: readonly string[]): Promise<(DecisionOwnership | null)[]> {
    type Row = { id: string; app_id: string; offer_snapshot_id: string | null; created_at: Date; test: boolean };
    const { timed, times, untimed } = byTime(ids);
    const rows: Row[] = [];
    if (timed.length > 0) {
      const r = await this.db.query<Row>(
        'SELECT id, app_id, offer_snapshot_id, created_at, test FROM decisions WHERE id = ANY($1::text[]) AND created_at = ANY($2::timestamptz[])',
        [timed, times],
      );
      rows.push(...r.rows);
    }
    if (untimed.length > 0) {
      const r = await this.db.query<Row>('SELECT id, app_id, offer_snapshot_id, created_at, test FROM decisions WHERE id = ANY($1::text[])', [untimed]);
      rows.push(...r.rows);
    }
    const found = new Map(rows.map((d) => [d.id, { appId: d.app_id, offerSnapshotId: d.offer_snapshot_id, createdAt: d.created_at, test: d.test }]));
    return ids.map((id) => found.get(id) ?? null);
  }

  async ownership(decisionId: string): Promise<DecisionOwnership | null> {
    const known = this.owners.get(decisionId);
    if (known) return known;
    const d = await this.ownershipLoader.load(decisionId);
    if (d) {
      if (this.owners.size >= MAX_REMEMBERED) this.owners.clear();
      this.owners.set(decisionId, d);
    }
    return d;
  }

  /** The calling app's decision with its event counts; another app's decision is simply absent. */
  async lookup(appId: string, decisionId: string): Promise<DecisionMetadata | null> {
    const found = await this.lookupWithEvidence(appId, decisionId);
    if (!found) return null;
    const { implied_category_ids: _implied, policy_reasons: _policy, reading_over_budget: _budget, excluded_by_app: _excluded, ...metadata } = found;
    return metadata;
  }

  /** As `lookup`, plus the evidence only the explanation names: the categories a served offer
   *  met only as implied by a named entity, what a POLICY_BLOCK stood on, and whether the
   *  reading ran out of steps. The decision lookup does not carry them. */
  // Every count is what arrived for the decision, counted or not (a test key's events, a bot's
  // click, a qualified impression before any render): the integrator checking its integration
  // sees each call it made. What counts for reports and billing is the reports' business.
  async lookupWithEvidence(appId: string, decisionId: string): Promise<(DecisionMetadata & DecisionEvidence) | null> {
    const at = decisionIdTime(decisionId);
    const r = await this.db.query<Record<string, unknown> & { created_at: Date; expires_at: Date | null }>(
      at === null
        ? 'SELECT * FROM decisions WHERE id = $1 AND app_id = $2'
        : 'SELECT * FROM decisions WHERE id = $1 AND app_id = $2 AND created_at = $3::timestamptz',
      at === null ? [decisionId, appId] : [decisionId, appId, new Date(at)],
    );
    const d = r.rows[0];
    if (!d) return null;
    const { events, clicks, conversions, clickIntents } = this.activity;
    const [impressions, clickCount, conversionCount, clickIntentCount] = await Promise.all([
      events.countsOfDecision(decisionId),
      clicks.countOfDecision(decisionId),
      conversions.countOfDecision(decisionId),
      clickIntents.clickIntentsOfDecision(decisionId),
    ]);
    return {
      decision_id: d.id as string,
      request_id: d.request_id as string,
      kind: d.kind as DecisionKind,
      test: d.test as boolean,
      created_at: d.created_at.toISOString(),
      serve: d.serve as boolean,
      reason_codes: d.reason_codes as string[],
      offer_snapshot_id: (d.offer_snapshot_id as string | null) ?? null,
      campaign_id: (d.campaign_id as string | null) ?? null,
      expires_at: d.expires_at ? d.expires_at.toISOString() : null,
      locale: (d.locale as string | null) ?? null,
      country: (d.country as string | null) ?? null,
      intent_type: (d.intent_type as string | null) ?? null,
      matched_category_ids: d.matched_category_ids as string[],
      matched_entity_ids: d.matched_entity_ids as string[],
      implied_category_ids: (d.implied_category_ids as string[] | null) ?? [],
      policy_reasons: (d.policy_reasons as string[] | null) ?? [],
      reading_over_budget: (d.reading_over_budget as boolean | null) ?? false,
      excluded_by_app: (d.excluded_by_app as boolean | null) ?? false,
      dropped_digest_ids: d.dropped_digest_ids as number,
      latency_ms: Math.round((d.latency_us as number) / 10) / 100,
      events: {
        ...impressions,
        clicks: clickCount,
        conversions: conversionCount,
        click_intents: clickIntentCount,
      },
    };
  }
}

/** A decision whose id carries a time is recorded at exactly that time: its lookups find it by
 *  (id, created_at), in the one day partition the time names. */
function checkCreatedAt(rows: readonly DecisionRecord[]): void {
  for (const r of rows) {
    const at = decisionIdTime(r.id);
    if (at !== null && at !== r.createdAt.getTime()) throw new Error(`decision ${r.id} recorded at another time than its id carries`);
  }
}

/** Ids that carry their time (looked up with it, in their own partitions) and ids from before. */
function byTime(ids: readonly string[]): { timed: string[]; times: Date[]; untimed: string[] } {
  const timed: string[] = [];
  const times: Date[] = [];
  const untimed: string[] = [];
  for (const id of ids) {
    const at = decisionIdTime(id);
    if (at === null) untimed.push(id);
    else {
      timed.push(id);
      times.push(new Date(at));
    }
  }
  return { timed, times, untimed };
}
