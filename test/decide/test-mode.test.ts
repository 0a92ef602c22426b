// Test mode over fakes: a test key's decide uses the live matcher's reading, shaped so the turn
// reaches the step that gives the outcome it asked for, and a claim step that never touches the
// counters. (The forced outcomes end to end, through HTTP: test/trust/test-mode-and-traffic-quality.test.ts.)
import { describe, expect, it } from 'vitest';
import type { ClaimRequest } from '../../src/decide/claim-step.js';
import { requestedTestOutcome, shapeReading, TEST_POLICY_FAMILY, TEST_TRIGGERS, testModeSteps } from '../../src/decide/test-mode.js';
import type { ServingCatalog } from '../../src/catalog/serving-catalog.js';
import type { MatchCandidate, Matcher, MatchQuery, MatchResult } from '../../src/native/offer-index.js';
import { candidate, principal } from '../helpers/decide-fakes.js';

const FILL = candidate('cmp.test-fill');
const reading = (over: Partial<MatchResult> = {}): MatchResult => ({
  sensitiveTopicIds: [],
  sensitivePatterns: [],
  modelSensitive: false,
  messageIntent: 'purchase',
  intent: 'purchase',
  commercialIntent: true,
  signalCategoryIds: ['travel.hotels'],
  signalEntityIds: [],
  droppedDigestIds: 0,
  candidates: [candidate('cmp.a')],
  overBudget: false,
  excludedByApp: false,
  ...over,
});
const claimOf = (candidates: MatchCandidate[]): ClaimRequest => ({
  serving: {} as ServingCatalog,
  candidates,
  sessionToken: undefined,
  principal: principal('test'),
  nowMs: 0,
});
const QUERY = { message: 'hotel in Jeju', language: 'en' } as MatchQuery;

describe('test mode', () => {
  it('hears a trigger only from a test key, the first one its digest names', () => {
    expect(requestedTestOutcome(principal('live'), ['sidenote.test.low_intent'])).toBeUndefined();
    expect(requestedTestOutcome(principal('test'), undefined)).toBeUndefined();
    expect(requestedTestOutcome(principal('test'), ['travel.hotels'])).toBeUndefined();
    expect(requestedTestOutcome(principal('test'), ['travel.hotels', 'sidenote.test.timeout', 'sidenote.test.matched'])).toBe('TIMEOUT');
  });

  it('without a trigger, reads with the live matcher itself and wins with the best candidate, claiming nothing', async () => {
    const live: Matcher = { match: () => reading() };
    const steps = testModeSteps(live, undefined, () => FILL);
    expect(steps.matcher).toBe(live);
    expect(await steps.claims.claim(claimOf([candidate('cmp.a'), candidate('cmp.b')]))).toEqual({ winner: candidate('cmp.a'), receipt: null, reasons: [] });
    expect(await steps.claims.claim(claimOf([]))).toEqual({ winner: null, receipt: null, reasons: [] });
  });

  it('shapes the reading so the turn reaches the step that gives each outcome', () => {
    const none = reading({ commercialIntent: false, candidates: [] });
    // A gate: POLICY_BLOCK, recorded as the test family (sensitive:test).
    expect(shapeReading(reading(), 'POLICY_BLOCK', () => FILL).sensitiveTopicIds).toEqual([TEST_POLICY_FAMILY]);
    // The intent check and the eligibility filter.
    expect(shapeReading(reading(), 'LOW_INTENT', () => FILL)).toMatchObject({ commercialIntent: false, candidates: [candidate('cmp.a')] });
    expect(shapeReading(reading(), 'NO_ELIGIBLE_OFFER', () => FILL)).toMatchObject({ commercialIntent: true, candidates: [] });
    // A fill, and the claim step's refusals: a commercial turn ending with the catalog's test offer.
    for (const asked of ['MATCHED', 'FREQUENCY_CAPPED', 'BUDGET_EXHAUSTED', 'TIMEOUT'] as const) {
      expect(shapeReading(none, asked, () => FILL)).toMatchObject({ commercialIntent: true, candidates: [FILL] });
      expect(shapeReading(reading(), asked, () => FILL).candidates).toEqual([candidate('cmp.a'), FILL]);
      expect(shapeReading(reading({ candidates: [FILL] }), asked, () => FILL).candidates).toEqual([FILL]);
      // A catalog without a test offer for the kind and language: the message's candidates as read.
      expect(shapeReading(none, asked, () => null).candidates).toEqual([]);
    }
    // Everything else the core read is kept.
    expect(shapeReading(reading({ signalCategoryIds: ['x'] }), 'MATCHED', () => FILL).signalCategoryIds).toEqual(['x']);
  });

  it('shapes what the live matcher read, and refuses at the claim step as asked, with the retry hint a live refusal carries', async () => {
    const queries: MatchQuery[] = [];
    const live: Matcher = {
      match: (q) => {
        queries.push(q);
        return reading({ commercialIntent: false, candidates: [] });
      },
    };
    expect(testModeSteps(live, 'MATCHED', () => FILL).matcher.match(QUERY)).toMatchObject({ commercialIntent: true, candidates: [FILL] });
    expect(queries).toEqual([QUERY]);
    const refusals = {
      FREQUENCY_CAPPED: 60,
      BUDGET_EXHAUSTED: 60,
      TIMEOUT: 2,
    } as const;
    for (const [asked, retryAfterSeconds] of Object.entries(refusals)) {
      const steps = testModeSteps(live, asked as keyof typeof refusals, () => FILL);
      expect(await steps.claims.claim(claimOf([FILL]))).toEqual({ winner: null, receipt: null, reasons: [asked], retryAfterSeconds });
    }
    expect(await testModeSteps(live, 'MATCHED', () => FILL).claims.claim(claimOf([FILL]))).toEqual({ winner: FILL, receipt: null, reasons: [] });
  });

  it('has a trigger for every outcome a host handles', () => {
    expect(new Set(Object.values(TEST_TRIGGERS))).toEqual(
      new Set(['MATCHED', 'POLICY_BLOCK', 'LOW_INTENT', 'NO_ELIGIBLE_OFFER', 'FREQUENCY_CAPPED', 'BUDGET_EXHAUSTED', 'TIMEOUT']),
    );
  });
});
