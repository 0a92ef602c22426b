//! Text normalisation, applied identically to aliases and messages: Unicode
//! Default_Ignorable_Code_Point characters removed (zero width space and joiners, soft hyphen,
//! bidi controls, variation selectors, tag characters, Hangul fillers, …: invisible, so inside a
//! word they must not split it), then Unicode NFKC (so full-width "ＩＰＨＯＮＥ" reads "IPHONE"),
//! lower-casing (Unicode, not ASCII-only), and every run of Unicode White_Space collapsed to one
//! space (to one line feed when the run breaks a line: a line ends a clause), trimmed.
//!
//! Speed: chat messages are mostly ASCII and precomposed Hangul, which are already NFKC and (for
//! Hangul) caseless, yet the library's per-character quick check and `to_lowercase` cost
//! ~40 ns per Hangul syllable. Those characters are copied straight through; only the runs of
//! other characters (with the character before them, which a combining mark or trailing jamo
//! can attach to) go through the full NFKC path. The result equals normalising the whole text
//! at once: no character composes backwards with an ASCII character or a Hangul syllable, so
//! NFKC never reaches across the start of such a character. Default-ignorables are neither
//! ASCII nor Hangul syllables, so they only ever sit in those runs, and each run drops them
//! before its NFKC: what composes is what would compose in the text with them removed first
//! (removing them after NFKC would not do: "ᄀ" + U+1160 + "ᅡ" does not compose, "가" does).
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// Whether `c` is a Unicode Default_Ignorable_Code_Point: invisible, removed by [`normalize`].
/// The ranges are DerivedCoreProperties.txt of Unicode 16.0.0 (the same 17 ranges, 4,174 code
/// points, since Unicode 14 and still in 17.0); tests check them code point by code point
/// against regex-syntax's Unicode tables and, through the service, Node's ICU. A `match` rather
/// than a binary search over a table: it adds a few percent to text off the fast path, the
/// search 10–18% (mispredicted branches). ZWNJ and ZWJ shape Persian, Indic and emoji sequences on screen, but do not change
/// which word is written; this text is only ever matched, never shown.
pub fn is_default_ignorable(c: char) -> bool {
    matches!(
        c as u32,
        0x00AD // soft hyphen
            | 0x034F // combining grapheme joiner
            | 0x061C // Arabic letter mark
            | 0x115F..=0x1160 // Hangul choseong and jungseong fillers
            | 0x17B4..=0x17B5 // Khmer inherent vowels
            | 0x180B..=0x180F // Mongolian free variation selectors, vowel separator
            | 0x200B..=0x200F // zero width space, ZWNJ, ZWJ, LRM, RLM
            | 0x202A..=0x202E // bidi embeddings and overrides
            | 0x2060..=0x206F // word joiner, invisible operators, bidi isolates, deprecated format
            | 0x3164 // Hangul filler
            | 0xFE00..=0xFE0F // variation selectors
            | 0xFEFF // zero width no-break space (BOM)
            | 0xFFA0 // halfwidth Hangul filler
            | 0xFFF0..=0xFFF8 // unassigned, reserved as ignorable
            | 0x1BCA0..=0x1BCA3 // shorthand format controls
            | 0x1D173..=0x1D17A // musical symbol format controls
            | 0xE0000..=0xE0FFF // tags, variation selectors supplement, reserved
    )
}

/// ASCII and precomposed Hangul syllables: NFKC-stable starters that never compose with what
/// comes before them.
fn is_fast(c: char) -> bool {
    c.is_ascii() || ('\u{AC00}'..='\u{D7A3}').contains(&c)
}

pub fn normalize(text: &str) -> String {
    let mut out = Collapser { out: String::with_capacity(text.len()), pending: Pending::Nothing };
    let mut rest = text;
    while !rest.is_empty() {
        // The fast prefix, minus its last character when slow characters follow it.
        let fast_len = rest.find(|c: char| !is_fast(c)).unwrap_or(rest.len());
        let fast_end = if fast_len == rest.len() { fast_len } else { rest[..fast_len].char_indices().next_back().map_or(0, |(i, _)| i) };
        out.push_fast(&rest[..fast_end]);
        rest = &rest[fast_end..];
        if rest.is_empty() {
            break;
        }
        // The slow run: up to the next fast character that starts a new fast stretch.
        let mut chars = rest.char_indices();
        let first_len = chars.next().map_or(0, |(_, c)| c.len_utf8());
        let slow_end = rest[first_len..].find(is_fast).map_or(rest.len(), |i| i + first_len);
        normalize_slow(&rest[..slow_end], &mut out);
        rest = &rest[slow_end..];
    }
    out.out
}

/// The general path: default-ignorables removed, NFKC, lower-case, and NFKC again when
/// lower-casing produced a character that is not NFKC-stable (rare). No character's NFKC or
/// lower case contains a default-ignorable (a test checks every code point), so removing them
/// first is enough.
fn normalize_slow(segment: &str, out: &mut Collapser) {
    let mut lowered = String::with_capacity(segment.len());
    // Filtered before NFKC sees them: composition runs as over the text without them.
    for c in segment.chars().filter(|&c| !is_default_ignorable(c)).nfkc() {
        lowered.extend(c.to_lowercase());
    }
    if is_nfkc_quick(lowered.chars()) == IsNormalized::Yes {
        for c in lowered.chars() {
            out.push_lowered(c);
        }
    } else {
        for c in lowered.nfkc() {
            out.push_lowered(c);
        }
    }
}

/// Appends already lower-cased characters, folding runs of white space to one space (one line
/// feed if the run holds a line break) and dropping leading and trailing space.
struct Collapser {
    out: String,
    pending: Pending,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Pending {
    Nothing,
    Space,
    LineBreak,
}

/// Line feed, vertical tab, form feed, carriage return, next line, line and paragraph separators.
fn is_line_break(c: char) -> bool {
    matches!(c, '\n'..='\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

impl Collapser {
    /// ASCII and Hangul syllables only: ASCII is folded byte by byte, and each run of Hangul
    /// (caseless, never white space) is copied whole.
    fn push_fast(&mut self, fast: &str) {
        let bytes = fast.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b < 0x80 {
                // char::is_whitespace on ASCII: tab, line feed, vertical tab, form feed, CR, space.
                if matches!(b, b'\t'..=b'\r' | b' ') {
                    self.note_space(char::from(b));
                } else {
                    self.flush_space();
                    self.out.push(char::from(b.to_ascii_lowercase()));
                }
                i += 1;
            } else {
                let end = bytes[i..].iter().position(|&b| b < 0x80).map_or(bytes.len(), |n| i + n);
                self.flush_space();
                self.out.push_str(&fast[i..end]);
                i = end;
            }
        }
    }

    #[inline]
    fn note_space(&mut self, c: char) {
        if !self.out.is_empty() {
            let kind = if is_line_break(c) { Pending::LineBreak } else { Pending::Space };
            self.pending = self.pending.max(kind);
        }
    }

    #[inline]
    fn flush_space(&mut self) {
        match self.pending {
            Pending::Nothing => return,
            Pending::Space => self.out.push(' '),
            Pending::LineBreak => self.out.push('\n'),
        }
        self.pending = Pending::Nothing;
    }

    #[inline]
    fn push_lowered(&mut self, c: char) {
        if c.is_whitespace() {
            self.note_space(c);
        } else {
            self.flush_space();
            self.out.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_width_case_and_space() {
        assert_eq!(normalize("  ＩＰＨＯＮＥ\t16  Pro "), "iphone 16 pro");
        assert_eq!(normalize("  ＩＰＨＯＮＥ\t16\n\n Pro \n"), "iphone 16\npro");
        assert_eq!(normalize("a \u{2028} b\r\nc"), "a\nb\nc");
        assert_eq!(normalize("제주도\u{3000}호텔"), "제주도 호텔");
        assert_eq!(normalize("ÉCOLE"), "école");
        assert_eq!(normalize(""), "");
    }

    #[test]
    fn decomposed_hangul_is_composed() {
        // 제 written as conjoining jamo composes to the precomposed syllable.
        assert_eq!(normalize("\u{110C}\u{1166}주"), "제주");
        // A trailing jamo attaches to the precomposed syllable before it: 가 + ᆨ = 각.
        assert_eq!(normalize("가\u{11A8}방"), "각방");
        // A combining accent attaches to the ASCII letter before it.
        assert_eq!(normalize("Cafe\u{0301} NOW"), "café now");
    }
}

#[cfg(test)]
mod ignorable_tests {
    use super::*;

    /// Each class of invisible character, every code point of it.
    fn classes() -> Vec<(&'static str, Vec<char>)> {
        let range = |lo: u32, hi: u32| (lo..=hi).filter_map(char::from_u32).collect::<Vec<char>>();
        vec![
            ("zero width space", vec!['\u{200B}']),
            ("ZWNJ and ZWJ", vec!['\u{200C}', '\u{200D}']),
            ("word joiner", vec!['\u{2060}']),
            ("zero width no-break space", vec!['\u{FEFF}']),
            ("soft hyphen", vec!['\u{00AD}']),
            ("combining grapheme joiner", vec!['\u{034F}']),
            ("Mongolian vowel separator", vec!['\u{180E}']),
            ("invisible operators", range(0x2061, 0x2064)),
            ("deprecated format characters", range(0x206A, 0x206F)),
            ("Hangul fillers", vec!['\u{115F}', '\u{1160}', '\u{3164}', '\u{FFA0}']),
            ("variation selectors", [range(0xFE00, 0xFE0F), range(0x180B, 0x180D), vec!['\u{180F}']].concat()),
            ("variation selectors supplement", range(0xE0100, 0xE01EF)),
            ("tag characters", range(0xE0000, 0xE007F)),
            ("bidi controls", [vec!['\u{061C}', '\u{200E}', '\u{200F}'], range(0x202A, 0x202E), range(0x2066, 0x2069)].concat()),
            (
                "other default-ignorables",
                [
                    range(0x17B4, 0x17B5),
                    vec!['\u{2065}'],
                    range(0xFFF0, 0xFFF8),
                    range(0x1BCA0, 0x1BCA3),
                    range(0x1D173, 0x1D17A),
                    range(0xE0080, 0xE00FF),
                    range(0xE01F0, 0xE0FFF),
                ]
                .concat(),
            ),
        ]
    }

    /// `word` with `c` between every two of its characters.
    fn split(word: &str, c: char) -> String {
        let mut out = String::new();
        for (i, w) in word.chars().enumerate() {
            if i > 0 {
                out.push(c);
            }
            out.push(w);
        }
        out
    }

    #[test]
    fn every_class_is_removed_inside_korean_and_english_words() {
        for (name, chars) in classes() {
            for c in chars {
                assert!(is_default_ignorable(c), "{name}: U+{:04X}", c as u32);
                for (text, want) in [
                    ("자살", "자살"),
                    ("요즘 자살 생각", "요즘 자살 생각"),
                    ("제주도에서", "제주도에서"),
                    ("suicide", "suicide"),
                    ("Cheapest Hotel", "cheapest hotel"),
                    ("iPhone 16을", "iphone 16을"),
                ] {
                    assert_eq!(normalize(&split(text, c)), want, "{name}: U+{:04X} in {text}", c as u32);
                }
                // Removed, not turned into a space, and alone it leaves nothing.
                assert_eq!(normalize(&format!("a{c} {c}b")), "a b", "{name}: U+{:04X}", c as u32);
                assert_eq!(normalize(&format!("{c}{c}")), "", "{name}: U+{:04X}", c as u32);
            }
        }
    }

    #[test]
    fn removal_comes_before_composition() {
        // Jamo split by a filler compose once it is gone: ᄌ + ᅡ → 자.
        assert_eq!(normalize("\u{110C}\u{1160}\u{1161}\u{1109}\u{200B}\u{1161}\u{11AF}"), "자살");
        // A trailing jamo behind a zero width space still joins its syllable: 가 + ᆨ → 각.
        assert_eq!(normalize("가\u{200B}\u{11A8}"), "각");
        // A combining grapheme joiner no longer keeps an accent off its letter.
        assert_eq!(normalize("Cafe\u{034F}\u{0301}"), "café");
        // Full-width letters around a soft hyphen.
        assert_eq!(normalize("ＳＵＩ\u{00AD}ＣＩＤＥ"), "suicide");
    }

    #[test]
    fn no_character_normalises_into_a_default_ignorable() {
        // Removing them once, before NFKC and lower-casing, is enough only if neither of those
        // ever produces one (U+3164 and U+FFA0 decompose to U+1160, but are removed first).
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let out = normalize(c.encode_utf8(&mut [0; 4]));
            assert!(!out.chars().any(is_default_ignorable), "U+{:04X} gives {out:?}", c as u32);
        }
    }

    #[test]
    fn edges_of_the_ranges() {
        let count = (0..=0x10FFFFu32).filter_map(char::from_u32).filter(|&c| is_default_ignorable(c)).count();
        assert_eq!(count, 4174);
        assert!(!is_default_ignorable('\u{AC}') && is_default_ignorable('\u{AD}') && !is_default_ignorable('\u{AE}'));
        assert!(!is_default_ignorable('\u{DFFFF}') && is_default_ignorable('\u{E0FFF}') && !is_default_ignorable('\u{E1000}'));
    }
}
