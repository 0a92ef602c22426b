// The fuzzy matcher in plain TypeScript: the same rules and results as
// crates/sidenote-core/src/fuzzy.rs (its FuzzyMatcher doc states them), written for clarity
// rather than speed: a map from every alias and every alias with one letter deleted to those
// aliases, each found alias then checked for exactly one edit. It is the core's test oracle,
// like the reference matcher beside it, and reads the core's own common-word list.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Aliases with fewer letters never match fuzzily ("apple"/"apply"). */
export const MIN_FUZZY_LETTERS = 5;
export const COMMON_WORDS_PATH = fileURLToPath(new URL('../../crates/sidenote-core/src/model/common-english-words.txt', import.meta.url));

/** (UTF-8 byte start, byte end, pattern id), as the core reports them. */
export type FuzzyHit = [start: number, end: number, pattern: number];
export type ByteSpan = readonly [start: number, end: number];

let commonWords: Set<string> | undefined;

/** A word list of the core's: one word a line, '#' starts a comment. */
export function readWordList(path: string): Set<string> {
  return new Set(
    readFileSync(path, 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#')),
  );
}

/** The stoplist. */
export function loadCommonWords(): Set<string> {
  commonWords ??= readWordList(COMMON_WORDS_PATH);
  return commonWords;
}

/** The single edit turning candidate `a` into alias `b`, at index `at`. */
export type Edit =
  | { kind: 'substitute'; at: number } // a[at] replaced by b[at]
  | { kind: 'transpose'; at: number } // a[at] and a[at + 1] swapped
  | { kind: 'extra'; at: number } // a[at] is one character too many
  | { kind: 'missing'; at: number }; // b[at] is missing from a, before a[at]

/** The edit when `a` and `b` are exactly one optimal-string-alignment edit apart, else null. */
export function singleEdit(a: string, b: string): Edit | null {
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  if (a.length === b.length) {
    if (p === a.length) return null;
    if (a.slice(p + 1) === b.slice(p + 1)) return { kind: 'substitute', at: p };
    if (p + 1 < a.length && a[p] === b[p + 1] && a[p + 1] === b[p] && a.slice(p + 2) === b.slice(p + 2)) return { kind: 'transpose', at: p };
    return null;
  }
  if (a.length === b.length + 1) return a.slice(p + 1) === b.slice(p) ? { kind: 'extra', at: p } : null;
  if (a.length + 1 === b.length) return a.slice(p) === b.slice(p + 1) ? { kind: 'missing', at: p } : null;
  return null;
}

const isTokenChar = (c: string | undefined) => c !== undefined && /^[a-z0-9]$/.test(c);
const isDigit = (c: string) => c >= '0' && c <= '9';
const hasDigit = (w: string) => /[0-9]/.test(w);

/** Lower-case ASCII letters, digits and single spaces, neither leading nor trailing. */
function isLatinAlias(alias: string): boolean {
  return /^[a-z0-9]+( [a-z0-9]+)*$/.test(alias);
}

function isHangul(cp: number): boolean {
  return (
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0x1100 && cp <= 0x11ff) ||
    (cp >= 0x3130 && cp <= 0x318f) ||
    (cp >= 0xa960 && cp <= 0xa97f) ||
    (cp >= 0xd7b0 && cp <= 0xd7ff)
  );
}

/** Rust's `char::is_alphanumeric` (Alphabetic, or a number: Nd, Nl, No), or Hangul. */
function isWordChar(c: string | undefined): boolean {
  if (c === undefined) return false;
  return isHangul(c.codePointAt(0)!) || /[\p{Alphabetic}\p{Nd}\p{Nl}\p{No}]/u.test(c);
}

/** The space-delimited word holding index `p`. */
function wordAt(s: string, p: number): string {
  const start = s.lastIndexOf(' ', p - 1) + 1;
  const end = s.indexOf(' ', p);
  return s.slice(p === 0 ? 0 : start, end < 0 ? s.length : end);
}

/** An index of the word at a gap before index `p`: the word the gap is in, or ends. */
function gapIndex(s: string, p: number): number {
  return p < s.length && s[p] !== ' ' ? p : p - 1;
}

/** English adds "-es" after a sibilant: "watches", "boxes", "glasses", "brushes". */
function takesEsPlural(alias: string): boolean {
  return /(s|x|z|ch|sh)$/.test(alias);
}

interface Candidate {
  start: number;
  end: number;
  text: string;
  /** Index of the space in `text`, for a pair of tokens. */
  space: number | null;
  /** Whether its first and its last word are common English words. */
  common: [boolean, boolean];
}

function commonAt(c: Candidate, p: number): boolean {
  return c.space !== null && p > c.space ? c.common[1] : c.common[0];
}

/** Whether the one edit from candidate to alias is a typo the rules accept. `thing`: the alias
 *  names a category or an entity, so a common word of five letters or more may be its typo in a
 *  pair whose other word is exact ("password manger"). */
function accepts(c: Candidate, alias: string, thing = false): boolean {
  const a = c.text;
  const edit = singleEdit(a, alias);
  if (edit === null) return false;
  const p = edit.at;
  const commonWordAt = (q: number) => commonAt(c, q) && !(thing && c.space !== null && wordAt(a, q).length >= MIN_FUZZY_LETTERS);
  switch (edit.kind) {
    case 'substitute':
    case 'transpose': {
      const changed = edit.kind === 'substitute' ? [a[p], alias[p]] : [a[p], a[p + 1]];
      // Spaces are only inserted or deleted; digits never change.
      if (changed.some((x) => x === ' ' || isDigit(x))) return false;
      return !hasDigit(wordAt(a, p)) && !hasDigit(wordAt(alias, p)) && !commonWordAt(p);
    }
    case 'extra': {
      const extra = a[p];
      if (extra === ' ') return true; // split words: "lap top"
      if (isDigit(extra) || hasDigit(wordAt(a, p)) || hasDigit(wordAt(alias, gapIndex(alias, p)))) return false;
      // The alias plus "s" is a plural, even of a common word.
      return (p === a.length - 1 && extra === 's') || !commonWordAt(p);
    }
    case 'missing': {
      const missing = alias[p];
      const at = gapIndex(a, p);
      if (missing === ' ') return !commonAt(c, at); // joined words: "airpodspro", not "carpet"
      return !isDigit(missing) && !hasDigit(wordAt(alias, p)) && !hasDigit(wordAt(a, at)) && !commonWordAt(at);
    }
  }
}

/** UTF-8 byte offset of every UTF-16 index of `s` (and of its end). */
function byteOffsets(s: string): number[] {
  const out = new Array<number>(s.length + 1);
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    out[i] = bytes;
    const cp = s.codePointAt(i)!;
    if (cp > 0xffff) {
      out[++i] = bytes;
      bytes += 4;
    } else {
      bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3;
    }
  }
  out[s.length] = bytes;
  return out;
}

/** The code point that ends right before index `i`. */
function charBefore(s: string, i: number): string | undefined {
  if (i === 0) return undefined;
  const low = s.charCodeAt(i - 1);
  if (low >= 0xdc00 && low <= 0xdfff && i >= 2) {
    const high = s.charCodeAt(i - 2);
    if (high >= 0xd800 && high <= 0xdbff) return s.slice(i - 2, i);
  }
  return s[i - 1];
}

function charAfter(s: string, i: number): string | undefined {
  const cp = s.codePointAt(i);
  return cp === undefined ? undefined : String.fromCodePoint(cp);
}

/** Leftmost-longest: the span starting first, then the longest, with every alias found at it. */
function resolveOverlaps(hits: FuzzyHit[]): FuzzyHit[] {
  hits.sort((x, y) => x[0] - y[0] || y[1] - x[1] || x[2] - y[2]);
  const out: FuzzyHit[] = [];
  let chosen: [number, number] = [0, 0];
  for (const h of hits) {
    const last = out[out.length - 1];
    if (last && last[0] === h[0] && last[1] === h[1] && last[2] === h[2]) continue;
    if (h[0] === chosen[0] && h[1] === chosen[1]) out.push(h);
    else if (h[0] >= chosen[1]) {
      chosen = [h[0], h[1]];
      out.push(h);
    }
  }
  return out;
}

export class FuzzyMatcher {
  /** Every alias of Latin letters, digits and single spaces: a candidate equal to one is no typo. */
  private readonly known = new Set<string>();
  /** Eligible alias → its pattern ids. */
  private readonly ids = new Map<string, number[]>();
  /** Pattern ids marked as naming a thing. */
  private readonly things = new Set<number>();
  /** An eligible alias, or one with a character deleted → those aliases. */
  private readonly neighbourhood = new Map<string, Set<string>>();
  private readonly common = loadCommonWords();

  /** `thing`: the alias names a category or an entity (the core's `FuzzyMatcher::with_things`). */
  constructor(aliases: Iterable<readonly [alias: string, pattern: number, thing?: boolean]>) {
    for (const [alias, pattern, thing] of aliases) {
      if (!isLatinAlias(alias)) continue;
      this.known.add(alias);
      if ((alias.match(/[a-z]/g) ?? []).length < MIN_FUZZY_LETTERS) continue;
      if (thing) this.things.add(pattern);
      const ids = this.ids.get(alias) ?? [];
      ids.push(pattern);
      this.ids.set(alias, ids);
      for (const key of [alias, ...deletions(alias)]) {
        const set = this.neighbourhood.get(key) ?? new Set<string>();
        set.add(alias);
        this.neighbourhood.set(key, set);
      }
    }
  }

  /** Fuzzy hits in a normalised message, in UTF-8 byte offsets; tokens overlapping a `covered`
   *  byte span are skipped. */
  find(normalized: string, covered: ReadonlyArray<ByteSpan>): FuzzyHit[] {
    const bytes = byteOffsets(normalized);
    type Token = { from: number; to: number; start: number; end: number };
    const tokens: Token[] = [];
    for (let i = 0; i < normalized.length; ) {
      if (!isTokenChar(normalized[i])) {
        i++;
        continue;
      }
      const from = i;
      while (isTokenChar(normalized[i])) i++;
      const [start, end] = [bytes[from], bytes[i]];
      const alone = !isWordChar(charBefore(normalized, from)) && !isWordChar(charAfter(normalized, i));
      if (alone && !covered.some(([s, e]) => start < e && s < end)) tokens.push({ from, to: i, start, end });
    }
    const candidates: Candidate[] = [];
    tokens.forEach((t, k) => {
      const text = normalized.slice(t.from, t.to);
      const common = this.common.has(text);
      candidates.push({ start: t.start, end: t.end, text, space: null, common: [common, common] });
      const prev = tokens[k - 1];
      if (prev && prev.to + 1 === t.from && normalized[prev.to] === ' ') {
        const first = normalized.slice(prev.from, prev.to);
        candidates.push({ start: prev.start, end: t.end, text: `${first} ${text}`, space: first.length, common: [this.common.has(first), common] });
      }
    });
    const hits: FuzzyHit[] = [];
    for (const c of candidates) {
      const t = c.text;
      if (isDigit(t[0]) || this.known.has(t)) continue;
      const found = new Set<number>();
      for (const key of [t, ...deletions(t)]) {
        for (const alias of this.neighbourhood.get(key) ?? []) for (const id of this.ids.get(alias)!) if (accepts(c, alias, this.things.has(id))) found.add(id);
      }
      const stem = t.slice(0, -2);
      if (t.length > 2 && t.endsWith('es') && this.ids.has(stem) && takesEsPlural(stem) && !hasDigit(stem.slice(stem.lastIndexOf(' ') + 1))) {
        for (const id of this.ids.get(stem)!) found.add(id);
      }
      for (const id of found) hits.push([c.start, c.end, id]);
    }
    return resolveOverlaps(hits);
  }
}

function deletions(s: string): string[] {
  return [...s].map((_, i) => s.slice(0, i) + s.slice(i + 1));
}
