// The only TypeScript file that touches the Rust addon (native/, built from crates/sidenote-napi).
// Everything else uses the domain names exported here; `Binding*` types stay at this boundary.
import { createRequire } from 'node:module';
import type {
  BindingIndexStats,
  BindingMatchQuery,
  BindingStagedIndex,
  IndexBuilder as BindingIndexBuilder,
  LiveOfferIndex as BindingLiveOfferIndex,
} from '../../native/index.js';

const require = createRequire(import.meta.url);

interface Addon {
  LiveOfferIndex: new () => BindingLiveOfferIndex;
  IndexBuilder: new (taxonomy: string, offers: number) => BindingIndexBuilder;
  discardStagedIndex(token: number): void;
}

function loadAddon(): Addon {
  try {
    // The generated loader is ESM, but resolving it through require keeps this module
    // synchronous and works the same from src/ (tsx, vitest) and dist/ (node).
    return require('../../native/index.js');
  } catch (err) {
    const message = (err as Error).message;
    throw new Error(`the Rust matching core is not built (${message.split('\n')[0]}). Run \`npm run build:native\` (needs a Rust toolchain).`);
  }
}

/** One turn's query; `kind` is 'sponsored' or 'affiliate', checked again at the boundary. */
export type MatchQuery = BindingMatchQuery;

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
  /** Sensitive moments read as patterns, by family: an age or school year that says the user is
   *  a minor (`minor_age`), a generic medicine name (`medicine_name`), an adult venue or a veiled
   *  ask for paid sex (`adult_venue`). crates/sidenote-core/src/policy_patterns.rs. */
  sensitivePatterns: string[];
  /** The learned classifier reads the turn as a sensitive moment (models/turn-classifier/). */
  modelSensitive: boolean;
  /** `low`: the message says it is not a shopping turn (translation, fiction, code), or takes
   *  back what it asked ("아 됐어 안 살래"). */
  messageIntent: 'purchase' | 'compare' | 'none' | 'low';
  /** The turn's intent, the message's and the digest's together (core `effective_intent`). */
  intent: string;
  /** Whether that intent lets the turn serve: purchase or compare (core `is_commercial`). */
  commercialIntent: boolean;
  signalCategoryIds: string[];
  signalEntityIds: string[];
  droppedDigestIds: number;
  candidates: MatchCandidate[];
  /** The turn spent the core's step budget (a counter, not a clock): a safe no-fill, whatever
   *  it asked; its sensitive topics are still read in full (docs/matching.md, "Bounded reading"). */
  overBudget: boolean;
  /** The app's brand-safety exclusions (`blockedCategoryIds`, `blockedAdvertiserIds`) set aside
   *  an offer that otherwise fitted. */
  excludedByApp: boolean;
}
export type IndexStats = BindingIndexStats;

export type IndexAliases = { ko: string[]; en: string[] };

/** The document an index is built from (see crates/sidenote-core/src/document.rs). */
export interface IndexDocument {
  taxonomy: IndexTaxonomy;
  offers: IndexOffer[];
}

export interface IndexTaxonomy {
  categories: { id: string; parent_id: string | null; aliases: IndexAliases; weak_aliases?: IndexAliases; negative_contexts?: IndexAliases }[];
  entities: {
    id: string;
    kind: string;
    aliases: IndexAliases;
    category_ids: string[];
    weak_aliases?: IndexAliases;
    negative_contexts?: IndexAliases;
    within?: string[];
  }[];
  sensitive_topics: { id: string; aliases: IndexAliases; negative_contexts?: IndexAliases; context_aliases?: IndexAliases; said_of_the_user?: boolean }[];
  /** Cue phrases by kind, the catalog schema's `intent_cues` keys (the core refuses any other);
   *  a kind left out has none. Keyed by string here: the catalog imports this module, not the
   *  other way round. */
  intent_cues: Partial<Record<string, IndexAliases>>;
}

export interface IndexOffer {
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
}

/** Build failures carry a stable code (`INDEX_INVALID_DOCUMENT`, `INDEX_UNKNOWN_ID`, …). */
export class IndexBuildError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'IndexBuildError';
  }
}

/** The binding's own errors carry their code on the error (`err.code`, `INDEX_…`); anything
 *  else passes through as it is. */
function toBuildError(err: unknown): Error {
  const e = err as Error & { code?: unknown };
  return typeof e.code === 'string' && e.code.startsWith('INDEX_') ? new IndexBuildError(e.code, e.message) : (err as Error);
}

let addon: Addon | undefined;
const theAddon = () => (addon ??= loadAddon());

/** An index built and waiting to go live (OfferIndexBuilder.finish). It lives in the addon, not on
 *  the heap of the thread that built it, so the serving thread can install it. */
export interface StagedIndex {
  token: number;
  offers: number;
  buildMillis: number;
  memoryBytes: number;
}

/** Builds an index from its document in pieces, on the calling thread (the catalog loader's
 *  worker): the taxonomy, then the offers chunk by chunk in document order. Only the chunk at
 *  hand crosses N-API and is held as documents, so a million-offer catalog never becomes one
 *  string or one document (docs/scaling.md, "Loading the catalog"). */
export class OfferIndexBuilder {
  private readonly inner: BindingIndexBuilder;

  /** `offers`: how many offers will follow (room is made for them at once). */
  constructor(taxonomy: IndexTaxonomy, offers: number) {
    try {
      this.inner = new (theAddon().IndexBuilder)(JSON.stringify(taxonomy), offers);
    } catch (err) {
      throw toBuildError(err);
    }
  }

  /** The ids that the positions of this index's match results name (its offers aside). */
  taxonomyIds(): TaxonomyIds {
    return JSON.parse(this.inner.taxonomyIdsJson()) as TaxonomyIds;
  }

  /** Adds the next offers; returns how many the builder holds. After an error it is spent. */
  addOffers(offers: IndexOffer[]): number {
    try {
      return this.inner.addOffers(JSON.stringify(offers));
    } catch (err) {
      throw toBuildError(err);
    }
  }

  finish(): StagedIndex {
    const staged: BindingStagedIndex = this.inner.finish();
    return { token: staged.token, offers: staged.offers, buildMillis: staged.buildMillis, memoryBytes: staged.memoryBytes };
  }
}

/** Frees a staged index that will not go live. */
export function discardStagedIndex(staged: StagedIndex): void {
  theAddon().discardStagedIndex(staged.token);
}

export interface TaxonomyIds {
  categories: string[];
  entities: string[];
  sensitive_topics: string[];
}

/** The ids of one offer of an index. */
export interface OfferIds {
  snapshotId: string;
  offerId: string;
  campaignId: string;
  advertiserId: string;
}

/** The ids behind one index generation's positions, which compact match results carry: read from
 *  the index itself (`idTablesJson`, for an index loaded whole) or from the serving view built
 *  beside it off the serving thread (src/catalog/offer-table.ts), so a large catalog's ids never
 *  cross N-API as one string or sit on the heap as a million strings. */
export interface IndexIds {
  category(position: number): string;
  entity(position: number): string;
  sensitiveTopic(position: number): string;
  offer(position: number): OfferIds;
}

/** The offer index this process serves from. Loads build off the event loop and swap in
 *  atomically; `match` always reads a complete index. */
/** crates/sidenote-core `IndexedMatch` tagged with the index generation it came from. */
interface CompactMatch {
  g: number;
  s: number[];
  t: string[];
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
  b: boolean;
  x: boolean;
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

function idsOfTables(t: IdTables): IndexIds {
  return {
    category: (p) => t.categories[p],
    entity: (p) => t.entities[p],
    sensitiveTopic: (p) => t.sensitive_topics[p],
    offer: (p) => {
      const [snapshotId, offerId, campaignId, advertiserId] = t.offers[p];
      return { snapshotId, offerId, campaignId, advertiserId };
    },
  };
}

/** What the decide pipeline needs of a matcher: the live native index, or in a test another
 *  matcher beside it (src/decide/decide-service.ts takes any). */
export interface Matcher {
  match(query: MatchQuery): MatchResult;
}

/** What the rest of the service needs of the live index: install a staged build with the ids
 *  its results are decoded with, say what is loaded, and match. The catalog runtime, health,
 *  metrics and warm-up hold this, not the native class, so another matcher replaces it by
 *  implementing it (and building what it stages). */
export interface LoadedIndex extends Matcher {
  install(staged: StagedIndex, ids: IndexIds): IndexStats;
  stats(): IndexStats;
}

export class LiveOfferIndex implements LoadedIndex {
  private readonly inner: BindingLiveOfferIndex;
  /** The ids of the generation last seen (installed, or fetched for a whole-document load). */
  private ids: { generation: number; ids: IndexIds } | undefined;

  constructor() {
    this.inner = new (theAddon().LiveOfferIndex)();
  }

  /** Makes a staged index live, at once, with the ids its match results will be decoded with.
   *  Synchronous: whatever the caller swaps in the same step (the serving view) goes live with it. */
  install(staged: StagedIndex, ids: IndexIds): IndexStats {
    let stats: IndexStats;
    try {
      stats = this.inner.install(staged.token);
    } catch (err) {
      throw toBuildError(err);
    }
    this.ids = { generation: stats.version, ids };
    return stats;
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
    let current = this.ids;
    if (current?.generation !== m.g) {
      // An index loaded whole went live since the last match: fetch its ids once. (An installed
      // index came with its ids.)
      const tables = JSON.parse(this.inner.idTablesJson()) as IdTables;
      if (tables.g !== m.g) throw new Error(`offer index generation ${m.g} has no id tables (have ${tables.g})`);
      current = this.ids = { generation: tables.g, ids: idsOfTables(tables) };
    }
    const t = current.ids;
    return {
      sensitiveTopicIds: m.s.map((p) => t.sensitiveTopic(p)),
      sensitivePatterns: m.t,
      modelSensitive: m.m,
      messageIntent: m.i,
      intent: m.n,
      commercialIntent: m.p,
      signalCategoryIds: m.c.map((p) => t.category(p)),
      signalEntityIds: m.e.map((p) => t.entity(p)),
      droppedDigestIds: m.d,
      overBudget: m.b,
      excludedByApp: m.x,
      candidates: m.k.map(([offer, score, categories, entities, implied]) => {
        const { snapshotId, offerId, campaignId, advertiserId } = t.offer(offer);
        return {
          snapshotId,
          offerId,
          campaignId,
          advertiserId,
          score,
          matchedCategoryIds: categories.map((p) => t.category(p)),
          matchedEntityIds: entities.map((p) => t.entity(p)),
          impliedCategoryIds: implied.map((p) => t.category(p)),
        };
      }),
    };
  }

  /** The plain JSON `MatchResult` straight from Rust, for tests of the compact path. */
  matchJson(query: MatchQuery): MatchResult {
    return JSON.parse(this.inner.matchJson(query)) as MatchResult;
  }

  stats(): IndexStats {
    return this.inner.stats();
  }
}
