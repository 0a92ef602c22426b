//! Text normalisation, applied identically to aliases and messages: Unicode NFKC (so
//! full-width "ＩＰＨＯＮＥ" reads "IPHONE"), lower-casing (Unicode, not ASCII-only), and every
//! run of Unicode White_Space collapsed to one space, trimmed.
//!
//! Speed: chat messages are mostly ASCII and precomposed Hangul, which are already NFKC and (for
//! Hangul) caseless, yet the library's per-character quick check and `to_lowercase` cost
//! ~40 ns per Hangul syllable. Those characters are copied straight through; only the runs of
//! other characters (with the character before them, which a combining mark or trailing jamo
//! can attach to) go through the full NFKC path. The result equals normalising the whole text
//! at once: no character composes backwards with an ASCII character or a Hangul syllable, so
//! NFKC never reaches across the start of such a character.
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// ASCII and precomposed Hangul syllables: NFKC-stable starters that never compose with what
/// comes before them.
fn is_fast(c: char) -> bool {
    c.is_ascii() || ('\u{AC00}'..='\u{D7A3}').contains(&c)
}

pub fn normalize(text: &str) -> String {
    let mut out = Collapser { out: String::with_capacity(text.len()), pending_space: false };
    let mut rest = text;
    while !rest.is_empty() {
        // The fast prefix, minus its last character when slow characters follow it.
        let fast_len = rest.find(|c: char| !is_fast(c)).unwrap_or(rest.len());
        let fast_end = if fast_len == rest.len() {
            fast_len
        } else {
            rest[..fast_len].char_indices().next_back().map_or(0, |(i, _)| i)
        };
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

/// The general path: NFKC, lower-case, and NFKC again when lower-casing produced a character
/// that is not NFKC-stable (rare).
fn normalize_slow(segment: &str, out: &mut Collapser) {
    let mut lowered = String::with_capacity(segment.len());
    for c in segment.nfkc() {
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

/// Appends already lower-cased characters, folding runs of white space to one space and
/// dropping leading and trailing space.
struct Collapser {
    out: String,
    pending_space: bool,
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
                    self.pending_space = !self.out.is_empty();
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
    fn flush_space(&mut self) {
        if self.pending_space {
            self.out.push(' ');
            self.pending_space = false;
        }
    }

    #[inline]
    fn push_lowered(&mut self, c: char) {
        if c.is_whitespace() {
            self.pending_space = !self.out.is_empty();
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
        assert_eq!(normalize("  ＩＰＨＯＮＥ\t16\n\n Pro "), "iphone 16 pro");
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
