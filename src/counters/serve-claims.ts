// What one serve claims from the shared counters, in the counters' own terms: the campaign's
// frequency cap and the session's cap (keys, windows), and the bid against the campaign's
// lifetime and daily budgets (the UTC day, and when it ends). The decide pipeline says which
// campaigns and which session; everything about keys, windows and days is decided here.
import type { ClaimCandidate, ClaimOutcome } from './counter-store.js';
import { counterKeys } from './keys.js';
import { sha256 } from '../util/ids.js';

/** A campaign's limits, as a claim needs them. */
export interface CampaignLimits {
  id: string;
  bidMicros: number;
  totalBudgetMicros: number;
  dailyBudgetMicros: number;
  frequencyCap: { count: number; windowSeconds: number };
}

/** Serves per session token across all campaigns within a window. */
export interface SessionCap {
  count: number;
  windowMs: number;
}

/** The UTC day of `ms` (`YYYY-MM-DD`): the day a spend counts on, in the store and the ledger. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** ms from `ms` to the end of its UTC day: when a daily limit lets a campaign serve again. */
export function msToUtcDayEnd(ms: number): number {
  const at = new Date(ms);
  return Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1) - ms;
}

/** The session a frequency cap counts, as it may name a key: a hash of the app and the host's
 *  session token (the store never sees a host's value). Without a token nothing identifies the
 *  user, so there is no session and no frequency cap; budgets apply regardless. */
export function sessionOf(appId: string, sessionToken: string | undefined): string | null {
  if (!sessionToken) return null;
  return sha256(`${appId}\u0000${sessionToken}`).toString('base64url').slice(0, 22);
}

/** The claim one serve of `campaign` makes at `nowMs`. */
export function serveClaim(campaign: CampaignLimits, session: string | null, sessionCap: SessionCap, nowMs: number): ClaimCandidate {
  return {
    frequency: session
      ? [
          { key: counterKeys.frequency(session, campaign.id), limit: campaign.frequencyCap.count, windowMs: campaign.frequencyCap.windowSeconds * 1000 },
          { key: counterKeys.globalFrequency(session), limit: sessionCap.count, windowMs: sessionCap.windowMs },
        ]
      : [],
    spend: {
      campaignId: campaign.id,
      amountMicros: campaign.bidMicros,
      totalLimitMicros: campaign.totalBudgetMicros,
      dailyLimitMicros: campaign.dailyBudgetMicros,
      day: utcDay(nowMs),
      msToDayEnd: msToUtcDayEnd(nowMs),
    },
  };
}

/** How long a host is told to wait when a campaign's spend is being loaded from the ledger. */
const SPEND_UNKNOWN_RETRY_MS = 1_000;
/** A lifetime budget has no window to wait for; an hour is when an operator's top-up is likely
 *  to have been imported. */
const NO_WINDOW_RETRY_MS = 3_600_000;

/** Why no candidate could be claimed, in reason codes, and the soonest one may pass again. */
export function refusalOf(outcome: ClaimOutcome): { reasons: ('FREQUENCY_CAPPED' | 'BUDGET_EXHAUSTED')[]; retryAfterSeconds: number } {
  const reasons: ('FREQUENCY_CAPPED' | 'BUDGET_EXHAUSTED')[] = [];
  if (outcome.skipped.some((s) => s.reason === 'frequency')) reasons.push('FREQUENCY_CAPPED');
  if (outcome.skipped.some((s) => s.reason === 'budget' || s.reason === 'spend_unknown')) reasons.push('BUDGET_EXHAUSTED');
  const waits = outcome.skipped.map((s) => (s.reason === 'spend_unknown' ? SPEND_UNKNOWN_RETRY_MS : (s.retryAfterMs ?? NO_WINDOW_RETRY_MS)));
  return { reasons, retryAfterSeconds: Math.max(1, Math.ceil(Math.min(...waits) / 1000)) };
}
