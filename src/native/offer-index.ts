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
    throw new Error(`the Rust matching core is not built (${message.split('\n')[0]}). Run \`npm run build:native\` (needs a Rust toolchain).`);
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
  /** The offer's categories that met a category the turn asked for. */
  matchedCategoryIds: string[];
  matchedEntityIds: string[];
  /** The offer's categories that met only a category implied by a named entity (a place). */
  impliedCategoryIds: string[];
}

/** What the core found in one turn (crates/sidenote-core/src/index.rs `MatchResult`). */
export interface MatchResult {
  sensitiveTopicIds: string[];
  /** The learned classifier reads the turn as a sensitive moment (models/turn-classifier/). */
  modelSensitive: boolean;
  /** `low`: the message says it is not a shopping turn (translation, fiction, code). */
  messageIntent: 'purchase' | 'compare' | 'none' | 'low';
  /** The turn's intent, the message's and the digest's together (core `effective_intent`). */
  intent: string;
  /** Whether that intent lets the turn serve: purchase or compare (core `is_commercial`). */
  commercialIntent: boolean;
  signalCategoryIds: string[];
  signalEntityIds: string[];
  droppedDigestIds: number;
  candidates: MatchCandidate[];
}
export type IndexStats = BindingIndexStats;

type IndexAliases = { ko: string[]; en: string[] };

/** The document an index is built from (see crates/sidenote-core/src/document.rs). */
export interface IndexDocument {
  taxonomy: {
    categories: { id: string; parent_id: string | null; aliases: IndexAliases; weak_aliases?: IndexAliases; negative_contexts?: IndexAliases }[];
    entities: { id: string; kind: string; aliases: IndexAliases; category_ids: string[]; weak_aliases?: IndexAliases; negative_contexts?: IndexAliases }[];
    sensitive_topics: { id: string; aliases: IndexAliases }[];
    intent_cues: {
      purchase: IndexAliases;
      compare: IndexAliases;
      negation?: IndexAliases;
      negation_before?: IndexAliases;
      after_sales?: IndexAliases;
      not_commercial?: IndexAliases;
      clause_break?: IndexAliases;
      purpose?: IndexAliases;
      purpose_before?: IndexAliases;
    };
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
/** crates/sidenote-core `IndexedMatch` tagged with the index generation it came from. */
interface CompactMatch {
  g: number;
  s: number[];
  m: boolean;
  i: MatchResult['messageIntent'];
  n: string;
  p: boolean;
  c: number[];
  e: number[];
  d: number;
  /** Candidates: [offer position, score, matched category positions, matched entity positions,
   *  implied category positions]. */
  k: [number, number, number[], number[], number[]][];
}

/** The ids behind a generation's positions (crates/sidenote-core `IdTables`). */
interface IdTables {
  g: number;
  categories: string[];
  entities: string[];
  sensitive_topics: string[];
  /** [snapshot id, offer id, campaign id, advertiser id] per offer. */
  offers: [string, string, string, string][];
}

/** What the decide pipeline needs of a matcher: the live native index, or in a test another
 *  matcher beside it (src/decide/decide-service.ts takes any). */
export interface Matcher {
  match(query: MatchQuery): MatchResult;
}

export class LiveOfferIndex implements Matcher {
  private readonly inner: BindingLiveOfferIndex;
  private tables: IdTables | undefined;

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
    // The result crosses as a short JSON string of positions in the index document, decoded
    // here with the id tables of the same index generation: building objects or id strings
    // through N-API cost more than the matching itself.
    const m = JSON.parse(this.inner.matchCompact(query)) as CompactMatch;
    let tables = this.tables;
    if (tables?.g !== m.g) {
      // A new index went live since the last match: fetch its ids once.
      tables = this.tables = JSON.parse(this.inner.idTablesJson()) as IdTables;
      if (tables.g !== m.g) throw new Error(`offer index generation ${m.g} has no id tables (have ${tables.g})`);
    }
    const t = tables;
    const names = (ids: string[], positions: number[]) => positions.map((p) => ids[p]);
    return {
      sensitiveTopicIds: names(t.sensitive_topics, m.s),
      modelSensitive: m.m,
      messageIntent: m.i,
      intent: m.n,
      commercialIntent: m.p,
      signalCategoryIds: names(t.categories, m.c),
      signalEntityIds: names(t.entities, m.e),
      droppedDigestIds: m.d,
      candidates: m.k.map(([offer, score, categories, entities, implied]) => {
        const [snapshotId, offerId, campaignId, advertiserId] = t.offers[offer];
        return {
          snapshotId,
          offerId,
          campaignId,
          advertiserId,
          score,
          matchedCategoryIds: names(t.categories, categories),
          matchedEntityIds: names(t.entities, entities),
          impliedCategoryIds: names(t.categories, implied),
        };
      }),
    };
  }

  /** The plain JSON `MatchResult` straight from Rust, for tests of the compact path. */
  matchJson(query: MatchQuery): MatchResult {
    return JSON.parse(this.inner.matchJson(query)) as MatchResult;
  }

  setPacing(entries: { campaignId: string; perMille: number }[]): void {
    this.inner.setPacing(entries);
  }

  stats(): IndexStats {
    return this.inner.stats();
  }
}
