// The decide pipeline: gates → intent → native match →
// frequency and budget claim → tracked link → decision record. It composes the native core,
// the counter store and the decision recorder and never sees an HTTP request. The message is
// read here and handed to the core; it is never stored, logged or put in a key.
//
// The handler budget is enforced here, once: a decide answers within it or answers TIMEOUT, and
// a TIMEOUT keeps nothing. Each request has one decision id from the start, so it leaves exactly
// one decision record. An answer is given only if the pipeline finished before the deadline by
// the clock; otherwise the host hears TIMEOUT and, once the pipeline has settled, its record is
// made the TIMEOUT record (a served row undone, its spend taken off the ledger in the same
// transaction) and its frequency and budget claim is given back to the counter store.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Envelope } from './envelope.js';
import { effectiveDigest, evaluateGates, liveLanguage, NOTHING_SENSITIVE, policyReasons } from './gates.js';
import { canonicalCountry, canonicalLocale } from './locale-tags.js';
import { requestedTestOutcome, testModeSteps, type DecideSteps } from './test-mode.js';
import { CounterClaims, type BudgetAlerts } from './claim-step.js';
import type { DecisionRecorder } from './decision-recorder.js';
import type { DecisionRecord } from '../decisions/decision-repository.js';
import type { CatalogRuntime } from '../catalog/catalog-runtime.js';
import type { ServedSnapshot, ServingCatalog } from '../catalog/serving-catalog.js';
import type { CounterStore } from '../counters/counter-store.js';
import type { ClaimReceipt } from '../counters/counter-store.js';
import type { SpendKeeper } from '../spend/spend-keeper.js';
import type { MatchCandidate, MatchResult, Matcher } from '../native/offer-index.js';
import type { AuthOutcome, Principal } from '../auth/authenticator.js';
import type { TrackedLinkSigner } from '../links/tracked-link.js';
import { decisionIdTime, newDecisionId, sha256 } from '../util/ids.js';
import { randomBytes } from 'node:crypto';
import type { Campaign, Offer, OfferKind } from '../catalog/catalog-schema.js';
import type { DecisionKind } from '../decisions/decision-schemas.js';
import { NETWORK_ADAPTERS } from '../affiliate/networks/index.js';
import type { AffiliateImpressions } from '../affiliate/affiliate-impressions.js';
import { StoreUnavailable, stackFrames } from '../errors/error-registry.js';
import type { Deadline } from '../util/deadline.js';
import type { ReasonCode } from '../errors/reason-codes.js';
import type { AffiliateResponse, DecideResponse, NoFill } from './decide-schemas.js';

export type { ReasonCode } from '../errors/reason-codes.js';
export type { AffiliateFill, AffiliateResponse, DecideResponse, NoFill, ServedOffer } from './decide-schemas.js';

type DecisionBase = Omit<DecisionRecord, 'serve' | 'reasonCodes' | 'latencyUs' | 'spendMicros'>;

/** One decide in flight: its decision id (fixed from the start: one record per request) and
 *  what it claimed, so that a timeout can give the claim back. */
interface Attempt {
  decisionId: string;
  /** The decide's clock reading, which its id carries: every record of the decision is made at
   *  this time (its day partition, and the primary key (id, created_at), depend on it). */
  atMs: number;
  receipt: ClaimReceipt | null;
  started: number;
  /** Whether the pipeline's decision row is known to have committed. */
  written: boolean;
}

const TIMEOUT_RETRY_AFTER_SECONDS = 2;
// A timed-out decide whose record could not be corrected (database down) tries again later;
// until then its claim stays counted, which under-serves and never overspends.
const SETTLE_RETRIES_MS = [1_000, 5_000, 30_000];

export interface DecideSettings {
  baseUrl: string;
  topK: number;
  /** Serves per session token across all campaigns within the window. */
  sessionCap: { count: number; windowMs: number };
  linkTtlSeconds: number;
}

/** Raised inside the pipeline when the handler budget ran out before a step with side effects. */
class DeadlineExceeded extends Error {}

const DEADLINE = Symbol('deadline');

const DEFAULT_DISCLOSURE = { ko: '광고', en: 'Sponsored' } as const;

/** What a turn reads as when the gates refused it before its message was read: no more than
 *  its digest says. */
const unread = (digestIntent: string | undefined): MatchResult => ({
  sensitiveTopicIds: [],
  sensitivePatterns: [],
  modelSensitive: false,
  messageIntent: 'none',
  intent: digestIntent ?? 'unknown',
  commercialIntent: false,
  signalCategoryIds: [],
  signalEntityIds: [],
  droppedDigestIds: 0,
  candidates: [],
  overBudget: false,
  excludedByApp: false,
});

/** What a decide is made of. */
export interface DecideParts {
  /** The serving view: snapshots, campaigns, networks and places of the live catalog. */
  catalog: CatalogRuntime;
  /** Reads the message and ranks offers; the live native index unless a test puts another. */
  matcher?: Matcher;
  counters: CounterStore;
  spend: SpendKeeper;
  recorder: DecisionRecorder;
  impressions: AffiliateImpressions;
  links: TrackedLinkSigner;
  settings: DecideSettings;
  /** Told of each campaign a claim found out of budget (signed notifications announce it). */
  budgetAlerts?: BudgetAlerts;
  now?: () => number;
}

export class DecideService {
  private readonly catalog: CatalogRuntime;
  private readonly counters: CounterStore;
  private readonly recorder: DecisionRecorder;
  private readonly impressions: AffiliateImpressions;
  private readonly links: TrackedLinkSigner;
  private readonly settings: DecideSettings;
  /** A live key's matcher and claim step (a test key's wrap them: test-mode.ts). */
  private readonly live: DecideSteps;
  private readonly now: () => number;

  constructor(parts: DecideParts) {
    ({
      catalog: this.catalog,
      counters: this.counters,
      recorder: this.recorder,
      impressions: this.impressions,
      links: this.links,
      settings: this.settings,
    } = parts);
    this.live = {
      matcher: parts.matcher ?? parts.catalog.index,
      claims: new CounterClaims(parts.counters, parts.spend, parts.settings.sessionCap, parts.budgetAlerts),
    };
    this.now = parts.now ?? Date.now;
  }

  private readonly settling = new Set<Promise<void>>();
  private readonly closing = new AbortController();

  /** Writes the pipeline's decision row, noting when it has committed. */
  private async write(attempt: Attempt, record: DecisionRecord): Promise<void> {
    await this.recorder.record(record);
    attempt.written = true;
  }

  /** A sponsored-offer decision for one user turn, within the deadline; never rejects. */
  decide(envelope: Envelope, principal: Principal, requestId: string, deadline: Deadline, log?: FailOpenLog): Promise<DecideResponse> {
    return this.withinDeadline('offer', envelope, principal, requestId, deadline, log, (attempt) =>
      this.sponsored(attempt, envelope, principal, requestId, deadline),
    );
  }

  /** The affiliate variant: same envelope and gates, matched against affiliate
   *  offers, answered with a direct tracking URL of the offer's travel affiliate network. */
  decideAffiliate(envelope: Envelope, principal: Principal, requestId: string, deadline: Deadline, log?: FailOpenLog): Promise<AffiliateResponse> {
    return this.withinDeadline('affiliate', envelope, principal, requestId, deadline, log, (attempt) =>
      this.affiliate(attempt, envelope, principal, requestId, deadline),
    );
  }

  private async withinDeadline<T extends DecideResponse | AffiliateResponse>(
    kind: DecisionKind,
    envelope: Envelope,
    principal: Principal,
    requestId: string,
    deadline: Deadline,
    log: FailOpenLog | undefined,
    run: (attempt: Attempt) => Promise<T>,
  ): Promise<T | NoFill> {
    const atMs = this.now();
    const attempt: Attempt = { decisionId: newDecisionId(atMs), atMs, receipt: null, started: performance.now(), written: false };
    const pipeline = run(attempt);
    // The pipeline may settle after the deadline answered; its late failure is expected.
    pipeline.catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    const expiry = new Promise<typeof DEADLINE>((resolve) => {
      timer = setTimeout(() => resolve(DEADLINE), Math.max(0, deadline.remainingMs()));
    });
    try {
      const result = await Promise.race([pipeline, expiry]);
      // The clock decides, not which promise won: an answer that arrives past the deadline (a
      // stalled event loop) was not in time either.
      if (result !== DEADLINE && !deadline.expired()) {
        // Answered in time: a served row counts from now on (migration 011).
        if (result.serve && attempt.written) this.recorder.confirm(attempt.decisionId);
        return result;
      }
    } catch (err) {
      // An outage is expected to happen and answered TIMEOUT; anything else is a bug, answered
      // TIMEOUT too (the host is never blocked) but logged as one.
      if (err instanceof StoreUnavailable) log?.warn({ err: { type: err.name, code: err.code } }, 'decide failed open: store unavailable');
      else if (!(err instanceof DeadlineExceeded)) log?.error({ err: { type: (err as Error).name, frames: stackFrames(err) } }, 'decide failed open: bug');
    } finally {
      clearTimeout(timer);
    }
    const settling = this.settleTimedOut(attempt, pipeline, this.timeoutRecord(kind, attempt, principal, requestId, envelope));
    this.settling.add(settling);
    void settling.finally(() => this.settling.delete(settling));
    return timeoutAnswer(requestId, attempt.decisionId);
  }

  /** A decision id made now (it carries its time): for a TIMEOUT answered before the service ran. */
  newDecisionId(): string {
    return newDecisionId(this.now());
  }

  /** After a TIMEOUT answer: waits for the pipeline to stop (every step is bounded by a store
   *  timeout), makes its record the TIMEOUT record, then gives its claim back. The claim is only
   *  given back once the record is right: if the database cannot be reached, the claim stays
   *  counted (under-serving, never overspending) and the correction is tried again. */
  /** A TIMEOUT answered before the key was known: recorded under the key's app once the lookup
   *  still running names one (an invalid key, or a store that stays down, leaves no record:
   *  there is no app to record it for). */
  recordWhenAuthenticated(lookup: Promise<AuthOutcome>, answer: NoFill, envelope: Envelope, kind: DecisionKind, elapsedMs: number): void {
    const attempt: Attempt = {
      decisionId: answer.decision_id,
      atMs: decisionIdTime(answer.decision_id) ?? this.now(),
      receipt: null,
      started: performance.now() - elapsedMs,
      written: false,
    };
    const settling = lookup.then(async (outcome) => {
      if (!outcome.ok) return;
      await this.settleTimedOut(attempt, Promise.resolve(), this.timeoutRecord(kind, attempt, outcome.principal, answer.request_id, envelope));
    });
    this.settling.add(settling);
    void settling.catch(() => {}).finally(() => this.settling.delete(settling));
  }

  /** Waits for the timed-out decides still settling (on shutdown, before the writers close). */
  async drain(): Promise<void> {
    this.closing.abort();
    while (this.settling.size > 0) await Promise.allSettled([...this.settling]);
  }

  private async settleTimedOut(attempt: Attempt, pipeline: Promise<unknown>, record: DecisionRecord): Promise<void> {
    await pipeline.catch(() => {});
    for (let i = 0; ; i++) {
      try {
        await this.recorder.recordTimedOut(record, attempt.written);
        break;
      } catch {
        // Shutting down: no more retries; the claim stays counted (never an overspend).
        if (i >= SETTLE_RETRIES_MS.length || this.closing.signal.aborted) return;
        // Shutdown cuts the wait short (one last try): the sweep of unconfirmed serves corrects
        // what is left (src/decisions/unconfirmed-serves.ts).
        await sleep(SETTLE_RETRIES_MS[i], undefined, { signal: this.closing.signal, ref: false }).catch(() => {});
      }
    }
    if (attempt.receipt) await this.counters.refund(attempt.receipt).catch(() => {});
  }

  private async sponsored(attempt: Attempt, envelope: Envelope, principal: Principal, requestId: string, deadline: Deadline): Promise<DecideResponse> {
    const selected = await this.select(attempt, envelope, principal, requestId, deadline, 'sponsored');
    if (selected.kind === 'no-fill') return selected.response;
    const { base, winner, snapshot, nowMs } = selected;
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
    if (deadline.expired()) throw new DeadlineExceeded();
    await this.write(attempt, servedRecord(base, winner, expiresAt, attempt.started, selected.spendMicros));
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

  private async affiliate(attempt: Attempt, envelope: Envelope, principal: Principal, requestId: string, deadline: Deadline): Promise<AffiliateResponse> {
    const selected = await this.select(attempt, envelope, principal, requestId, deadline, 'affiliate');
    if (selected.kind === 'no-fill') return selected.response;
    const { base, winner, snapshot, nowMs } = selected;
    const offer = snapshot.offer;
    const network = selected.serving.networks.get(offer.network_id ?? '')!;
    const affiliateUrl = NETWORK_ADAPTERS.get(network.adapter)!.buildUrl(network, { decisionId: base.id, destination: offer.destination_url });
    const expiresAt = new Date(nowMs + (selected.campaign?.offer_ttl_seconds ?? 900) * 1000);
    const impressionToken = randomBytes(32).toString('base64url');
    if (deadline.expired()) throw new DeadlineExceeded();
    // The base says `affiliate` already (select, kind 'affiliate').
    await this.write(attempt, servedRecord(base, winner, expiresAt, attempt.started, selected.spendMicros));
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
    attempt: Attempt,
    envelope: Envelope,
    principal: Principal,
    requestId: string,
    deadline: Deadline,
    kind: OfferKind,
  ): Promise<
    | { kind: 'no-fill'; response: NoFill }
    | {
        kind: 'winner';
        base: DecisionBase;
        winner: MatchCandidate;
        snapshot: ServedSnapshot;
        /** The view the decide read from start to end. */
        serving: ServingCatalog;
        campaign: Campaign | undefined;
        nowMs: number;
        spendMicros: number;
      }
  > {
    const nowMs = attempt.atMs;
    // One view for the whole decide, read before the match: the index it matches against went
    // live in the same step, and a reload swapping both while this decide waits on the store
    // leaves it on the catalog it started with.
    const serving = this.catalog.serving;
    const digest = effectiveDigest(envelope, nowMs);
    const language = liveLanguage(envelope.locale);
    // A test key reads with the live matcher and claims nothing; an outcome it asks for shapes
    // its reading and its claim (test-mode.ts), never the pipeline.
    const steps =
      principal.mode === 'test'
        ? testModeSteps(this.live.matcher, requestedTestOutcome(principal, digest?.category_ids), () => serving.testFill(kind, language ?? 'en'))
        : this.live;
    // Gates that need no message run first. When one already fails, the answer is a no-fill
    // whatever the message says: a sensitive topic could only add POLICY_BLOCK, so the message
    // is read for that alone (no ranking), or not at all once POLICY_BLOCK is listed.
    const policyBeforeMessage = policyReasons(envelope, digest, NOTHING_SENSITIVE);
    const gatedBeforeMessage = evaluateGates(envelope, policyBeforeMessage);
    const policyBlocked = policyBeforeMessage.length > 0;
    const match = policyBlocked
      ? unread(digest?.intent_type)
      : steps.matcher.match({
          message: envelope.message,
          language: language ?? 'en',
          country: envelope.country?.toUpperCase(),
          categoryIds: digest?.category_ids,
          entityIds: digest?.entity_ids,
          excludedEntityIds: digest?.excluded_entity_ids,
          blockedCategoryIds: principal.exclusions.categoryIds,
          blockedAdvertiserIds: principal.exclusions.advertiserIds,
          budgetBucket: digest?.budget_bucket,
          intentType: digest?.intent_type,
          kind,
          nowMs,
          topK: gatedBeforeMessage.length > 0 ? 0 : this.settings.topK,
        });
    // Every policy signal is the core's, read in its one pass: topic words, patterns (ages,
    // school years, medicine names, adult venues) and the learned classifier. (A turn refused
    // before its message was read has no signal: `unread` says so.)
    const policy = policyReasons(envelope, digest, match);
    const base: DecisionBase = {
      id: attempt.decisionId,
      appId: principal.appId,
      requestId,
      kind: kind === 'affiliate' ? 'affiliate' : 'offer',
      test: principal.mode === 'test',
      createdAt: new Date(nowMs),
      offerSnapshotId: null,
      campaignId: null,
      expiresAt: null,
      // Only a real tag and code, canonical; never the text as sent (locale-tags.ts).
      locale: canonicalLocale(envelope.locale),
      country: canonicalCountry(envelope.country),
      intentType: match.intent,
      messageIntent: match.messageIntent,
      matchedCategoryIds: match.signalCategoryIds,
      matchedEntityIds: match.signalEntityIds,
      impliedCategoryIds: [],
      droppedDigestIds: match.droppedDigestIds,
      policyReasons: policy,
      readingOverBudget: match.overBudget,
      excludedByApp: match.excludedByApp,
    };
    const gates = evaluateGates(envelope, policy);
    if (gates.length > 0) return this.noFill(attempt, base, deadline, gates);
    if (!match.commercialIntent) return this.noFill(attempt, base, deadline, ['LOW_INTENT']);
    // A digest is the host's own typed claim of what the user is after; only a place read from
    // the message is held to "a place alone is not an ask".
    const hostNamedIds = Boolean(digest?.entity_ids?.length || digest?.category_ids?.length);
    const candidates = match.candidates.filter((c) => serving.servable(c, kind) && (hostNamedIds || !this.pulledByPlaceAlone(c, serving.places)));
    if (candidates.length === 0) return this.noFill(attempt, base, deadline, ['NO_ELIGIBLE_OFFER']);

    if (deadline.expired()) throw new DeadlineExceeded();
    const claim = await steps.claims.claim({ serving, candidates, sessionToken: envelope.session?.token, principal, nowMs });
    attempt.receipt = claim.receipt;
    // Past the deadline now, the claim is given back by the timeout (settleTimedOut).
    if (deadline.expired()) throw new DeadlineExceeded();
    if (claim.winner === null) return this.noFill(attempt, base, deadline, claim.reasons, claim.retryAfterSeconds);
    const campaign = serving.campaigns.get(claim.winner.campaignId);
    return {
      kind: 'winner',
      base,
      winner: claim.winner,
      snapshot: serving.snapshots.get(claim.winner.snapshotId)!,
      serving,
      campaign,
      nowMs,
      spendMicros: claim.receipt?.spend?.amountMicros ?? 0,
    };
  }

  /** A no-fill's record, written before its answer, and the answer. */
  private async noFill(
    attempt: Attempt,
    base: DecisionBase,
    deadline: Deadline,
    reasonCodes: ReasonCode[],
    retryAfterSeconds?: number,
  ): Promise<{ kind: 'no-fill'; response: NoFill }> {
    if (deadline.expired()) throw new DeadlineExceeded();
    await this.write(attempt, decisionRecord(base, false, reasonCodes, attempt.started, 0));
    const response: NoFill =
      retryAfterSeconds === undefined
        ? { serve: false, request_id: base.requestId, decision_id: base.id, reason_codes: reasonCodes }
        : { serve: false, request_id: base.requestId, decision_id: base.id, reason_codes: reasonCodes, retry_after_seconds: retryAfterSeconds };
    return { kind: 'no-fill', response };
  }

  /** An offer that met the turn only through a place it named: "eSIM for Tokyo", "Louvre tour
   *  tickets", "restaurants in Busan" name where, and ask for something the catalog does not
   *  sell; a Tokyo flight beside them answers a question nobody asked. An offer serves when the
   *  turn (or the digest) asked for its category, or named its brand or product. */
  private pulledByPlaceAlone(c: MatchCandidate, places: ReadonlySet<string>): boolean {
    if (c.matchedCategoryIds.length > 0 || c.matchedEntityIds.length === 0) return false;
    return c.matchedEntityIds.every((e) => places.has(e));
  }

  /** The TIMEOUT record of a decide that ran out of time or lost a dependency. */
  private timeoutRecord(kind: DecisionKind, attempt: Attempt, principal: Principal, requestId: string, envelope: Envelope): DecisionRecord {
    return {
      id: attempt.decisionId,
      appId: principal.appId,
      requestId,
      kind,
      test: principal.mode === 'test',
      createdAt: new Date(attempt.atMs),
      serve: false,
      reasonCodes: ['TIMEOUT'],
      offerSnapshotId: null,
      campaignId: null,
      expiresAt: null,
      // Only a real tag and code, canonical; never the text as sent (locale-tags.ts).
      locale: canonicalLocale(envelope.locale),
      country: canonicalCountry(envelope.country),
      intentType: envelope.session?.digest?.intent_type ?? null,
      messageIntent: null,
      matchedCategoryIds: [],
      matchedEntityIds: [],
      impliedCategoryIds: [],
      droppedDigestIds: 0,
      policyReasons: [],
      readingOverBudget: false,
      excludedByApp: false,
      latencyUs: micros(attempt.started),
      spendMicros: 0,
    };
  }
}

/** The answer of a decide that ran out of time or lost a dependency: fail open. */
export function timeoutAnswer(requestId: string, decisionId: string): NoFill {
  return { serve: false, request_id: requestId, decision_id: decisionId, reason_codes: ['TIMEOUT'], retry_after_seconds: TIMEOUT_RETRY_AFTER_SECONDS };
}

export interface FailOpenLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

function servedRecord(base: DecisionBase, winner: MatchCandidate, expiresAt: Date, started: number, spendMicros: number): DecisionRecord {
  const record = decisionRecord(base, true, ['MATCHED'], started, spendMicros);
  record.offerSnapshotId = winner.snapshotId;
  record.campaignId = winner.campaignId;
  record.expiresAt = expiresAt;
  record.matchedCategoryIds = winner.matchedCategoryIds;
  record.matchedEntityIds = winner.matchedEntityIds;
  record.impliedCategoryIds = winner.impliedCategoryIds;
  return record;
}

/** A decision's record from its base, every field written out: one object shape for every record
 *  (a spread of the base made each a copy of another shape, and the most allocated object of a
 *  no-fill). */
function decisionRecord(base: DecisionBase, serve: boolean, reasonCodes: string[], started: number, spendMicros: number): DecisionRecord {
  return {
    id: base.id,
    appId: base.appId,
    requestId: base.requestId,
    kind: base.kind,
    test: base.test,
    createdAt: base.createdAt,
    serve,
    reasonCodes,
    offerSnapshotId: base.offerSnapshotId,
    campaignId: base.campaignId,
    expiresAt: base.expiresAt,
    locale: base.locale,
    country: base.country,
    intentType: base.intentType,
    messageIntent: base.messageIntent,
    matchedCategoryIds: base.matchedCategoryIds,
    matchedEntityIds: base.matchedEntityIds,
    impliedCategoryIds: base.impliedCategoryIds,
    droppedDigestIds: base.droppedDigestIds,
    policyReasons: base.policyReasons,
    readingOverBudget: base.readingOverBudget,
    excludedByApp: base.excludedByApp,
    latencyUs: micros(started),
    spendMicros,
  };
}

function presentationHints(offer: Pick<Offer, 'title' | 'description' | 'image_url' | 'cta'>) {
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
