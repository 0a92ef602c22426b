// The report rollups against the raw rows they count. Generated traffic (several apps and
// campaigns, test-key traffic, no-fills with their reasons, TIMEOUT rows and corrections,
// counted and not-counted events, repeated events, clicks and conversions, some written
// concurrently) goes through the real writers; every figure the report reads from the rollups
// must equal the same figure computed from the raw rows, for every range, app filter and test
// switch. Latency percentiles come from a histogram and must be within its 4.4% of
// percentile_cont.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppRepository } from '../../src/apps/app-repository.js';
import { CatalogRepository } from '../../src/catalog/catalog-repository.js';
import { ClickRepository } from '../../src/links/click-repository.js';
import { ConversionRepository } from '../../src/conversions/conversion-repository.js';
import { DecisionRepository, type DecisionRecord } from '../../src/decisions/decision-repository.js';
import { EventRepository, type ImpressionRow } from '../../src/events/event-repository.js';
import { ImpressionType } from '../../src/events/event-schemas.js';
import type { ClickRow } from '../../src/links/click-repository.js';
import { REPORT_RANGES, type ReportRange } from '../../src/reporting/report.js';
import { ReportRepository, type ReportWindow } from '../../src/reporting/report-repository.js';
import { percentileUs } from '../../src/reporting/latency-histogram.js';
import { decisionIdTime, newDecisionId, newId } from '../../src/util/ids.js';
import { HistoryMaintenance, HISTORY_TABLES, type HistoryTable } from '../../src/db/history-partitions.js';
import { createTestDatabase, usingRealPostgres, type TestDatabase } from '../helpers/test-env.js';
import type { Database } from '../../src/db/database.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { noActivity } from '../../testkit/decision-records.js';
import { seededRandom } from '../../testkit/seeded-random.js';

const engine = usingRealPostgres ? 'Postgres' : 'PGlite';
const MINUTE = 60_000;
// The end of every range: a whole minute, as the report makes it.
const UNTIL = Math.ceil(Date.now() / MINUTE) * MINUTE;

// The figures as the reports computed them from the raw rows before the rollups existed.
// $1 from, $2 until, $3 app id or null, $4 include test traffic, $5 bucket seconds.
const RAW_FILTER = 'd.created_at >= $1 AND d.created_at < $2 AND ($3::text IS NULL OR d.app_id = $3) AND ($4::boolean OR NOT d.test)';
const RENDERED = "EXISTS (SELECT 1 FROM events e WHERE e.decision_id = d.id AND e.type = 'offer_rendered' AND e.counted)";
const QUALIFIED = "EXISTS (SELECT 1 FROM events e WHERE e.decision_id = d.id AND e.type = 'qualified_impression' AND e.counted)";
const CLICKED = 'EXISTS (SELECT 1 FROM clicks c WHERE c.decision_id = d.id AND c.counted)';
const CONVERTED = 'EXISTS (SELECT 1 FROM conversions v WHERE v.decision_id = d.id AND NOT v.test)';
const RAW = {
  timeline: `SELECT floor(extract(epoch FROM d.created_at) / $5)::bigint * $5 AS bucket, count(*)::int AS decides, (count(*) FILTER (WHERE d.serve))::int AS fills,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY d.latency_us) AS p50, percentile_cont(0.9) WITHIN GROUP (ORDER BY d.latency_us) AS p90,
      percentile_cont(0.99) WITHIN GROUP (ORDER BY d.latency_us) AS p99
    FROM decisions d WHERE ${RAW_FILTER} GROUP BY 1 ORDER BY 1`,
  reasons: `SELECT floor(extract(epoch FROM d.created_at) / $5)::bigint * $5 AS bucket, r.reason, count(*)::int AS n
    FROM decisions d, unnest(d.reason_codes) AS r(reason) WHERE ${RAW_FILTER} AND NOT d.serve AND $5 > 0 GROUP BY 1, 2 ORDER BY 1, 2`,
  byApp: `SELECT d.app_id AS id, max(a.name) AS name, count(*)::int AS decides, (count(*) FILTER (WHERE d.serve))::int AS served,
      (count(*) FILTER (WHERE ${RENDERED}))::int AS rendered, (count(*) FILTER (WHERE ${QUALIFIED}))::int AS qualified,
      (count(*) FILTER (WHERE ${CLICKED}))::int AS clicks, (count(*) FILTER (WHERE ${CONVERTED}))::int AS conversions
    FROM decisions d JOIN apps a ON a.id = d.app_id WHERE ${RAW_FILTER} AND $5 > 0 GROUP BY 1 ORDER BY served DESC, decides DESC, id`,
  byCampaign: `SELECT d.campaign_id AS id, d.campaign_id AS name, count(*)::int AS decides, count(*)::int AS served,
      (count(*) FILTER (WHERE ${RENDERED}))::int AS rendered, (count(*) FILTER (WHERE ${QUALIFIED}))::int AS qualified,
      (count(*) FILTER (WHERE ${CLICKED}))::int AS clicks, (count(*) FILTER (WHERE ${CONVERTED}))::int AS conversions
    FROM decisions d WHERE ${RAW_FILTER} AND d.serve AND $5 > 0 GROUP BY 1 ORDER BY served DESC, decides DESC, id LIMIT 50`,
  campaignRange: `SELECT d.campaign_id AS id, sum(d.spend_micros)::bigint AS spend_micros, count(*)::int AS served,
      (count(*) FILTER (WHERE ${RENDERED}))::int AS rendered, (count(*) FILTER (WHERE ${QUALIFIED}))::int AS qualified,
      (count(*) FILTER (WHERE ${CLICKED}))::int AS clicks
    FROM decisions d WHERE ${RAW_FILTER} AND d.serve AND $5 > 0 GROUP BY 1 ORDER BY 1`,
  // Conversions on their own time: every one, at its event_time else when received, by its app
  // and test flag.
  conversionsOccurred: `SELECT floor(extract(epoch FROM coalesce(v.occurred_at, v.created_at)) / $5)::bigint * $5 AS bucket, count(*)::int AS n
    FROM conversions v WHERE coalesce(v.occurred_at, v.created_at) >= $1 AND coalesce(v.occurred_at, v.created_at) < $2
      AND ($3::text IS NULL OR v.app_id = $3) AND ($4::boolean OR NOT v.test) GROUP BY 1 ORDER BY 1`,
  categories: `SELECT x.id, count(*)::int AS decides FROM decisions d, unnest(d.matched_category_ids) AS x(id)
    WHERE ${RAW_FILTER} AND $5 > 0 GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 10`,
  entities: `SELECT x.id, count(*)::int AS decides FROM decisions d, unnest(d.matched_entity_ids) AS x(id)
    WHERE ${RAW_FILTER} AND $5 > 0 GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 10`,
};

async function rawFigures(db: Database, w: ReportWindow) {
  const params = [w.from.toISOString(), w.until.toISOString(), w.appId, w.includeTest, w.bucketSeconds];
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const [name, sql] of Object.entries(RAW)) out[name] = (await db.query<Record<string, unknown>>(sql, params)).rows;
  return out;
}

describe(`report rollups equal the raw rows (${engine})`, () => {
  let testDb: TestDatabase;
  let db: Database;
  let other: Database;
  let apps: string[];
  const written = { decisions: 0, events: 0, clicks: 0, conversions: 0 };

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = testDb.db;
    // History is kept by UTC day (migration 006) and the service makes the days around its own
    // clock; this traffic reaches eight days back, so its days are made here, kept for ever.
    const keepAll = Object.fromEntries(Object.keys(HISTORY_TABLES).map((t) => [t, 0])) as Record<HistoryTable, number>;
    await new HistoryMaintenance(db, { retentionDays: keepAll, daysAhead: 10 }, { now: () => UNTIL - 9 * 86_400_000 }).run({ wait: true });
    // A second pool on the same database: writes from "another instance" run concurrently.
    other = await testDb.openAnother();
    await new CatalogRepository(db).import(miniCatalog());
    const snapshots = (
      await db.query<{ id: string; campaign_id: string }>('SELECT s.id, o.campaign_id FROM offer_snapshots s JOIN offers o ON o.id = s.offer_id ORDER BY s.id')
    ).rows;
    const appRepo = new AppRepository(db);
    apps = [(await appRepo.createApp('Host A')).app_id, (await appRepo.createApp('Host B')).app_id, (await appRepo.createApp('Host C')).app_id];
    const decisions = new DecisionRepository(db, noActivity);
    const decisionsElsewhere = new DecisionRepository(other, noActivity);
    const events = new EventRepository(db);
    const eventsElsewhere = new EventRepository(other);
    const clicks = new ClickRepository(db);
    const conversions = new ConversionRepository(db);

    const rnd = seededRandom(20261123);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
    const categories = ['travel', 'travel.hotels', 'electronics', 'electronics.phones'];
    const entities = ['place.jeju', 'product.iphone-16', 'brand.gadget-harbor'];
    const reasons = ['POLICY_BLOCK', 'LOW_INTENT', 'NO_ELIGIBLE_OFFER', 'LOCALE_NOT_LIVE', 'FREQUENCY_CAPPED', 'BUDGET_EXHAUSTED'];
    // 8 days back, so the 7-day range has traffic before its start; more in the last hour, and
    // some right at the range's edges.
    const times: number[] = [];
    for (let i = 0; i < 1500; i++) times.push(UNTIL - Math.floor(rnd() * 8 * 86_400_000) - 1);
    for (let i = 0; i < 300; i++) times.push(UNTIL - Math.floor(rnd() * 3_600_000) - 1);
    for (const edge of [UNTIL - 3_600_000, UNTIL - 86_400_000, UNTIL - 7 * 86_400_000]) times.push(edge, edge - 1, edge + 1, edge + 29 * MINUTE);
    times.push(UNTIL - 1);

    const rows: DecisionRecord[] = times.map((t) => {
      const serve = rnd() < 0.55;
      const snapshot = pick(snapshots);
      const test = rnd() < 0.12;
      return {
        id: newDecisionId(t),
        appId: pick(apps),
        requestId: newId('req'),
        kind: 'offer',
        test,
        createdAt: new Date(t),
        serve,
        reasonCodes: serve ? ['MATCHED'] : [...new Set([pick(reasons), ...(rnd() < 0.3 ? [pick(reasons)] : [])])],
        offerSnapshotId: serve ? snapshot.id : null,
        campaignId: serve ? snapshot.campaign_id : null,
        expiresAt: null,
        locale: 'ko-KR',
        country: 'KR',
        intentType: null,
        messageIntent: null,
        matchedCategoryIds: categories.filter(() => rnd() < 0.4),
        matchedEntityIds: entities.filter(() => rnd() < 0.3),
        impliedCategoryIds: [],
        droppedDigestIds: 0,
        policyReasons: [],
        readingOverBudget: false,
        excludedByApp: false,
        // 0.1 ms to 80 ms, log-spread like real latencies.
        latencyUs: Math.round(100 * 800 ** rnd()),
        spendMicros: serve && !test ? pick([150_000, 1_000_000, 2_000_000]) : 0,
      };
    });
    // Batches of mixed size, every other one from the second pool, two at a time.
    for (let i = 0; i < rows.length; ) {
      const size = 1 + Math.floor(rnd() * 150);
      const a = rows.slice(i, i + size);
      const b = rows.slice(i + size, i + 2 * size);
      await Promise.all([decisions.insert(a), b.length ? decisionsElsewhere.insert(b) : null]);
      i += 2 * size;
    }
    written.decisions = rows.length;

    // TIMEOUT: rows written by the pipeline corrected (served ones give their spend back) and
    // TIMEOUT rows inserted for decides that wrote none (one id already taken: not inserted).
    const corrected = rows.filter((r) => r.createdAt.getTime() > UNTIL - 3_600_000).slice(0, 12);
    await decisions.correctTimedOut(corrected.map((r) => ({ id: r.id, latencyUs: 50_000 })));
    const timeouts = [0, 1, 2].map((k) => ({
      ...rows[k],
      id: newDecisionId(UNTIL - (k + 1) * 7 * MINUTE),
      createdAt: new Date(UNTIL - (k + 1) * 7 * MINUTE),
      serve: false,
      reasonCodes: ['TIMEOUT'],
      offerSnapshotId: null,
      campaignId: null,
      spendMicros: 0,
      latencyUs: 50_500,
    }));
    const inserted = await decisions.insertTimedOut([...timeouts, { ...rows[5], reasonCodes: ['TIMEOUT'] }]);
    expect(inserted.size).toBe(3);

    // Events on served decisions as they stand now: rendered (some twice, some not counted),
    // qualified (some without a render: not counted), some with no decision id at all.
    const served = (
      await db.query<{ id: string; app_id: string; offer_snapshot_id: string; test: boolean }>(
        'SELECT id, app_id, offer_snapshot_id, test FROM decisions WHERE serve',
      )
    ).rows;
    const event = (d: (typeof served)[number], type: ImpressionRow['type'], counted: boolean, withDecision = true): ImpressionRow => ({
      id: newId('evt'),
      appId: d.app_id,
      type,
      offerSnapshotId: d.offer_snapshot_id,
      decisionId: withDecision ? d.id : null,
      idempotencyKey: newId('idem'),
      requestHash: Buffer.alloc(32),
      test: d.test,
      counted: counted && !d.test,
      notCountedReason: counted && !d.test ? null : d.test ? 'test' : 'no_prior_render',
      createdAt: new Date(),
    });
    const impressions: ImpressionRow[] = [];
    for (const d of served) {
      const rendered = rnd() < 0.7;
      if (rendered) impressions.push(event(d, 'offer_rendered', true));
      if (rendered && rnd() < 0.2) impressions.push(event(d, 'offer_rendered', true));
      if (rnd() < 0.4) impressions.push(event(d, 'qualified_impression', rendered));
      if (rnd() < 0.05) impressions.push(event(d, 'offer_rendered', true, false));
      // Every other kind the events accept joins the traffic too: the raw figures above count
      // the two kinds the report's funnel names, so a new kind given a funnel step fails here
      // until this oracle is told what it counts.
      for (const kind of ImpressionType.options) {
        if (kind !== 'offer_rendered' && kind !== 'qualified_impression' && rnd() < 0.3) impressions.push(event(d, kind, rendered));
      }
    }
    // The same decision's first counted events, written from two pools at once: marks keep
    // them one step each.
    const racing = served.filter((d) => !d.test).slice(0, 20);
    await Promise.all([
      events.insertImpressions(racing.map((d) => event(d, 'offer_rendered', true))),
      eventsElsewhere.insertImpressions(racing.map((d) => event(d, 'offer_rendered', true))),
    ]);
    for (let i = 0; i < impressions.length; i += 97) await events.insertImpressions(impressions.slice(i, i + 97));
    // A retried event batch inserts nothing and counts nothing again.
    await events.insertImpressions(impressions.slice(0, 50));
    written.events = impressions.length + 2 * racing.length;

    const clickRows: ClickRow[] = served
      .filter(() => rnd() < 0.3)
      .flatMap((d) => {
        const click = (counted: boolean): ClickRow => ({
          id: newId('clk'),
          decisionId: d.id,
          appId: d.app_id,
          offerSnapshotId: d.offer_snapshot_id,
          createdAt: new Date(),
          ipHash: 'h',
          userAgentBot: !counted,
          counted: counted && !d.test,
          notCountedReason: counted && !d.test ? null : 'bot',
        });
        return rnd() < 0.3 ? [click(true), click(true), click(false)] : [click(rnd() < 0.8)];
      });
    await clicks.insert(clickRows);
    await clicks.insert(clickRows.slice(0, 10)); // a retried batch: ON CONFLICT, nothing twice
    written.clicks = clickRows.length;

    // Conversions: some sent as they happen, some late (they happened between the decision and
    // now), some naming no decision; a few decisions converted twice.
    const decidedAt = (id: string) => Number(decisionIdTime(id));
    for (const d of served.filter(() => rnd() < 0.1)) {
      for (let k = rnd() < 0.2 ? 2 : 1; k > 0; k--) {
        const late = rnd() < 0.5;
        const withDecision = rnd() < 0.9;
        await conversions.record({
          id: newId('cnv'),
          appId: d.app_id,
          offerSnapshotId: d.offer_snapshot_id,
          decisionId: withDecision ? d.id : null,
          nonce: newId('nonce'),
          signedAt: Math.floor(Date.now() / 1000),
          requestHash: Buffer.alloc(32),
          test: d.test || rnd() < 0.1,
          createdAt: new Date(),
          occurredAt: late ? new Date(decidedAt(d.id) + Math.floor(rnd() * (Date.now() - decidedAt(d.id)))) : null,
          orderId: withDecision && rnd() < 0.3 ? newId('order') : null,
        });
        written.conversions++;
      }
    }
  }, 120_000);
  afterAll(async () => {
    if (usingRealPostgres) await other?.close();
    await testDb?.drop();
  });

  const windows = (): [string, ReportWindow][] => {
    const out: [string, ReportWindow][] = [];
    for (const range of Object.keys(REPORT_RANGES) as ReportRange[]) {
      const { ms, bucketSeconds } = REPORT_RANGES[range];
      for (const appId of [null, 'app']) {
        for (const includeTest of [false, true]) {
          const w = { from: new Date(UNTIL - ms), until: new Date(UNTIL), appId: appId && apps[1], includeTest, bucketSeconds };
          out.push([`${range} app=${appId ? 'B' : 'all'} test=${includeTest}`, w]);
        }
      }
    }
    // A range whose ends are not on half hours: minute rows at both ends, half hours between.
    out.push([
      '24h ragged',
      { from: new Date(UNTIL - 86_400_000 - 17 * MINUTE), until: new Date(UNTIL - 17 * MINUTE), appId: null, includeTest: false, bucketSeconds: 1800 },
    ]);
    return out;
  };

  it('wrote the traffic', () => {
    expect(written.decisions).toBeGreaterThan(1800);
    expect(written.events).toBeGreaterThan(500);
    expect(written.clicks).toBeGreaterThan(100);
    expect(written.conversions).toBeGreaterThan(20);
  });

  it('gives every count of every range, app filter and test switch as the raw rows do', async () => {
    const reports = new ReportRepository(db);
    for (const [name, w] of windows()) {
      const rolled = await reports.figures(w);
      const raw = await rawFigures(db, w);
      expect(
        rolled.timeline.map((p) => [Number(p.bucket), p.decides, p.fills]),
        name,
      ).toEqual(raw.timeline.map((p) => [Number(p.bucket), p.decides, p.fills]));
      const byKey = <T extends object>(xs: T[]) =>
        [...xs].map((x) => ({ ...x, bucket: 'bucket' in x ? Number(x.bucket) : undefined })).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
      expect(byKey(rolled.reasons), name).toEqual(byKey(raw.reasons));
      expect(rolled.byApp, name).toEqual(raw.byApp);
      expect(rolled.byCampaign, name).toEqual(raw.byCampaign);
      expect(byKey(rolled.campaignRange), name).toEqual(byKey(raw.campaignRange.map((r) => ({ ...r, spend_micros: Number(r.spend_micros) }))));
      expect(byKey(rolled.conversionsOccurred), name).toEqual(byKey(raw.conversionsOccurred.map((r) => ({ bucket: Number(r.bucket), n: r.n }))));
      expect(rolled.categories, name).toEqual(raw.categories);
      expect(rolled.entities, name).toEqual(raw.entities);
      // Not vacuous: the ranges hold traffic and every funnel step.
      const total = (k: 'decides' | 'rendered' | 'qualified' | 'clicks' | 'conversions') => rolled.byApp.reduce((n, r) => n + r[k], 0);
      expect(total('decides'), name).toBeGreaterThan(0);
      if (!name.startsWith('1h'))
        for (const k of ['rendered', 'qualified', 'clicks', 'conversions'] as const) expect(total(k), `${name} ${k}`).toBeGreaterThan(0);
      if (!name.startsWith('1h')) expect(rolled.conversionsOccurred.length, `${name} conversions on their day`).toBeGreaterThan(1);

      // Latency: each bucket's percentiles within the histogram's 4.4% of percentile_cont.
      const histograms = new Map<number, { bucket: number; n: number }[]>();
      for (const h of rolled.latency) histograms.set(Number(h.bucket), [...(histograms.get(Number(h.bucket)) ?? []), { bucket: h.latency_bucket, n: h.n }]);
      expect([...histograms.keys()].sort(), name).toEqual(raw.timeline.map((p) => Number(p.bucket)).sort());
      for (const p of raw.timeline) {
        const histogram = histograms.get(Number(p.bucket)) ?? [];
        expect(
          histogram.reduce((n, h) => n + h.n, 0),
          name,
        ).toBe(p.decides);
        for (const [q, exact] of [
          [0.5, p.p50],
          [0.9, p.p90],
          [0.99, p.p99],
        ] as const) {
          const approx = percentileUs(histogram, q) as number;
          expect(Math.abs(approx - Number(exact)) / Number(exact), `${name} p${q * 100} ${approx} vs ${exact}`).toBeLessThanOrEqual(0.0443);
        }
      }
    }
  });

  it('counts each funnel step once per decision, however many counted events reach it', async () => {
    const marks = await db.query<{ step: string; n: number }>('SELECT step, count(*)::int AS n FROM report_funnel_marks GROUP BY 1');
    const events = await db.query<{ n: number }>(
      "SELECT count(DISTINCT decision_id)::int AS n FROM events WHERE counted AND type = 'offer_rendered' AND decision_id IS NOT NULL",
    );
    const rendered = marks.rows.find((m) => m.step === 'rendered')?.n;
    expect(rendered).toBe(events.rows[0].n);
    const rolled = await db.query<{ n: number }>('SELECT sum(rendered)::int AS n FROM report_rollups WHERE grain = 60');
    expect(rolled.rows[0].n).toBe(rendered);
    // Half-hour rows hold what the minute rows hold.
    const grains = await db.query<{ grain: number; decides: number; spend: number; clicks: number }>(
      'SELECT grain, sum(decides)::int AS decides, sum(spend_micros)::bigint AS spend, sum(clicks)::int AS clicks FROM report_rollups GROUP BY 1 ORDER BY 1',
    );
    expect(grains.rows[0]).toMatchObject({ decides: grains.rows[1].decides, clicks: grains.rows[1].clicks });
    expect(Number(grains.rows[0].spend)).toBe(Number(grains.rows[1].spend));
  });

  it('are rebuilt from history by migrations 005 and 017 as the writers keep them', async () => {
    const snapshot = async () => {
      const out: Record<string, unknown[]> = {};
      for (const table of [
        'report_rollups',
        'report_reason_rollups',
        'report_latency_rollups',
        'report_match_rollups',
        'report_funnel_marks',
        'report_conversion_rollups',
      ]) {
        // Rows the writers took back to zero (TIMEOUT corrections) carry nothing.
        const rows = (await db.query<Record<string, unknown>>(`SELECT * FROM ${table}`)).rows.filter(
          (r) =>
            !('decides' in r) ||
            Object.entries(r).some(([k, v]) => ['decides', 'served', 'rendered', 'qualified', 'clicks', 'conversions'].includes(k) && Number(v) !== 0),
        );
        out[table] = rows
          .map((r) =>
            JSON.stringify(
              Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : typeof v === 'bigint' ? Number(v) : v])),
            ),
          )
          .sort();
      }
      return out;
    };
    const kept = await snapshot();
    const backfill = (file: string, from: string) => {
      const migration = readFileSync(new URL(`../../src/db/migrations/${file}`, import.meta.url), 'utf8');
      return migration.slice(migration.indexOf(from));
    };
    await db.exec(
      `TRUNCATE report_rollups, report_reason_rollups, report_latency_rollups, report_match_rollups, report_funnel_marks, report_conversion_rollups;
      ${backfill('005_reporting.sql', '-- Rollups of the history written before this migration')}
      ${backfill('017_conversions_on_their_day.sql', '-- Rollups of the conversions written before this migration')}`,
    );
    expect(await snapshot()).toEqual(kept);
  });
});
