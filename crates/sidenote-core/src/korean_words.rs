//! What the matcher knows of Korean words beyond the catalog: the particles a noun ends in, and
//! the common words no alias may be read into ([`crate::hangul_typo`] reads no typo into them,
//! [`crate::text_match`] no one-syllable alias with a particle).
use crate::fuzzy::KeyHasher;
use std::collections::HashSet;
use std::hash::BuildHasherDefault;
use std::sync::OnceLock;

pub(crate) type WordSet<T> = HashSet<T, BuildHasherDefault<KeyHasher>>;

/// Particles a noun ends in: "한국에" is 한국 + 에, "맥에서" 맥 + 에서, "폰이랑" 폰 + 이랑.
pub(crate) const PARTICLES: [&str; 30] = [
    "은", "는", "이", "가", "을", "를", "에", "의", "도", "만", "와", "과", "로", "랑", "나", "야", "요", "엔", "께", "에서", "에게", "에는", "에도", "에선",
    "으로", "이랑", "하고", "한테", "까지", "부터",
];

/// One word a line, two syllables or more (scripts/make-common-korean-words.py).
const COMMON_WORDS_TEXT: &str = include_str!("model/common-korean-words.txt");

/// A precomposed Hangul syllable (가–힣).
pub(crate) fn is_syllable(c: char) -> bool {
    ('\u{AC00}'..='\u{D7A3}').contains(&c)
}

pub(crate) fn is_particle(text: &str) -> bool {
    PARTICLES.contains(&text)
}

/// Whether a word of two syllables or more is common Korean (`model/common-korean-words.txt`).
pub(crate) fn is_common_word(word: &str) -> bool {
    common_words().contains(word)
}

pub(crate) fn common_words() -> &'static WordSet<&'static str> {
    static WORDS: OnceLock<WordSet<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| COMMON_WORDS_TEXT.lines().map(str::trim).filter(|w| !w.is_empty() && !w.starts_with('#')).collect())
}
