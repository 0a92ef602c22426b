// The claim step of a decide: the first of the ranked candidates whose frequency caps and
// budgets let it serve, claimed atomically in one round trip (src/counters/serve-claims.ts says
// what a serve claims: keys, windows, the UTC day). What a refusal teaches is acted on here: a
// campaign whose spend the store lost is loaded from the ledger, and one out of budget is
// announced. Test keys never reach it (test-mode.ts gives them a claim step of their own).
import type { Principal } from '../auth/authenticator.js';
import type { ServingCatalog } from '../catalog/serving-catalog.js';
import type { Campaign } from '../catalog/catalog-schema.js';
import type { ClaimReceipt, CounterStore } from '../counters/counter-store.js';
import { refusalOf, serveClaim, sessionOf, utcDay, type CampaignLimits, type SessionCap } from '../counters/serve-claims.js';
import type { ReasonCode } from '../errors/reason-codes.js';
import type { MatchCandidate } from '../native/offer-index.js';
import type { SpendKeeper } from '../spend/spend-keeper.js';

export interface ClaimRequest {
  serving: ServingCatalog;
  /** Ranked, best first; each servable. */
  candidates: MatchCandidate[];
  sessionToken: string | undefined;
  principal: Principal;
  nowMs: number;
}

export interface ClaimResult {
  winner: MatchCandidate | null;
  /** What to give back if the decide times out after claiming (null: nothing was claimed). */
  receipt: ClaimReceipt | null;
  /** Why nothing was claimed. */
  reasons: ReasonCode[];
  retryAfterSeconds?: number;
}

/** The claim step, as the pipeline sees it. */
export interface ServeClaims {
  claim(request: ClaimRequest): Promise<ClaimResult>;
}

export interface BudgetAlerts {
  exhausted(campaignId: string, limit: 'total' | 'daily', day: string): void;
}

/** Claims against the shared counters: live traffic. */
export class CounterClaims implements ServeClaims {
  constructor(
    private readonly counters: CounterStore,
    private readonly spend: SpendKeeper,
    private readonly sessionCap: SessionCap,
    private readonly budgetAlerts?: BudgetAlerts,
  ) {}

  async claim({ serving, candidates, sessionToken, principal, nowMs }: ClaimRequest): Promise<ClaimResult> {
    const session = sessionOf(principal.appId, sessionToken);
    const claims = candidates.map((c) => serveClaim(limitsOf(serving.campaigns.get(c.campaignId)!), session, this.sessionCap, nowMs));
    const outcome = await this.counters.claimFirst(claims);
    const unknown = outcome.skipped.filter((s) => s.reason === 'spend_unknown').map((s) => candidates[s.index].campaignId);
    // Campaigns whose spend the store lost are loaded from the ledger, and not served until then.
    if (unknown.length > 0) this.spend.ensureLoaded(unknown);
    for (const s of outcome.skipped) {
      // A daily cap refuses until the day ends (a wait); a lifetime budget has no wait.
      if (s.reason === 'budget') this.budgetAlerts?.exhausted(candidates[s.index].campaignId, s.retryAfterMs === null ? 'total' : 'daily', utcDay(nowMs));
    }
    if (outcome.claimedIndex >= 0) return { winner: candidates[outcome.claimedIndex], receipt: outcome.receipt, reasons: [] };
    return { winner: null, receipt: null, ...refusalOf(outcome) };
  }
}

/** A catalog campaign's limits in the counters' terms. */
function limitsOf(campaign: Campaign): CampaignLimits {
  return {
    id: campaign.id,
    bidMicros: campaign.bid_micros,
    totalBudgetMicros: campaign.budget.total_micros,
    dailyBudgetMicros: campaign.budget.daily_micros,
    frequencyCap: { count: campaign.frequency_cap.count, windowSeconds: campaign.frequency_cap.window_seconds },
  };
}
