// The Hangul typo matcher in plain TypeScript: the same rules and results as
// crates/sidenote-core/src/hangul_typo.rs (its HangulTypoMatcher doc states them), written for
// clarity rather than speed: every candidate is compared with every eligible alias of its
// length. It is the core's test oracle, like the reference matcher beside it, and reads the
// core's own common-word list (korean-words.ts).
import { hangulWordMayEnd, isHangulSyllable, loadCommonKoreanWords, PARTICLES } from './korean-words.js';

/** Aliases of this many syllables or more take any one-jamo change; shorter ones a sound-alike one. */
const ANY_JAMO_FROM = 3;
const MAX_SYLLABLES = 8;
/** Vowels written alike (ㅐ/ㅔ, ㅒ/ㅖ, ㅙ/ㅞ/ㅚ) and plain/tense initials (ㄱ/ㄲ, ㄷ/ㄸ, ㅂ/ㅃ, ㅅ/ㅆ, ㅈ/ㅉ), as jamo indices. */
const VOWEL_GROUPS = [
  [1, 5],
  [3, 7],
  [10, 11, 15],
];
const TENSE_PAIRS = [
  [0, 1],
  [3, 4],
  [7, 8],
  [9, 10],
  [12, 13],
];

/** [initial, vowel, final] of a Hangul syllable. */
function jamo(c: string): [number, number, number] {
  const x = c.charCodeAt(0) - 0xac00;
  return [Math.floor(x / 588), Math.floor((x % 588) / 28), x % 28];
}

function soundAlike(a: number[], b: number[]): boolean {
  if (a[0] !== b[0]) return TENSE_PAIRS.some(([p, t]) => (a[0] === p && b[0] === t) || (a[0] === t && b[0] === p));
  if (a[1] !== b[1]) return VOWEL_GROUPS.some((g) => g.includes(a[1]) && g.includes(b[1]));
  return false;
}

/** Syllables of the longest particle the candidate ends in after at least one syllable, or 0. */
function particleTail(candidate: string[]): number {
  const text = candidate.join('');
  return Math.max(0, ...PARTICLES.filter((p) => p.length < candidate.length && text.endsWith(p)).map((p) => p.length));
}

/** (character start, character end, pattern id). */
export type HangulTypoHit = [start: number, end: number, pattern: number];

export class HangulTypoMatcher {
  private readonly byLength = new Map<number, { syllables: string[]; pattern: number }[]>();
  private readonly known = new Set<string>();
  private readonly common = loadCommonKoreanWords();

  /** `thing`: the alias names a category or an entity. */
  constructor(aliases: Iterable<readonly [alias: string, pattern: number, thing: boolean]>) {
    for (const [alias, pattern, thing] of aliases) {
      const syllables = Array.from(alias);
      if (syllables.length === 0 || !syllables.every(isHangulSyllable)) continue;
      this.known.add(alias);
      if (!thing || syllables.length < 2 || syllables.length > MAX_SYLLABLES) continue;
      const list = this.byLength.get(syllables.length) ?? [];
      list.push({ syllables, pattern });
      this.byLength.set(syllables.length, list);
    }
  }

  /**
   * Hits in the first `window` characters; `covered` holds the exact hits' character spans,
   * `aliasStartsAt(i)` whether some alias occurs from character `i` on.
   */
  find(chars: string[], window: number, covered: readonly (readonly [number, number])[], aliasStartsAt: (i: number) => boolean): HangulTypoHit[] {
    const hits: HangulTypoHit[] = [];
    const lengths = [...this.byLength.keys()].sort((a, b) => b - a);
    for (let at = 0; at < window; at++) {
      if (!isHangulSyllable(chars[at]) || isHangulSyllable(chars[at - 1])) continue;
      let run = 0;
      while (at + run < window && isHangulSyllable(chars[at + run])) run++;
      for (const n of lengths) {
        if (n > run) continue;
        const end = at + n;
        // The window is cut at a space, so what follows inside it is what follows in the turn.
        const endsWord = hangulWordMayEnd(chars, end, aliasStartsAt);
        if (!endsWord || covered.some(([s, e]) => at < e && s < end)) continue;
        const candidate = chars.slice(at, end);
        const text = candidate.join('');
        if (this.known.has(text) || this.common.has(text)) continue;
        const tail = particleTail(candidate);
        const found = new Set<number>();
        for (const alias of this.byLength.get(n)!) {
          const gaps = candidate.flatMap((c, i) => (c === alias.syllables[i] ? [] : [i]));
          if (gaps.length !== 1) continue;
          const gap = gaps[0];
          const a = jamo(candidate[gap]);
          const b = jamo(alias.syllables[gap]);
          const changed = a.filter((x, i) => x !== b[i]).length;
          if (changed !== 1 || (n < ANY_JAMO_FROM && !soundAlike(a, b))) continue;
          if (tail > 0 && !(gap < n - tail && n - tail >= 2)) continue;
          found.add(alias.pattern);
        }
        if (found.size > 0) {
          for (const p of [...found].sort((x, y) => x - y)) hits.push([at, end, p]);
          break;
        }
      }
    }
    return hits;
  }
}
