// Whether a click counts. Every click is recorded; one that does not count carries the reason.
// The rules run in order and the first that applies names the reason (EthicalAds and dub are
// the bar): test links, bots and link previews, expired links, a repeat of the same decision,
// a repeat from the same address and browser within the hour, and per-address click rates.
import type { CounterStore } from '../counters/counter-store.js';
import { COUNTER_TTLS, counterKeys, keyHash } from '../counters/keys.js';
import type { TrackedLinkClaims } from './tracked-link.js';

export type NotCountedReason = 'test' | 'bot' | 'expired' | 'duplicate' | 'rate_limited';

/** Clicks per address (EthicalAds' limits): beyond any of these, clicks stop counting. */
export const CLICK_RATE_LIMITS = [
  { window: '1m', ms: 60_000, max: 1 },
  { window: '10m', ms: 600_000, max: 3 },
  { window: '1h', ms: 3_600_000, max: 10 },
  { window: '1d', ms: 86_400_000, max: 25 },
] as const;

export interface ClickFacts {
  claims: TrackedLinkClaims;
  nowMs: number;
  /** Bot user agent or a HEAD request (link checkers and unfurlers). */
  bot: boolean;
  /** Keyed hash of the client address (never the address itself). */
  ipHash: string;
  userAgent: string;
}

export async function judgeClick(facts: ClickFacts, counters: CounterStore): Promise<NotCountedReason | null> {
  const { claims } = facts;
  if (claims.test) return 'test';
  if (facts.bot) return 'bot';
  if (claims.expiresAt * 1000 < facts.nowMs) return 'expired';
  // The counter store down means these checks cannot run: the click counts, and the database
  // keeps every click (with its address hash) for dedup after the fact.
  try {
    // Every counter in one call, which the Redis store sends with the other clicks of this
    // event-loop turn as one script: the dedup marks (by decision, by visitor) and the address'
    // rate windows. So a duplicate click still counts towards its address' rate limits: it is a
    // click from that address all the same.
    const visitor = keyHash(`${facts.ipHash}\u0000${facts.userAgent}\u0000${claims.snapshotId}`);
    const ttlMs = COUNTER_TTLS.clickDedupMs;
    const { existing, hits } = await counters.marksAndHits(
      [
        { key: counterKeys.clickDedup(claims.decisionId), value: '1', ttlMs },
        { key: counterKeys.clickDedup(`v.${visitor}`), value: '1', ttlMs },
      ],
      CLICK_RATE_LIMITS.map((l) => ({ key: counterKeys.clickRate(facts.ipHash, l.window), windowMs: l.ms, by: 1 })),
    );
    if (existing.some((v) => v !== null)) return 'duplicate';
    if (hits.some((h, i) => h.count > CLICK_RATE_LIMITS[i].max)) return 'rate_limited';
  } catch {
    return null;
  }
  return null;
}
