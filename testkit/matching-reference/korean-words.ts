// What the reference matcher knows of Korean words beyond the catalog, as the core's
// crates/sidenote-core/src/korean_words.rs: the particles a noun ends in, the common words no
// alias may be read into (the core's own list), and where a Korean word may end.
import { fileURLToPath } from 'node:url';
import { readWordList } from './fuzzy-matcher.js';

export const COMMON_KOREAN_WORDS_PATH = fileURLToPath(new URL('../../crates/sidenote-core/src/model/common-korean-words.txt', import.meta.url));

/** Particles a noun ends in: 한국 + 에, 맥 + 에서, 폰 + 이랑. */
export const PARTICLES: readonly string[] = [
  ...'은는이가을를에의도만와과로랑나야요엔께',
  '에서',
  '에게',
  '에는',
  '에도',
  '에선',
  '으로',
  '이랑',
  '하고',
  '한테',
  '까지',
  '부터',
];

let commonWords: Set<string> | undefined;

export function loadCommonKoreanWords(): Set<string> {
  commonWords ??= readWordList(COMMON_KOREAN_WORDS_PATH);
  return commonWords;
}

/** First syllables after which an alias ending in Hangul still ends its word (text_match.rs
 *  `HANGUL_CONTINUATIONS`): particles, the copula, 하다/되다 endings, a few attaching nouns. */
export const HANGUL_CONTINUATIONS = '은는이가을를에의도만와과로으랑나야요께한보처까부마밖뿐씩쯤엔인입일였예하해할했함합되돼될된됨들좀정같값비표앱툴';

/** A precomposed Hangul syllable (가–힣). */
export function isHangulSyllable(c: string | undefined): boolean {
  return c !== undefined && c >= '\uac00' && c <= '\ud7a3';
}

/** Whether a Hangul word may end before character `end` (text_match.rs `hangul_word_may_end`):
 *  no syllable follows, or one that starts a particle or ending, or another alias starts there. */
export function hangulWordMayEnd(chars: string[], end: number, aliasStartsAt: (i: number) => boolean): boolean {
  const next = chars[end];
  return !isHangulSyllable(next) || HANGUL_CONTINUATIONS.includes(next) || aliasStartsAt(end);
}
