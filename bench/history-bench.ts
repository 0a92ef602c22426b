// History sizes and lookups (docs/scaling.md): writes a generated load of decisions and what
// follows them through the service's own repositories, spread over several UTC days, then
// measures rows and bytes per row of every history table (pg_column_size of the rows, and the
// tables with their indexes on disk), projects storage per day at 1k/10k/100k decides per
// second, and times a decision lookup by id with the day the id carries (one partition) against
// one without it (every partition's index), as ids made before migration 006 are looked up.
// Then retention drops the oldest day of every history table while a writer keeps inserting:
// how long the drop takes and whether the writer waited for it.
//
//   DATABASE_URL=postgres://… npm run bench:history -- [--decisions 200000] [--days 30]
//
// Creates its own database on that server and drops it afterwards (PGlite in memory when
// DATABASE_URL is unset). Writes bench/out/history.{json,md}.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, type Database } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { HISTORY_TABLES, HistoryMaintenance, type HistoryTable } from '../src/db/history-partitions.js';
import { AppRepository } from '../src/apps/app-repository.js';
import { DecisionRepository, type DecisionRecord } from '../src/decisions/decision-repository.js';
import { EventRepository, type ImpressionRow } from '../src/events/event-repository.js';
import { ClickRepository, type ClickRow } from '../src/links/click-repository.js';
import { ConversionRepository } from '../src/conversions/conversion-repository.js';
import { AffiliateImpressionRepository } from '../src/affiliate/affiliate-impression-repository.js';
import { CatalogRepository } from '../src/catalog/catalog-repository.js';
import { demoCatalogWithLargeBudgets } from './catalogs.js';
import { newId, sha256 } from '../src/util/ids.js';
import { createScratchDatabase } from './support.js';
import { decisionAt } from '../testkit/decision-records.js';
import { KEEP_HISTORY, makeHistoryPartitions } from '../testkit/history-partitions.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const DECISIONS = Number(arg('decisions', '200000'));
const DAYS = Number(arg('days', '30'));
// The mix of the load: how many decides serve, and what follows a served one.
const FILL = Number(arg('fill', '0.3'));
const RENDERED = 0.9; // of serves
const QUALIFIED = 0.6; // of serves
const CLICKED = 0.03; // of serves
const DAY = 86_400_000;
const BATCH = 2000;

async function createDatabase(): Promise<{ db: Database; drop: () => Promise<void>; label: string }> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) return { db: await openDatabase({ dataDir: 'memory' }), drop: async () => {}, label: 'PGlite (in memory)' };
  const scratch = await createScratchDatabase(adminUrl, 'sidenote_history_bench');
  const db = await openDatabase({ databaseUrl: scratch.url, dataDir: 'memory', poolSize: 4 });
  const drop = async () => {
    await db.close();
    await scratch.drop();
  };
  return { db, drop, label: 'Postgres' };
}

const { db, drop, label } = await createDatabase();
try {
  await migrate(db);
  const now = Date.now();
  const today = Math.floor(now / DAY) * DAY;
  // Partitions for every day of the load, as the service made them on those days.
  await makeHistoryPartitions(db, today - (DAYS - 1) * DAY, today);
  const catalog = new CatalogRepository(db);
  await catalog.import(demoCatalogWithLargeBudgets());
  const snapshots = (await catalog.loadServingCatalog()).offers.map((o) => ({ snapshotId: o.snapshot_id, campaignId: o.campaign_id }));
  const appId = (await new AppRepository(db).createApp('history-bench')).app_id;
  const events = new EventRepository(db);
  const clicks = new ClickRepository(db);
  const decisions = new DecisionRepository(db, {
    events,
    clicks,
    conversions: new ConversionRepository(db),
    clickIntents: new AffiliateImpressionRepository(db),
  });

  const ids: { id: string; at: number }[] = [];
  let written = 0;
  const started = performance.now();
  while (written < DECISIONS) {
    const n = Math.min(BATCH, DECISIONS - written);
    const rows: DecisionRecord[] = [];
    const evs: ImpressionRow[] = [];
    const cls: ClickRow[] = [];
    for (let i = 0; i < n; i++) {
      const at = today - Math.floor(((written + i) / DECISIONS) * DAYS) * DAY + Math.floor(Math.random() * (DAY - 60_000));
      const served = Math.random() < FILL ? snapshots[(written + i) % snapshots.length] : null;
      const row = decisionAt(appId, at, served ? { ...served, spend: 1000 } : undefined, {
        requestId: crypto.randomUUID(),
        expiresAt: served ? new Date(at + 3_600_000) : null,
        intentType: 'purchase',
        messageIntent: 'purchase',
        matchedCategoryIds: ['travel', 'travel.hotels'],
        matchedEntityIds: ['place.jeju'],
        latencyUs: 800,
      });
      const { id } = row;
      ids.push({ id, at });
      rows.push(row);
      if (!served) continue;
      const event = (type: ImpressionRow['type'], delay: number): ImpressionRow => ({
        id: newId('evt'),
        appId,
        type,
        offerSnapshotId: served.snapshotId,
        decisionId: id,
        idempotencyKey: `${id}:${type}`,
        requestHash: sha256(`${id}${type}`),
        test: false,
        counted: true,
        notCountedReason: null,
        createdAt: new Date(at + delay),
      });
      if (Math.random() < RENDERED) evs.push(event('offer_rendered', 2000));
      if (Math.random() < QUALIFIED) evs.push(event('qualified_impression', 5000));
      if (Math.random() < CLICKED) {
        cls.push({
          id: newId('clk'),
          decisionId: id,
          appId,
          offerSnapshotId: served.snapshotId,
          createdAt: new Date(at + 9000),
          ipHash: 'Ab3dE5fG7hJ9kL1m',
          userAgentBot: false,
          counted: true,
          notCountedReason: null,
        });
      }
    }
    await decisions.insert(rows);
    if (evs.length > 0) await events.insertImpressions(evs);
    if (cls.length > 0) await clicks.insert(cls);
    written += n;
  }
  const loadSeconds = (performance.now() - started) / 1000;
  await db.query('ANALYZE');

  // Rows, average row size (pg_column_size of the whole row) and bytes on disk with indexes.
  const tables = [...(Object.keys(HISTORY_TABLES) as HistoryTable[]), 'event_idempotency_keys', 'conversion_nonces', 'campaign_spend_daily'];
  const sizes: Record<string, { rows: number; rowBytes: number; diskBytes: number; diskBytesPerRow: number }> = {};
  for (const table of tables) {
    const r = await db.query<{ rows: number; row_bytes: number; disk: number }>(
      `SELECT (SELECT count(*) FROM ${table})::int AS rows, (SELECT coalesce(avg(pg_column_size(t.*)), 0) FROM ${table} t)::float AS row_bytes,
        (CASE WHEN (SELECT relkind FROM pg_class WHERE oid = '${table}'::regclass) = 'p'
          THEN (SELECT coalesce(sum(pg_total_relation_size(relid)), 0) FROM pg_partition_tree('${table}'))
          ELSE pg_total_relation_size('${table}') END)::bigint AS disk`,
    );
    const { rows, row_bytes, disk } = r.rows[0];
    sizes[table] = { rows, rowBytes: Math.round(row_bytes), diskBytes: Number(disk), diskBytesPerRow: rows ? Math.round(Number(disk) / rows) : 0 };
  }
  // Bytes on disk that one decide brings, with what follows it at this load's mix.
  const perDecide =
    (['decisions', 'events', 'clicks', 'event_idempotency_keys'] as const).reduce((sum, t) => sum + sizes[t].diskBytes, 0) / sizes.decisions.rows;
  const perDay = Object.fromEntries([1_000, 10_000, 100_000].map((rate) => [rate, perDecide * rate * 86_400]));

  // Lookups: 2,000 random decisions, by (id, created_at) as the service does, and by id alone
  // (ids from before migration 006). Round trip as a client sees it, and the server's own
  // planning + execution time (EXPLAIN ANALYZE), where the partitions an id-only lookup opens show.
  const sample = Array.from({ length: 2000 }, () => ids[Math.floor(Math.random() * ids.length)]);
  const time = async (sql: string, params: (s: { id: string; at: number }) => unknown[]) => {
    const t0 = performance.now();
    for (const s of sample) {
      const r = await db.query(sql, params(s));
      if (r.rows.length !== 1) throw new Error('lookup missed');
    }
    const roundTrip = Math.round(((performance.now() - t0) / sample.length) * 1000);
    let server = 0;
    for (const s of sample.slice(0, 200)) {
      const r = await db.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params(s));
      const raw = r.rows[0]['QUERY PLAN'];
      const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ 'Planning Time': number; 'Execution Time': number }>;
      server += plan[0]['Planning Time'] + plan[0]['Execution Time'];
    }
    return { roundTrip, server: Math.round((server / 200) * 1000) };
  };
  const byDay = await time('SELECT * FROM decisions WHERE id = $1 AND created_at = $2::timestamptz', (s) => [s.id, new Date(s.at)]);
  const byIdOnly = await time('SELECT * FROM decisions WHERE id = $1', (s) => [s.id]);

  // Retention: drop the oldest day of every history table (retention DAYS - 2 days) while a
  // writer keeps inserting batches of 20 of today's decisions, one after another, as the decision
  // writer does under load. The writer's batch latency before and during the run says whether the
  // drop blocked writes.
  // A no-fill of now; ids carry their millisecond, request ids are unique per row.
  const writerRow = (): DecisionRecord => decisionAt(appId, Date.now(), undefined, { requestId: crypto.randomUUID() });
  const writeFor = async (until: () => boolean) => {
    const latencies: number[] = [];
    while (!until()) {
      const t0 = performance.now();
      await decisions.insert(Array.from({ length: 20 }, writerRow));
      latencies.push(performance.now() - t0);
    }
    latencies.sort((a, b) => a - b);
    const at = (q: number) => Number((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0).toFixed(2));
    return { batches: latencies.length, p50: at(0.5), p99: at(0.99), max: at(1) };
  };
  const baselineUntil = performance.now() + 2000;
  const writerBefore = await writeFor(() => performance.now() >= baselineUntil);
  const retainAllButOldest = Object.fromEntries(Object.keys(KEEP_HISTORY).map((t) => [t, DAYS - 2])) as typeof KEEP_HISTORY;
  let maintenanceDone = false;
  const writing = writeFor(() => maintenanceDone);
  const dropStarted = performance.now();
  const maintenance = await new HistoryMaintenance(db, { retentionDays: retainAllButOldest, daysAhead: 1 }).run({ wait: true });
  const dropMs = Math.round(performance.now() - dropStarted);
  maintenanceDone = true;
  const writerDuring = await writing;
  const retention = { dropMs, dropped: maintenance?.dropped ?? [], deferred: maintenance?.deferred ?? [], writerBefore, writerDuring };

  const result = {
    engine: label,
    decisions: DECISIONS,
    days: DAYS,
    fill: FILL,
    loadSeconds: Math.round(loadSeconds),
    sizes,
    diskBytesPerDecide: Math.round(perDecide),
    diskBytesPerDay: perDay,
    lookupMicros: { withDay: byDay, idOnly: byIdOnly, partitions: DAYS },
    retention,
  };
  const gb = (b: number) => `${(b / 1e9).toFixed(1)} GB`;
  const md = [
    `# History sizes (${label}, ${DECISIONS} decisions over ${DAYS} days, fill ${FILL})`,
    '',
    '| table | rows | avg row (pg_column_size) | on disk with indexes | per row on disk |',
    '|---|---:|---:|---:|---:|',
    ...tables.map((t) => `| ${t} | ${sizes[t].rows} | ${sizes[t].rowBytes} B | ${(sizes[t].diskBytes / 1e6).toFixed(1)} MB | ${sizes[t].diskBytesPerRow} B |`),
    '',
    `On disk per decide, with what follows it: ${Math.round(perDecide)} B. Per day: ${Object.entries(perDay)
      .map(([r, b]) => `${r}/s ${gb(b)}`)
      .join(', ')}.`,
    '',
    `Decision lookup over ${DAYS} day partitions, mean round trip of 2,000 (server planning + execution, mean of 200):`,
    `with the day its id carries ${byDay.roundTrip} µs (${byDay.server} µs), by id alone ${byIdOnly.roundTrip} µs (${byIdOnly.server} µs).`,
    '',
    `Retention dropping the days past it (${retention.dropped.length} partitions: ${retention.dropped.join(', ') || 'none'}; deferred ${retention.deferred.length}) in ${dropMs} ms, including the idempotency-key and nonce passes and the advisory lock.`,
    'A writer inserting batches of 20 decisions back to back:',
    '',
    '| writer | batches | p50 ms | p99 ms | max ms |',
    '|---|---:|---:|---:|---:|',
    `| 2 s before | ${writerBefore.batches} | ${writerBefore.p50} | ${writerBefore.p99} | ${writerBefore.max} |`,
    `| during the drop | ${writerDuring.batches} | ${writerDuring.p50} | ${writerDuring.p99} | ${writerDuring.max} |`,
  ].join('\n');
  mkdirSync(path.join(ROOT, 'bench/out'), { recursive: true });
  writeFileSync(path.join(ROOT, 'bench/out/history.json'), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(path.join(ROOT, 'bench/out/history.md'), `${md}\n`);
  console.log(md);
} finally {
  await drop();
}
