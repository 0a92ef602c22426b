// The only TypeScript file that touches the Rust addon (native/, built from crates/sidenote-napi).
// Everything else uses the domain names exported here; `Binding*` types stay at this boundary.
import { createRequire } from 'node:module';
import type { BindingIndexStats, BindingMatchQuery, LiveOfferIndex as BindingLiveOfferIndex } from '../../native/index.js';

const require = createRequire(import.meta.url);

function loadAddon(): { LiveOfferIndex: new () => BindingLiveOfferIndex } {
  try {
    // The generated loader is ESM, but resolving it through require keeps this module
    // synchronous and works the same from src/ (tsx, vitest) and dist/ (node).
    return require('../../native/index.js');
  } catch (err) {
    const message = (err as Error).message;
    throw new Error(
      `the Rust matching core is not built (${message.split('\n')[0]}). Run \`npm run build:native\` (needs a Rust toolchain).`,
    );
  }
}

export type MatchQuery = Omit<BindingMatchQuery, 'kind'> & { kind: 'sponsored' | 'affiliate' };

/** One ranked offer (crates/sidenote-core/src/index.rs `Candidate`). */
export interface MatchCandidate {
  snapshotId: string;
  offerId: string;
  campaignId: string;
  advertiserId: string;
  score: number;
  matchedCategoryIds: string[];
  matchedEntityIds: string[];
}

/** What the core found in one turn (crates/sidenote-core/src/index.rs `MatchResult`). */
export interface MatchResult {
  sensitiveTopicIds: string[];
  messageIntent: 'purchase' | 'compare' | 'none';
  signalCategoryIds: string[];
  signalEntityIds: string[];
  droppedDigestIds: number;
  candidates: MatchCandidate[];
}
export type IndexStats = BindingIndexStats;

/** The document an index is built from (see crates/sidenote-core/src/document.rs). */
export interface IndexDocument {
  taxonomy: {
    categories: { id: string; parent_id: string | null; aliases: { ko: string[]; en: string[] } }[];
    entities: { id: string; kind: string; aliases: { ko: string[]; en: string[] }; category_ids: string[] }[];
    sensitive_topics: { id: string; aliases: { ko: string[]; en: string[] } }[];
    intent_cues: { purchase: { ko: string[]; en: string[] }; compare: { ko: string[]; en: string[] } };
  };
  offers: {
    snapshot_id: string;
    offer_id: string;
    campaign_id: string;
    advertiser_id: string;
    advertiser_entity_id: string | null;
    kind: 'sponsored' | 'affiliate';
    locale: string;
    category_ids: string[];
    entity_ids: string[];
    budget_buckets: string[];
    countries: string[];
    campaign_status: string;
    starts_at_ms: number | null;
    ends_at_ms: number | null;
    priority: number;
    bid_micros: number;
  }[];
}

/** Build failures carry a stable code (`INDEX_INVALID_DOCUMENT`, `INDEX_UNKNOWN_ID`, …). */
export class IndexBuildError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function toBuildError(err: unknown): Error {
  const message = (err as Error).message ?? String(err);
  const m = /^(INDEX_[A-Z_]+): (.*)$/s.exec(message);
  return m ? new IndexBuildError(m[1], m[2]) : (err as Error);
}

let addon: ReturnType<typeof loadAddon> | undefined;

/** The offer index this process serves from. Loads build off the event loop and swap in
 *  atomically; `match` always reads a complete index. */
export class LiveOfferIndex {
  private readonly inner: BindingLiveOfferIndex;

  constructor() {
    addon ??= loadAddon();
    this.inner = new addon.LiveOfferIndex();
  }

  async load(document: string | Buffer): Promise<IndexStats> {
    try {
      return await this.inner.load(document);
    } catch (err) {
      throw toBuildError(err);
    }
  }

  loadSync(document: string): IndexStats {
    try {
      return this.inner.loadSync(document);
    } catch (err) {
      throw toBuildError(err);
    }
  }

  match(query: MatchQuery): MatchResult {
    // The result crosses as one JSON string: cheaper than building the object tree in N-API.
    return JSON.parse(this.inner.matchJson(query)) as MatchResult;
  }

  setPacing(entries: { campaignId: string; perMille: number }[]): void {
    this.inner.setPacing(entries);
  }

  stats(): IndexStats {
    return this.inner.stats();
  }
}
