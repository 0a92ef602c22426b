// The decide pipeline (SPEC 4.1, DESIGN.md §2 "Decide"): gates → intent → native match →
// frequency and budget claim → tracked link → decision record. It composes the native core,
// the counter store and the decision recorder and never sees an HTTP request. The message is
// read here and handed to the core; it is never stored, logged or put in a key.
import type { Envelope } from './envelope.js';
import { effectiveDigest, effectiveIntent, evaluateGates, isLowIntent, liveLanguage } from './gates.js';
import type { DecisionRecorder, DecisionRecord } from './decision-recorder.js';
import type { CatalogRuntime } from '../catalog/catalog-runtime.js';
import type { CounterStore, ClaimCandidate } from '../counters/counter-store.js';
import { COUNTER_TTLS, counterKeys } from '../counters/keys.js';
import type { MatchCandidate } from '../native/offer-index.js';
import type { Principal } from '../auth/authenticator.js';
import type { TrackedLinkSigner } from '../links/tracked-link.js';
import { newId, sha256 } from '../util/ids.js';
import { randomBytes } from 'node:crypto';
import type { Campaign, Offer } from '../catalog/catalog-schema.js';
import type { SnapshotContent } from '../catalog/catalog-repository.js';
import { isUnderPrefix } from '../catalog/destinations.js';
import { NETWORK_ADAPTERS } from '../affiliate/networks/index.js';
import type { AffiliateImpressions } from '../affiliate/affiliate-impressions.js';

export type ReasonCode =
  | 'POLICY_BLOCK'
  | 'LOW_INTENT'
  | 'NO_ELIGIBLE_OFFER'
  | 'BUDGET_EXHAUSTED'
  | 'TIMEOUT'
  | 'LOCALE_NOT_LIVE'
  | 'FREQUENCY_CAPPED'
  | 'MATCHED'
  | 'INVALID_ENVELOPE'
  | 'FORBIDDEN_IDENTITY_FIELD'
  | 'CAPABILITY_UNMET';

export interface ServedOffer {
  serve: true;
  request_id: string;
  decision_id: string;
  offer_id: string;
  expires_at: string | null;
  disclosure: string;
  advertiser: string;
  link: string;
  title?: string;
  description?: string;
  image_url?: string;
  cta?: string;
  reason_codes: ReasonCode[];
}

export interface NoFill {
  serve: false;
  request_id: string;
  decision_id: string;
  reason_codes: ReasonCode[];
  retry_after_seconds?: number;
}

export type DecideResponse = ServedOffer | NoFill;

export interface AffiliateFill {
  serve: true;
  request_id: string;
  decision_id: string;
  network: string;
  advertiser: string;
  disclosure: string;
  affiliate_url: string;
  impression_token: string;
  expires_at: string;
  title?: string;
  description?: string;
  image_url?: string;
  cta?: string;
  reason_codes: ReasonCode[];
}

export type AffiliateResponse = AffiliateFill | NoFill;

type DecisionBase = Omit<DecisionRecord, 'serve' | 'reasonCodes' | 'latencyUs'>;

export interface DecideSettings {
  baseUrl: string;
  topK: number;
  /** Serves per session token across all campaigns within the window. */
  sessionCap: { count: number; windowMs: number };
  linkTtlSeconds: number;
}

/** Raised inside the pipeline when the handler budget ran out before a step with side effects. */
export class DeadlineExceeded extends Error {}

const DEFAULT_DISCLOSURE = { ko: '광고', en: 'Sponsored' } as const;

export class DecideService {
  constructor(
    private readonly catalog: CatalogRuntime,
    private readonly counters: CounterStore,
    private readonly recorder: DecisionRecorder,
    private readonly impressions: AffiliateImpressions,
    private readonly links: TrackedLinkSigner,
    private readonly settings: DecideSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs the pipeline for a sponsored offer. `expired()` tells whether the handler budget is
   *  spent; the pipeline checks it before every step with a side effect (claim, record). */
  async decide(envelope: Envelope, principal: Principal, requestId: string, expired: () => boolean): Promise<DecideResponse> {
    const selected = await this.select(envelope, principal, requestId, expired, 'sponsored');
    if (selected.kind === 'no-fill') return selected.response;
    const { base, winner, snapshot, nowMs, started } = selected;
    const offer = snapshot.offer;
    const expiresAt = new Date(nowMs + (selected.campaign?.offer_ttl_seconds ?? 900) * 1000);
    const link = `${this.settings.baseUrl}/r/${this.links.sign({
      decisionId: base.id,
      snapshotId: winner.snapshotId,
      appId: principal.appId,
      advertiserId: snapshot.advertiser_id,
      destination: offer.destination_url,
      expiresAt: Math.floor(nowMs / 1000) + this.settings.linkTtlSeconds,
      test: principal.mode === 'test',
    })}`;
    if (expired()) throw new DeadlineExceeded();
    await this.recorder.record(servedRecord(base, winner, expiresAt, started));
    return {
      serve: true,
      request_id: requestId,
      decision_id: base.id,
      offer_id: winner.snapshotId,
      expires_at: expiresAt.toISOString(),
      disclosure: offer.disclosure ?? DEFAULT_DISCLOSURE[offer.locale],
      advertiser: snapshot.advertiser_name,
      link,
      ...presentationHints(offer),
      reason_codes: ['MATCHED'],
    };
  }

  /** The affiliate variant (SPEC 4.2): same envelope and gates, matched against affiliate
   *  offers, answered with a direct tracking URL of the offer's travel affiliate network. */
  async decideAffiliate(envelope: Envelope, principal: Principal, requestId: string, expired: () => boolean): Promise<AffiliateResponse> {
    const selected = await this.select(envelope, principal, requestId, expired, 'affiliate');
    if (selected.kind === 'no-fill') return selected.response;
    const { base, winner, snapshot, nowMs, started } = selected;
    const offer = snapshot.offer;
    const network = this.catalog.serving.networks.get(offer.network_id ?? '')!;
    const affiliateUrl = NETWORK_ADAPTERS.get(network.adapter)!.buildUrl(network, { decisionId: base.id, destination: offer.destination_url });
    const expiresAt = new Date(nowMs + (selected.campaign?.offer_ttl_seconds ?? 900) * 1000);
    const impressionToken = randomBytes(32).toString('base64url');
    if (expired()) throw new DeadlineExceeded();
    await this.recorder.record({ ...servedRecord(base, winner, expiresAt, started), kind: 'affiliate' });
    // Committed before the host hears of the token, so a click intent can always find it.
    await this.impressions.create({
      tokenHash: sha256(impressionToken),
      decisionId: base.id,
      appId: principal.appId,
      networkId: network.id,
      offerSnapshotId: winner.snapshotId,
      expiresAt: new Date(nowMs + this.settings.linkTtlSeconds * 1000),
      createdAt: new Date(nowMs),
    });
    return {
      serve: true,
      request_id: requestId,
      decision_id: base.id,
      network: network.name,
      advertiser: snapshot.advertiser_name,
      disclosure: offer.disclosure ?? DEFAULT_DISCLOSURE[offer.locale],
      affiliate_url: affiliateUrl,
      impression_token: impressionToken,
      expires_at: expiresAt.toISOString(),
      ...presentationHints(offer),
      reason_codes: ['MATCHED'],
    };
  }

  /** Gates, intent, matching and the frequency/budget claim, shared by both kinds of decision. */
  private async select(
    envelope: Envelope,
    principal: Principal,
    requestId: string,
    expired: () => boolean,
    kind: 'sponsored' | 'affiliate',
  ): Promise<
    | { kind: 'no-fill'; response: NoFill }
    | { kind: 'winner'; base: DecisionBase; winner: MatchCandidate; snapshot: SnapshotContent; campaign: Campaign | undefined; nowMs: number; started: number }
  > {
    const started = performance.now();
    const nowMs = this.now();
    const digest = effectiveDigest(envelope, nowMs);
    const language = liveLanguage(envelope.locale);
    const match = this.catalog.index.match({
      message: envelope.message,
      language: language ?? 'en',
      country: envelope.country?.toUpperCase(),
      categoryIds: digest?.category_ids,
      entityIds: digest?.entity_ids,
      excludedEntityIds: digest?.excluded_entity_ids,
      budgetBucket: digest?.budget_bucket,
      intentType: digest?.intent_type,
      kind,
      nowMs,
      topK: this.settings.topK,
    });
    const intent = effectiveIntent(digest?.intent_type, match.messageIntent);
    const base: DecisionBase = {
      id: newId('dec'),
      appId: principal.appId,
      requestId,
      kind: kind === 'affiliate' ? 'affiliate' : 'offer',
      test: principal.mode === 'test',
      createdAt: new Date(nowMs),
      offerSnapshotId: null,
      campaignId: null,
      expiresAt: null,
      locale: envelope.locale ?? null,
      country: envelope.country ?? null,
      intentType: intent,
      messageIntent: match.messageIntent,
      matchedCategoryIds: match.signalCategoryIds,
      matchedEntityIds: match.signalEntityIds,
      droppedDigestIds: match.droppedDigestIds,
    };
    const noFill = async (reasonCodes: ReasonCode[], retryAfterSeconds?: number) => {
      if (expired()) throw new DeadlineExceeded();
      await this.recorder.record({ ...base, serve: false, reasonCodes, latencyUs: micros(started) });
      const response: NoFill = {
        serve: false,
        request_id: requestId,
        decision_id: base.id,
        reason_codes: reasonCodes,
        ...(retryAfterSeconds !== undefined ? { retry_after_seconds: retryAfterSeconds } : {}),
      };
      return { kind: 'no-fill' as const, response };
    };

    const gates = evaluateGates(envelope, digest, match.sensitiveTopicIds.length > 0);
    if (gates.length > 0) return noFill(gates);
    // Test keys can ask for any outcome on demand (README "Test mode"), so hosts can build and
    // CI their handling of each reason code without touching live numbers.
    const trigger = principal.mode === 'test' ? testTrigger(digest?.category_ids) : null;
    if (trigger === 'TIMEOUT') return noFill(['TIMEOUT'], 2);
    if (trigger === 'FREQUENCY_CAPPED' || trigger === 'BUDGET_EXHAUSTED') return noFill([trigger], 60);
    if (trigger && trigger !== 'MATCHED') return noFill([trigger]);
    if (trigger === 'MATCHED' && match.candidates.length === 0) {
      const forced = this.firstServable(kind, language ?? 'en');
      if (forced) match.candidates.push(forced);
    }
    if (trigger !== 'MATCHED' && isLowIntent(intent, match.signalCategoryIds.length + match.signalEntityIds.length)) return noFill(['LOW_INTENT']);
    const candidates = match.candidates.filter((c) => this.servable(c, kind));
    if (candidates.length === 0) return noFill(['NO_ELIGIBLE_OFFER']);

    if (expired()) throw new DeadlineExceeded();
    const claim = await this.claim(candidates, envelope.session?.token, principal, nowMs);
    if (claim.winner === null) return noFill(claim.reasons, claim.retryAfterSeconds);
    return {
      kind: 'winner',
      base,
      winner: claim.winner,
      snapshot: this.catalog.serving.snapshots.get(claim.winner.snapshotId)!,
      campaign: this.catalog.serving.campaigns.get(claim.winner.campaignId),
      nowMs,
      started,
    };
  }

  /** A deterministic fill for test keys: the live offer of this kind and language with the
   *  lowest snapshot id. */
  private firstServable(kind: 'sponsored' | 'affiliate', language: string): MatchCandidate | null {
    let best: string | null = null;
    for (const [id, s] of this.catalog.serving.snapshots) {
      if (s.offer.kind === kind && s.offer.locale === language && (best === null || id < best)) {
        const c = { snapshotId: id, offerId: s.offer.id, campaignId: s.offer.campaign_id, advertiserId: s.advertiser_id, score: 0, matchedCategoryIds: [], matchedEntityIds: [] };
        if (this.servable(c, kind)) best = id;
      }
    }
    if (best === null) return null;
    const s = this.catalog.serving.snapshots.get(best)!;
    return { snapshotId: best, offerId: s.offer.id, campaignId: s.offer.campaign_id, advertiserId: s.advertiser_id, score: 0, matchedCategoryIds: [], matchedEntityIds: [] };
  }

  /** The index and the serving view are swapped together, but an affiliate offer also needs its
   *  network, and its destination on that network's allowlist. */
  private servable(c: MatchCandidate, kind: 'sponsored' | 'affiliate'): boolean {
    const snapshot = this.catalog.serving.snapshots.get(c.snapshotId);
    if (!snapshot || !this.catalog.serving.campaigns.has(c.campaignId)) return false;
    if (kind === 'sponsored') return true;
    const network = this.catalog.serving.networks.get(snapshot.offer.network_id ?? '');
    return Boolean(network && NETWORK_ADAPTERS.has(network.adapter) && isUnderPrefix(snapshot.offer.destination_url, network.destinations));
  }

  /** Writes the record of a decide that ran out of time or lost a dependency. Best effort: the
   *  host already has its answer, and the database may be the thing that is down. */
  recordTimeout(
    principal: Principal,
    requestId: string,
    envelope: Envelope,
    decisionId: string,
    latencyUs: number,
    kind: 'offer' | 'affiliate' = 'offer',
  ): void {
    this.recorder
      .record({
        id: decisionId,
        appId: principal.appId,
        requestId,
        kind,
        test: principal.mode === 'test',
        createdAt: new Date(this.now()),
        serve: false,
        reasonCodes: ['TIMEOUT'],
        offerSnapshotId: null,
        campaignId: null,
        expiresAt: null,
        locale: envelope.locale ?? null,
        country: envelope.country ?? null,
        intentType: envelope.session?.digest?.intent_type ?? null,
        messageIntent: null,
        matchedCategoryIds: [],
        matchedEntityIds: [],
        droppedDigestIds: 0,
        latencyUs,
      })
      .catch(() => {});
  }

  /** Frequency caps and budgets of the top-K candidates, checked in one round trip; the first
   *  candidate that passes is claimed atomically. Test keys never touch live counters. */
  private async claim(
    candidates: MatchCandidate[],
    sessionToken: string | undefined,
    principal: Principal,
    nowMs: number,
  ): Promise<{ winner: MatchCandidate | null; reasons: ReasonCode[]; retryAfterSeconds?: number }> {
    if (principal.mode === 'test') return { winner: candidates[0], reasons: [] };
    // The session token is hashed before it names a key: Redis never sees host values.
    const session = sessionToken ? sha256(`${principal.appId}\u0000${sessionToken}`).toString('base64url').slice(0, 22) : null;
    const day = new Date(nowMs).toISOString().slice(0, 10);
    const msToDayEnd = Date.UTC(new Date(nowMs).getUTCFullYear(), new Date(nowMs).getUTCMonth(), new Date(nowMs).getUTCDate() + 1) - nowMs;
    const requests: ClaimCandidate[] = candidates.map((c) => {
      const campaign = this.catalog.serving.campaigns.get(c.campaignId)!;
      return {
        frequency: session
          ? [
              { key: counterKeys.frequency(session, c.campaignId), limit: campaign.frequency_cap.count, windowMs: campaign.frequency_cap.window_seconds * 1000 },
              { key: counterKeys.globalFrequency(session), limit: this.settings.sessionCap.count, windowMs: this.settings.sessionCap.windowMs },
            ]
          : [],
        budgets: [
          { key: counterKeys.budgetTotal(c.campaignId), limitMicros: campaign.budget.total_micros, amountMicros: campaign.bid_micros, ttlMs: null },
          // Daily buckets outlive their day by an hour so late readers still see the final figure.
          { key: counterKeys.budgetDaily(c.campaignId, day), limitMicros: campaign.budget.daily_micros, amountMicros: campaign.bid_micros, ttlMs: msToDayEnd + COUNTER_TTLS.dailyBudgetGraceMs },
        ],
      };
    });
    const outcome = await this.counters.claimFirst(requests);
    if (outcome.claimedIndex >= 0) return { winner: candidates[outcome.claimedIndex], reasons: [] };
    const reasons: ReasonCode[] = [];
    if (outcome.skipped.some((s) => s.reason === 'frequency')) reasons.push('FREQUENCY_CAPPED');
    if (outcome.skipped.some((s) => s.reason === 'budget')) reasons.push('BUDGET_EXHAUSTED');
    // A lifetime budget has no window to wait for; an hour is when an operator's top-up is
    // likely to have been imported, so hosts are told to look again then.
    const waits = outcome.skipped.map((s) => s.retryAfterMs ?? 3_600_000);
    const retryAfterSeconds = Math.max(1, Math.ceil(Math.min(...waits) / 1000));
    return { winner: null, reasons, retryAfterSeconds };
  }
}

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

function testTrigger(categoryIds: string[] | undefined): ReasonCode | null {
  for (const id of categoryIds ?? []) if (TEST_TRIGGERS[id]) return TEST_TRIGGERS[id];
  return null;
}

function servedRecord(base: DecisionBase, winner: MatchCandidate, expiresAt: Date, started: number): DecisionRecord {
  return {
    ...base,
    serve: true,
    reasonCodes: ['MATCHED'],
    offerSnapshotId: winner.snapshotId,
    campaignId: winner.campaignId,
    expiresAt,
    matchedCategoryIds: winner.matchedCategoryIds,
    matchedEntityIds: winner.matchedEntityIds,
    latencyUs: micros(started),
  };
}

function presentationHints(offer: Offer) {
  return {
    title: offer.title,
    ...(offer.description ? { description: offer.description } : {}),
    ...(offer.image_url ? { image_url: offer.image_url } : {}),
    ...(offer.cta ? { cta: offer.cta } : {}),
  };
}

function micros(startedMs: number): number {
  return Math.round((performance.now() - startedMs) * 1000);
}
