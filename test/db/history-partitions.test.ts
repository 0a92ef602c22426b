// History by UTC day (migration 006, src/db/history-partitions.ts): partitions made ahead at
// start, rows in their day's partition, retention dropping whole expired days only and only under
// the advisory lock, uniqueness guarantees that span days, and rows from before the migration.
import { copyFileSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADVISORY_LOCKS } from '../../src/db/advisory-locks.js';
import { HISTORY_TABLES, HistoryMaintenance, historyPartitions, partitionName, type HistoryTable } from '../../src/db/history-partitions.js';
import { migrate } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/database.js';
import { DecisionRepository } from '../../src/decisions/decision-repository.js';
import { EVENT_QUERIES, EventRepository } from '../../src/events/event-repository.js';
import { decisionIdTime, newDecisionId } from '../../src/util/ids.js';
import { signConversion } from '../../src/conversions/conversion-signature.js';
import {
  ADMIN,
  bearer,
  createTestApp,
  createTestCounters,
  createTestDatabase,
  usingRealPostgres,
  type TestApp,
  type TestDatabase,
  createHost,
} from '../helpers/test-env.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { decisionAt, noActivity } from '../../testkit/decision-records.js';
import { koreanTurn } from '../helpers/envelopes.js';

const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
const TABLES = Object.keys(HISTORY_TABLES) as HistoryTable[];
const engine = usingRealPostgres ? 'Postgres' : 'PGlite';
const KEEP_90: Record<HistoryTable, number> = { decisions: 90, events: 90, clicks: 90, conversions: 90, affiliate_impressions: 90, click_intents: 90 };

const envelope = koreanTurn('제주도 호텔 최저가 알려줘');

describe(`history partitions (${engine})`, () => {
  let t: TestApp & { testDb: TestDatabase };
  let host: { app_id: string; serving_key: string; conversion_secret: string };

  beforeAll(async () => {
    t = await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 100_000 });
    await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
    host = await createHost(t.app, 'History host');
  });
  afterAll(() => t?.close());

  it('has each table partitioned by day, from yesterday to the days ahead, once the service started', async () => {
    for (const table of TABLES) {
      const names = await historyPartitions(t.db, table);
      for (let d = -1; d <= 7; d++) expect(names, `${table} day ${d}`).toContain(partitionName(table, today + d * DAY));
    }
  });

  it('writes each row into the partition of its day, and finds a decision by id in it', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(host.serving_key), payload: envelope });
    const d = res.json();
    expect(d.serve).toBe(true);
    const ev = await t.app.inject({
      method: 'POST',
      url: '/v1/events/rendered',
      headers: { ...bearer(host.serving_key), 'idempotency-key': `part-${Date.now()}` },
      payload: { offer_snapshot_id: d.offer_id, decision_id: d.decision_id },
    });
    expect(ev.json().inserted).toBe(true);
    const where = async (table: string, column: string, id: string) =>
      (await t.db.query<{ part: string; at: Date }>(`SELECT tableoid::regclass::text AS part, created_at AS at FROM ${table} WHERE ${column} = $1`, [id])).rows;
    const [decision] = await where('decisions', 'id', d.decision_id);
    expect(decision.part).toBe(partitionName('decisions', Math.floor(decision.at.getTime() / DAY) * DAY));
    const [event] = await where('events', 'id', ev.json().event_id);
    expect(event.part).toBe(partitionName('events', Math.floor(event.at.getTime() / DAY) * DAY));
    const lookup = await t.app.inject({ method: 'GET', url: `/v1/decisions/${d.decision_id}`, headers: bearer(host.serving_key) });
    expect(lookup.json()).toMatchObject({ decision_id: d.decision_id, events: { offer_rendered: 1 } });
    if (usingRealPostgres) {
      // The id names its day: the lookup reads one partition, whatever the number of days kept.
      const plan = await t.db.query<{ 'QUERY PLAN': string }>('EXPLAIN SELECT * FROM decisions WHERE id = $1 AND created_at = $2::timestamptz', [
        d.decision_id,
        decision.at,
      ]);
      const scanned = plan.rows.map((r) => r['QUERY PLAN']).filter((l) => /decisions_p\d{8}/.test(l));
      expect(scanned).toHaveLength(1);
    }
  });
});

describe(`reaching a decision from the rows that name it (${engine})`, () => {
  let t: TestApp & { testDb: TestDatabase };
  let host: { app_id: string; serving_key: string };
  let snapshot: { snapshotId: string; campaignId: string };

  beforeAll(async () => {
    t = await createTestApp({ loadDemoCatalog: false });
    await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
    host = await createHost(t.app, 'Reaching host');
    const r = await t.db.query<{ id: string; campaign_id: string }>(
      'SELECT s.id, o.campaign_id FROM offer_snapshots s JOIN offers o ON o.id = s.offer_id LIMIT 1',
    );
    snapshot = { snapshotId: r.rows[0].id, campaignId: r.rows[0].campaign_id };
  });
  afterAll(() => t?.close());

  it('reads the time a decision id carries in SQL exactly as the service does (migration 009)', async () => {
    const ids = Array.from({ length: 300 }, (_, i) => newDecisionId(Date.UTC(2020, 0, 1) + i * 987_654_321 + (i % 1000)));
    const r = await t.db.query<{ id: string; at: Date | null }>('SELECT id, decision_id_time(id) AS at FROM unnest($1::text[]) AS x(id)', [
      [...ids, 'dec_0123456789ABCDEFGHIJKL', 'not-a-decision'],
    ]);
    const read = new Map(r.rows.map((x) => [x.id, x.at?.getTime() ?? null]));
    for (const id of ids) expect(read.get(id), id).toBe(decisionIdTime(id));
    // An id from before ids carried a time, and anything else, carries none.
    expect(read.get('dec_0123456789ABCDEFGHIJKL')).toBeNull();
    expect(read.get('not-a-decision')).toBeNull();
  });

  it('counts the events of a decision whose id carries no time (made before ids did), in lookups and the funnel', async () => {
    const legacy = { ...decisionAt(host.app_id, Date.now() - 3 * 3600_000, { ...snapshot, spend: 0 }), id: `dec_${'L'.repeat(22)}` };
    await new DecisionRepository(t.db, noActivity).insert([legacy]);
    for (const [path, key] of [
      ['/v1/events/rendered', 'legacy-r'],
      ['/v1/events/qualified-impression', 'legacy-q'],
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: path,
        headers: { ...bearer(host.serving_key), 'idempotency-key': key },
        payload: { offer_snapshot_id: snapshot.snapshotId, decision_id: legacy.id },
      });
      expect(res.statusCode, path).toBe(200);
    }
    // The qualified impression counts only if the rendered event of the same decision is found.
    const events = await t.db.query<{ type: string; counted: boolean }>('SELECT type, counted FROM events WHERE decision_id = $1 ORDER BY type', [legacy.id]);
    expect(events.rows).toEqual([
      { type: 'offer_rendered', counted: true },
      { type: 'qualified_impression', counted: true },
    ]);
    const lookup = (await t.app.inject({ method: 'GET', url: `/v1/decisions/${legacy.id}`, headers: bearer(host.serving_key) })).json();
    expect(lookup.events).toMatchObject({ offer_rendered: 1, qualified_impression: 1 });
    const marks = await t.db.query<{ step: string }>('SELECT step FROM report_funnel_marks WHERE decision_id = $1 ORDER BY step', [legacy.id]);
    expect(marks.rows.map((m) => m.step)).toEqual(['qualified', 'rendered']);
  });

  it.skipIf(!usingRealPostgres)('probes one day for each decision a batch names, also in a day without statistics', async () => {
    // The plan the service runs: its statements are prepared, and after a few runs Postgres uses
    // the generic plan, which assumes ten rows for each unnest() of a parameter.
    const plan = (sql: string, params: unknown[]) =>
      t.db.transaction(async (tx) => {
        await tx.query('SET LOCAL plan_cache_mode = force_generic_plan');
        return (await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params)).rows.map((r) => r['QUERY PLAN']).join('\n');
      });
    const id = newDecisionId(Date.now());
    // A busy day's events, written since midnight and not yet analysed.
    await t.db.query(
      `INSERT INTO events (id, app_id, type, offer_snapshot_id, decision_id, idempotency_key, request_hash, test, counted, created_at)
       SELECT 'evt_busy' || i, $1, CASE WHEN i % 2 = 0 THEN 'offer_rendered' ELSE 'qualified_impression' END, $2, 'dec_busy_' || (i / 2), 'busy-key-' || i,
              '\\x00', false, true, now()
       FROM generate_series(1, 5000) AS i`,
      [host.app_id, snapshot.snapshotId],
    );
    // Today's partitions were never analysed: as one join, the rendered check read the whole day.
    const rendered = await plan(EVENT_QUERIES.rendered, [
      [host.app_id, host.app_id],
      [id, newDecisionId(Date.now() - DAY)],
    ]);
    expect(rendered).not.toMatch(/Seq Scan on events_p/);
    expect(rendered).toMatch(/Index Scan using events_p\d{8}_decision_id_idx/);
  });
});

describe(`retention (${engine})`, () => {
  let testDb: TestDatabase;
  let appId: string;
  let snapshot: { snapshotId: string; campaignId: string };

  beforeAll(async () => {
    testDb = await createTestDatabase();
    const t = await createTestApp({ loadDemoCatalog: false }, { testDb, counters: createTestCounters() });
    await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
    appId = (await createHost(t.app, 'Retention host')).app_id;
    const r = await testDb.db.query<{ id: string; campaign_id: string }>(
      'SELECT s.id, o.campaign_id FROM offer_snapshots s JOIN offers o ON o.id = s.offer_id LIMIT 1',
    );
    snapshot = { snapshotId: r.rows[0].id, campaignId: r.rows[0].campaign_id };
    await t.close();
  });
  afterAll(() => testDb?.drop());

  /** Days of decisions 95, 91, 90 and 10 days old, each served (so each is on the spend ledger). */
  async function writeHistory(db: Database) {
    // The partitions of those days, made as the service made them then.
    for (const age of [95, 91, 90, 10]) {
      await new HistoryMaintenance(db, { retentionDays: { ...KEEP_90, decisions: 0 }, daysAhead: 1 }, { now: () => today - age * DAY + 12 * 3600_000 }).run({
        wait: true,
      });
    }
    const repo = new DecisionRepository(db, noActivity);
    const rows = [95, 91, 90, 10].map((age) => decisionAt(appId, today - age * DAY + 3600_000, { ...snapshot, spend: 1000 }));
    await repo.insert(rows);
    return rows;
  }

  it('drops only the days past retention, whole, and never the spend ledger', async () => {
    const rows = await writeHistory(testDb.db);
    const ledgerBefore = (await testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM campaign_spend_daily')).rows[0].n;
    const report = await new HistoryMaintenance(testDb.db, { retentionDays: KEEP_90, daysAhead: 7 }).run();
    // A day goes once all of it is older than 90 days: the 95- and 91-day-old days, not the 90th.
    expect(report?.dropped).toContain(partitionName('decisions', today - 95 * DAY));
    expect(report?.dropped).toContain(partitionName('decisions', today - 91 * DAY));
    const names = await historyPartitions(testDb.db, 'decisions');
    expect(names).not.toContain(partitionName('decisions', today - 95 * DAY));
    expect(names).toContain(partitionName('decisions', today - 90 * DAY));
    expect(names).toContain(partitionName('decisions', today - 10 * DAY));
    const left = (await testDb.db.query<{ id: string }>('SELECT id FROM decisions WHERE id = ANY($1::text[])', [rows.map((r) => r.id)])).rows.map((r) => r.id);
    expect(left.sort()).toEqual([rows[2].id, rows[3].id].sort());
    const ledgerAfter = (await testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM campaign_spend_daily')).rows[0].n;
    expect(ledgerAfter).toBe(ledgerBefore);
    // Days of the other tables past retention go too; today's and those ahead stay.
    expect(await historyPartitions(testDb.db, 'events')).not.toContain(partitionName('events', today - 95 * DAY));
    expect(await historyPartitions(testDb.db, 'events')).toContain(partitionName('events', today + 7 * DAY));
  });

  it.skipIf(!usingRealPostgres)('drops nothing while another instance holds the lock; of two instances at once, one does it', { timeout: 30_000 }, async () => {
    await writeHistory(testDb.db);
    const expired = partitionName('decisions', today - 95 * DAY);
    const holder = await testDb.openAnother();
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holding = holder.withConnection(async (conn) => {
      await conn.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCKS.historyMaintenance]);
      locked();
      await released;
      await conn.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCKS.historyMaintenance]);
    });
    await isLocked;
    const other = await testDb.openAnother();
    expect(await new HistoryMaintenance(other, { retentionDays: KEEP_90, daysAhead: 7 }).run()).toBeNull();
    expect(await historyPartitions(testDb.db, 'decisions')).toContain(expired);
    release();
    await holding;

    const [a, b] = await Promise.all([testDb.db, other].map((db) => new HistoryMaintenance(db, { retentionDays: KEEP_90, daysAhead: 7 }).run()));
    const dropped = [...(a?.dropped ?? []), ...(b?.dropped ?? [])];
    expect(dropped.filter((n) => n === expired)).toHaveLength(1);
    expect(await historyPartitions(testDb.db, 'decisions')).not.toContain(expired);
  });
});

describe(`guarantees across a day boundary (${engine})`, () => {
  let testDb: TestDatabase;
  let t: TestApp;
  // 10 s before the next UTC midnight, moved by the test.
  let clock = today + DAY - 10_000;
  let host: { app_id: string; serving_key: string; conversion_secret: string };

  beforeAll(async () => {
    testDb = await createTestDatabase();
    t = await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 100_000 }, { testDb, counters: createTestCounters(), now: () => clock });
    await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: miniCatalog() });
    host = await createHost(t.app, 'Midnight host');
  });
  afterAll(async () => {
    await t?.close();
    await testDb?.drop();
  });

  it('refuses a reused idempotency key and a reused nonce after midnight, and answers exact retries', async () => {
    clock = today + DAY - 10_000;
    const d = (await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(host.serving_key), payload: envelope })).json();
    expect(d.serve).toBe(true);
    const key = `midnight-${Date.now()}`;
    const render = (body: object) =>
      t.app.inject({ method: 'POST', url: '/v1/events/rendered', headers: { ...bearer(host.serving_key), 'idempotency-key': key }, payload: body });
    const first = await render({ offer_snapshot_id: d.offer_id, decision_id: d.decision_id });
    expect(first.json().inserted).toBe(true);
    const conversion = {
      offer_snapshot_id: d.offer_id,
      decision_id: d.decision_id,
      timestamp: Math.floor(clock / 1000),
      nonce: `nonce-midnight-${Date.now()}`,
    };
    const convert = (c: typeof conversion) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/events/conversion',
        headers: bearer(host.serving_key),
        payload: { ...c, signature: signConversion(host.conversion_secret, c) },
      });
    const converted = await convert(conversion);
    expect(converted.json().inserted).toBe(true);

    clock = today + DAY + 5_000; // the next day: its rows go to the next partition
    const retry = await render({ offer_snapshot_id: d.offer_id, decision_id: d.decision_id });
    expect(retry.json()).toMatchObject({ inserted: false, event_id: first.json().event_id });
    const reused = await render({ offer_snapshot_id: d.offer_id });
    expect(reused.statusCode).toBe(422);
    const again = await convert(conversion);
    expect(again.json()).toMatchObject({ inserted: false, conversion_id: converted.json().conversion_id });
    const otherContent = await convert({ ...conversion, timestamp: Math.floor(clock / 1000) });
    expect(otherContent.json()).toEqual({ ok: false, error: 'invalid_conversion' });
    const events = await testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE decision_id = $1', [d.decision_id]);
    expect(events.rows[0].n).toBe(1);
    const conversions = await testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM conversions WHERE nonce = $1', [conversion.nonce]);
    expect(conversions.rows[0].n).toBe(1);
  });

  it('forgets idempotency keys and nonces only after their retention', async () => {
    const keep = { retentionDays: KEEP_90, daysAhead: 7 };
    const keys = async () => (await testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM event_idempotency_keys')).rows[0].n;
    const events = new EventRepository(testDb.db);
    const before = await keys();
    expect(before).toBeGreaterThan(0);
    const expiry = (days: number) => ({ name: 'event_idempotency_keys', days, forgetBefore: (at: Date) => events.forgetIdempotencyKeysBefore(at) });
    const atSix = await new HistoryMaintenance(testDb.db, { ...keep, keyExpiry: [expiry(7)] }, { now: () => clock + 6 * DAY }).run({ wait: true });
    expect(atSix?.keysForgotten.event_idempotency_keys).toBe(0);
    const atEight = await new HistoryMaintenance(testDb.db, { ...keep, keyExpiry: [expiry(7)] }, { now: () => clock + 8 * DAY }).run({ wait: true });
    expect(atEight?.keysForgotten.event_idempotency_keys).toBe(before);
    expect(await keys()).toBe(0);
  });
});

describe(`migration 006 (${engine})`, () => {
  it('moves the rows written before it into the partitioned tables, keys and nonces with them', { timeout: 60_000 }, async () => {
    // A database at migration 005 or earlier, with history in every table.
    const migrations = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../src/db/migrations');
    const before = mkdtempSync(path.join(tmpdir(), 'sidenote-mig-'));
    for (const f of readdirSync(migrations).filter((f) => f < '006')) copyFileSync(path.join(migrations, f), path.join(before, f));
    const testDb = await createTestDatabase();
    // A fresh database of its own for this test: drop what createTestDatabase migrated.
    const db = testDb.db;
    try {
      await db.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public;');
      await migrate(db, before);
      const old = Date.UTC(2026, 0, 15, 10);
      const at = (ms: number) => new Date(ms).toISOString();
      await db.exec(`
        INSERT INTO apps (id, name) VALUES ('app_old', 'Old host');
        INSERT INTO advertisers (id, name, status) VALUES ('adv', 'Adv', 'active');
        INSERT INTO campaigns (id, advertiser_id, status, bid_micros, priority, budget_total_micros, budget_daily_micros, frequency_cap_count, frequency_cap_window_s, offer_ttl_s)
          VALUES ('cmp', 'adv', 'active', 1000, 5, 10000000, 1000000, 3, 3600, 3600);
        INSERT INTO offers (id, campaign_id) VALUES ('off', 'cmp');
        INSERT INTO offer_snapshots (id, offer_id, content_hash, content) VALUES ('snp_old', 'off', '\\x00', '{}');
        INSERT INTO decisions (id, app_id, request_id, kind, created_at, serve, reason_codes, offer_snapshot_id, campaign_id, latency_us, spend_micros)
          VALUES ('dec_old1', 'app_old', 'r1', 'affiliate', '${at(old)}', true, '{MATCHED}', 'snp_old', 'cmp', 10, 1000),
                 ('dec_old2', 'app_old', 'r2', 'offer', '${at(old + DAY)}', false, '{LOW_INTENT}', NULL, NULL, 10, 0);
        INSERT INTO events (id, app_id, type, offer_snapshot_id, decision_id, idempotency_key, request_hash, created_at)
          VALUES ('evt_old', 'app_old', 'offer_rendered', 'snp_old', 'dec_old1', 'old-key-123', '\\x01', '${at(old + 60_000)}');
        INSERT INTO clicks (id, decision_id, app_id, offer_snapshot_id, created_at, counted)
          VALUES ('clk_old', 'dec_old1', 'app_old', 'snp_old', '${at(old + 120_000)}', true);
        INSERT INTO conversions (id, app_id, offer_snapshot_id, decision_id, nonce, signed_at, request_hash, created_at)
          VALUES ('cnv_old', 'app_old', 'snp_old', 'dec_old1', 'old-nonce-1', '${at(old)}', '\\x02', '${at(old + DAY + 60_000)}');
        INSERT INTO affiliate_impressions (id, token_hash, decision_id, app_id, network_id, offer_snapshot_id, expires_at, created_at)
          VALUES ('aim_old', '\\x03', 'dec_old1', 'app_old', 'net', 'snp_old', '${at(old + DAY)}', '${at(old)}');
        INSERT INTO click_intents (id, affiliate_impression_id, event_id, created_at)
          VALUES ('cli_old', 'aim_old', 'e1', '${at(old + 2 * DAY)}');
        INSERT INTO campaign_spend_total (campaign_id, spend_micros, serves) VALUES ('cmp', 1000, 1);
      `);
      // 006, and whatever later migrations there are.
      expect((await migrate(db))[0]).toBe('006_history_partitions.sql');

      const part = async (table: string, id: string) =>
        (await db.query<{ part: string }>(`SELECT tableoid::regclass::text AS part FROM ${table} WHERE id = $1`, [id])).rows[0]?.part;
      expect(await part('decisions', 'dec_old1')).toBe('decisions_p20260115');
      expect(await part('decisions', 'dec_old2')).toBe('decisions_p20260116');
      expect(await part('events', 'evt_old')).toBe('events_p20260115');
      expect(await part('clicks', 'clk_old')).toBe('clicks_p20260115');
      expect(await part('conversions', 'cnv_old')).toBe('conversions_p20260116');
      expect(await part('affiliate_impressions', 'aim_old')).toBe('affiliate_impressions_p20260115');
      // With its impression's day, though it was made two days later.
      expect(await part('click_intents', 'cli_old')).toBe('click_intents_p20260115');
      // The ledger is not history: the migration leaves it as it was.
      const ledger = await db.query<{ spend_micros: number }>('SELECT spend_micros FROM campaign_spend_total WHERE campaign_id = $1', ['cmp']);
      expect(ledger.rows[0].spend_micros).toBe(1000);

      // An old decision id carries no time: it is still found.
      const decisions = new DecisionRepository(db, noActivity);
      expect(await decisions.ownership('dec_old1')).toMatchObject({ appId: 'app_old', offerSnapshotId: 'snp_old' });
      // The old key and nonce still hold.
      await new HistoryMaintenance(db, {
        retentionDays: { ...KEEP_90, decisions: 0, events: 0, clicks: 0, conversions: 0, affiliate_impressions: 0, click_intents: 0 },
        daysAhead: 1,
      }).run({ wait: true });
      const events = new EventRepository(db);
      const [dup] = await events.insertImpressions([
        {
          id: 'evt_new',
          appId: 'app_old',
          type: 'offer_rendered',
          offerSnapshotId: 'snp_old',
          decisionId: null,
          idempotencyKey: 'old-key-123',
          requestHash: Buffer.from([9]),
          test: false,
          counted: true,
          notCountedReason: null,
          createdAt: new Date(),
        },
      ]);
      expect(dup).toEqual({ inserted: false, eventId: 'evt_old', sameRequest: false, type: 'offer_rendered' });
      const nonce = await db.query<{ conversion_id: string }>('SELECT conversion_id FROM conversion_nonces WHERE app_id = $1 AND nonce = $2', [
        'app_old',
        'old-nonce-1',
      ]);
      expect(nonce.rows[0].conversion_id).toBe('cnv_old');
    } finally {
      await testDb.drop();
    }
  });
});
