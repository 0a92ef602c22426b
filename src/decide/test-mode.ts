// Test keys can ask for any outcome on demand (README "Test mode"), so hosts can build and CI
// their handling of each reason code without touching live numbers. The pipeline asks once,
// after the gates: a gate's answer is real for a test key too. And a test key's serve claims
// nothing from the live counters (TestModeClaims wraps the claim step).
import type { Principal } from '../auth/authenticator.js';
import type { ReasonCode } from '../errors/reason-codes.js';
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

export type TestOutcome = { fill: true } | { fill: false; reasonCodes: ReasonCode[]; retryAfterSeconds?: number };

/** The outcome a test key asked for with a trigger id in its digest, or null (decide as usual). */
export function requestedTestOutcome(principal: Principal, digestCategoryIds: readonly string[] | undefined): TestOutcome | null {
  if (principal.mode !== 'test') return null;
  const trigger = digestCategoryIds?.map((id) => TEST_TRIGGERS[id]).find(Boolean);
  switch (trigger) {
    case undefined:
      return null;
    case 'MATCHED':
      return { fill: true };
    case 'TIMEOUT':
      return { fill: false, reasonCodes: ['TIMEOUT'], retryAfterSeconds: 2 };
    case 'FREQUENCY_CAPPED':
    case 'BUDGET_EXHAUSTED':
      return { fill: false, reasonCodes: [trigger], retryAfterSeconds: 60 };
    default:
      return { fill: false, reasonCodes: [trigger] };
  }
}

/** Test keys never touch live counters: their decide wins with its best candidate, claims
 *  nothing and spends nothing; live keys claim as usual. Wraps the claim step of the pipeline. */
export class TestModeClaims implements ServeClaims {
  constructor(private readonly live: ServeClaims) {}

  claim(request: ClaimRequest): Promise<ClaimResult> {
    if (request.principal.mode !== 'test') return this.live.claim(request);
    return Promise.resolve({ winner: request.candidates[0] ?? null, receipt: null, reasons: [] });
  }
}
