// What the reference matcher knows of Korean words beyond the catalog, as the core's
// crates/sidenote-core/src/korean_words.rs: the particles a noun ends in, and the common words
// no alias may be read into (the core's own list).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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
  commonWords ??= new Set(
    readFileSync(COMMON_KOREAN_WORDS_PATH, 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#')),
  );
  return commonWords;
}
