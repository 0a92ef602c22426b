// Reports at scale: seeds N decisions over 7 days (with their rendered and qualified events,
// clicks and conversions) through the real writers into a scratch Postgres database, then times
// GET /admin/reports for 1h, 24h and 7d through the service's own route, and, with
// --compare-raw, the statements the report ran over the raw history before it read rollups.
//
//   DATABASE_URL=postgres://… npm run bench:reports -- [--decisions 5000000] [--runs 5] [--compare-raw] [--keep]
//   DATABASE_URL=postgres://… npm run bench:reports -- --reuse <the URL --keep printed> [--runs 20]
//
// Creates its own database on that server and drops it afterwards (--keep leaves it, and prints
// its URL). Writes bench/out/reports.{json,md}.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { AppRepository } from '../src/apps/app-repository.js';
import { CatalogRepository } from '../src/catalog/catalog-repository.js';
import { parseConfig } from '../src/config/config.js';
import { ConversionRepository } from '../src/conversions/conversion-repository.js';
import { createCounterStore } from '../src/counters/index.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { DecisionRepository, type DecisionRecord } from '../src/decisions/decision-repository.js';
import { EventRepository, type ImpressionRow } from '../src/events/event-repository.js';
import { ClickRepository, type ClickRow } from '../src/links/click-repository.js';
import { newDecisionId, newId } from '../src/util/ids.js';
import { createScratchDatabase } from './support.js';
import { seededRandom } from '../testkit/seeded-random.js';
import { makeHistoryPartitions } from '../testkit/history-partitions.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const DECISIONS = Number(arg('decisions', '5000000'));
const RUNS = Number(arg('runs', '5'));
const BATCH = Number(arg('batch', '5000'));
const COMPARE_RAW = args.includes('--compare-raw');
const KEEP = args.includes('--keep');
/** A database an earlier run kept (--keep): time the reports on it again, without seeding. */
const REUSE = arg('reuse', '');
const DAYS = 7;
const ADMIN_KEY = 'bench-admin-key-0123456789abcdef';

const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) {
  console.error('bench:reports needs DATABASE_URL (a Postgres server); PGlite with millions of rows says nothing about one.');
  process.exit(2);
}

const noActivity = {
  events: { countsOfDecision: async () => ({ offer_rendered: 0, qualified_impression: 0 }) },
  clicks: { countOfDecision: async () => 0 },
  conversions: { countOfDecision: async () => 0 },
  clickIntents: { clickIntentsOfDecision: async () => 0 },
};

// What the report ran before the rollups (src/reporting/report-repository.ts at 27096e7), for
// --compare-raw. $1 from, $2 until, $3 app id or null, $4 include test, $5 bucket seconds.
const RAW_FILTER = 'd.created_at >= $1 AND d.created_at < $2 AND ($3::text IS NULL OR d.app_id = $3) AND ($4::boolean OR NOT d.test)';
const STEP = {
  rendered: "EXISTS (SELECT 1 FROM events e WHERE e.decision_id = d.id AND e.type = 'offer_rendered' AND e.counted)",
  qualified: "EXISTS (SELECT 1 FROM events e WHERE e.decision_id = d.id AND e.type = 'qualified_impression' AND e.counted)",
  clicks: 'EXISTS (SELECT 1 FROM clicks c WHERE c.decision_id = d.id AND c.counted)',
  conversions: 'EXISTS (SELECT 1 FROM conversions v WHERE v.decision_id = d.id AND NOT v.test)',
};
const steps = Object.entries(STEP)
  .map(([k, p]) => `(count(*) FILTER (WHERE ${p}))::int AS ${k}`)
  .join(', ');
const RAW_STATEMENTS = [
  `SELECT floor(extract(epoch FROM d.created_at) / $5)::bigint * $5 AS bucket, count(*)::int, (count(*) FILTER (WHERE d.serve))::int,
     percentile_cont(0.5) WITHIN GROUP (ORDER BY d.latency_us), percentile_cont(0.9) WITHIN GROUP (ORDER BY d.latency_us),
     percentile_cont(0.99) WITHIN GROUP (ORDER BY d.latency_us) FROM decisions d WHERE ${RAW_FILTER} GROUP BY 1 ORDER BY 1`,
  `SELECT floor(extract(epoch FROM d.created_at) / $5)::bigint * $5 AS bucket, r.reason, count(*)::int FROM decisions d, unnest(d.reason_codes) AS r(reason)
     WHERE ${RAW_FILTER} AND NOT d.serve GROUP BY 1, 2`,
  `SELECT d.campaign_id, count(*)::int, ${steps} FROM decisions d WHERE ${RAW_FILTER} AND d.serve AND $5 > 0 GROUP BY 1 ORDER BY 2 DESC LIMIT 50`,
  `SELECT d.app_id, max(a.name), count(*)::int, (count(*) FILTER (WHERE d.serve))::int, ${steps} FROM decisions d JOIN apps a ON a.id = d.app_id
     WHERE ${RAW_FILTER} AND $5 > 0 GROUP BY 1`,
  `SELECT x.id, count(*)::int FROM decisions d, unnest(d.matched_category_ids) AS x(id) WHERE ${RAW_FILTER} AND $5 > 0 GROUP BY 1 ORDER BY 2 DESC LIMIT 10`,
  `SELECT x.id, count(*)::int FROM decisions d, unnest(d.matched_entity_ids) AS x(id) WHERE ${RAW_FILTER} AND $5 > 0 GROUP BY 1 ORDER BY 2 DESC LIMIT 10`,
];

const RANGES = { '1h': { ms: 3_600_000, bucket: 60 }, '24h': { ms: 86_400_000, bucket: 1800 }, '7d': { ms: 7 * 86_400_000, bucket: 21_600 } } as const;

async function seed(db: Database, other: Database, until: number) {
  const catalog = new CatalogRepository(db);
  await catalog.import(JSON.parse(readFileSync(path.join(ROOT, 'catalog/demo.json'), 'utf8')));
  const snapshots = (
    await db.query<{ id: string; campaign_id: string }>('SELECT s.id, o.campaign_id FROM offer_snapshots s JOIN offers o ON o.id = s.offer_id')
  ).rows;
  const taxonomy = (await catalog.export()).taxonomy;
  const categories = taxonomy.categories.map((c) => c.id);
  const entities = taxonomy.entities.map((e) => e.id);
  const appRepo = new AppRepository(db);
  const apps: string[] = [];
  for (const name of ['Acme Chat', 'Travel Buddy', 'Shop Assistant', 'Dev Helper']) apps.push((await appRepo.createApp(name)).app_id);
  const rnd = seededRandom(5_000_000);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const reasons = ['POLICY_BLOCK', 'LOW_INTENT', 'NO_ELIGIBLE_OFFER', 'LOCALE_NOT_LIVE', 'FREQUENCY_CAPPED', 'BUDGET_EXHAUSTED', 'CAPABILITY_UNMET'];
  const writers = [db, other].map((d) => ({
    decisions: new DecisionRepository(d, noActivity),
    events: new EventRepository(d),
    clicks: new ClickRepository(d),
    conversions: new ConversionRepository(d),
  }));
  const counts = { decisions: 0, events: 0, clicks: 0, conversions: 0 };
  const started = performance.now();

  // In time order, as writers write: a batch's rows are minutes apart, not days.
  const spacingMs = (DAYS * 86_400_000) / DECISIONS;
  const batch = (first: number, size: number) => {
    const decisions: DecisionRecord[] = [];
    const events: ImpressionRow[] = [];
    const clicks: ClickRow[] = [];
    const conversions: DecisionRecord[] = [];
    for (let i = 0; i < size; i++) {
      const serve = rnd() < 0.45;
      const snapshot = pick(snapshots);
      const test = rnd() < 0.05;
      const at = until - DAYS * 86_400_000 + Math.floor((first + i + rnd()) * spacingMs);
      const d: DecisionRecord = {
        id: newDecisionId(at),
        appId: pick(apps),
        requestId: newId('req'),
        kind: 'offer',
        test,
        createdAt: new Date(at),
        serve,
        reasonCodes: serve ? ['MATCHED'] : [pick(reasons)],
        offerSnapshotId: serve ? snapshot.id : null,
        campaignId: serve ? snapshot.campaign_id : null,
        expiresAt: null,
        locale: rnd() < 0.6 ? 'ko-KR' : 'en-US',
        country: 'KR',
        intentType: null,
        messageIntent: null,
        matchedCategoryIds: [...new Set([pick(categories), ...(rnd() < 0.5 ? [pick(categories)] : [])])],
        matchedEntityIds: rnd() < 0.6 ? [pick(entities)] : [],
        impliedCategoryIds: [],
        droppedDigestIds: 0,
        policyReasons: [],
        readingOverBudget: false,
        excludedByApp: false,
        latencyUs: Math.round(300 * 60 ** rnd()),
        spendMicros: serve && !test ? 150_000 : 0,
      };
      decisions.push(d);
      if (!serve || test) continue;
      const event = (type: ImpressionRow['type']): ImpressionRow => ({
        id: newId('evt'),
        appId: d.appId,
        type,
        offerSnapshotId: snapshot.id,
        decisionId: d.id,
        idempotencyKey: newId('idem'),
        requestHash: Buffer.alloc(32),
        test: false,
        counted: true,
        notCountedReason: null,
        createdAt: d.createdAt,
      });
      if (rnd() < 0.7) {
        events.push(event('offer_rendered'));
        if (rnd() < 0.6) events.push(event('qualified_impression'));
      }
      if (rnd() < 0.05) {
        clicks.push({
          id: newId('clk'),
          decisionId: d.id,
          appId: d.appId,
          offerSnapshotId: snapshot.id,
          createdAt: d.createdAt,
          ipHash: 'bench',
          userAgentBot: false,
          counted: rnd() < 0.9,
          notCountedReason: null,
        });
        if (rnd() < 0.1) conversions.push(d);
      }
    }
    return { decisions, events, clicks, conversions };
  };

  // Two writers at once, as two instances would be; each batch's events after its decisions.
  let next = 0;
  const worker = async (w: (typeof writers)[number]) => {
    while (next < DECISIONS) {
      const size = Math.min(BATCH, DECISIONS - next);
      const b = batch(next, size);
      next += size;
      await w.decisions.insert(b.decisions);
      for (let i = 0; i < b.events.length; i += BATCH) await w.events.insertImpressions(b.events.slice(i, i + BATCH));
      if (b.clicks.length) await w.clicks.insert(b.clicks);
      for (const d of b.conversions) {
        await w.conversions.record({
          id: newId('cnv'),
          appId: d.appId,
          offerSnapshotId: d.offerSnapshotId as string,
          decisionId: d.id,
          nonce: newId('nonce'),
          signedAt: Math.floor(d.createdAt.getTime() / 1000),
          requestHash: Buffer.alloc(32),
          test: false,
          createdAt: d.createdAt,
          occurredAt: null,
          orderId: null,
        });
      }
      counts.decisions += b.decisions.length;
      counts.events += b.events.length;
      counts.clicks += b.clicks.length;
      counts.conversions += b.conversions.length;
      if (counts.decisions % 250_000 < BATCH)
        process.stdout.write(`  seeded ${counts.decisions.toLocaleString('en')} decisions (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
    }
  };
  await Promise.all(writers.map(worker));
  const seconds = (performance.now() - started) / 1000;
  return { ...counts, seconds, apps };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The service on the benchmark's database, for its own /admin/reports route. */
/** The service's reports, its clock at `nowMs`: the end of the seeded traffic, so 1 h, 24 h and
 *  7 d hold the traffic whatever the seed took (50 million rows take an hour to seed). */
async function reportingApp(databaseUrl: string, db: Database, nowMs: number) {
  const app = await buildApp(
    parseConfig({
      port: 0,
      host: '127.0.0.1',
      baseUrl: 'http://bench.test',
      databaseUrl,
      dataDir: 'memory',
      logLevel: 'warn',
      loadDemoCatalog: false,
      adminKey: ADMIN_KEY,
    }),
    { db, counters: createCounterStore({ keyPrefix: 'bench:' }), now: () => nowMs },
  );
  await app.ready();
  return app;
}

/** RUNS timed reports of one range after one that warms the cache. */
async function timeReports(app: Awaited<ReturnType<typeof reportingApp>>, range: string) {
  const ms: number[] = [];
  let status = 0;
  let decides = 0;
  for (let run = 0; run <= RUNS; run++) {
    const t0 = performance.now();
    const res = await app.inject({ url: `/admin/reports?range=${range}`, headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    const elapsed = performance.now() - t0;
    status = res.statusCode;
    if (status !== 200) throw new Error(`/admin/reports?range=${range} answered ${status}: ${res.body}`);
    decides = res.json().totals.decides;
    if (run > 0) ms.push(elapsed); // the first run warms the cache
  }
  return { median_ms: median(ms), max_ms: Math.max(...ms), status, decides };
}

async function main() {
  const scratch = REUSE ? { url: REUSE, drop: async () => {} } : await createScratchDatabase(adminUrl as string, 'sidenote_bench_reports');
  // The seed writes batches of 5,000 rows: on a machine shared with other work one can outlast
  // the service's 5 s statement timeout, which would end an hour-long seed.
  const db = await openDatabase({ databaseUrl: scratch.url, dataDir: 'memory', poolSize: 10, queryTimeoutMs: 120_000 });
  const other = await openDatabase({ databaseUrl: scratch.url, dataDir: 'memory', poolSize: 4, queryTimeoutMs: 120_000 });
  try {
    if (REUSE) {
      // The ranges end where the kept traffic ends: the last minute a rollup holds.
      const { rows } = await db.query<{ end_ms: number }>(
        'SELECT (extract(epoch FROM max(at)) * 1000 + 60000)::float8 AS end_ms FROM report_rollups WHERE grain = 60',
      );
      console.log(`timing reports on ${new URL(REUSE).pathname.slice(1)} (kept by an earlier run), the service's clock at the end of its traffic`);
      const app = await reportingApp(REUSE, db, rows[0].end_ms);
      for (const range of Object.keys(RANGES)) {
        const t = await timeReports(app, range);
        console.log(
          `GET /admin/reports?range=${range}: median ${t.median_ms.toFixed(1)} ms, max ${t.max_ms.toFixed(1)} ms over ${RUNS} runs, ${t.decides.toLocaleString('en')} decides`,
        );
      }
      await app.close();
      return;
    }
    await migrate(db);
    const until = Date.now();
    // The day partitions of the week being seeded, as the service made them on those days.
    await makeHistoryPartitions(db, until - DAYS * 86_400_000, until);
    console.log(`seeding ${DECISIONS.toLocaleString('en')} decisions over ${DAYS} days into ${new URL(scratch.url).pathname.slice(1)} …`);
    const seeded = await seed(db, other, until);
    console.log(
      `seeded in ${seeded.seconds.toFixed(0)} s: ${Math.round(seeded.decisions / seeded.seconds).toLocaleString('en')} decisions/s with their events`,
    );
    // Maintenance and table sizes outside the service's 5 s query timeout.
    const maintenance = new pg.Client({ connectionString: scratch.url });
    await maintenance.connect();
    await maintenance.query('VACUUM ANALYZE');
    const sizes = [];
    for (const table of [
      'decisions',
      'events',
      'clicks',
      'conversions',
      'report_rollups',
      'report_reason_rollups',
      'report_latency_rollups',
      'report_match_rollups',
      'report_funnel_marks',
    ]) {
      const r = await maintenance.query<{ rows: string; size: string }>(
        `SELECT count(*) AS rows, pg_size_pretty(coalesce((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('${table}') WHERE isleaf), pg_total_relation_size('${table}'))) AS size FROM ${table}`,
      );
      sizes.push({ relname: table, ...r.rows[0] });
    }
    await maintenance.end();

    const app = await reportingApp(scratch.url, db, until);
    const timings: Record<string, { median_ms: number; max_ms: number; status: number; decides: number }> = {};
    for (const range of Object.keys(RANGES)) {
      timings[range] = await timeReports(app, range);
      const t = timings[range];
      console.log(
        `GET /admin/reports?range=${range}: median ${t.median_ms.toFixed(1)} ms, max ${t.max_ms.toFixed(1)} ms, ${t.decides.toLocaleString('en')} decides`,
      );
    }
    await app.close();

    const raw: Record<string, number | string> = {};
    if (COMPARE_RAW) {
      // The old report's statements, run together as it ran them, without the 5 s timeout.
      const pool = new pg.Pool({ connectionString: scratch.url, max: RAW_STATEMENTS.length, options: '-c statement_timeout=300000' });
      for (const [range, r] of Object.entries(RANGES)) {
        const params = [new Date(until - r.ms).toISOString(), new Date(until).toISOString(), null, false, r.bucket];
        const t0 = performance.now();
        await Promise.all(RAW_STATEMENTS.map((sql) => pool.query(sql, params)));
        raw[range] = performance.now() - t0;
        console.log(`raw history (before rollups), ${range}: ${(raw[range] as number).toFixed(0)} ms`);
      }
      await pool.end();
    }

    const version = (await db.query<{ v: string }>('SELECT version() AS v')).rows[0].v.split(' on ')[0];
    const result = {
      decisions: DECISIONS,
      days: DAYS,
      seeded,
      sizes,
      timings,
      raw,
      postgres: version,
      node: process.version,
      cpus: os.cpus().length,
      cpu: os.cpus()[0]?.model,
    };
    mkdirSync(path.join(ROOT, 'bench/out'), { recursive: true });
    writeFileSync(path.join(ROOT, 'bench/out/reports.json'), `${JSON.stringify(result, null, 2)}\n`);
    const md = [
      `${version}; ${process.version}; ${os.cpus().length} × ${os.cpus()[0]?.model}; ${DECISIONS.toLocaleString('en')} decisions over ${DAYS} days, ${seeded.events.toLocaleString('en')} events, ${seeded.clicks.toLocaleString('en')} clicks, ${seeded.conversions.toLocaleString('en')} conversions; seeded through the writers in ${seeded.seconds.toFixed(0)} s (${Math.round(seeded.decisions / seeded.seconds).toLocaleString('en')} decisions/s).`,
      '',
      '| range | decides in range | GET /admin/reports median ms | max ms | raw history (before rollups) ms |',
      '|---|---|---|---|---|',
      ...Object.entries(timings).map(
        ([r, t]) =>
          `| ${r} | ${t.decides.toLocaleString('en')} | ${t.median_ms.toFixed(1)} | ${t.max_ms.toFixed(1)} | ${raw[r] === undefined ? '—' : (raw[r] as number).toFixed(0)} |`,
      ),
      '',
      '| table | rows | size |',
      '|---|---|---|',
      ...sizes.map((s) => `| ${s.relname} | ${Number(s.rows).toLocaleString('en')} | ${s.size} |`),
    ].join('\n');
    writeFileSync(path.join(ROOT, 'bench/out/reports.md'), `${md}\n`);
    console.log(`\n${md}`);
  } finally {
    await other.close();
    await db.close();
    if (KEEP) console.log(`kept ${scratch.url}`);
    else await scratch.drop();
  }
}

await main();
