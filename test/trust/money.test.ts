// A campaign never spends more than its budget, whatever fails (issue 13 §2). Postgres is the
// ledger of record; the counter store (Redis, or in-process) is a cache rebuilt from it. Each
// test drives real decides through the HTTP surface and then checks, from the database:
// - serves ≤ the cap, exactly;
// - what hosts were told = the decision rows = the spend ledger (one row per request, a TIMEOUT
//   answer leaves a TIMEOUT row and no spend, a served answer a served row and its spend).
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { ADMIN, bearer, createTestApp, createTestCounters, usingRealPostgres, usingRealRedis, type TestApp, createHost } from '../helpers/test-env.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db.js';
import { miniCatalog } from '../helpers/mini-catalog.js';
import { MemoryCounterStore } from '../../src/counters/memory-counter-store.js';
import type { CounterStore } from '../../src/counters/counter-store.js';
import type { ConfigInput } from '../../src/config/config.js';
import { StoreUnavailable } from '../../src/errors/error-registry.js';
import { koreanTurn } from '../helpers/envelopes.js';

const stores = `${usingRealPostgres ? 'Postgres' : 'PGlite'} + ${usingRealRedis ? 'Redis' : 'in-process counters'}`;
const CAMPAIGN = 'cmp.jeju-hotels';
const BID = 2_000_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The mini catalog with the Jeju hotel campaign capped at `servesPerDay` serves a day. */
function cappedCatalog(servesPerDay: number, lifetimeServes = 1_000_000) {
  const c = miniCatalog();
  const cmp = c.campaigns!.find((x) => x.id === CAMPAIGN)!;
  cmp.bid_micros = BID;
  cmp.budget = { total_micros: BID * lifetimeServes, daily_micros: BID * servesPerDay };
  cmp.frequency_cap = { count: 1_000, window_seconds: 3600 };
  return c;
}

const envelope = (session?: string) => koreanTurn('제주도 호텔 최저가 알려줘', session ? { session: { token: session } } : {});

interface Answer {
  serve: boolean;
  request_id: string;
  decision_id: string;
  reason_codes: string[];
  link?: string;
}

async function decide(t: TestApp, key: string, session?: string): Promise<Answer> {
  const res = await t.app.inject({ method: 'POST', url: '/v1/offers/decide', headers: bearer(key), payload: envelope(session) });
  expect(res.statusCode).toBe(200);
  return res.json();
}

/** A decide answered on the budget, not TIMEOUT: a loaded machine's event loop can lag past the
 *  counter store's 200 ms command timeout, and a TIMEOUT (which keeps nothing) says nothing about
 *  the budget. Asked again, up to 10 times. */
async function decideAnswered(t: TestApp, key: string): Promise<Answer> {
  let answer = await decide(t, key);
  for (let i = 0; i < 10 && answer.reason_codes.includes('TIMEOUT'); i++) {
    await sleep(200);
    answer = await decide(t, key);
  }
  return answer;
}

interface Ledger {
  servedRows: number;
  rowsSpend: number;
  dailySpend: number;
  dailyServes: number;
  totalSpend: number;
  totalServes: number;
}

async function ledger(t: Pick<TestApp, 'db'>): Promise<Ledger> {
  const one = async (sql: string) => Number(Object.values((await t.db.query<Record<string, number>>(sql, [CAMPAIGN])).rows[0] ?? { n: 0 })[0] ?? 0);
  return {
    servedRows: await one('SELECT count(*)::int AS n FROM decisions WHERE serve AND campaign_id = $1'),
    rowsSpend: await one('SELECT coalesce(sum(spend_micros), 0)::bigint AS n FROM decisions WHERE campaign_id = $1'),
    dailySpend: await one(
      "SELECT coalesce(sum(spend_micros), 0)::bigint AS n FROM campaign_spend_daily WHERE campaign_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date",
    ),
    dailyServes: await one(
      "SELECT coalesce(sum(serves), 0)::bigint AS n FROM campaign_spend_daily WHERE campaign_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date",
    ),
    totalSpend: await one('SELECT coalesce(sum(spend_micros), 0)::bigint AS n FROM campaign_spend_total WHERE campaign_id = $1'),
    totalServes: await one('SELECT coalesce(sum(serves), 0)::bigint AS n FROM campaign_spend_total WHERE campaign_id = $1'),
  };
}

/** What hosts were told agrees with the rows and the ledger, to the micro. */
async function expectLedgerMatches(t: Pick<TestApp, 'db'>, servedAnswers: number) {
  const l = await ledger(t);
  expect(l).toEqual({
    servedRows: servedAnswers,
    rowsSpend: servedAnswers * BID,
    dailySpend: servedAnswers * BID,
    dailyServes: servedAnswers,
    totalSpend: servedAnswers * BID,
    totalServes: servedAnswers,
  });
}

/** Every answer has exactly one decision row, and that row says what the host was told. */
async function expectOneRowPerAnswer(t: Pick<TestApp, 'db'>, answers: Answer[]) {
  const rows = (
    await t.db.query<{ id: string; request_id: string; serve: boolean; reason_codes: string[] }>(
      'SELECT id, request_id, serve, reason_codes FROM decisions WHERE request_id = ANY($1::text[])',
      [answers.map((a) => a.request_id)],
    )
  ).rows;
  expect(rows.length).toBe(answers.length);
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const a of answers) {
    const row = byId.get(a.decision_id);
    expect(row, `${a.decision_id} (${a.reason_codes.join(',')})`).toBeDefined();
    expect(row!.request_id).toBe(a.request_id);
    expect(row!.serve).toBe(a.serve);
    expect([...row!.reason_codes].sort()).toEqual([...a.reason_codes].sort());
  }
}

async function setUp(overrides: ConfigInput, servesPerDay: number, shared?: { testDb: TestDatabase; counters?: CounterStore }) {
  const t = await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 1_000_000, ...overrides }, shared);
  const imported = await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: cappedCatalog(servesPerDay) });
  expect(imported.statusCode).toBe(200);
  return t;
}

async function newKey(t: TestApp): Promise<string> {
  return (await createHost(t.app, 'Money')).serving_key;
}

// Two instances, thousands of requests: beside other test files on two cores these take longer
// than the suite's default 30 s.
describe(`money: budgets and caps never overspend (${stores})`, { timeout: 120_000 }, () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f().catch(() => {});
  });
  afterAll(async () => {
    for (const f of cleanup.splice(0).reverse()) await f().catch(() => {});
  });

  it('restart loop: a restarted instance (or a Redis that lost its data) never gets the day again', async () => {
    const testDb = await createTestDatabase();
    cleanup.push(() => testDb.drop());
    const CAP = 5;
    let key = '';
    let served = 0;
    for (let restart = 0; restart < 4; restart++) {
      // A new counter store each time: the in-process store starts empty, and so does a Redis
      // restarted without persistence (a new key prefix is an empty Redis to this instance).
      const counters = usingRealRedis ? createTestCounters() : new MemoryCounterStore();
      const t = await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 1_000_000 }, { testDb, counters });
      if (restart === 0) {
        expect((await t.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: cappedCatalog(CAP) })).statusCode).toBe(200);
        key = await newKey(t);
      }
      for (let i = 0; i < 4; i++) if ((await decide(t, key)).serve) served++;
      await t.app.close();
      await counters.close();
    }
    expect(served).toBe(CAP);
    await expectLedgerMatches(testDb, CAP);
  });

  it.runIf(usingRealRedis)("Redis losing its data mid-run (FLUSHALL of this deployment's keys) does not restart the budget", async () => {
    const t = await setUp({ decideTimeBudgetMs: 200, spendSettleMs: undefined }, 5);
    cleanup.push(() => t.close());
    const key = await newKey(t);
    const answers: Answer[] = [];
    for (let i = 0; i < 3; i++) answers.push(await decide(t, key));
    expect(answers.filter((a) => a.serve).length).toBe(3);
    // Every key of this instance's prefix gone, as FLUSHALL would do (other test files share the server).
    const prefix = (t.counters as unknown as { keyPrefix: string }).keyPrefix;
    const raw = new Redis(process.env.REDIS_URL!);
    try {
      const keys = await raw.keys(`${prefix}*`);
      expect(keys.length).toBeGreaterThan(0);
      await raw.del(...keys);
    } finally {
      raw.disconnect();
    }
    // Right after the loss the campaign's spend is unknown: no serve, BUDGET_EXHAUSTED.
    const blind = await decide(t, key);
    expect(blind).toMatchObject({ serve: false, reason_codes: ['BUDGET_EXHAUSTED'] });
    answers.push(blind);
    // Then it is rebuilt from the ledger and the day ends at its cap, not three serves later.
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const a = await decide(t, key);
      answers.push(a);
      if (!a.serve && answers.filter((x) => x.serve).length >= 5) break;
      await sleep(50);
    }
    expect(answers.filter((a) => a.serve).length).toBe(5);
    for (let i = 0; i < 5; i++) expect((await decide(t, key)).serve).toBe(false);
    await expectLedgerMatches(t, 5);
    await expectOneRowPerAnswer(t, answers);
  });

  it('a flood of clicks from thousands of addresses and user agents never frees budget or frequency state', async () => {
    // Small bounds for the click-side namespaces so the flood overflows them many times over.
    const counters = usingRealRedis ? createTestCounters() : new MemoryCounterStore({ maxRateWindows: 100, maxEntries: 100 });
    cleanup.push(() => counters.close());
    // A generous decide budget: what is asserted is the answer, and a slow machine must not turn it into TIMEOUT.
    const t = await setUp({ decideTimeBudgetMs: 2_000 }, 5, { testDb: await createTestDatabase(), counters });
    cleanup.push(async () => {
      await t.app.close();
      await t.testDb.drop();
    });
    const key = await newKey(t);
    const answers: Answer[] = [];
    for (let i = 0; i < 5; i++) answers.push(await decide(t, key));
    expect(answers.every((a) => a.serve)).toBe(true);
    for (let wave = 0; wave < 30; wave++) {
      await Promise.all(
        Array.from({ length: 100 }, (_, i) => {
          const n = wave * 100 + i;
          const link = new URL(answers[n % 5].link!);
          return t.app.inject({
            method: 'GET',
            url: link.pathname,
            remoteAddress: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
            headers: { 'user-agent': `Mozilla/5.0 (flood ${n}) Safari/605.1.15` },
          });
        }),
      );
    }
    // Clicks are judged and recorded behind the redirect: decide once every one of them is in.
    for (let i = 0; i < 1200 && t.app.writers.clicks.pending > 0; i++) await sleep(50);
    expect(t.app.writers.clicks.pending).toBe(0);
    for (let i = 0; i < 5; i++) expect(await decideAnswered(t, key)).toMatchObject({ serve: false, reason_codes: ['BUDGET_EXHAUSTED'] });
    if (counters instanceof MemoryCounterStore) expect(counters.sizes).toMatchObject({ campaigns: 2, rateWindows: 100, entries: 100 });
    await expectLedgerMatches(t, 5);
  });

  it.runIf(usingRealPostgres)('a second instance with in-process counters on the same Postgres refuses to start', async () => {
    const testDb = await createTestDatabase();
    cleanup.push(() => testDb.drop());
    const first = new MemoryCounterStore();
    const second = new MemoryCounterStore();
    cleanup.push(() => first.close());
    cleanup.push(() => second.close());
    const a = await createTestApp({ loadDemoCatalog: false }, { testDb, counters: first });
    await expect(createTestApp({ loadDemoCatalog: false }, { testDb, counters: second })).rejects.toThrow(/REDIS_URL/);
    await a.app.close();
    // Once the first has stopped, another may take its place.
    const b = await createTestApp({ loadDemoCatalog: false }, { testDb, counters: second });
    await b.app.close();
  });

  it('two instances racing 200 decides on one budget serve exactly the cap', async () => {
    const a = await setUp({}, 7);
    cleanup.push(() => a.close());
    const b = await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 1_000_000 }, { testDb: a.testDb, counters: a.counters });
    cleanup.push(() => b.app.close());
    await sleep(400); // b has polled the catalog a and the database hold
    const key = await newKey(a);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => decide(i % 2 ? a : b, key)));
    expect(answers.filter((x) => x.serve).length).toBe(7);
    await expectLedgerMatches(a, 7);
    await expectOneRowPerAnswer(a, answers);
  });

  it("instances whose clocks disagree at UTC midnight keep one day's cap: a campaign's day never moves backwards", async () => {
    // Two instances on one database and counter store, 2 s apart across midnight: A still on
    // the 30th, B already on the 1st. Before, each claim from the other day rewrote the
    // campaign's day record and counted its spend from 0: every decide served.
    const midnight = Date.parse('2026-12-01T00:00:00Z');
    const a = await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 1_000_000 }, undefined, { now: () => midnight - 1_000 });
    cleanup.push(() => a.close());
    expect((await a.app.inject({ method: 'PUT', url: '/admin/catalog', headers: ADMIN, payload: cappedCatalog(5) })).statusCode).toBe(200);
    const b = await createTestApp(
      { loadDemoCatalog: false, decideRateLimitPerMinute: 1_000_000 },
      { testDb: a.testDb, counters: a.counters, now: () => midnight + 1_000 },
    );
    cleanup.push(() => b.app.close());
    await sleep(400); // b has polled the catalog
    const key = await newKey(a);
    const answers: Answer[] = [];
    for (let i = 0; i < 40; i++) answers.push(await decide(i % 2 ? b : a, key));
    const served = answers.map((x) => x.serve);
    // A serves on the 30th until B's first claim opens the 1st; from then on both count on the
    // 1st, whose cap is 5: at most one day's cap on each side of midnight.
    expect(served.filter(Boolean).length).toBeGreaterThanOrEqual(5);
    expect(served.filter(Boolean).length).toBeLessThanOrEqual(6);
    expect(served.slice(1).filter(Boolean).length).toBeLessThanOrEqual(5);
    await expectOneRowPerAnswer(a, answers);
  });

  it('a decide answered TIMEOUT leaves no served row and no spend, even when its instance stops before it can correct them', async () => {
    // The served row commits but its acknowledgement comes back after the deadline (the host is
    // told TIMEOUT), and then the database is away for every correction until the instance stops
    // (killed, or out of shutdown grace): only the row it wrote remains. Whichever instance runs
    // next takes those rows off the ledger once their grace has passed.
    const testDb = await createTestDatabase();
    cleanup.push(() => testDb.drop());
    const BUDGET_MS = 200;
    const a = await setUp({ decideTimeBudgetMs: BUDGET_MS }, 1_000_000, { testDb });
    cleanup.push(() => a.app.close());
    const key = await newKey(a);
    const query = a.db.query.bind(a.db);
    let late = 0;
    a.db.query = (async (sql: string, params?: unknown[]) => {
      // The corrections (the TIMEOUT row, or the served row turned into it): the database is away.
      if (sql.includes("'{TIMEOUT}'") || sql.includes('DO NOTHING')) throw new StoreUnavailable('partitioned', 'CONNECTION_LOST');
      const r = await query(sql, params);
      // Every other served write is acknowledged too late.
      if (sql.includes('INSERT INTO decisions') && late++ % 2 === 0) await sleep(BUDGET_MS * 1.5);
      return r;
    }) as typeof a.db.query;
    const answers: Answer[] = [];
    for (let i = 0; i < 24; i++) answers.push(await decide(a, key, `s-${i}`));
    const served = answers.filter((x) => x.serve).length;
    const timedOut = answers.filter((x) => x.reason_codes.includes('TIMEOUT')).length;
    expect(served).toBeGreaterThan(0);
    expect(timedOut).toBeGreaterThan(0);
    expect(served + timedOut).toBe(answers.length);
    // The instance stops with its corrections still failing: the TIMEOUT answers are served rows.
    await a.app.close();
    a.db.query = query;
    expect((await ledger({ db: testDb.db })).servedRows).toBe(answers.length);

    // The next instance on the same database, past the grace.
    const b = await setUp({ decideTimeBudgetMs: BUDGET_MS, unconfirmedServeGraceMs: 1_000 }, 1_000_000, { testDb });
    cleanup.push(() => b.app.close());
    await sleep(1_100);
    await b.app.unconfirmedServes.sweep();
    await expectLedgerMatches(b, served);
    await expectOneRowPerAnswer(b, answers);
  });

  it('deadline races at a tight budget: a TIMEOUT keeps no claim and no served row, one record per request', async () => {
    // 10 ms first; a loaded machine (or a slower write) can make nearly every decide miss it, and
    // the race must really happen both ways, so the budget doubles until it does.
    let t!: Awaited<ReturnType<typeof setUp>>;
    let key = '';
    const answers: Answer[] = [];
    const count = (p: (a: Answer) => boolean) => answers.filter(p).length;
    for (const budgetMs of [10, 20, 40, 80, 160, 320]) {
      t = await setUp({ decideTimeBudgetMs: budgetMs, spendSettleMs: undefined }, 1_000_000);
      cleanup.push(() => t.close());
      key = await newKey(t);
      // Jitter on the counter store and the database so that deadlines fall at every step:
      // before the claim, between the claim and the write, during the write, after it.
      const jitter = () => (Math.random() < 0.7 ? Promise.resolve() : sleep(Math.random() * 1.2 * budgetMs));
      const claimFirst = t.counters.claimFirst.bind(t.counters);
      t.counters.claimFirst = async (c) => {
        await jitter();
        const out = await claimFirst(c);
        await jitter();
        return out;
      };
      const query = t.db.query.bind(t.db);
      t.db.query = (async (sql: string, params?: unknown[]) => {
        if (sql.includes('INSERT INTO decisions')) await jitter();
        const r = await query(sql, params);
        if (sql.includes('INSERT INTO decisions')) await jitter();
        return r;
      }) as typeof t.db.query;
      answers.length = 0;
      // At least 300 decides, and on until both outcomes were seen often enough.
      for (let wave = 0; wave < 150; wave++) {
        answers.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => decide(t, key, `s-${wave}-${i}`)))));
        if (wave >= 29 && count((a) => a.serve) >= 5 && count((a) => !a.serve) >= 5) break;
      }
      if (count((a) => a.serve) >= 5 && count((a) => !a.serve) >= 5) break;
    }
    const served = count((a) => a.serve);
    const timedOut = count((a) => a.reason_codes.includes('TIMEOUT'));
    console.log(`deadline race (${stores}): ${served} served, ${timedOut} TIMEOUT of ${answers.length}`);
    // The race really happened both ways.
    expect(served).toBeGreaterThan(0);
    expect(timedOut).toBeGreaterThan(0);
    expect(served + timedOut).toBe(answers.length);
    // Timed-out decides settle behind their answer (the pipeline finishes, then its record and
    // claim are corrected): wait until the ledger says what hosts were told.
    const until = Date.now() + 15_000;
    while (Date.now() < until && (await ledger(t)).servedRows !== served) await sleep(100);
    await sleep(300);
    await expectLedgerMatches(t, served);
    await expectOneRowPerAnswer(t, answers);
    // The cache kept no claim of a timed-out decide: it agrees with the ledger to the micro.
    const cached = await t.counters.readSpend(CAMPAIGN);
    expect(cached?.totalMicros).toBe(served * BID);
    expect(cached?.dayMicros).toBe(served * BID);
  }, 180_000);
});
