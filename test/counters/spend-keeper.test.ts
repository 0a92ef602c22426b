// The spend keeper with a catalog's worth of campaigns: a million-offer catalog has 50,000, and
// every one of their records must load (one Redis call for all of them threw a RangeError, so
// none did and no campaign of such a catalog could ever be served).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCounterStore } from '../../src/counters/index.js';
import { SPEND_BATCH, SpendKeeper } from '../../src/spend/spend-keeper.js';
import { utcDay } from '../../src/counters/serve-claims.js';
import type { LedgerSpend } from '../../src/counters/counter-store.js';

const CAMPAIGNS = 50_000;
const stores = process.env.REDIS_URL ? 'Redis' : 'in-process';

describe(`spend records of a large catalog (${stores})`, () => {
  const store = createCounterStore({ redisUrl: process.env.REDIS_URL, keyPrefix: `sn:t:${randomBytes(4).toString('hex')}:` });
  beforeAll(() => store.ready?.(2000));
  afterAll(() => store.close());

  it('loads and reconciles every campaign, in bounded batches', async () => {
    const ids = Array.from({ length: CAMPAIGNS }, (_, i) => `cmp.large-${i}`);
    const reads: number[] = [];
    const ledger = {
      async spendOf(campaignIds: readonly string[], day: string): Promise<LedgerSpend[]> {
        reads.push(campaignIds.length);
        return campaignIds.map((campaignId) => ({ campaignId, totalMicros: 5, day, dayMicros: 2 }));
      },
    };
    const keeper = new SpendKeeper(ledger, store, () => ids, { settleMs: 0, reconcileMs: 60_000, now: Date.now, log: { warn: () => {} } });
    const loaded = await keeper.loadNow(ids);
    expect(loaded).toHaveLength(CAMPAIGNS);
    expect(Math.max(...reads)).toBeLessThanOrEqual(SPEND_BATCH);
    await keeper.reconcile();
    expect(reads.reduce((a, b) => a + b, 0)).toBe(2 * CAMPAIGNS);

    // The last campaign's record is there: a claim on it is judged by its budget, not refused as unknown.
    const day = utcDay(Date.now());
    const spend = (limit: number) => ({ campaignId: ids.at(-1)!, amountMicros: 1, totalLimitMicros: limit, dailyLimitMicros: limit, day, msToDayEnd: 60_000 });
    const claimed = await store.claimFirst([{ frequency: [], spend: spend(1_000) }]);
    expect(claimed.claimedIndex).toBe(0);
    const refused = await store.claimFirst([{ frequency: [], spend: spend(5) }]);
    expect(refused.skipped).toEqual([expect.objectContaining({ index: 0, reason: 'budget' })]);
  }, 60_000);
});
