//! Finds every taxonomy alias in a message in one pass of an Aho-Corasick automaton built over
//! the normalised aliases of categories, entities, sensitive topics and intent cues.
//!
//! Boundaries: a hit counts only when it does not start or end in the middle of a word of its
//! own script. Characters fall in three classes: Hangul, other letters/digits ("word"), and the
//! rest (spaces, punctuation, symbols). A hit may not be preceded by a character of the class of
//! its first character, nor followed by one of the class of its last character — except that
//! an alias ending in Hangul may be followed by Hangul, so Korean particles attach ("제주도에서",
//! "아이폰을") — while "cat" is not found in "category" and "iphone 16" is found in
//! "iPhone 16을". Among boundary-valid hits, overlapping ones resolve leftmost-longest, so
//! "new york times" wins over "new york".
use crate::normalize::normalize;
use crate::IndexError;
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use std::collections::HashMap;

/// What an alias stands for. One normalised alias may stand for several things.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TextHit {
    Category(u32),
    Entity(u32),
    Sensitive(u32),
    PurchaseCue,
    CompareCue,
}

pub struct TextMatcher {
    automaton: Option<AhoCorasick>,
    /// Per pattern: everything it stands for, and the classes of its first and last characters.
    targets: Vec<Vec<TextHit>>,
    edges: Vec<(CharClass, CharClass)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CharClass {
    Hangul,
    Word,
    Other,
}

fn class_of(c: char) -> CharClass {
    if is_hangul(c) {
        CharClass::Hangul
    } else if c.is_alphanumeric() {
        CharClass::Word
    } else {
        CharClass::Other
    }
}

fn is_hangul(c: char) -> bool {
    matches!(c as u32, 0xAC00..=0xD7A3 | 0x1100..=0x11FF | 0x3130..=0x318F | 0xA960..=0xA97F | 0xD7B0..=0xD7FF)
}

/// Total alias bytes up to which the matcher is a full DFA. A DFA walks a message at about a
/// byte per nanosecond, two to three times the contiguous NFA, but its table grows with states
/// times byte classes: at this size it stays in the tens of megabytes. Larger taxonomies use the
/// contiguous NFA, which stays near the size of the aliases themselves.
const DFA_MAX_PATTERN_BYTES: usize = 1 << 20;

fn automaton_kind(patterns: &[String]) -> AhoCorasickKind {
    let bytes: usize = patterns.iter().map(String::len).sum();
    if bytes <= DFA_MAX_PATTERN_BYTES {
        AhoCorasickKind::DFA
    } else {
        AhoCorasickKind::ContiguousNFA
    }
}

impl TextMatcher {
    /// Builds the automaton. `aliases` yields (raw alias, what it stands for); aliases that
    /// normalise to the same text share one pattern.
    pub fn build<'a>(aliases: impl Iterator<Item = (&'a str, TextHit)>) -> Result<Self, IndexError> {
        let mut by_text: HashMap<String, usize> = HashMap::new();
        let mut patterns: Vec<String> = Vec::new();
        let mut targets: Vec<Vec<TextHit>> = Vec::new();
        for (raw, hit) in aliases {
            let text = normalize(raw);
            if text.is_empty() {
                continue;
            }
            let id = *by_text.entry(text.clone()).or_insert_with(|| {
                patterns.push(text);
                targets.push(Vec::new());
                patterns.len() - 1
            });
            if !targets[id].contains(&hit) {
                targets[id].push(hit);
            }
        }
        let edges = patterns
            .iter()
            .map(|p| {
                let first = p.chars().next().map_or(CharClass::Other, class_of);
                let last = p.chars().next_back().map_or(CharClass::Other, class_of);
                (first, last)
            })
            .collect();
        let automaton = if patterns.is_empty() {
            None
        } else {
            Some(
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::Standard)
                    .kind(Some(automaton_kind(&patterns)))
                    .build(&patterns)
                    .map_err(|e| IndexError::Matcher(e.to_string()))?,
            )
        };
        Ok(TextMatcher { automaton, targets, edges })
    }

    /// Which automaton was built (for stats and benchmarks).
    pub fn automaton_kind(&self) -> Option<AhoCorasickKind> {
        self.automaton.as_ref().map(|a| a.kind())
    }

    pub fn pattern_count(&self) -> usize {
        self.targets.len()
    }

    /// Every hit in an already normalised message, in order of position.
    pub fn find(&self, normalized: &str) -> Vec<TextHit> {
        let Some(ac) = &self.automaton else { return Vec::new() };
        let bytes = normalized.as_bytes();
        let mut valid: Vec<(usize, usize, usize)> = Vec::new();
        for m in ac.find_overlapping_iter(normalized) {
            let (start, end, pid) = (m.start(), m.end(), m.pattern().as_usize());
            let (first, last) = self.edges[pid];
            let before = normalized[..start].chars().next_back().map_or(CharClass::Other, class_of);
            let after = normalized[end..].chars().next().map_or(CharClass::Other, class_of);
            let left_ok = before == CharClass::Other || before != first;
            let right_ok = after == CharClass::Other || after != last || last == CharClass::Hangul;
            if left_ok && right_ok {
                valid.push((start, end, pid));
            }
        }
        debug_assert!(bytes.len() == normalized.len());
        // Leftmost, then longest; overlapping hits after the chosen one are dropped.
        valid.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        let mut hits = Vec::new();
        let mut taken_until = 0usize;
        for (start, end, pid) in valid {
            if start < taken_until {
                continue;
            }
            taken_until = end;
            hits.extend_from_slice(&self.targets[pid]);
        }
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(aliases: &[(&'static str, TextHit)]) -> TextMatcher {
        TextMatcher::build(aliases.iter().map(|(a, h)| (*a, *h))).expect("builds")
    }

    fn find(m: &TextMatcher, text: &str) -> Vec<TextHit> {
        m.find(&normalize(text))
    }

    #[test]
    fn english_aliases_need_word_boundaries() {
        let m = matcher(&[("cat", TextHit::Category(0)), ("iphone 16", TextHit::Entity(1))]);
        assert!(find(&m, "category pages").is_empty());
        assert!(find(&m, "bobcat").is_empty());
        assert_eq!(find(&m, "my cat, please"), vec![TextHit::Category(0)]);
        assert_eq!(find(&m, "Buy an iPhone 16!"), vec![TextHit::Entity(1)]);
        assert!(find(&m, "iphone 160").is_empty());
    }

    #[test]
    fn korean_aliases_take_particles() {
        let m = matcher(&[("제주도", TextHit::Entity(0)), ("아이폰", TextHit::Entity(1)), ("호텔", TextHit::Category(2))]);
        assert_eq!(find(&m, "제주도에서 묵을 호텔을 찾아"), vec![TextHit::Entity(0), TextHit::Category(2)]);
        assert_eq!(find(&m, "아이폰을 사고 싶어"), vec![TextHit::Entity(1)]);
        // Not inside another Hangul word.
        assert!(find(&m, "신제주도").is_empty());
    }

    #[test]
    fn latin_alias_followed_by_korean_particle() {
        let m = matcher(&[("iphone 16", TextHit::Entity(1))]);
        assert_eq!(find(&m, "iPhone 16을 최저가로"), vec![TextHit::Entity(1)]);
        assert_eq!(find(&m, "최신iphone 16"), vec![TextHit::Entity(1)]);
    }

    #[test]
    fn leftmost_longest_among_valid_hits() {
        let m = matcher(&[("new york", TextHit::Entity(0)), ("new york times", TextHit::Entity(1)), ("iphone", TextHit::Entity(2)), ("iphone 16", TextHit::Entity(3))]);
        assert_eq!(find(&m, "read the new york times"), vec![TextHit::Entity(1)]);
        // The longer alias fails its boundary, the shorter one still counts.
        assert_eq!(find(&m, "iphone 16s"), vec![TextHit::Entity(2)]);
    }

    #[test]
    fn shared_alias_stands_for_all_its_targets() {
        let m = matcher(&[("apple", TextHit::Entity(0)), ("Apple", TextHit::Entity(1)), ("ａｐｐｌｅ", TextHit::Category(2))]);
        assert_eq!(m.pattern_count(), 1);
        assert_eq!(find(&m, "apple deals"), vec![TextHit::Entity(0), TextHit::Entity(1), TextHit::Category(2)]);
    }
}
