// The claim step of a decide over fakes: what a live key's claim asks of the counters and does
// with their refusals (a test key's claim step is test-mode.ts's: test/decide/test-mode.test.ts).
import { describe, expect, it } from 'vitest';
import type { Campaign } from '../../src/catalog/catalog-schema.js';
import type { ServingCatalog } from '../../src/catalog/serving-catalog.js';
import type { ClaimCandidate, ClaimOutcome, CounterStore } from '../../src/counters/counter-store.js';
import { CounterClaims, type ClaimRequest } from '../../src/decide/claim-step.js';
import type { SpendKeeper } from '../../src/spend/spend-keeper.js';
import { candidate, principal } from '../helpers/decide-fakes.js';

const NOW = Date.parse('2026-11-29T10:00:00Z');
const campaign = (id: string) =>
  ({ id, bid_micros: 2_000_000, budget: { total_micros: 10_000_000, daily_micros: 4_000_000 }, frequency_cap: { count: 3, window_seconds: 3600 } }) as Campaign;
const serving = { campaigns: new Map(['cmp.a', 'cmp.b', 'cmp.c'].map((id) => [id, campaign(id)])) } as unknown as ServingCatalog;
const request = (mode: 'live' | 'test', sessionToken?: string): ClaimRequest => ({
  serving,
  candidates: [candidate('cmp.a'), candidate('cmp.b'), candidate('cmp.c')],
  sessionToken,
  principal: principal(mode),
  nowMs: NOW,
});

/** A counter store that answers `outcome` and keeps what it was asked. */
function fakeCounters(outcome: ClaimOutcome) {
  const asked: ClaimCandidate[][] = [];
  const store = {
    claimFirst: async (claims: ClaimCandidate[]) => {
      asked.push(claims);
      return outcome;
    },
  } as unknown as CounterStore;
  return { store, asked };
}

describe('the claim step', () => {
  it("claims a live key's candidates in rank order, each at its bid against its budgets on the UTC day", async () => {
    const receipt = { frequencyKeys: ['k'], spend: { campaignId: 'cmp.b', day: '2026-11-29', amountMicros: 2_000_000, generation: 'g' } };
    const { store, asked } = fakeCounters({ claimedIndex: 1, receipt, skipped: [{ index: 0, reason: 'frequency', retryAfterMs: 60_000 }] });
    const claims = new CounterClaims(store, { ensureLoaded: () => {} } as unknown as SpendKeeper, { count: 5, windowMs: 86_400_000 });
    const result = await claims.claim(request('live', 'session-1'));
    expect(result).toEqual({ winner: candidate('cmp.b'), receipt, reasons: [] });
    expect(asked).toHaveLength(1);
    expect(asked[0].map((c) => c.spend?.campaignId)).toEqual(['cmp.a', 'cmp.b', 'cmp.c']);
    expect(asked[0][0].spend).toMatchObject({ amountMicros: 2_000_000, totalLimitMicros: 10_000_000, dailyLimitMicros: 4_000_000, day: '2026-11-29' });
    // A session token: the campaign's cap and the session's cap; the token itself is never a key.
    expect(asked[0][0].frequency.map((f) => f.limit)).toEqual([3, 5]);
    expect(JSON.stringify(asked)).not.toContain('session-1');
    // Without one nothing identifies the user: budgets only.
    await claims.claim(request('live'));
    expect(asked[1][0].frequency).toEqual([]);
  });

  it('loads campaigns whose spend the store lost, announces budgets found spent, and says why nothing was claimed', async () => {
    const { store } = fakeCounters({
      claimedIndex: -1,
      receipt: null,
      skipped: [
        { index: 0, reason: 'spend_unknown', retryAfterMs: null },
        { index: 1, reason: 'budget', retryAfterMs: 3_600_000 },
        { index: 2, reason: 'budget', retryAfterMs: null },
      ],
    });
    const loaded: string[][] = [];
    const alerts: unknown[][] = [];
    const claims = new CounterClaims(
      store,
      { ensureLoaded: (ids: string[]) => loaded.push(ids) } as unknown as SpendKeeper,
      { count: 5, windowMs: 86_400_000 },
      { exhausted: (...args) => alerts.push(args) },
    );
    const result = await claims.claim(request('live', 's'));
    expect(result).toMatchObject({ winner: null, receipt: null, reasons: ['BUDGET_EXHAUSTED'] });
    expect(loaded).toEqual([['cmp.a']]);
    expect(alerts).toEqual([
      ['cmp.b', 'daily', '2026-11-29'],
      ['cmp.c', 'total', '2026-11-29'],
    ]);
  });
});
