// Persistence: the group-commit writer (src/persistence/) against one awaited INSERT per
// request, writing real decision rows, at several concurrencies: rows/s and the latency each
// writer adds to a request.
//
//   DATABASE_URL=postgres://… npm run bench:persistence -- [--seconds 3] [--concurrency 1,10,50,200]
//
// Creates its own database on that server and drops it afterwards (PGlite in memory when
// DATABASE_URL is unset, which says little about a server). Writes bench/out/persistence.{json,md}.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDatabase, type Database } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { AppRepository } from '../src/apps/app-repository.js';
import { DecisionRecorder } from '../src/decide/decision-recorder.js';
import { DecisionRepository, type DecisionRecord } from '../src/decisions/decision-repository.js';
import { EventRepository } from '../src/events/event-repository.js';
import { ClickRepository } from '../src/links/click-repository.js';
import { ConversionRepository } from '../src/conversions/conversion-repository.js';
import { AffiliateImpressionRepository } from '../src/affiliate/affiliate-impression-repository.js';
import { newDecisionId, newId } from '../src/util/ids.js';
import { cpuUsOfAll, createScratchDatabase } from './support.js';
import { makeHistoryPartitions } from '../testkit/history-partitions.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const SECONDS = Number(arg('seconds', '3'));
const CONCURRENCY = arg('concurrency', '1,10,50,200').split(',').map(Number);

// The statement a request would run on its own: one row, one round trip, one commit.
const INSERT_ONE = `
INSERT INTO decisions (id, app_id, request_id, kind, test, created_at, serve, reason_codes, offer_snapshot_id,
  campaign_id, expires_at, locale, country, intent_type, cue_intent, matched_category_ids, matched_entity_ids,
  dropped_digest_ids, latency_us)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`;

function row(appId: string): DecisionRecord {
  const at = Date.now();
  return {
    id: newDecisionId(at),
    appId,
    requestId: newId('req'),
    kind: 'offer',
    test: false,
    createdAt: new Date(at),
    serve: false,
    reasonCodes: ['NO_ELIGIBLE_OFFER'],
    offerSnapshotId: null,
    campaignId: null,
    expiresAt: null,
    locale: 'ko-KR',
    country: 'KR',
    intentType: 'purchase',
    messageIntent: 'purchase',
    matchedCategoryIds: ['travel', 'travel.hotels'],
    matchedEntityIds: ['place.jeju'],
    impliedCategoryIds: [],
    droppedDigestIds: 0,
    policyReasons: [],
    readingOverBudget: false,
    excludedByApp: false,
    latencyUs: 120,
    spendMicros: 0,
  };
}

async function createDatabase(): Promise<{ db: Database; drop: () => Promise<void>; label: string; name?: string }> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const db = await openDatabase({ dataDir: 'memory' });
    return { db, drop: () => db.close(), label: 'PGlite (in memory)' };
  }
  const scratch = await createScratchDatabase(adminUrl, 'sidenote_bench_p');
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const version = (await admin.query('SHOW server_version')).rows[0].server_version;
  await admin.end();
  const db = await openDatabase({ databaseUrl: scratch.url, dataDir: 'memory', poolSize: 10 });
  return {
    db,
    label: `Postgres ${version} (pool of 10)`,
    name: new URL(scratch.url).pathname.slice(1),
    drop: async () => {
      await db.close();
      await scratch.drop();
    },
  };
}

/** `concurrency` clients writing one row after another for SECONDS; rows/s, latency, and the
 *  CPU Postgres spent per row (this database's backends and the server's background processes,
 *  from /proc: the cost a writer puts on a database server it shares with the service). */
async function measure(concurrency: number, write: () => Promise<void>) {
  const latencies: number[] = [];
  const postgresBefore = cpuUsOfAll('postgres', name);
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        await write();
        latencies.push(performance.now() - t);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.round((latencies.length - 1) * p))];
  const postgresUsPerRow = name ? Math.round((cpuUsOfAll('postgres', name) - postgresBefore) / Math.max(1, latencies.length)) : null;
  return { rows: latencies.length, rowsPerSecond: Math.round(latencies.length / SECONDS), p50: at(0.5), p99: at(0.99), postgresUsPerRow };
}

const { db, drop, label, name } = await createDatabase();
try {
  await migrate(db);
  // Today's history partitions, as the service makes them at start.
  await makeHistoryPartitions(db, Date.now());
  const appId = (await new AppRepository(db).createApp('bench')).app_id;
  const decisions = new DecisionRepository(db, {
    events: new EventRepository(db),
    clicks: new ClickRepository(db),
    conversions: new ConversionRepository(db),
    clickIntents: new AffiliateImpressionRepository(db),
  });
  const recorder = new DecisionRecorder(decisions);
  const results = [];
  for (const c of CONCURRENCY) {
    const single = await measure(c, async () => {
      const r = row(appId);
      await db.query(INSERT_ONE, [
        r.id,
        r.appId,
        r.requestId,
        r.kind,
        r.test,
        r.createdAt,
        r.serve,
        r.reasonCodes,
        r.offerSnapshotId,
        r.campaignId,
        r.expiresAt,
        r.locale,
        r.country,
        r.intentType,
        r.messageIntent,
        r.matchedCategoryIds,
        r.matchedEntityIds,
        r.droppedDigestIds,
        r.latencyUs,
      ]);
    });
    const before = recorder.stats.flushes;
    const grouped = await measure(c, () => recorder.record(row(appId)));
    const flushes = recorder.stats.flushes - before;
    results.push({ concurrency: c, single, grouped, rowsPerFlush: Math.round(grouped.rows / Math.max(1, flushes)) });
    console.error(
      `concurrency ${c}: one INSERT per request ${single.rowsPerSecond} rows/s (p99 ${single.p99.toFixed(2)} ms); group commit ${grouped.rowsPerSecond} rows/s (p99 ${grouped.p99.toFixed(2)} ms)`,
    );
  }
  await recorder.close();
  const stored = Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM decisions')).rows[0].n);
  const acknowledged = results.reduce((n, r) => n + r.single.rows + r.grouped.rows, 0);
  const md = [
    `${label}; ${process.version}; ${os.cpus().length} × ${os.cpus()[0]?.model}; ${SECONDS} s per cell; writes acknowledged ${acknowledged}, rows in the table afterwards ${stored}.`,
    '',
    '| concurrent requests | one INSERT per request: rows/s | p50 ms | p99 ms | Postgres CPU µs/row | group commit: rows/s | p50 ms | p99 ms | Postgres CPU µs/row | rows per flush | speed-up |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.concurrency} | ${r.single.rowsPerSecond.toLocaleString('en')} | ${r.single.p50.toFixed(2)} | ${r.single.p99.toFixed(2)} | ${r.single.postgresUsPerRow ?? '—'} | ${r.grouped.rowsPerSecond.toLocaleString('en')} | ${r.grouped.p50.toFixed(2)} | ${r.grouped.p99.toFixed(2)} | ${r.grouped.postgresUsPerRow ?? '—'} | ${r.rowsPerFlush} | **${(r.grouped.rowsPerSecond / r.single.rowsPerSecond).toFixed(1)}×** |`,
    ),
  ].join('\n');
  mkdirSync(path.join(ROOT, 'bench/out'), { recursive: true });
  writeFileSync(path.join(ROOT, 'bench/out/persistence.json'), JSON.stringify({ label, seconds: SECONDS, acknowledged, stored, results }, null, 2));
  writeFileSync(path.join(ROOT, 'bench/out/persistence.md'), `${md}\n`);
  console.log(md);
  if (stored !== acknowledged) {
    console.error(`acknowledged ${acknowledged} writes but the table holds ${stored} rows`);
    process.exitCode = 1;
  }
} finally {
  await drop();
}
