// What one serve claims from the counters (src/counters/serve-claims.ts), without a store: keys,
// windows, the UTC day and its end, the hashed session, and a refusal read back as reason codes.
import { describe, expect, it } from 'vitest';
import { counterKeys } from '../../src/counters/keys.js';
import { msToUtcDayEnd, refusalOf, serveClaim, sessionOf, utcDay, type CampaignLimits } from '../../src/counters/serve-claims.js';

const campaign: CampaignLimits = {
  id: 'cmp.jeju',
  bidMicros: 1_500_000,
  totalBudgetMicros: 90_000_000,
  dailyBudgetMicros: 9_000_000,
  frequencyCap: { count: 3, windowSeconds: 3600 },
};
const sessionCap = { count: 5, windowMs: 86_400_000 };
// A minute before midnight UTC.
const LATE = Date.parse('2026-11-23T23:59:00Z');

describe('serve claims', () => {
  it("claims the campaign's and the session's caps and the bid on the UTC day", () => {
    const session = sessionOf('app_a', 'sess-8f2c');
    expect(serveClaim(campaign, session, sessionCap, LATE)).toEqual({
      frequency: [
        { key: counterKeys.frequency(session!, 'cmp.jeju'), limit: 3, windowMs: 3_600_000 },
        { key: counterKeys.globalFrequency(session!), limit: 5, windowMs: 86_400_000 },
      ],
      spend: {
        campaignId: 'cmp.jeju',
        amountMicros: 1_500_000,
        totalLimitMicros: 90_000_000,
        dailyLimitMicros: 9_000_000,
        day: '2026-11-23',
        msToDayEnd: 60_000,
      },
    });
  });

  it('caps no frequency without a session token; budgets still apply', () => {
    const claim = serveClaim(campaign, sessionOf('app_a', undefined), sessionCap, LATE);
    expect(claim.frequency).toEqual([]);
    expect(claim.spend?.amountMicros).toBe(1_500_000);
  });

  it("names a session by a hash of app and token: never the host's text, and per app", () => {
    const a = sessionOf('app_a', 'sess-8f2c');
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(a).not.toContain('8f2c');
    expect(sessionOf('app_a', 'sess-8f2c')).toBe(a);
    expect(sessionOf('app_b', 'sess-8f2c')).not.toBe(a);
  });

  it('counts the day in UTC, and its end from any time in it', () => {
    expect(utcDay(Date.parse('2026-11-23T23:59:59.999Z'))).toBe('2026-11-23');
    expect(utcDay(Date.parse('2026-11-24T00:00:00Z'))).toBe('2026-11-24');
    expect(msToUtcDayEnd(Date.parse('2026-11-24T00:00:00Z'))).toBe(86_400_000);
    expect(msToUtcDayEnd(Date.parse('2026-12-31T23:59:59.999Z'))).toBe(1);
  });

  it('reads a refusal as reason codes, with the soonest retry', () => {
    expect(
      refusalOf({
        claimedIndex: -1,
        receipt: null,
        skipped: [
          { index: 0, reason: 'frequency', retryAfterMs: 90_500 },
          { index: 1, reason: 'budget', retryAfterMs: null },
        ],
      }),
    ).toEqual({ reasons: ['FREQUENCY_CAPPED', 'BUDGET_EXHAUSTED'], retryAfterSeconds: 91 });
    // A spend being loaded from the ledger is known within seconds; a lifetime budget waits an hour.
    expect(refusalOf({ claimedIndex: -1, receipt: null, skipped: [{ index: 0, reason: 'spend_unknown', retryAfterMs: null }] })).toEqual({
      reasons: ['BUDGET_EXHAUSTED'],
      retryAfterSeconds: 1,
    });
    expect(refusalOf({ claimedIndex: -1, receipt: null, skipped: [{ index: 0, reason: 'budget', retryAfterMs: null }] }).retryAfterSeconds).toBe(3600);
  });
});
