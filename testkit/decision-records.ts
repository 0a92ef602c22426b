// Decision records as the decide writes them, for tests and benchmarks that write history
// straight through the decision repository (partitions, retention, report rollups).
import type { DecisionRecord } from '../src/decisions/decision-repository.js';
import { newDecisionId } from '../src/util/ids.js';

/** A decision made at `atMs`, its id carrying that time; served when `served` is given. */
export function decisionAt(
  appId: string,
  atMs: number,
  served?: { snapshotId: string; campaignId: string; spend: number },
  overrides: Partial<DecisionRecord> = {},
): DecisionRecord {
  return {
    id: newDecisionId(atMs),
    appId,
    requestId: `req-${atMs}`,
    kind: 'offer',
    test: false,
    createdAt: new Date(atMs),
    serve: Boolean(served),
    reasonCodes: served ? ['MATCHED'] : ['LOW_INTENT'],
    offerSnapshotId: served?.snapshotId ?? null,
    campaignId: served?.campaignId ?? null,
    expiresAt: null,
    locale: 'ko-KR',
    country: 'KR',
    intentType: null,
    messageIntent: null,
    matchedCategoryIds: [],
    matchedEntityIds: [],
    impliedCategoryIds: [],
    droppedDigestIds: 0,
    policyReasons: [],
    readingOverBudget: false,
    excludedByApp: false,
    latencyUs: 100,
    spendMicros: served?.spend ?? 0,
    ...overrides,
  };
}

/** What followed a decision, for a decision repository whose lookups a test does not read. */
export const noActivity = {
  events: { countsOfDecision: async () => ({ offer_rendered: 0, qualified_impression: 0 }) },
  clicks: { countOfDecision: async () => 0 },
  conversions: { countOfDecision: async () => 0 },
  clickIntents: { clickIntentsOfDecision: async () => 0 },
};
