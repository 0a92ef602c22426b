// The matching core in plain TypeScript: the same normalisation, boundaries, eligibility,
// scoring and tie-break as crates/sidenote-core, written for clarity rather than speed. It is
// a test oracle (the differential test asserts both give identical results) and the baseline
// the benchmarks compare the Rust core against. The service never uses it to serve.
import type { IndexDocument, MatchQuery, MatchResult, MatchCandidate } from '../native/offer-index.js';

export const MAX_POSTING_SCAN = 512;
const POINTS = { entity: 100n, category: 60n, offerBroader: 40n, offerNarrower: 30n } as const;
const BUCKETS = ['unknown', 'low', 'mid', 'high'];

type Hit = { kind: 'category' | 'entity' | 'sensitive'; index: number } | { kind: 'purchase' | 'compare' };
type CharClass = 'hangul' | 'word' | 'other';

/** Default-ignorable code points removed, NFKC, per-character lower-casing, White_Space runs
 *  collapsed to one space, trimmed (as crates/sidenote-core/src/normalize.rs). */
export function normalize(text: string): string {
  const nfkc = text.replace(/\p{Default_Ignorable_Code_Point}/gu, '').normalize('NFKC');
  let out = '';
  let pendingSpace = false;
  for (const c of nfkc) {
    if (/\p{White_Space}/u.test(c)) {
      pendingSpace = out.length > 0;
    } else {
      if (pendingSpace) {
        out += ' ';
        pendingSpace = false;
      }
      out += c.toLowerCase();
    }
  }
  return out.normalize('NFKC');
}

function isHangul(c: string): boolean {
  const u = c.codePointAt(0)!;
  return (u >= 0xac00 && u <= 0xd7a3) || (u >= 0x1100 && u <= 0x11ff) || (u >= 0x3130 && u <= 0x318f) || (u >= 0xa960 && u <= 0xa97f) || (u >= 0xd7b0 && u <= 0xd7ff);
}

function classOf(c: string | undefined): CharClass {
  if (c === undefined) return 'other';
  if (isHangul(c)) return 'hangul';
  return /[\p{Alphabetic}\p{Nd}\p{Nl}\p{No}]/u.test(c) ? 'word' : 'other';
}

interface Offer {
  doc: IndexDocument['offers'][number];
  categories: number[];
  entities: number[];
  advertiserEntity: number | null;
  staticScore: bigint;
}

export function staticScore(priority: number, bidMicros: number): bigint {
  const p = BigInt(90 + 2 * Math.min(10, Math.max(1, priority)));
  const b = BigInt(100 + Math.min(Math.floor(bidMicros / 50_000), 20));
  return p * b;
}

function intentBoost(intent: string, entityMatched: boolean): bigint {
  if (entityMatched && intent === 'purchase') return 1200n;
  if (entityMatched && intent === 'compare') return 1100n;
  return 1000n;
}

function intentStrength(intent: string): number {
  return ({ purchase: 4, compare: 3, browse: 2, low: 1 } as Record<string, number>)[intent] ?? 0;
}

export class ReferenceMatcher {
  private readonly categoryIndex = new Map<string, number>();
  private readonly entityIndex = new Map<string, number>();
  private readonly categoryIds: string[];
  private readonly entityIds: string[];
  private readonly sensitiveIds: string[];
  private readonly ancestors: number[][];
  private readonly descendants: number[][];
  private readonly entityCategories: number[][];
  /** Normalised alias → what it stands for. */
  private readonly aliases = new Map<string, Hit[]>();
  private readonly offers: Offer[];
  private readonly categoryPostings: number[][];
  private readonly entityPostings: number[][];

  constructor(doc: IndexDocument) {
    const t = doc.taxonomy;
    this.categoryIds = t.categories.map((c) => c.id);
    this.categoryIds.forEach((id, i) => this.categoryIndex.set(id, i));
    this.entityIds = t.entities.map((e) => e.id);
    this.entityIds.forEach((id, i) => this.entityIndex.set(id, i));
    this.sensitiveIds = t.sensitive_topics.map((s) => s.id);
    const parent = t.categories.map((c) => (c.parent_id === null ? null : this.categoryIndex.get(c.parent_id)!));
    this.ancestors = parent.map((_, i) => {
      const chain: number[] = [];
      for (let p = parent[i]; p !== null && p !== undefined; p = parent[p]) chain.push(p);
      return chain;
    });
    this.descendants = this.categoryIds.map((_, i) => this.ancestors.map((a, j) => (a.includes(i) ? j : -1)).filter((j) => j >= 0));
    this.entityCategories = t.entities.map((e) => e.category_ids.map((c) => this.categoryIndex.get(c)!));
    const add = (alias: string, hit: Hit) => {
      const text = normalize(alias);
      if (!text) return;
      const list = this.aliases.get(text) ?? [];
      if (!list.some((h) => h.kind === hit.kind && ('index' in h ? h.index === (hit as { index: number }).index : true))) list.push(hit);
      this.aliases.set(text, list);
    };
    t.categories.forEach((c, i) => [...c.aliases.ko, ...c.aliases.en].forEach((a) => add(a, { kind: 'category', index: i })));
    t.entities.forEach((e, i) => [...e.aliases.ko, ...e.aliases.en].forEach((a) => add(a, { kind: 'entity', index: i })));
    t.sensitive_topics.forEach((s, i) => [...s.aliases.ko, ...s.aliases.en].forEach((a) => add(a, { kind: 'sensitive', index: i })));
    [...t.intent_cues.purchase.ko, ...t.intent_cues.purchase.en].forEach((a) => add(a, { kind: 'purchase' }));
    [...t.intent_cues.compare.ko, ...t.intent_cues.compare.en].forEach((a) => add(a, { kind: 'compare' }));

    this.offers = doc.offers.map((o) => ({
      doc: o,
      categories: o.category_ids.map((c) => this.categoryIndex.get(c)!),
      entities: o.entity_ids.map((e) => this.entityIndex.get(e)!),
      advertiserEntity: o.advertiser_entity_id === null ? null : this.entityIndex.get(o.advertiser_entity_id)!,
      staticScore: staticScore(o.priority, o.bid_micros),
    }));
    this.categoryPostings = this.categoryIds.map(() => []);
    this.entityPostings = this.entityIds.map(() => []);
    this.offers.forEach((o, i) => {
      o.categories.forEach((c) => this.categoryPostings[c].push(i));
      o.entities.forEach((e) => this.entityPostings[e].push(i));
    });
    const order = (a: number, b: number) => {
      const x = this.offers[a];
      const y = this.offers[b];
      if (x.staticScore !== y.staticScore) return x.staticScore > y.staticScore ? -1 : 1;
      return cmp(x.doc.snapshot_id, y.doc.snapshot_id);
    };
    for (const p of [...this.categoryPostings, ...this.entityPostings]) p.sort(order);
  }

  /** Every boundary-valid alias occurrence, resolved leftmost-longest. Quadratic and plain:
   *  tries every alias length at every position. */
  private aliasLengths: number[] | undefined;

  private findHits(text: string): Hit[] {
    const chars = Array.from(text);
    // Alias lengths in characters, longest first: computed once per index, not per message.
    const lengths = (this.aliasLengths ??= [...new Set([...this.aliases.keys()].map((a) => Array.from(a).length))].sort((a, b) => b - a));
    const hits: Hit[] = [];
    let i = 0;
    while (i < chars.length) {
      let taken = 0;
      for (const len of lengths) {
        if (i + len > chars.length) continue;
        const candidate = chars.slice(i, i + len).join('');
        const targets = this.aliases.get(candidate);
        if (!targets) continue;
        const first = classOf(chars[i]);
        const last = classOf(chars[i + len - 1]);
        const before = classOf(chars[i - 1]);
        const after = classOf(chars[i + len]);
        const leftOk = before === 'other' || before !== first;
        const rightOk = after === 'other' || after !== last || last === 'hangul';
        if (leftOk && rightOk) {
          hits.push(...targets);
          taken = len;
          break;
        }
      }
      i += taken > 0 ? taken : 1;
    }
    return hits;
  }

  match(q: MatchQuery, pacing: (campaignId: string) => number = () => 1000): MatchResult {
    const sensitive = new Set<number>();
    let purchase = false;
    let compare = false;
    let categories: number[] = [];
    let entities: number[] = [];
    if (q.message !== undefined && q.message !== null) {
      for (const h of this.findHits(normalize(q.message))) {
        if (h.kind === 'category') categories.push(h.index);
        else if (h.kind === 'entity') entities.push(h.index);
        else if (h.kind === 'sensitive') sensitive.add(h.index);
        else if (h.kind === 'purchase') purchase = true;
        else compare = true;
      }
    }
    let dropped = 0;
    for (const id of q.categoryIds ?? []) {
      const c = this.categoryIndex.get(id);
      if (c === undefined) dropped++;
      else categories.push(c);
    }
    for (const id of q.entityIds ?? []) {
      const e = this.entityIndex.get(id);
      if (e === undefined) dropped++;
      else entities.push(e);
    }
    const excluded: number[] = [];
    for (const id of q.excludedEntityIds ?? []) {
      const e = this.entityIndex.get(id);
      if (e === undefined) dropped++;
      else excluded.push(e);
    }
    entities = [...new Set(entities)].sort((a, b) => a - b);
    for (const e of entities) categories.push(...this.entityCategories[e]);
    categories = [...new Set(categories)].sort((a, b) => a - b);
    const messageIntent = purchase ? 'purchase' : compare ? 'compare' : 'none';
    const digestIntent = q.intentType ?? 'unknown';
    const effective = intentStrength(messageIntent) > intentStrength(digestIntent) ? messageIntent : digestIntent;
    const candidates = q.topK === 0 ? [] : this.rank(q, entities, categories, excluded, effective, pacing);
    return {
      sensitiveTopicIds: [...sensitive].map((s) => this.sensitiveIds[s]).sort(cmp),
      messageIntent,
      signalCategoryIds: categories.map((c) => this.categoryIds[c]).sort(cmp),
      signalEntityIds: entities.map((e) => this.entityIds[e]).sort(cmp),
      droppedDigestIds: dropped,
      candidates,
    };
  }

  private rank(q: MatchQuery, entities: number[], categories: number[], excluded: number[], intent: string, pacing: (c: string) => number): MatchCandidate[] {
    const country = q.country?.toUpperCase();
    const bucket = q.budgetBucket && q.budgetBucket !== 'unknown' && BUCKETS.includes(q.budgetBucket) ? q.budgetBucket : null;
    const eligible = (o: Offer) =>
      o.doc.campaign_status === 'active' &&
      o.doc.locale === q.language &&
      o.doc.kind === q.kind &&
      (o.doc.starts_at_ms === null || o.doc.starts_at_ms <= q.nowMs) &&
      (o.doc.ends_at_ms === null || q.nowMs < o.doc.ends_at_ms) &&
      (o.doc.countries.length === 0 || (country !== undefined && o.doc.countries.map((c) => c.toUpperCase()).includes(country))) &&
      (o.doc.budget_buckets.length === 0 || bucket === null || o.doc.budget_buckets.includes(bucket)) &&
      !o.entities.some((e) => excluded.includes(e)) &&
      !(o.advertiserEntity !== null && excluded.includes(o.advertiserEntity));
    const points = new Map<number, bigint>();
    const visit = (list: number[], p: bigint) => {
      for (const oi of list.slice(0, MAX_POSTING_SCAN)) {
        if (!eligible(this.offers[oi])) continue;
        if (p > (points.get(oi) ?? 0n)) points.set(oi, p);
      }
    };
    for (const e of entities) visit(this.entityPostings[e], POINTS.entity);
    for (const c of categories) visit(this.categoryPostings[c], POINTS.category);
    for (const c of categories) for (const a of this.ancestors[c]) visit(this.categoryPostings[a], POINTS.offerBroader);
    for (const c of categories) for (const d of this.descendants[c]) visit(this.categoryPostings[d], POINTS.offerNarrower);
    const scored = [...points].map(([oi, p]) => {
      const o = this.offers[oi];
      const pace = BigInt(Math.min(1000, pacing(o.doc.campaign_id)));
      return { oi, score: (p * o.staticScore * intentBoost(intent, p === POINTS.entity) * pace) / 1000n };
    });
    scored.sort((a, b) => (a.score !== b.score ? (a.score > b.score ? -1 : 1) : cmp(this.offers[a.oi].doc.snapshot_id, this.offers[b.oi].doc.snapshot_id)));
    return scored.slice(0, q.topK).map(({ oi, score }) => {
      const o = this.offers[oi];
      const related = (c: number) => categories.some((s) => s === c || this.ancestors[s].includes(c) || this.ancestors[c].includes(s));
      return {
        snapshotId: o.doc.snapshot_id,
        offerId: o.doc.offer_id,
        campaignId: o.doc.campaign_id,
        advertiserId: o.doc.advertiser_id,
        score: Number(score),
        matchedCategoryIds: o.categories.filter(related).map((c) => this.categoryIds[c]).sort(cmp),
        matchedEntityIds: o.entities.filter((e) => entities.includes(e)).map((e) => this.entityIds[e]).sort(cmp),
      };
    });
  }
}

/** Byte-wise string order, as Rust compares strings. */
function cmp(a: string, b: string): number {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return Buffer.compare(x, y);
}
