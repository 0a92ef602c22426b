// Fakes the decide pipeline's unit tests share (test/decide/*.test.ts): a ranked candidate of a
// campaign and a key's principal.
import type { Principal } from '../../src/auth/authenticator.js';
import type { MatchCandidate } from '../../src/native/offer-index.js';

/** A candidate of `campaignId`'s one offer, matched by its category. */
export const candidate = (campaignId: string): MatchCandidate => ({
  snapshotId: `snp_${campaignId}`,
  offerId: `off.${campaignId}`,
  campaignId,
  advertiserId: 'adv.x',
  score: 1,
  matchedCategoryIds: ['travel.hotels'],
  matchedEntityIds: [],
  impliedCategoryIds: [],
});

/** A live or test key of one app, with nothing excluded. */
export const principal = (mode: 'live' | 'test'): Principal => ({ appId: 'app_1', keyId: 'key_1', mode, exclusions: { categoryIds: [], advertiserIds: [] } });
