// What an alias must have to be worth matching. The matcher finds aliases anywhere in a message
// at word boundaries (docs/matching.md), and a Hangul alias may be followed by more Hangul so
// particles attach. An alias of one letter, one syllable or only punctuation therefore matches
// almost every message: `a` any English sentence with the article, `.` any sentence at all, `차`
// every word that starts with it (차이 "difference", 차례, 차단 …), and a short number every date,
// price or time (`16일`, `16시`). As a category, entity or intent cue that serves offers on
// nearly everything; as a sensitive topic it blocks nearly everything. So, counted on the text
// the matcher sees (Unicode NFKC, so full-width and compatibility forms count as what they are):
//
// - at least one letter or digit (Unicode \p{L} or \p{N}); punctuation, symbols, emoji and
//   invisible characters alone are refused;
// - at least 2 letters or digits in all, in every script: a single Latin letter is never an
//   alias, and neither is a single Hangul syllable (the catalog guide already asks for two; the
//   matcher's particle rule makes one syllable a prefix match). `lg`, `vs`, `5g`, `제주` pass;
//   `c++` and `c#` (one letter) do not: write `cpp`, `c sharp`;
// - an alias of digits only needs at least 3 of them (`365`, `747`); `5` or `16` is in too many
//   messages to mean anything.
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const LETTER = /\p{L}/u;

export const MIN_ALIAS_LETTERS_OR_DIGITS = 2;
export const MIN_NUMBER_ALIAS_DIGITS = 3;

// One exception: a category's or an entity's own alias may be one Hangul syllable (폰, 괌), because
// the matcher reads such an alias as a word of its own: nothing Hangul before it, and after it
// nothing, a whole particle (폰이랑, 괌에서) or another alias; never inside 헤드폰, 폰트 or 차이
// (crates/sidenote-core/src/text_match.rs). Cues, sensitive stems, weak aliases and negative
// contexts are continued by design, so for them one syllable stays refused.
const ONE_HANGUL_SYLLABLE = /^[\uac00-\ud7a3]$/;

/** Why an alias would match too much, or null when it is specific enough. Never quotes it.
 *  `wordOfItsOwn`: a category's or entity's alias, which may be one Hangul syllable. */
export function aliasProblem(alias: string, wordOfItsOwn = false): string | null {
  const text = alias.normalize('NFKC').trim();
  if (wordOfItsOwn && ONE_HANGUL_SYLLABLE.test(text)) return null;
  if (text.length === 0) return 'must not be empty after trimming spaces';
  const significant = [...text].filter((ch) => LETTER_OR_DIGIT.test(ch));
  if (significant.length === 0) return 'must contain a letter or digit (punctuation or symbols alone match almost any message)';
  if (!significant.some((ch) => LETTER.test(ch))) {
    return significant.length < MIN_NUMBER_ALIAS_DIGITS
      ? `a number alias needs at least ${MIN_NUMBER_ALIAS_DIGITS} digits (a short number is in almost every date, price or time)`
      : null;
  }
  if (significant.length < MIN_ALIAS_LETTERS_OR_DIGITS) {
    return `needs at least ${MIN_ALIAS_LETTERS_OR_DIGITS} letters or digits (one letter or Hangul syllable matches inside too many words; a category's or entity's own alias may be one Hangul syllable)`;
  }
  return null;
}
