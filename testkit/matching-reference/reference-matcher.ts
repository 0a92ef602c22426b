// The matching core in plain TypeScript: the same normalisation, boundaries, eligibility,
// scoring and tie-break as crates/sidenote-core, written for clarity rather than speed. It is
// a test oracle (the differential test asserts both give identical results) and the baseline
// the benchmarks compare the Rust core against. The service never uses it to serve.
import type { IndexDocument, MatchQuery, MatchResult, MatchCandidate } from '../../src/native/offer-index.js';
import { FuzzyMatcher } from './fuzzy-matcher.js';
import { HangulTypoMatcher } from './hangul-typo-matcher.js';
import { hangulWordMayEnd, isHangulSyllable, loadCommonKoreanWords, PARTICLES } from './korean-words.js';
import { turnClassifierThresholds, turnScores } from './turn-classifier.js';

export const MAX_POSTING_SCAN = 512;
export const MAX_IMPLIED_SCAN = 16;
export const COMMERCIAL_VETO_LOGIT = -3.0;
const POINTS = { entity: 100n, category: 60n, offerBroader: 40n, offerNarrower: 30n } as const;
const IMPLIED_POINTS = { category: 20n, offerBroader: 14n, offerNarrower: 10n } as const;
/** A category asked beside the head of the request (index.rs POINTS_BESIDE_*). */
const BESIDE_POINTS = { category: 45n, offerBroader: 30n, offerNarrower: 22n } as const;
const BUCKETS = ['unknown', 'low', 'mid', 'high'];

type Hit =
  | { kind: 'category' | 'entity' | 'weakCategory' | 'weakEntity' | 'notCategory' | 'notEntity' | 'sensitive' | 'notSensitive'; index: number }
  | {
      kind:
        | 'purchase'
        | 'compare'
        | 'negation'
        | 'negationBefore'
        | 'afterSales'
        | 'notCommercial'
        | 'clauseBreak'
        | 'purpose'
        | 'purposeBefore'
        | 'alternative';
    };
type CharClass = 'hangul' | 'word' | 'other';
/** A boundary-valid hit: character positions in the normalised message. */
interface Span {
  start: number;
  end: number;
  /** The alias's position among distinct normalised aliases (the core's pattern id). */
  pattern: number;
  hits: Hit[];
  /** Found one typo away, not as written. */
  typo?: boolean;
}
type Topic = {
  kind: 'category' | 'entity';
  index: number;
  weak: boolean;
  clause: number;
  purpose: boolean;
  start: number;
  end: number;
  head: boolean;
  /** An entity an alternative cue is said of: what the user moves away from (reading.rs). */
  left: boolean;
};

/** Default-ignorable code points removed, NFKC, per-character lower-casing, White_Space runs
 *  collapsed to one space (a line feed if the run breaks a line), trimmed (as
 *  crates/sidenote-core/src/normalize.rs). */
export function normalize(text: string): string {
  const nfkc = text.replace(/\p{Default_Ignorable_Code_Point}/gu, '').normalize('NFKC');
  let out = '';
  let pending: '' | ' ' | '\n' = '';
  for (const c of nfkc) {
    if (/\p{White_Space}/u.test(c)) {
      if (out.length > 0 && pending !== '\n') pending = /[\n\v\f\r\u0085\u2028\u2029]/u.test(c) ? '\n' : ' ';
    } else {
      out += pending;
      pending = '';
      out += c.toLowerCase();
    }
  }
  return out.normalize('NFKC');
}

function isHangul(c: string): boolean {
  const u = c.codePointAt(0)!;
  return (
    (u >= 0xac00 && u <= 0xd7a3) || (u >= 0x1100 && u <= 0x11ff) || (u >= 0x3130 && u <= 0x318f) || (u >= 0xa960 && u <= 0xa97f) || (u >= 0xd7b0 && u <= 0xd7ff)
  );
}

/** A Hangul consonant or vowel standing alone (conjoining or compatibility jamo): chat, not part
 *  of a word ("항공권ㄱㄱ"). */
function isLoneJamo(c: string): boolean {
  const u = c.codePointAt(0)!;
  return (u >= 0x1100 && u <= 0x11ff) || (u >= 0x3130 && u <= 0x318f) || (u >= 0xa960 && u <= 0xa97f) || (u >= 0xd7b0 && u <= 0xd7ff);
}

function classOf(c: string | undefined): CharClass {
  if (c === undefined || isLoneJamo(c)) return 'other';
  if (isHangul(c)) return 'hangul';
  return isWordChar(c) ? 'word' : 'other';
}

/** Rust's char::is_alphanumeric, or `_`. */
function isWordChar(c: string | undefined): boolean {
  return c !== undefined && (c === '_' || /[\p{Alphabetic}\p{Nd}\p{Nl}\p{No}]/u.test(c));
}

/** Connective endings that join two clauses (reading.rs `CONNECTIVE_ENDINGS`). */
const CONNECTIVE_ENDINGS = ['고', '어서', '아서', '여서', '해서', '서', '으니까', '니까', '으니', '니'];

/** Whether the syllables after the one at `at` are one whole particle, making no common word with it. */
function particleFollows(chars: string[], at: number): boolean {
  let end = at + 1;
  while (end < chars.length && isHangulSyllable(chars[end])) end++;
  const run = chars.slice(at + 1, end).join('');
  return PARTICLES.includes(run) && !loadCommonKoreanWords().has(chars.slice(at, end).join(''));
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

/** The English plural ending a pattern may take at `at` ("s", or "es" after s, x, z, ch, sh),
 *  followed by the end of the word: its length, or 0 (text_match.rs `plural_of`). Only nouns
 *  (category, entity, sensitive aliases) take one, ending in a Latin letter, or in a digit when
 *  their last word holds a letter ("xm5s"; "iphone 16s" is another phone). */
function pluralLength(alias: string, targets: Hit[], chars: string[], at: number): number {
  const noun = targets.every((h) =>
    ['category', 'entity', 'weakCategory', 'weakEntity', 'notCategory', 'notEntity', 'sensitive', 'notSensitive'].includes(h.kind),
  );
  const last = alias.slice(alias.lastIndexOf(' ') + 1);
  const end = last[last.length - 1] ?? '';
  const letter = /[a-z]/.test(end);
  if (!noun || !(letter || (/[0-9]/.test(end) && /[a-z]/.test(last)))) return 0;
  const endsWord = (n: number) => classOf(chars[at + n]) !== 'word';
  if (chars[at] === 's' && endsWord(1)) return 1;
  if (letter && /(s|x|z|ch|sh)$/.test(last) && chars[at] === 'e' && chars[at + 1] === 's' && endsWord(2)) return 2;
  return 0;
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
  private readonly entityKinds: string[];
  /** Normalised alias → what it stands for. */
  private readonly aliases = new Map<string, Hit[]>();
  private readonly offers: Offer[];
  /** Normalised aliases in pattern order, and the typo matcher over them. */
  private readonly patterns: string[];
  private readonly patternOf: Map<string, number>;
  private readonly fuzzy: FuzzyMatcher;
  private readonly hangulTypos: HangulTypoMatcher;
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
      addText(text, hit);
      // Korean spacing is loose: a Hangul alias of several words also matches with any of its
      // spaces left out (all or none past three spaces).
      if (text.includes(' ') && Array.from(text).every((c) => c === ' ' || isHangulSyllable(c))) {
        const words = text.split(' ');
        const gaps = words.length - 1;
        if (gaps > 3) addText(words.join(''), hit);
        else
          for (let joined = 1; joined < 1 << gaps; joined++) {
            addText(
              words.reduce((out, w, g) => (g === 0 ? w : out + (joined & (1 << (g - 1)) ? '' : ' ') + w), ''),
              hit,
            );
          }
      }
    };
    const addText = (text: string, hit: Hit) => {
      const list = this.aliases.get(text) ?? [];
      if (!list.some((h) => h.kind === hit.kind && ('index' in h ? h.index === (hit as { index: number }).index : true))) list.push(hit);
      this.aliases.set(text, list);
    };
    const all = (a: { ko: string[]; en: string[] } | undefined) => (a ? [...a.ko, ...a.en] : []);
    t.categories.forEach((c, i) => {
      all(c.aliases).forEach((a) => add(a, { kind: 'category', index: i }));
      all(c.weak_aliases).forEach((a) => add(a, { kind: 'weakCategory', index: i }));
      all(c.negative_contexts).forEach((a) => add(a, { kind: 'notCategory', index: i }));
    });
    t.entities.forEach((e, i) => {
      all(e.aliases).forEach((a) => add(a, { kind: 'entity', index: i }));
      all(e.weak_aliases).forEach((a) => add(a, { kind: 'weakEntity', index: i }));
      all(e.negative_contexts).forEach((a) => add(a, { kind: 'notEntity', index: i }));
    });
    t.sensitive_topics.forEach((s, i) => {
      all(s.aliases).forEach((a) => add(a, { kind: 'sensitive', index: i }));
      all(s.negative_contexts).forEach((a) => add(a, { kind: 'notSensitive', index: i }));
    });
    const cues = t.intent_cues;
    all(cues.purchase).forEach((a) => add(a, { kind: 'purchase' }));
    all(cues.compare).forEach((a) => add(a, { kind: 'compare' }));
    all(cues.negation).forEach((a) => add(a, { kind: 'negation' }));
    all(cues.negation_before).forEach((a) => add(a, { kind: 'negationBefore' }));
    all(cues.after_sales).forEach((a) => add(a, { kind: 'afterSales' }));
    all(cues.not_commercial).forEach((a) => add(a, { kind: 'notCommercial' }));
    all(cues.clause_break).forEach((a) => add(a, { kind: 'clauseBreak' }));
    all(cues.purpose).forEach((a) => add(a, { kind: 'purpose' }));
    all(cues.purpose_before).forEach((a) => add(a, { kind: 'purposeBefore' }));
    all(cues.alternative).forEach((a) => add(a, { kind: 'alternative' }));
    this.entityKinds = t.entities.map((e) => e.kind ?? '');
    this.patterns = [...this.aliases.keys()];
    this.patternOf = new Map(this.patterns.map((p, i) => [p, i]));
    // Not an alias with a short word without a digit ("or the" is one edit from "of the").
    const typoSafe = (alias: string) => alias.split(' ').every((w) => Array.from(w).length >= 4 || /[0-9]/.test(w));
    // An alias names a thing when all it stands for is a category or an entity.
    const namesThing = (p: string) => this.aliases.get(p)!.every((h) => ['category', 'entity', 'weakCategory', 'weakEntity'].includes(h.kind));
    this.fuzzy = new FuzzyMatcher(this.patterns.flatMap((p, i) => (typoSafe(p) ? [[p, i, namesThing(p)] as const] : [])));
    this.hangulTypos = new HangulTypoMatcher(this.patterns.map((p, i) => [p, i, namesThing(p)] as const));

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
      return cmp(x.doc.offer_id, y.doc.offer_id) || cmp(x.doc.snapshot_id, y.doc.snapshot_id);
    };
    for (const p of [...this.categoryPostings, ...this.entityPostings]) p.sort(order);
  }

  /** Every boundary-valid alias occurrence, resolved leftmost-longest. Quadratic and plain:
   *  tries every alias length at every position. */
  private aliasLengths: number[] | undefined;

  /** Whether some alias occurs starting at character `i`, boundaries aside. */
  private aliasStartsAt(chars: string[], i: number): boolean {
    return this.aliasLengths!.some((len) => i + len <= chars.length && this.aliases.has(chars.slice(i, i + len).join('')));
  }

  private findSpans(chars: string[]): Span[] {
    // Alias lengths in characters, longest first: computed once per index, not per message.
    const lengths = (this.aliasLengths ??= [...new Set([...this.aliases.keys()].map((a) => Array.from(a).length))].sort((a, b) => b - a));
    const spans: Span[] = [];
    let i = 0;
    while (i < chars.length) {
      // Every valid hit starting here, as written or with a plural ending; the longest wins,
      // then the one as written, then the lowest pattern (the core's order).
      let best: { end: number; plural: boolean; pattern: number; hits: Hit[] } | null = null;
      for (const len of lengths) {
        if (i + len > chars.length) continue;
        const candidate = chars.slice(i, i + len).join('');
        const targets = this.aliases.get(candidate);
        if (!targets) continue;
        const first = classOf(chars[i]);
        const last = classOf(chars[i + len - 1]);
        const before = classOf(chars[i - 1]);
        const after = classOf(chars[i + len]);
        const syllables = Array.from(candidate).filter(isHangulSyllable).length;
        // Cues and sensitive topics are stems any Hangul may continue ("사고 싶어").
        const stem = targets.some((h) => !['category', 'entity', 'weakCategory', 'weakEntity'].includes(h.kind));
        // A compound head may follow Hangul; a particle or another alias may follow Hangul.
        // A compound head follows two or more syllables (강릉호텔), not one (전기차, 해파리).
        const compoundHead = first === 'hangul' && syllables >= 2 && i >= 2 && isHangulSyllable(chars[i - 1]) && isHangulSyllable(chars[i - 2]);
        // A Hangul clause break that is an ending ("는데") follows any Hangul.
        const suffix = isHangulSyllable(chars[i]) && targets.every((h) => h.kind === 'clauseBreak');
        // A Latin alias of several words glued by a hyphen to a number is inside a compound
        // modifier: "a 3-day trip" is no "day trip".
        const inModifier = first === 'word' && chars[i - 1] === '-' && candidate.includes(' ') && /^[0-9]$/.test(chars[i - 2] ?? '');
        const leftOk = (before === 'other' || before !== first || compoundHead || suffix) && !inModifier;
        // One syllable naming a thing (폰, 괌) is a word of its own: nothing more, a whole
        // particle that makes no common word with it (차 + 이 is 차이), or another alias.
        const oneSyllableThing = len === 1 && isHangulSyllable(candidate) && !stem;
        const rightOk =
          last !== 'hangul'
            ? after === 'other' || after !== last
            : oneSyllableThing
              ? !isHangulSyllable(chars[i + 1]) || this.aliasStartsAt(chars, i + 1) || particleFollows(chars, i)
              : stem || hangulWordMayEnd(chars, i + len, (k) => this.aliasStartsAt(chars, k));
        const pattern = this.patternOf.get(candidate)!;
        let hit: { end: number; plural: boolean } | null = null;
        if (leftOk && rightOk) hit = { end: i + len, plural: false };
        else if (leftOk && last === 'word' && after === 'word') {
          // An English plural after a noun ending in a Latin letter (or a model code ending in
          // a digit): "apps", "xm5s", "passes"; never after a cue or a bare number.
          const plural = pluralLength(candidate, targets, chars, i + len);
          if (plural > 0) hit = { end: i + len + plural, plural: true };
        }
        if (
          hit &&
          (best === null ||
            hit.end > best.end ||
            (hit.end === best.end && (Number(hit.plural) < Number(best.plural) || (hit.plural === best.plural && pattern < best.pattern))))
        ) {
          best = { ...hit, pattern, hits: targets };
        }
      }
      if (best) {
        spans.push({ start: i, end: best.end, pattern: best.pattern, hits: best.hits });
        i = best.end;
      } else i++;
    }
    // Latin words one typo away, where the exact pass found nothing. The typo matcher speaks
    // UTF-8 byte offsets, as the core does.
    const byteAt = [0];
    for (const c of chars) byteAt.push(byteAt[byteAt.length - 1] + Buffer.byteLength(c));
    const charAt = new Map(byteAt.map((b, i) => [b, i]));
    // The first 256 characters, cut back to a space (typo_window in text_match.rs).
    const window = chars.length > 256 ? Math.max(chars.lastIndexOf(' ', 255), chars.lastIndexOf('\n', 255), 0) : chars.length;
    const typos = this.fuzzy.find(
      chars.slice(0, window).join(''),
      spans.map((s) => [byteAt[s.start], byteAt[s.end]] as const),
    );
    // Hangul words one jamo away, at word starts the exact pass left (hangul_typo.rs).
    const exact = spans.map((s) => [s.start, s.end] as const);
    for (const [start, end, pattern] of typos) {
      spans.push({ start: charAt.get(start)!, end: charAt.get(end)!, pattern, hits: this.aliases.get(this.patterns[pattern])!, typo: true });
    }
    for (const [start, end, pattern] of this.hangulTypos.find(chars, window, exact, (i) => this.aliasStartsAt(chars, i))) {
      spans.push({ start, end, pattern, hits: this.aliases.get(this.patterns[pattern])!, typo: true });
    }
    return spans.sort((a, b) => a.start - b.start || a.pattern - b.pattern);
  }

  /** Code spans, quotations and sentence ends (reading.rs `structure`). */
  private static structure(chars: string[]) {
    const code: [number, number][] = [];
    const quotes: [number, number][] = [];
    const clauseEnds: number[] = [];
    let fencedCode = false;
    let codeOpen: { start: number; fenced: boolean } | null = null;
    let quoteOpen: { start: number; close: string } | null = null;
    let prev: string | undefined;
    const opener: Record<string, string> = { '"': '"', '“': '”', '「': '」', '『': '』', '«': '»', '‘': '’' };
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i];
      const next = chars[i + 1];
      if (c === '`') {
        let run = 0;
        while (chars[i + run] === '`') run++;
        const fence = run >= 3;
        if (codeOpen === null) {
          codeOpen = { start: i, fenced: fence };
          fencedCode ||= fence;
        } else if (codeOpen.fenced === fence) {
          code.push([codeOpen.start, i + run]);
          codeOpen = null;
        }
        i += run - 1;
        prev = '`';
        continue;
      }
      if (codeOpen !== null) {
        prev = c;
        continue;
      }
      if (quoteOpen !== null) {
        const closes = c === quoteOpen.close && !((quoteOpen.close === "'" || quoteOpen.close === '’') && isWordChar(next));
        if (closes) {
          quotes.push([quoteOpen.start, i + 1]);
          quoteOpen = null;
        }
      } else {
        const close = opener[c] ?? (c === "'" && !isWordChar(prev) && isWordChar(next) ? "'" : undefined);
        if (close !== undefined) quoteOpen = { start: i, close };
      }
      // A hyphen between spaces is a dash, and a dash ends a clause (reading.rs).
      const space = (x: string | undefined) => x !== undefined && /\p{White_Space}/u.test(x);
      const endsSentence = c === '.' ? next === undefined || space(next) : c === '-' ? space(next) && space(prev) : '!?;\n。！？…—–'.includes(c);
      if (endsSentence) clauseEnds.push(i + 1);
      prev = c;
    }
    if (codeOpen !== null) code.push([codeOpen.start, chars.length]);
    return { code, quotes, clauseEnds, fencedCode };
  }

  /** What the message says, clause by clause (reading.rs `read`). */
  private read(text: string) {
    const chars = Array.from(text);
    const spans = this.findSpans(chars);
    const reading = {
      topics: [] as Topic[],
      sensitive: [] as number[],
      purchase: [] as number[],
      compare: [] as number[],
      notCommercial: false,
      otherHeads: [] as number[],
      /** Words read one typo away: [start, end, pattern], the first pattern per span. */
      typos: [] as [number, number, number][],
    };
    if (spans.length === 0) return reading;
    for (const s of spans) if (s.typo && reading.typos[reading.typos.length - 1]?.[0] !== s.start) reading.typos.push([s.start, s.end, s.pattern]);
    // Cues as [clause, position].
    let purchase: [number, number][] = [];
    let compare: [number, number][] = [];
    const st = ReferenceMatcher.structure(chars);
    const inside = (ranges: [number, number][], s: Span) => ranges.some(([a, b]) => s.start >= a && s.end <= b);
    const clauseEnds = [...st.clauseEnds];
    for (const s of spans) if (s.hits.some((h) => h.kind === 'clauseBreak' || h.kind === 'negationBefore') && !inside(st.code, s)) clauseEnds.push(s.start);
    // A negation or after-sales cue is said up to the next comma, a negation only from the
    // comma before it (reading.rs).
    const commaEnds: number[] = [];
    for (const s of spans) {
      if (!s.hits.some((h) => h.kind === 'negation' || h.kind === 'afterSales') || inside(st.code, s)) continue;
      const nextEnd = Math.min(chars.length, ...clauseEnds.filter((e) => e > s.end));
      const comma = chars.slice(s.end, nextEnd).indexOf(',');
      if (comma >= 0) commaEnds.push(s.end + comma + 1);
      // A Korean connective ending on the cue's word ends the clause as a comma does.
      let wordEnd = s.end;
      while (wordEnd < chars.length && isHangulSyllable(chars[wordEnd])) wordEnd++;
      if (wordEnd > s.end && CONNECTIVE_ENDINGS.includes(chars.slice(s.end, wordEnd).join(''))) commaEnds.push(wordEnd);
      if (s.hits.some((h) => h.kind === 'negation')) {
        const from = Math.max(0, ...clauseEnds.filter((e) => e <= s.start));
        const before = chars.slice(from, s.start).lastIndexOf(',');
        if (before >= 0) commaEnds.push(from + before + 1);
      }
    }
    clauseEnds.push(...commaEnds);
    const clauseOf = (pos: number) => clauseEnds.filter((e) => e <= pos).length;
    const inIdentifier = (s: Span) =>
      ('.$#@/\\'.includes(chars[s.start - 1] ?? 'x') && isWordChar(chars[s.start - 2])) ||
      chars[s.end] === '(' ||
      (chars[s.end] === '.' && isWordChar(chars[s.end + 1]));
    const voided = new Set<number>();
    const negatedClauses = new Set<number>();
    const negative: string[] = [];
    // Per clause: where the earliest "for" ends (topics after it are a purpose); per "에서 쓸",
    // the window before it back to the clause's last purchase or compare cue.
    const purposeFrom = new Map<number, number>();
    const purposeWindows: [number, number, number][] = [];
    let lastCue: [number, number] | null = null;
    // Negation-before cues: [the clause they end, where they start].
    const negatedBefore: [number, number][] = [];
    // Alternative cues: [clause, where they start].
    const alternatives: [number, number][] = [];
    const topicSpans: Span[] = [];
    reading.notCommercial = st.fencedCode;
    for (const s of spans) {
      const inCode = inside(st.code, s);
      const clause = clauseOf(s.start);
      const identifier = !inCode && inIdentifier(s);
      const quoted = inside(st.quotes, s);
      for (const h of s.hits) {
        if (h.kind === 'sensitive') reading.sensitive.push(h.index);
        else if (h.kind === 'notSensitive')
          continue; // said of a thing: it only hides the alias inside it
        else if (inCode || h.kind === 'clauseBreak') continue;
        else if (h.kind === 'negation' || h.kind === 'afterSales') {
          voided.add(clause);
          if (h.kind === 'negation') negatedClauses.add(clause);
        } else if (h.kind === 'negationBefore')
          negatedBefore.push([Math.max(0, clause - 1), s.start]); // the clause it ends
        else if (h.kind === 'notCommercial') reading.notCommercial = true;
        else if (h.kind === 'purchase' || h.kind === 'compare') {
          if (!quoted) {
            (h.kind === 'purchase' ? purchase : compare).push([clause, s.start]);
            lastCue = [clause, s.end];
          }
        } else if (h.kind === 'purpose') quoted || purposeFrom.has(clause) || purposeFrom.set(clause, s.end);
        else if (h.kind === 'purposeBefore') quoted || purposeWindows.push([clause, lastCue !== null && lastCue[0] === clause ? lastCue[1] : 0, s.start]);
        else if (h.kind === 'alternative') quoted || alternatives.push([clause, s.start]);
        else if (h.kind === 'notCategory' || h.kind === 'notEntity') {
          negative.push(`${h.kind === 'notCategory' ? 'category' : 'entity'}:${h.index}:${clause}`);
          reading.otherHeads.push(clause);
        } else if (identifier) continue;
        else if (h.kind === 'category' || h.kind === 'weakCategory' || h.kind === 'entity' || h.kind === 'weakEntity') {
          const kind = h.kind === 'category' || h.kind === 'weakCategory' ? 'category' : 'entity';
          reading.topics.push({
            kind,
            index: h.index,
            weak: h.kind === 'weakCategory' || h.kind === 'weakEntity',
            clause,
            purpose: false,
            start: s.start,
            end: s.end,
            head: false,
            left: false,
          });
          topicSpans.push(s);
        }
      }
    }
    reading.topics.forEach((t, i) => {
      const from = purposeFrom.get(t.clause);
      t.purpose =
        (from !== undefined && topicSpans[i].start >= from) ||
        purposeWindows.some(([c, lo, until]) => c === t.clause && topicSpans[i].start >= lo && topicSpans[i].end <= until);
    });
    // A negation-before cue is said of the nearest topic before it in the clause it ends (with
    // every category of that clause when the topic is a category) and of the cues after it.
    const negated = new Set<number>();
    for (const [clause, at] of negatedBefore) {
      let nearest = -1;
      reading.topics.forEach((t, i) => {
        if (t.clause === clause && topicSpans[i].end <= at && (nearest < 0 || topicSpans[i].start > topicSpans[nearest].start)) nearest = i;
      });
      let cuesFrom = 0;
      if (nearest >= 0) {
        const category = reading.topics[nearest].kind === 'category';
        reading.topics.forEach((t, i) => {
          const same = topicSpans[i].start === topicSpans[nearest].start && topicSpans[i].end === topicSpans[nearest].end;
          if (t.clause === clause && (same || (category && t.kind === 'category'))) negated.add(i);
        });
        cuesFrom = topicSpans[nearest].start;
      }
      const keep = ([c, pos]: [number, number]) => c !== clause || pos < cuesFrom || pos >= at;
      purchase = purchase.filter(keep);
      compare = compare.filter(keep);
    }
    // A later clause that asks to buy and names nothing asks again for the things of the
    // after-sales clauses before it (never of a negated one).
    const isNegative = (t: Topic) => negative.includes(`${t.kind}:${t.index}:${t.clause}`);
    const namesTopic = (c: number) => reading.topics.some((t, i) => t.clause === c && !negated.has(i) && !isNegative(t));
    const asking = [...purchase, ...compare].map(([c]) => c).filter((c) => !voided.has(c) && !namesTopic(c));
    const asksAgain = asking.length > 0 ? Math.max(...asking) : -1;
    const revived = (c: number) => !negatedClauses.has(c) && c < asksAgain;
    reading.topics = reading.topics.filter((t, i) => !negated.has(i) && (!voided.has(t.clause) || revived(t.clause)) && !isNegative(t));
    // The head each counting cue is said of (reading.rs): the nearest category of its clause
    // before a Korean cue, after an English one, else on the other side; not a purpose.
    for (const [clause, at] of [...purchase, ...compare]) {
      if (voided.has(clause)) continue;
      const korean = isHangulSyllable(chars[at]);
      const candidates = reading.topics.filter((t) => t.clause === clause && !t.purpose && t.kind === 'category');
      const before = candidates.filter((t) => t.start < at).reduce<Topic | null>((b, t) => (b === null || t.start >= b.start ? t : b), null);
      const after = candidates.filter((t) => t.start > at).reduce<Topic | null>((b, t) => (b === null || t.start < b.start ? t : b), null);
      const head = korean ? (before ?? after) : (after ?? before);
      if (head !== null) head.head = true;
    }
    // What each alternative cue is said of (reading.rs): the nearest entity of its clause, on the
    // side a head is looked for first.
    for (const [clause, at] of alternatives) {
      if (voided.has(clause)) continue;
      const korean = isHangulSyllable(chars[at]);
      const candidates = reading.topics.filter((t) => t.clause === clause && t.kind === 'entity');
      const before = candidates.filter((t) => t.start < at).reduce<Topic | null>((b, t) => (b === null || t.start >= b.start ? t : b), null);
      const after = candidates.filter((t) => t.start > at).reduce<Topic | null>((b, t) => (b === null || t.start < b.start ? t : b), null);
      const left = korean ? (before ?? after) : (after ?? before);
      if (left !== null) left.left = true;
    }
    reading.purchase = purchase.map(([c]) => c).filter((c) => !voided.has(c));
    reading.compare = compare.map(([c]) => c).filter((c) => !voided.has(c));
    return reading;
  }

  private related(a: number, b: number): boolean {
    return a === b || this.ancestors[a].includes(b) || this.ancestors[b].includes(a);
  }

  match(q: MatchQuery, pacing: (campaignId: string) => number = () => 1000): MatchResult {
    const normalized = q.message !== undefined && q.message !== null ? normalize(q.message) : null;
    const limits = turnClassifierThresholds();
    const reading =
      normalized !== null
        ? this.read(normalized)
        : {
            topics: [] as Topic[],
            sensitive: [] as number[],
            purchase: [] as number[],
            compare: [] as number[],
            notCommercial: false,
            otherHeads: [] as number[],
            typos: [] as [number, number, number][],
          };
    // The model reads the first 256 characters (MODEL_MAX_CHARS in index.rs) of the turn with
    // each typo written as the alias it was read as (reading.rs `corrected`).
    let modelText = normalized;
    if (normalized !== null && reading.typos.length > 0) {
      const chars = Array.from(normalized);
      let out = '';
      let at = 0;
      for (const [start, end, pattern] of reading.typos) {
        if (start < at) continue;
        out += chars.slice(at, start).join('') + this.patterns[pattern];
        at = end;
      }
      modelText = out + chars.slice(at).join('');
    }
    const scores = modelText === null ? null : turnScores(Array.from(modelText).slice(0, 256).join(''));
    // The sensitive head counts from three words (MODEL_MIN_WORDS in index.rs).
    const words = normalized === null ? 0 : normalized.split(/\s+/).filter(Boolean).length;
    const modelSensitive = words >= 3 && scores !== null && scores.sensitive >= limits.sensitive;
    const modelCommercial = scores !== null && scores.commercial >= limits.commercial;
    // A cue does not make a turn commercial that the commercial head reads as plainly not a
    // request (COMMERCIAL_VETO_LOGIT in index.rs), from three words.
    const modelNotCommercial = words >= 3 && scores !== null && scores.commercial <= COMMERCIAL_VETO_LOGIT;
    let dropped = 0;
    let asked: number[] = [];
    let entities: number[] = [];
    for (const id of q.categoryIds ?? []) {
      const c = this.categoryIndex.get(id);
      if (c === undefined) dropped++;
      else asked.push(c);
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
    const categoriesOf = (t: Topic) => (t.kind === 'category' ? [t.index] : this.entityCategories[t.index]);
    const strong = [...asked, ...entities.flatMap((e) => this.entityCategories[e]), ...reading.topics.filter((t) => !t.weak).flatMap(categoriesOf)];
    // Two weak aliases of related things confirm each other (파리 + 투어), a lone one does not.
    const weak = reading.topics.filter((t) => t.weak);
    const confirmed = (t: Topic) =>
      categoriesOf(t).some(
        (c) =>
          strong.some((s) => this.related(c, s)) ||
          weak.some((w) => (w.kind !== t.kind || w.index !== t.index) && categoriesOf(w).some((o) => this.related(c, o))),
      );
    // A topic in a purpose phrase ("a VPN for hotel wifi") is dropped when its clause names,
    // outside the phrase, something under another top-level category.
    const root = (c: number) => this.ancestors[c].at(-1) ?? c;
    // Where a trip starts is not where it goes (index.rs): an origin place does not count when
    // its clause names another place.
    const place = (t: Topic) => t.kind === 'entity' && this.entityKinds[t.index] === 'place';
    const chars = normalized === null ? [] : Array.from(normalized);
    // Where a trip starts, by the words around it (reading.rs `is_origin`): after "from", "out
    // of", "leaving", "departing"; before " to " or "에서" and another kept topic; before "출발".
    const isOrigin = (t: Topic) => {
      // A window of the text around the topic is enough: the longest word before is
      // "departing" and a space, the longest words after are " to " and "에서 출발".
      const window = chars.slice(Math.max(0, t.start - 16), t.start).join('');
      const b = window.endsWith(' ') ? window.slice(0, -1) : '';
      const afterWord = ['from', 'out of', 'leaving', 'departing'].some((w) => b.endsWith(w) && !isWordChar(Array.from(b.slice(0, -w.length)).at(-1)));
      const after = chars.slice(t.end, t.end + 8).join('');
      const at = (i: number) => reading.topics.some((o) => o.start === i);
      const rest = after.startsWith('에서') ? after.slice(2) : null;
      return (
        afterWord ||
        (after.startsWith(' to ') && at(t.end + 4)) ||
        (rest !== null && (at(t.end + 2) || (rest.startsWith(' ') && at(t.end + 3)) || rest.replace(/^ +/, '').startsWith('출발'))) ||
        after.replace(/^ +/, '').startsWith('출발')
      );
    };
    const elsewhere = (t: Topic, o: Topic) => o.clause === t.clause && (o.kind !== t.kind || o.index !== t.index) && place(o);
    const leftBehind = (t: Topic) => place(t) && isOrigin(t) && reading.topics.some((o) => elsewhere(t, o) && !isOrigin(o));
    const broad = (e: number) =>
      this.entityKinds[e] === 'place' || (this.entityCategories[e].length > 0 && this.entityCategories[e].every((c) => this.ancestors[c].length === 0));
    const kept = reading.topics.filter((t) => (!t.weak || confirmed(t)) && !leftBehind(t));
    // A thing the user moves away from (index.rs): offers for others of its kind are not
    // "another thing", and it asks for its kind, in its clause, when its clause names no other
    // thing; it still counts as named. Not a place or a broad brand.
    const thing = (t: Topic) => t.kind === 'category' || !broad(t.index);
    const leaving = (t: Topic) => t.left && thing(t);
    const candidatesCounted = [
      ...kept,
      ...kept
        .filter((t) => leaving(t) && !kept.some((o) => o.clause === t.clause && thing(o) && !leaving(o)))
        .flatMap((t) => this.entityCategories[t.index].map((c): Topic => ({ ...t, kind: 'category', index: c, weak: false, head: false, left: false }))),
    ];
    const leavingEntities = new Set(kept.filter(leaving).map((t) => t.index));
    for (const t of kept) if (t.kind === 'entity' && !leaving(t)) leavingEntities.delete(t.index);

    // A negative context names something else, of no kind of the catalog's ("a laptop bag for
    // my MacBook" asks for the bag).
    const heads = [
      ...reading.otherHeads.map((clause) => ({ clause, root: -1 })),
      ...candidatesCounted.filter((t) => !t.purpose).flatMap((t) => categoriesOf(t).map((c) => ({ clause: t.clause, root: root(c) }))),
    ];
    const counted = candidatesCounted.filter(
      (t) =>
        !t.purpose || !heads.some((h) => h.clause === t.clause) || heads.some((h) => h.clause === t.clause && categoriesOf(t).some((c) => root(c) === h.root)),
    );
    // The clauses whose categories are asked for, when a cue counts (index.rs asking_clauses):
    // a cue's clause when it names a category or a thing that is not broad, else the nearest
    // clause before it that does, and every later clause without a cue.
    const named = [...new Set(counted.filter((t) => t.kind === 'category' || !broad(t.index)).map((t) => t.clause))].sort((a, b) => a - b);
    const cues = [...new Set([...reading.purchase, ...reading.compare])].sort((a, b) => a - b);
    let asking: Set<number> | null = null;
    if (cues.length > 0) {
      const set = new Set<number>();
      for (const c of cues) {
        if (named.includes(c)) set.add(c);
        else {
          const before = named.filter((n) => n < c);
          if (before.length > 0) set.add(before[before.length - 1]);
        }
      }
      for (const n of named) if (n > cues[0] && !cues.includes(n)) set.add(n);
      if (set.size > 0) asking = set;
    }
    // The heads of the request (index.rs): when the message asks for one, the other categories
    // it asks for rank lower, beside it; never the digest's.
    const digestAsked = [...asked];
    const requestHeads: number[] = [];
    let beside: number[] = [];
    for (const t of counted) {
      if (t.kind === 'entity') entities.push(t.index);
      else if (asking === null || asking.has(t.clause)) {
        asked.push(t.index);
        const head = reading.topics.some((o) => o.head && o.kind === 'category' && o.index === t.index && o.clause === t.clause);
        (head ? requestHeads : beside).push(t.index);
      }
    }
    beside = requestHeads.length === 0 ? [] : [...new Set(beside.filter((c) => !requestHeads.includes(c) && !digestAsked.includes(c)))].sort((a, b) => a - b);
    entities = [...new Set(entities)].sort((a, b) => a - b);
    asked = [...new Set(asked)].sort((a, b) => a - b);
    const implied = [...new Set(entities.flatMap((e) => this.entityCategories[e]).filter((c) => !asked.includes(c)))].sort((a, b) => a - b);
    // A cue counts for the topics of its clause or of the clauses before it.
    const qualifies = (clause: number) => counted.length === 0 || counted.some((t) => t.clause <= clause);
    const messageIntent = reading.notCommercial
      ? 'low'
      : modelNotCommercial
        ? 'none'
        : reading.purchase.some(qualifies)
          ? 'purchase'
          : reading.compare.some(qualifies)
            ? 'compare'
            : modelCommercial && counted.length > 0
              ? 'purchase' // a request without a cue word, read as one by the classifier
              : 'none';
    const digestIntent = q.intentType ?? 'unknown';
    const effective =
      messageIntent === 'low' || digestIntent === 'low' ? 'low' : intentStrength(messageIntent) > intentStrength(digestIntent) ? messageIntent : digestIntent;
    const notLeft = entities.filter((e) => !leavingEntities.has(e));
    const candidates = q.topK === 0 ? [] : this.rank(q, entities, notLeft, asked, beside, implied, excluded, effective, pacing);
    return {
      sensitiveTopicIds: [...new Set(reading.sensitive)].map((s) => this.sensitiveIds[s]).sort(cmp),
      modelSensitive,
      messageIntent,
      intent: effective,
      commercialIntent: intentStrength(effective) >= intentStrength('compare'),
      signalCategoryIds: [...asked, ...implied].map((c) => this.categoryIds[c]).sort(cmp),
      signalEntityIds: entities.map((e) => this.entityIds[e]).sort(cmp),
      droppedDigestIds: dropped,
      candidates,
      // The reference has no step budget: it answers for turns well inside the core's.
      overBudget: false,
    };
  }

  /** Points of the offer's best category against the categories asked for and, weakly, those
   *  implied by named entities. */
  private categoryPoints(o: Offer, asked: number[], beside: number[], implied: number[]): bigint {
    let best = 0n;
    const score = (c: number, s: number, p: { category: bigint; offerBroader: bigint; offerNarrower: bigint }) =>
      c === s ? p.category : this.ancestors[s].includes(c) ? p.offerBroader : this.ancestors[c].includes(s) ? p.offerNarrower : 0n;
    for (const c of o.categories) {
      for (const s of asked) best = [best, score(c, s, beside.includes(s) ? BESIDE_POINTS : POINTS)].reduce((a, b) => (a > b ? a : b));
      for (const s of implied) best = [best, score(c, s, IMPLIED_POINTS)].reduce((a, b) => (a > b ? a : b));
    }
    return best;
  }

  /** An offer aimed at another thing of a kind the turn names, in a related category (a Busan
   *  hotel for Tokyo). */
  private namesAnother(o: Offer, entities: number[]): boolean {
    // An offer for a product the turn names is that product, whatever places it also targets.
    if (o.entities.some((e) => this.entityKinds[e] === 'product' && entities.includes(e))) return false;
    const sharesCategory = (a: number, b: number) => this.entityCategories[a].some((x) => this.entityCategories[b].some((y) => this.related(x, y)));
    return o.entities.some((e) => {
      const kind = this.entityKinds[e];
      return (
        entities.some((n) => this.entityKinds[n] === kind && sharesCategory(e, n)) &&
        // An offer is about its advertiser's own brand too.
        ![...o.entities, ...(o.advertiserEntity === null ? [] : [o.advertiserEntity])].some(
          (mine) => this.entityKinds[mine] === kind && entities.includes(mine),
        )
      );
    });
  }

  /** Whether the turn said what it asks for about this offer: a category below the top level
   *  related to one of the offer's, or an entity it targets that is not broad (a place, or an
   *  entity whose categories are all top-level). */
  private askedFor(o: Offer, entities: number[], asked: number[]): boolean {
    const broad = (e: number) =>
      this.entityKinds[e] === 'place' || (this.entityCategories[e].length > 0 && this.entityCategories[e].every((c) => this.ancestors[c].length === 0));
    return (
      // Naming the advertiser's own brand asks about its offers.
      [...o.entities, ...(o.advertiserEntity === null ? [] : [o.advertiserEntity])].some((e) => !broad(e) && entities.includes(e)) ||
      o.categories.some((c) => asked.some((s) => this.ancestors[s].length > 0 && this.related(c, s)))
    );
  }

  /** An offer in none of the categories the turn asks for (nor above or below one). */
  private outsideAsked(o: Offer, asked: number[]): boolean {
    return asked.length > 0 && o.categories.length > 0 && !o.categories.some((c) => asked.some((s) => this.related(c, s)));
  }

  private rank(
    q: MatchQuery,
    entities: number[],
    named: number[],
    asked: number[],
    beside: number[],
    implied: number[],
    excluded: number[],
    intent: string,
    pacing: (c: string) => number,
  ): MatchCandidate[] {
    const country = q.country?.toUpperCase();
    const bucket = q.budgetBucket && q.budgetBucket !== 'unknown' && BUCKETS.includes(q.budgetBucket) ? q.budgetBucket : null;
    // A host's digest naming ids is its own claim of what is asked.
    const hostNamed = (q.categoryIds?.length ?? 0) > 0 || (q.entityIds?.length ?? 0) > 0;
    const eligible = (o: Offer) =>
      o.doc.campaign_status === 'active' &&
      o.doc.locale === q.language &&
      o.doc.kind === q.kind &&
      (o.doc.starts_at_ms === null || o.doc.starts_at_ms <= q.nowMs) &&
      (o.doc.ends_at_ms === null || q.nowMs < o.doc.ends_at_ms) &&
      (o.doc.countries.length === 0 || (country !== undefined && o.doc.countries.map((c) => c.toUpperCase()).includes(country))) &&
      (o.doc.budget_buckets.length === 0 || bucket === null || o.doc.budget_buckets.includes(bucket)) &&
      !o.entities.some((e) => excluded.includes(e)) &&
      !(o.advertiserEntity !== null && excluded.includes(o.advertiserEntity)) &&
      !this.namesAnother(o, named) &&
      !this.outsideAsked(o, asked) &&
      (hostNamed || this.askedFor(o, entities, asked));
    // Every offer in the first MAX_POSTING_SCAN entries of a list the turn's evidence reaches,
    // scored on all its evidence: what the core's early-stopping walk must equal.
    const reached = new Set<number>();
    const visit = (list: number[], limit: number) => list.slice(0, limit).forEach((oi) => eligible(this.offers[oi]) && reached.add(oi));
    for (const e of entities) visit(this.entityPostings[e], MAX_POSTING_SCAN);
    for (const [signals, limit] of [
      [asked, MAX_POSTING_SCAN],
      [implied, MAX_IMPLIED_SCAN],
    ] as const) {
      for (const c of signals) visit(this.categoryPostings[c], limit);
      for (const c of signals) for (const a of this.ancestors[c]) visit(this.categoryPostings[a], limit);
      for (const c of signals) for (const d of this.descendants[c]) visit(this.categoryPostings[d], limit);
    }
    const scored = [...reached].map((oi) => {
      const o = this.offers[oi];
      const entityMatched = o.entities.some((e) => entities.includes(e));
      const points = (entityMatched ? POINTS.entity : 0n) + this.categoryPoints(o, asked, beside, implied);
      const pace = BigInt(Math.min(1000, pacing(o.doc.campaign_id)));
      return { oi, score: (points * o.staticScore * intentBoost(intent, entityMatched) * pace) / 1000n };
    });
    const key = (oi: number) => this.offers[oi].doc;
    scored.sort((a, b) =>
      a.score !== b.score ? (a.score > b.score ? -1 : 1) : cmp(key(a.oi).offer_id, key(b.oi).offer_id) || cmp(key(a.oi).snapshot_id, key(b.oi).snapshot_id),
    );
    return scored.slice(0, q.topK).map(({ oi, score }) => {
      const o = this.offers[oi];
      const meets = (signals: number[]) => o.categories.filter((c) => signals.some((s) => this.related(c, s)));
      const matched = meets(asked);
      return {
        snapshotId: o.doc.snapshot_id,
        offerId: o.doc.offer_id,
        campaignId: o.doc.campaign_id,
        advertiserId: o.doc.advertiser_id,
        score: Number(score),
        matchedCategoryIds: matched.map((c) => this.categoryIds[c]).sort(cmp),
        matchedEntityIds: o.entities
          .filter((e) => entities.includes(e))
          .map((e) => this.entityIds[e])
          .sort(cmp),
        impliedCategoryIds: meets(implied)
          .filter((c) => !matched.includes(c))
          .map((c) => this.categoryIds[c])
          .sort(cmp),
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
