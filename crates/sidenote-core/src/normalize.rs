//! Text normalisation, applied identically to aliases and messages: Unicode NFKC (so
//! full-width "ＩＰＨＯＮＥ" reads "IPHONE"), lower-casing (Unicode, not ASCII-only), and every
//! run of Unicode White_Space collapsed to one space, trimmed.
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    let mut push = |c: char, out: &mut String| {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            for l in c.to_lowercase() {
                out.push(l);
            }
        }
    };
    // Most messages (ASCII, precomposed Hangul) are already NFKC: skip the rewrite for them.
    if text.is_ascii() || is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        for c in text.chars() {
            push(c, &mut out);
        }
    } else {
        for c in text.nfkc() {
            push(c, &mut out);
        }
    }
    // Lower-casing can map a character to one that is not NFKC-stable (rare); normalise again.
    if !out.is_ascii() && is_nfkc_quick(out.chars()) != IsNormalized::Yes {
        let again: String = out.nfkc().collect();
        return again;
    }
    out
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
    }
}
