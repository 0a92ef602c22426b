//! Finds every taxonomy alias in a message in one pass of an Aho-Corasick automaton built over
//! the normalised aliases of categories, entities, sensitive topics and the wording cues.
//!
//! Boundaries: a hit counts only when it does not start or end in the middle of a word of its
//! own script. Characters fall in three classes: Hangul syllables, other letters/digits and `_`
//! ("word"), and the rest (spaces, punctuation, symbols, and a Hangul consonant or vowel standing
//! alone: "항공권ㄱㄱ", "노트북ㅋㅋ"). A hit may not be preceded by a character of the
//! class of its first character, nor followed by one of the class of its last character, so
//! "cat" is not found in "category" nor "flight" in "flight_id". Korean writes words together,
//! so two exceptions hold for Hangul:
//! - a compound head: an alias of two or more syllables may follow two or more Hangul
//!   syllables (블루투스**스피커**, 사무용**노트북**, 강릉**호텔**), not one: a single syllable
//!   before is more often the start of another word (전**기차** is an electric car, 해**파리** a
//!   jellyfish, 초**파리** a fruit fly);
//! - a particle or ending: a category or entity alias ending in Hangul may be followed by Hangul
//!   when what follows starts with a particle, a copula or a 하다-ending (제주도**에서**,
//!   아이폰**을**, 예약**하려고**) or with another alias (노트북**추천**), and not when the word
//!   simply continues (애플**망고**, 파리**채**). An alias of one syllable (폰, 괌) takes a whole
//!   particle only (폰**이랑**, 괌**에서**, not 폰**트**), and not one that makes a common word
//!   with it (차 + 이 is 차이). Cues and sensitive topics are stems ("사고 싶",
//!   "우울해", "필요 없") written to be continued, so any Hangul may follow them;
//! - a clause break that is an ending ("는데", "지만") may follow any Hangul: "이미 있**는데**",
//!   and so may a cue whose first word is a particle: "딸**이 예약해줬**고", "집**에서 쓸**".
//!
//! A Latin alias of several words may not start right after a number and a hyphen: "3-day
//! trip" is a trip of three days, not a "day trip".
//!
//! English takes a plural the same way: a category, entity or sensitive alias ending in a Latin
//! letter may be followed by "s" ("note-taking app**s**", "tour**s**"), or "es" after a sibilant
//! ("rail pass**es**"), and a model code of letters and digits by "s" ("xm5**s**"); a bare number
//! never ("iphone 16**s**" is another phone). Cues are not nouns and take none ("book" is not
//! "books"). Korean spacing is loose: a Hangul alias of several words is also found with any of
//! its spaces left out ("할 일 관리" in "할일 관리" and "할일관리").
//!
//! Among boundary-valid hits, overlapping ones resolve leftmost-longest, so "new york times"
//! wins over "new york" and a negative context ("파인애플") over the alias inside it ("애플").
//! Then Latin words the exact pass left unmatched are tried one typo away ([`FuzzyMatcher`]:
//! "labtop", "lap top", "iphnoe"), and Hangul words one jamo away ([`HangulTypoMatcher`]:
//! "노트븍", "겔럭시", "맥뿍").
use crate::fuzzy::{is_english_word, FuzzyMatcher};
use crate::hangul_typo::HangulTypoMatcher;
use crate::korean_words::{is_common_word, is_particle, is_syllable};
use crate::normalize::normalize;
use crate::IndexError;
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use std::collections::HashMap;

/// What an alias stands for. One normalised alias may stand for several things.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TextHit {
    Category(u32),
    Entity(u32),
    /// An alias with another common sense: counts only beside a related strong signal.
    WeakCategory(u32),
    WeakEntity(u32),
    /// A phrase in which an alias of this category / entity means something else.
    NotCategory(u32),
    NotEntity(u32),
    Sensitive(u32),
    /// A sensitive topic's context word: counts only beside other evidence (`context_aliases`).
    ContextSensitive(u32),
    /// A sensitive topic's word that says the topic when it is asked for (`asked_aliases`: an
    /// asset's name beside a purchase cue), a context word elsewhere.
    AskedSensitive(u32),
    /// A phrase in which a sensitive alias is said of a thing ("와이파이가 불안"): it counts for
    /// nothing, and hides the alias inside it.
    NotSensitive(u32),
    PurchaseCue,
    CompareCue,
    Negation,
    /// Says the thing before it is done, had or someone else's ("KTX는 예매했고", "flights are
    /// booked"), and ends its clause: a place before it describes that thing ("KTX 부산행 예매 끝냈어요").
    NegationBefore,
    /// Refuses what is right before it, and ends its clause ("비행기 말고 숙소", "부산 말고 제주"):
    /// a place before it is the very thing refused.
    Instead,
    AfterSales,
    /// Selling what the user has ("selling my", "팔려고"): voids its clause as after-sales does,
    /// and a price asked after it is the sale's ("… 얼마 받을 수 있을까?"), never a new ask.
    Selling,
    NotCommercial,
    /// The thing it is said of is what the user moves away from ("outgrown", "에서 갈아타").
    Alternative,
    ClauseBreak,
    /// What follows in its clause is what the thing is for ("for", "during").
    Purpose,
    /// What comes before in its clause is what the thing is for ("에서 쓸", "가서 쓸").
    PurposeBefore,
    /// A thing bought for another thing, not the thing itself ("case", "충전기"): said right after
    /// a thing, it names that thing's accessory ("아이폰16 케이스", "MacBook Air charger").
    Accessory,
}

impl TextHit {
    /// A category or an entity (weak or not): a thing or place named, not a cue or a topic of
    /// policy.
    fn names_a_topic(&self) -> bool {
        matches!(self, TextHit::Category(_) | TextHit::Entity(_) | TextHit::WeakCategory(_) | TextHit::WeakEntity(_))
    }
}

/// One boundary-valid hit: byte span in the normalised message and the pattern it matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub pattern: u32,
    /// Found one typo away ([`FuzzyMatcher`]), not as written.
    pub typo: bool,
}

/// First syllables after which an alias ending in Hangul still ends its word: particles
/// (은 는 이 가 을 를 에 의 도 만 와 과 로 랑 나 야 요 께 한테 보다 처럼 까지 부터 마다 밖에 뿐
/// 씩 쯤 엔), the copula (이다, 인데, 입니다, 일까, 였어, 예요, and 라도 / 라서 / 라고 after a
/// vowel: "일본어라도 좀 하고 가고 싶은데"), 하다/되다 endings (하려고, 해줘,
/// 할까, 한, 했는데, 함, 합니다, 되는, 돼, 될, 된, 됨), and a few nouns that attach (들, 좀,
/// 정도, 같은, 값, 비, 표, and 앱 and 툴: "일본어공부앱" is a language app), and what attaches to a
/// place (쪽, 행, 근처, 역, 편, 공항, 시내, 출발 / 출장, and the districts 구 군 동 읍: "가평쪽에",
/// "도쿄행", "홍대근처", "서울역", "해운대구", "가평군").
pub const HANGUL_CONTINUATIONS: &str =
    "은는이가을를에의도만와과로으랑라나야요께한보처까부마밖뿐씩쯤엔인입일였예하해할했함합되돼될된됨들좀정같값비표앱툴쪽행근역편공시출구군동읍";
pub struct TextMatcher {
    automaton: Option<AhoCorasick>,
    /// The normalised text of each pattern.
    patterns: Vec<Box<str>>,
    /// Per pattern: everything it stands for, and the classes of its first and last characters.
    targets: Vec<Vec<TextHit>>,
    /// Per pattern: classes of its first and last characters, its Hangul syllable count, and
    /// whether it is a stem (not only a category or entity name) that any Hangul may continue.
    edges: Vec<(CharClass, CharClass, usize, bool)>,
    /// Per pattern: found after any Hangul. A clause break that is an ending ("있**는데**",
    /// "좋**지만**"), and a cue whose first word is a particle, written to follow a noun of any
    /// length ("딸**이 예약해줬**고", "폰**에서 쓸**", "맥**에서 갈아타**려고").
    suffix: Vec<bool>,
    /// Per pattern: the English plural it may take.
    plural: Vec<Plural>,
    fuzzy: FuzzyMatcher,
    hangul_typos: HangulTypoMatcher,
}

/// The English plural endings a pattern may be followed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plural {
    None,
    /// "s": a word ending in a letter, or a model code of letters and digits ("xm5s").
    S,
    /// "s" or "es": a word ending in s, x, z, ch or sh ("passes", "boxes").
    SOrEs,
}

/// The plural an alias may take: only a noun (a category, entity or sensitive alias, not a cue)
/// whose last word ends in a Latin letter, or holds letters and ends in a digit.
fn plural_of(text: &str, hits: &[TextHit]) -> Plural {
    let noun = hits.iter().all(|h| {
        matches!(
            h,
            TextHit::Category(_)
                | TextHit::Entity(_)
                | TextHit::WeakCategory(_)
                | TextHit::WeakEntity(_)
                | TextHit::NotCategory(_)
                | TextHit::NotEntity(_)
                | TextHit::Sensitive(_)
                | TextHit::NotSensitive(_)
        )
    });
    let last = text.rsplit(' ').next().unwrap_or("");
    match last.chars().next_back() {
        _ if !noun => Plural::None,
        Some(c) if c.is_ascii_lowercase() => {
            if ["s", "x", "z", "ch", "sh"].iter().any(|e| last.ends_with(e)) {
                Plural::SOrEs
            } else {
                Plural::S
            }
        }
        Some(c) if c.is_ascii_digit() && last.chars().any(|c| c.is_ascii_lowercase()) => Plural::S,
        _ => Plural::None,
    }
}

/// Every way of writing a Hangul alias of several words with some of its spaces left out: all
/// of them for up to three spaces, else only all spaces or none.
fn spacing_variants(text: &str) -> Vec<String> {
    if !text.contains(' ') || !text.chars().all(|c| c == ' ' || is_syllable(c)) {
        return Vec::new();
    }
    let words: Vec<&str> = text.split(' ').collect();
    let gaps = words.len() - 1;
    if gaps > 3 {
        return vec![words.concat()];
    }
    (1u32..(1 << gaps))
        .map(|joined| {
            let mut out = String::from(words[0]);
            for (g, w) in words[1..].iter().enumerate() {
                if joined & (1 << g) == 0 {
                    out.push(' ');
                }
                out.push_str(w);
            }
            out
        })
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CharClass {
    Hangul,
    Word,
    Other,
}

fn class_of(c: char) -> CharClass {
    if is_lone_jamo(c) {
        // A consonant or vowel standing alone is chat, not part of a word: "항공권ㄱㄱ",
        // "노트북ㅋㅋ", "ㅠㅠ이어폰" (NFKC turns compatibility jamo into conjoining ones).
        CharClass::Other
    } else if is_hangul(c) {
        CharClass::Hangul
    } else if c.is_alphanumeric() || c == '_' {
        CharClass::Word
    } else {
        CharClass::Other
    }
}

/// A Hangul letter that is not part of a syllable: a conjoining or a compatibility jamo.
fn is_lone_jamo(c: char) -> bool {
    matches!(c as u32, 0x1100..=0x11FF | 0x3130..=0x318F | 0xA960..=0xA97F | 0xD7B0..=0xD7FF)
}

fn is_hangul(c: char) -> bool {
    matches!(c as u32, 0xAC00..=0xD7A3 | 0x1100..=0x11FF | 0x3130..=0x318F | 0xA960..=0xA97F | 0xD7B0..=0xD7FF)
}

/// Whether a Hangul word may end at byte `end` of the text: no syllable follows, or one that
/// starts a particle, copula or ending ([`HANGUL_CONTINUATIONS`]), or another alias starts
/// there (`alias_starts[end]`). The typo reader holds its words to the same end.
pub(crate) fn hangul_word_may_end(text: &str, end: usize, alias_starts: &[bool]) -> bool {
    text[end..].chars().next().is_none_or(|c| !is_syllable(c) || HANGUL_CONTINUATIONS.contains(c)) || alias_starts.get(end).copied().unwrap_or(false)
}

/// Whether the Hangul syllables right after `end` are one whole particle, and the word they
/// end is no common Korean word.
fn particle_follows(text: &str, start: usize, end: usize) -> bool {
    let run: usize = text[end..].chars().take_while(|c| is_syllable(*c)).map(char::len_utf8).sum();
    is_particle(&text[end..end + run]) && !is_common_word(&text[start..end + run])
}

/// Typos are looked for in the first `TYPO_WINDOW_CHARS` characters, cut back to a space: each
/// unmatched word costs a few lookups in a table that, for a large taxonomy, misses the cache,
/// and a long paste holds hundreds of them. A chat turn's request is at its start.
pub const TYPO_WINDOW_CHARS: usize = 256;

pub fn typo_window(normalized: &str) -> &str {
    match normalized.char_indices().nth(TYPO_WINDOW_CHARS) {
        None => normalized,
        Some((cut, _)) => &normalized[..normalized[..cut].rfind([' ', '\n']).unwrap_or(0)],
    }
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
            // Korean spacing is loose: a Hangul alias of several words is also found with its
            // spaces left out ("협업 툴" in "협업툴", "할 일 관리" in "할일 관리").
            let variants = spacing_variants(&text);
            for text in std::iter::once(text).chain(variants) {
                let id = *by_text.entry(text.clone()).or_insert_with(|| {
                    patterns.push(text);
                    targets.push(Vec::new());
                    patterns.len() - 1
                });
                if !targets[id].contains(&hit) {
                    targets[id].push(hit);
                }
            }
        }
        let edges = patterns
            .iter()
            .zip(&targets)
            .map(|(p, hits)| {
                let first = p.chars().next().map_or(CharClass::Other, class_of);
                let last = p.chars().next_back().map_or(CharClass::Other, class_of);
                let syllables = p.chars().filter(|&c| is_syllable(c)).count();
                let stem = hits.iter().any(|h| !h.names_a_topic());
                (first, last, syllables, stem)
            })
            .collect();
        let suffix = patterns
            .iter()
            .zip(&targets)
            .map(|(p, hits)| {
                let cue = !hits.iter().any(TextHit::names_a_topic);
                p.chars().next().is_some_and(is_syllable)
                    && (hits.iter().all(|h| *h == TextHit::ClauseBreak) || cue && p.split_once(' ').is_some_and(|(first, _)| is_particle(first)))
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
        let plural = patterns.iter().zip(&targets).map(|(p, hits)| plural_of(p, hits)).collect();
        // A pattern names a thing when all it stands for is a category or an entity.
        let names_thing = |hits: &[TextHit]| hits.iter().all(TextHit::names_a_topic);
        // A typo read as a sensitive word blocks the turn, and one read as an accessory ("cases",
        // "charger") turns the thing asked into another: either needs a typo no common word is as
        // near ("laptop for my coding clases" are classes, not cases).
        let needs_a_clear_typo = |hits: &[TextHit]| {
            hits.iter().any(|h| matches!(h, TextHit::Sensitive(_) | TextHit::ContextSensitive(_) | TextHit::AskedSensitive(_) | TextHit::Accessory))
        };
        let fuzzy = FuzzyMatcher::with_kinds(
            patterns.iter().zip(&targets).enumerate().map(|(i, (p, hits))| (p.as_str(), i as u32, names_thing(hits), needs_a_clear_typo(hits))),
        );
        let hangul_typos = HangulTypoMatcher::new(patterns.iter().zip(&targets).enumerate().map(|(i, (p, hits))| (p.as_str(), i as u32, names_thing(hits))));
        let patterns = patterns.into_iter().map(String::into_boxed_str).collect();
        Ok(TextMatcher { automaton, patterns, targets, edges, suffix, plural, fuzzy, hangul_typos })
    }

    /// Which automaton was built (for stats and benchmarks).
    pub fn automaton_kind(&self) -> Option<AhoCorasickKind> {
        self.automaton.as_ref().map(|a| a.kind())
    }

    pub fn pattern_count(&self) -> usize {
        self.targets.len()
    }

    /// What a pattern stands for.
    pub fn targets(&self, pattern: u32) -> &[TextHit] {
        &self.targets[pattern as usize]
    }

    /// A pattern's normalised text.
    pub fn pattern_text(&self, pattern: u32) -> &str {
        &self.patterns[pattern as usize]
    }

    /// Whether a typo hit is its pattern read by joining two words of their own: "a lot to" holds
    /// "lotto", "in call" "incall", "a hero in" "heroin". A sensitive word read so is context
    /// evidence, not a word of the turn (reading.rs); its pieces ("cas ino") still read as it.
    pub fn joins_two_words(&self, normalized: &str, span: &Span) -> bool {
        if !span.typo {
            return false;
        }
        let Some((left, right)) = normalized[span.start..span.end].split_once(' ') else {
            return false;
        };
        let pattern = self.pattern_text(span.pattern);
        !pattern.contains(' ')
            && pattern.len() == left.len() + right.len()
            && pattern.starts_with(left)
            && pattern.ends_with(right)
            && is_english_word(left)
            && is_english_word(right)
    }

    /// The length of an English plural ending at `at` ("s" or "es", then the end of the word),
    /// as the pattern may take, or 0.
    fn plural_len(&self, pid: usize, normalized: &str, at: usize) -> usize {
        let rest = &normalized.as_bytes()[at..];
        let ends_word = |n: usize| normalized[at + n..].chars().next().is_none_or(|c| class_of(c) != CharClass::Word);
        match self.plural[pid] {
            Plural::None => 0,
            _ if rest.first() == Some(&b's') && ends_word(1) => 1,
            Plural::SOrEs if rest.starts_with(b"es") && ends_word(2) => 2,
            _ => 0,
        }
    }

    /// Every boundary-valid hit in an already normalised message, leftmost-longest, in order
    /// of position.
    pub fn find_spans(&self, normalized: &str) -> Vec<Span> {
        let Some(ac) = &self.automaton else { return Vec::new() };
        let raw: Vec<(usize, usize, usize)> = ac.find_overlapping_iter(normalized).map(|m| (m.start(), m.end(), m.pattern().as_usize())).collect();
        // Where some alias starts, by byte offset: "is another alias glued on here" is a lookup.
        let mut starts = vec![false; normalized.len() + 1];
        for r in &raw {
            starts[r.0] = true;
        }
        // (start, end, pattern, whether the end takes in a plural ending).
        let mut valid: Vec<(usize, usize, usize, bool)> = Vec::with_capacity(raw.len());
        for &(start, end, pid) in &raw {
            let (first, last, syllables, stem) = self.edges[pid];
            let before = normalized[..start].chars().next_back();
            let after = normalized[end..].chars().next();
            let before_class = before.map_or(CharClass::Other, class_of);
            let after_class = after.map_or(CharClass::Other, class_of);
            let compound_head =
                first == CharClass::Hangul && syllables >= 2 && normalized[..start].chars().rev().take(2).filter(|c| is_syllable(*c)).count() == 2;
            // A number and its counter (1박, 3개, 2명) are a word of their own, whatever is glued
            // on after them: "명동호텔1박얼마정도해요".
            let after_a_count = first == CharClass::Hangul && {
                let mut rev = normalized[..start].chars().rev();
                rev.next().is_some_and(is_syllable) && rev.next().is_some_and(|c| c.is_ascii_digit())
            };
            // A Latin alias of several words whose first word is glued by a hyphen to a number
            // is inside a compound modifier: "a 3-day trip" is a trip, not a "day trip".
            let in_modifier = first == CharClass::Word
                && before == Some('-')
                && self.patterns[pid].contains(' ')
                && normalized[..start - 1].chars().next_back().is_some_and(|c| c.is_ascii_digit());
            let left_ok = (before_class == CharClass::Other || before_class != first || compound_head || after_a_count || self.suffix[pid]) && !in_modifier;
            // An alias of one syllable that names a thing (폰, 괌) is a word of its own: what
            // follows in the word is nothing, a whole particle (폰**이랑**, 괌**에서**) that does not
            // make a common word with it (차 + 이 is 차이), or another alias (괌**리조트**).
            let one_syllable_thing = syllables == 1 && !stem && self.patterns[pid].chars().count() == 1;
            let right_ok = if last != CharClass::Hangul {
                after_class == CharClass::Other || after_class != last
            } else if one_syllable_thing {
                !after.is_some_and(is_syllable) || starts[end] || particle_follows(normalized, start, end)
            } else {
                stem || hangul_word_may_end(normalized, end, &starts)
            };
            if left_ok && right_ok {
                valid.push((start, end, pid, false));
            } else if left_ok && last == CharClass::Word && after_class == CharClass::Word {
                let plural = self.plural_len(pid, normalized, end);
                if plural > 0 {
                    valid.push((start, end + plural, pid, true));
                }
            }
        }
        // Leftmost, then longest, then as written before a plural; overlapping hits after the
        // chosen one are dropped.
        valid.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.3.cmp(&b.3)).then(a.2.cmp(&b.2)));
        let mut spans = Vec::with_capacity(valid.len());
        let mut taken_until = 0usize;
        for (start, end, pid, _) in valid {
            if start < taken_until {
                continue;
            }
            taken_until = end;
            spans.push(Span { start, end, pattern: pid as u32, typo: false });
        }
        let covered: Vec<(usize, usize)> = spans.iter().map(|s| (s.start, s.end)).collect();
        let window = typo_window(normalized);
        let mut typos = self.fuzzy.find(window, &covered);
        typos.extend(self.hangul_typos.find(window, &covered, &starts));
        if !typos.is_empty() {
            spans.extend(typos.into_iter().map(|(start, end, pattern)| Span { start, end, pattern, typo: true }));
            spans.sort_unstable_by_key(|s| (s.start, s.pattern));
        }
        spans
    }

    /// Every hit in an already normalised message, in order of position.
    pub fn find(&self, normalized: &str) -> Vec<TextHit> {
        self.find_spans(normalized).iter().flat_map(|s| self.targets[s.pattern as usize].iter().copied()).collect()
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
        // A compound head counts; a word that continues past the alias does not.
        assert_eq!(find(&m, "강릉호텔 예약"), vec![TextHit::Category(2)]);
        assert_eq!(find(&m, "호텔이랑 항공"), vec![TextHit::Category(2)]);
        assert!(find(&m, "호텔리어").is_empty());
    }

    #[test]
    fn a_one_syllable_thing_is_a_word_of_its_own() {
        let m = matcher(&[
            ("폰", TextHit::Category(0)),
            ("괌", TextHit::Entity(1)),
            ("차", TextHit::Category(2)),
            ("리조트", TextHit::Category(3)),
            ("안", TextHit::Negation),
        ]);
        assert_eq!(find(&m, "폰 바꾸려고"), vec![TextHit::Category(0)]);
        assert_eq!(find(&m, "폰이랑 태블릿"), vec![TextHit::Category(0)]);
        assert_eq!(find(&m, "LG폰 어때"), vec![TextHit::Category(0)]);
        assert_eq!(find(&m, "괌에서 묵을 곳"), vec![TextHit::Entity(1)]);
        // Another alias may follow (the alias after one syllable is no compound head, as in
        // 전기차: only 괌 is read).
        assert_eq!(find(&m, "괌리조트 추천"), vec![TextHit::Entity(1)]);
        // A word that goes on, a word before, a particle that makes a common word, or no whole
        // particle: not the alias.
        assert!(find(&m, "폰트 추천").is_empty());
        assert!(find(&m, "이어폰 추천").is_empty());
        assert!(find(&m, "둘의 차이가 뭐야").is_empty());
        assert!(find(&m, "폰이며 뭐며").is_empty());
        // A cue of one syllable is a stem, as before: any Hangul may follow it.
        assert_eq!(find(&m, "안사"), vec![TextHit::Negation]);
    }

    #[test]
    fn particles_are_told_from_continuing_words() {
        let m = matcher(&[("애플", TextHit::Entity(0)), ("파리", TextHit::Entity(1)), ("추천", TextHit::PurchaseCue), ("예약", TextHit::PurchaseCue)]);
        assert!(find(&m, "애플망고 맛있어").is_empty());
        assert!(find(&m, "파리채 어디 있어").is_empty());
        assert_eq!(find(&m, "애플은 비싸"), vec![TextHit::Entity(0)]);
        assert_eq!(find(&m, "파리에서 예약하려고"), vec![TextHit::Entity(1), TextHit::PurchaseCue]);
        // What attaches to a place: a side, a destination, nearby, its station or airport.
        for text in ["파리쪽 숙소", "파리행 항공권", "파리근처", "파리역", "파리공항", "파리출발"] {
            assert_eq!(find(&m, text), vec![TextHit::Entity(1)], "{text}");
        }
        // Followed by another alias: 애플 + 추천.
        assert_eq!(find(&m, "애플추천"), vec![TextHit::Entity(0), TextHit::PurchaseCue]);
        // One syllable is never a compound head: 애플 inside 파인애플 has two, so it is; the
        // catalog tames that with a negative context.
        assert_eq!(find(&m, "파인애플"), vec![TextHit::Entity(0)]);
    }

    #[test]
    fn lone_jamo_is_not_part_of_a_word() {
        let m = matcher(&[("항공권", TextHit::Category(0)), ("노트북", TextHit::Category(1)), ("추천", TextHit::PurchaseCue)]);
        assert_eq!(find(&m, "항공권ㄱㄱ 도쿄"), vec![TextHit::Category(0)]);
        assert_eq!(find(&m, "노트북ㅋㅋ추천ㅠㅠ"), vec![TextHit::Category(1), TextHit::PurchaseCue]);
        assert_eq!(find(&m, "ㅠㅠ노트북"), vec![TextHit::Category(1)]);
        // A syllable still continues a word.
        assert!(find(&m, "노트북파우치").is_empty());
    }

    #[test]
    fn an_ending_clause_break_follows_any_hangul() {
        let m = matcher(&[("는데", TextHit::ClauseBreak), ("하지만", TextHit::ClauseBreak), ("노트북", TextHit::Category(1))]);
        assert_eq!(find(&m, "노트북은 있는데 태블릿"), vec![TextHit::Category(1), TextHit::ClauseBreak]);
        assert_eq!(find(&m, "좋하지만"), vec![TextHit::ClauseBreak]);
        // Only a clause break: a category alias still needs its boundary.
        assert!(find(&m, "가노트북").is_empty());
    }

    #[test]
    fn a_cue_that_opens_with_a_particle_follows_a_noun_of_one_syllable() {
        let m = matcher(&[("이 예약해줬", TextHit::NegationBefore), ("에서 쓸", TextHit::PurposeBefore), ("이 예약", TextHit::Category(2))]);
        assert_eq!(find(&m, "호텔은 딸이 예약해줬고"), vec![TextHit::NegationBefore]);
        assert_eq!(find(&m, "집에서 쓸 노트북"), vec![TextHit::PurposeBefore]);
        // A category or entity alias still needs its boundary, whatever it starts with.
        assert!(find(&m, "딸이 예약").is_empty());
    }

    #[test]
    fn a_number_and_its_counter_end_a_word() {
        let m = matcher(&[("얼마", TextHit::PurchaseCue)]);
        assert_eq!(find(&m, "명동호텔1박얼마정도해요"), vec![TextHit::PurchaseCue]);
        // Not after one syllable that is no counter.
        assert!(find(&m, "박얼마").is_empty());
    }

    #[test]
    fn underscore_joins_a_word() {
        let m = matcher(&[("flight", TextHit::Category(0))]);
        assert!(find(&m, "flight_id is null").is_empty());
        assert!(find(&m, "get_flight").is_empty());
    }

    #[test]
    fn latin_alias_followed_by_korean_particle() {
        let m = matcher(&[("iphone 16", TextHit::Entity(1))]);
        assert_eq!(find(&m, "iPhone 16을 최저가로"), vec![TextHit::Entity(1)]);
        assert_eq!(find(&m, "최신iphone 16"), vec![TextHit::Entity(1)]);
    }

    #[test]
    fn an_accessorys_typo_is_not_a_misspelt_common_word() {
        let m = matcher(&[("laptop", TextHit::Category(0)), ("cases", TextHit::Accessory), ("charger", TextHit::Accessory)]);
        // "clases" is one edit from "cases" and from "classes": the common word it is.
        assert_eq!(find(&m, "a laptop for my coding clases"), vec![TextHit::Category(0)]);
        // A typo no common word is as near still reads as the accessory.
        assert_eq!(find(&m, "laptop chrager"), vec![TextHit::Category(0), TextHit::Accessory]);
    }

    #[test]
    fn leftmost_longest_among_valid_hits() {
        let m = matcher(&[
            ("new york", TextHit::Entity(0)),
            ("new york times", TextHit::Entity(1)),
            ("iphone", TextHit::Entity(2)),
            ("iphone 16", TextHit::Entity(3)),
        ]);
        assert_eq!(find(&m, "read the new york times"), vec![TextHit::Entity(1)]);
        // The longer alias fails its boundary, the shorter one still counts.
        assert_eq!(find(&m, "iphone 16s"), vec![TextHit::Entity(2)]);
    }

    #[test]
    fn a_noun_takes_an_english_plural_and_a_cue_does_not() {
        let m = matcher(&[
            ("note-taking app", TextHit::Category(0)),
            ("xm5", TextHit::Entity(1)),
            ("jr pass", TextHit::Entity(2)),
            ("iphone 16", TextHit::Entity(3)),
            ("book", TextHit::PurchaseCue),
            ("apps", TextHit::Category(4)),
            ("app", TextHit::Category(5)),
        ]);
        assert_eq!(find(&m, "how do note-taking apps sync"), vec![TextHit::Category(0)]);
        assert_eq!(find(&m, "are the xm5s ok for small heads"), vec![TextHit::Entity(1)]);
        assert_eq!(find(&m, "two jr passes"), vec![TextHit::Entity(2)]);
        assert!(find(&m, "jr passing").is_empty());
        // A bare number takes no plural: "iphone 16s" is another phone.
        assert!(find(&m, "iphone 16s").is_empty());
        assert!(find(&m, "i read books").is_empty());
        // An alias as written beats another one plus a plural at the same span.
        assert_eq!(find(&m, "best apps"), vec![TextHit::Category(4)]);
        assert!(find(&m, "xm5sx").is_empty());
        // The span takes in the ending.
        let spans = m.find_spans(&normalize("xm5s!"));
        assert_eq!((spans[0].start, spans[0].end), (0, 4));
    }

    #[test]
    fn a_number_and_a_hyphen_glue_the_first_word_into_a_modifier() {
        let m = matcher(&[("day trip", TextHit::Category(0)), ("trip", TextHit::Category(1)), ("rail pass", TextHit::Entity(2))]);
        assert_eq!(find(&m, "a backpack for a 3-day trip"), vec![TextHit::Category(1)]);
        assert_eq!(find(&m, "a day trip to busan"), vec![TextHit::Category(0)]);
        assert_eq!(find(&m, "a 7-day rail pass"), vec![TextHit::Entity(2)]);
        assert_eq!(find(&m, "a half-day trip"), vec![TextHit::Category(0)]);
    }

    #[test]
    fn a_korean_alias_of_several_words_is_found_with_any_spaces_left_out() {
        let m = matcher(&[("할 일 관리", TextHit::Category(0))]);
        for text in ["할 일 관리 앱", "할일 관리 앱", "할 일관리 앱", "할일관리 앱"] {
            assert_eq!(find(&m, text), vec![TextHit::Category(0)], "{text}");
        }
        assert_eq!(spacing_variants("가 나 다 라 마"), vec!["가나다라마".to_string()]);
        assert!(spacing_variants("iphone 16").is_empty());
    }

    #[test]
    fn shared_alias_stands_for_all_its_targets() {
        let m = matcher(&[("apple", TextHit::Entity(0)), ("Apple", TextHit::Entity(1)), ("ａｐｐｌｅ", TextHit::Category(2))]);
        assert_eq!(m.pattern_count(), 1);
        assert_eq!(find(&m, "apple deals"), vec![TextHit::Entity(0), TextHit::Entity(1), TextHit::Category(2)]);
    }
}
