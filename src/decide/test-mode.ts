// Test keys can ask for any outcome on demand (README "Test mode"), so hosts can build and CI
// their handling of each reason code without touching live numbers. Test mode is not a step of
// the pipeline: it wraps two of its steps. The reading is shaped so the turn reaches the step
// that gives the asked-for outcome (a gate, the intent check, the eligibility filter, the
// claim), and the claim step never touches the live counters. The gates that need no message
// are real for a test key too: they run before the message is read.
import type { Principal } from '../auth/authenticator.js';
import type { ReasonCode } from '../errors/reason-codes.js';
import type { MatchCandidate, Matcher, MatchQuery, MatchResult } from '../native/offer-index.js';
import type { ClaimRequest, ClaimResult, ServeClaims } from './claim-step.js';

/** Digest category ids a test key may send to ask for an outcome: `sidenote.test.<reason>`. */
export const TEST_TRIGGERS: Record<string, ReasonCode> = {
  'sidenote.test.matched': 'MATCHED',
  'sidenote.test.policy_block': 'POLICY_BLOCK',
  'sidenote.test.low_intent': 'LOW_INTENT',
  'sidenote.test.no_eligible_offer': 'NO_ELIGIBLE_OFFER',
  'sidenote.test.frequency_capped': 'FREQUENCY_CAPPED',
  'sidenote.test.budget_exhausted': 'BUDGET_EXHAUSTED',
  'sidenote.test.timeout': 'TIMEOUT',
};

/** The family a forced POLICY_BLOCK is recorded under (`sensitive:test` in its explanation). */
export const TEST_POLICY_FAMILY = 'test';

/** The two steps test mode wraps; a live key's decide uses them as they are. */
export interface DecideSteps {
  matcher: Matcher;
  claims: ServeClaims;
}

/** The outcome a test key asked for with a trigger id in its digest (undefined: decide as usual). */
export function requestedTestOutcome(principal: Principal, digestCategoryIds: readonly string[] | undefined): ReasonCode | undefined {
  if (principal.mode !== 'test') return undefined;
  return digestCategoryIds?.map((id) => TEST_TRIGGERS[id]).find(Boolean);
}

/** A test key's steps: the live matcher's reading shaped by the outcome asked for, and a claim
 *  step that claims nothing. `testFill` is the catalog's offer a forced fill serves when the
 *  message matched nothing. */
export function testModeSteps(live: Matcher, asked: ReasonCode | undefined, testFill: () => MatchCandidate | null): DecideSteps {
  return {
    matcher: asked === undefined ? live : { match: (query: MatchQuery) => shapeReading(live.match(query), asked, testFill) },
    claims: new TestModeClaims(asked),
  };
}

/** What the turn reads as when `asked` is forced: sensitive for POLICY_BLOCK, no commercial
 *  intent for LOW_INTENT, no candidate for NO_ELIGIBLE_OFFER; otherwise a commercial turn whose
 *  candidates end with the catalog's test offer, so that the claim step is reached and gives
 *  the outcome. */
export function shapeReading(read: MatchResult, asked: ReasonCode, testFill: () => MatchCandidate | null): MatchResult {
  switch (asked) {
    case 'POLICY_BLOCK':
      return { ...read, sensitiveTopicIds: [...read.sensitiveTopicIds, TEST_POLICY_FAMILY] };
    case 'LOW_INTENT':
      return { ...read, commercialIntent: false };
    case 'NO_ELIGIBLE_OFFER':
      return { ...read, commercialIntent: true, candidates: [] };
    default: {
      // The catalog's test offer last: what the message matched ranks first, and when none of it
      // can serve (a place alone, another kind) the outcome still reaches the claim step.
      const fill = testFill();
      const candidates = fill && !read.candidates.some((c) => c.snapshotId === fill.snapshotId) ? [...read.candidates, fill] : read.candidates;
      return { ...read, commercialIntent: true, candidates };
    }
  }
}

/** Retry hints of the outcomes the claim step gives, as live refusals carry them. */
const FORCED_CLAIM_REFUSALS: Partial<Record<ReasonCode, number>> = {
  FREQUENCY_CAPPED: 60,
  BUDGET_EXHAUSTED: 60,
  TIMEOUT: 2,
};

/** A test key's claim step: never the live counters. Its decide wins with its best candidate,
 *  claims nothing and spends nothing, or is refused as asked (frequency cap, budget, timeout). */
export class TestModeClaims implements ServeClaims {
  constructor(private readonly asked?: ReasonCode) {}

  claim(request: ClaimRequest): Promise<ClaimResult> {
    const retryAfterSeconds = this.asked ? FORCED_CLAIM_REFUSALS[this.asked] : undefined;
    if (retryAfterSeconds !== undefined) return Promise.resolve({ winner: null, receipt: null, reasons: [this.asked!], retryAfterSeconds });
    return Promise.resolve({ winner: request.candidates[0] ?? null, receipt: null, reasons: [] });
  }
}
