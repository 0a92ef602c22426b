//! Hangul aliases one jamo away: "노트븍" → "노트북", "겔럭시" → "갤럭시", "맥뿍" → "맥북", for the
//! words the exact Aho-Corasick pass ([`crate::TextMatcher`]) did not find. A Korean typo is
//! usually one letter of one syllable block: a vowel that sounds alike (ㅐ/ㅔ), a consonant
//! doubled or not (ㅂ/ㅃ), a neighbouring key. [`HangulTypoMatcher`] states the rules; its unit tests and
//! the golden answers of every labelled turn (`tests/golden.rs`) hold them.
//!
//! How: every eligible alias of n syllables is keyed n times, once per syllable left out (the
//! hash of the other syllables and the gap's place); a candidate looks up the same n keys, so
//! the aliases found are those equal to it but for one syllable, and each is then checked for
//! that syllable being one jamo away.
use crate::fuzzy::KeyMap;
use crate::korean_words::{common_words, is_syllable, WordSet, PARTICLES};
use crate::text_match::hangul_word_may_end;

/// Aliases of this many syllables or more accept any one-jamo change; shorter ones only a
/// sound-alike one ([`sound_alike`]): among two-syllable words one jamo reaches too many other
/// words (기차/기자, 비자/피자, 호텔/호텐).
const ANY_JAMO_FROM: usize = 3;

/// Longer aliases are rare and written with care; the bound keeps a candidate's lookups few.
const MAX_SYLLABLES: usize = 8;

const FIRST_SYLLABLE: u32 = 0xAC00;
const LAST_SYLLABLE: u32 = 0xD7A3;
/// Vowels × finals: the syllables that share an initial consonant.
const PER_INITIAL: u32 = 21 * 28;
const FINALS: u32 = 28;

/// Finds aliases one jamo away from the start of a Hangul word of a normalised message.
///
/// Rules:
/// - Eligible aliases are 2 to 8 Hangul syllables and nothing else (a Korean alias of several
///   words is also a pattern with its spaces left out, which is eligible) and name a thing: a
///   category or an entity, weak or not. Cues and sensitive stems are never read as typos.
/// - A candidate is the first n syllables of a run of Hangul syllables that starts a word (no
///   Hangul syllable right before it), inside the typo window, overlapping no exact hit, for
///   each n an eligible alias has. What follows it must end the word as an exact hit's end
///   would: no Hangul syllable, or a particle, copula or 하다-ending syllable
///   ([`crate::text_match::HANGUL_CONTINUATIONS`]), or the start of another alias (노트븍**추천**).
/// - A hit differs from the alias in exactly one syllable, and there in exactly one of the
///   initial consonant, the vowel or the final consonant (a final added or dropped counts as
///   one). An alias of two syllables accepts only a sound-alike change: ㅐ/ㅔ, ㅒ/ㅖ, ㅙ/ㅞ/ㅚ,
///   or a plain initial for its tense twin or back (ㄱ/ㄲ, ㄷ/ㄸ, ㅂ/ㅃ, ㅅ/ㅆ, ㅈ/ㅉ).
/// - A candidate that is itself an alias, or a common Korean word
///   (`model/common-korean-words.txt`), is never a typo: "여행자" is a traveller, not "여행지".
/// - A candidate ending in a particle ([`PARTICLES`](crate::korean_words::PARTICLES)) after one syllable or more is a
///   shorter word and its particle ("한국에", "인사도", "맥에서", "잘 데만"), unless the alias
///   ends in the same particle syllables and the one-jamo change is in the two syllables or more
///   before it ("제쥬도" is "제주도").
/// - At one word start the longest candidate with a hit wins; every alias found at it is
///   reported.
pub struct HangulTypoMatcher {
    entries: Vec<Entry>,
    /// Hash of (length, gap, the other syllables) → `postings[start..end]`.
    keys: KeyMap<(u32, u32)>,
    /// Entry indices.
    postings: Vec<u32>,
    /// Every Hangul alias as written, eligible or not: a candidate equal to one is a word the
    /// taxonomy knows.
    known: WordSet<Box<str>>,
    /// Syllable counts of the eligible aliases, ascending.
    lengths: Vec<usize>,
    /// First and second syllables of the eligible aliases: a candidate one syllable off shares
    /// one of them, so most words are passed over after two set lookups.
    firsts: SyllableSet,
    seconds: SyllableSet,
    common: &'static WordSet<&'static str>,
}

struct Entry {
    syllables: Box<[char]>,
    pattern: u32,
}

impl HangulTypoMatcher {
    /// Indexes `(normalised alias, pattern id, names a thing)`; aliases outside the rules are
    /// skipped, but every Hangul one is remembered as a known word.
    pub fn new<'a>(aliases: impl IntoIterator<Item = (&'a str, u32, bool)>) -> Self {
        let mut entries = Vec::new();
        let mut keyed: Vec<(u64, u32)> = Vec::new();
        let mut known = WordSet::default();
        let (mut lengths, mut firsts, mut seconds) = (Vec::new(), SyllableSet::new(), SyllableSet::new());
        for (alias, pattern, thing) in aliases {
            if !alias.chars().all(is_syllable) || alias.is_empty() {
                continue;
            }
            let syllables: Box<[char]> = alias.chars().collect();
            known.insert(Box::from(alias));
            if !thing || !(2..=MAX_SYLLABLES).contains(&syllables.len()) {
                continue;
            }
            let index = u32::try_from(entries.len()).expect("fewer than 2^32 aliases");
            for gap in 0..syllables.len() {
                keyed.push((gap_hash(&syllables, gap), index));
            }
            lengths.push(syllables.len());
            firsts.insert(syllables[0]);
            seconds.insert(syllables[1]);
            entries.push(Entry { syllables, pattern });
        }
        keyed.sort_unstable();
        keyed.dedup();
        let mut keys = KeyMap::default();
        let mut postings = Vec::with_capacity(keyed.len());
        for group in keyed.chunk_by(|x, y| x.0 == y.0) {
            let start = u32::try_from(postings.len()).expect("fewer than 2^32 keys");
            postings.extend(group.iter().map(|&(_, index)| index));
            keys.insert(group[0].0, (start, start + group.len() as u32));
        }
        lengths.sort_unstable();
        lengths.dedup();
        HangulTypoMatcher { entries, keys, postings, known, lengths, firsts, seconds, common: common_words() }
    }

    /// How many aliases can match one jamo away.
    pub fn eligible_count(&self) -> usize {
        self.entries.len()
    }

    /// Hits in an already normalised message (its typo window), as (byte start, byte end,
    /// pattern id), in order of position, then id. `covered` holds the exact hits' byte spans,
    /// `alias_starts[i]` whether some alias's raw match starts at byte `i`.
    pub fn find(&self, normalized: &str, covered: &[(usize, usize)], alias_starts: &[bool]) -> Vec<(usize, usize, u32)> {
        let mut hits = Vec::new();
        if self.entries.is_empty() {
            return hits;
        }
        let mut word: Vec<(usize, char)> = Vec::new();
        let mut syllables: Vec<char> = Vec::new();
        // The gap of each hit of the current candidate, in step with `hits[found_before..]`.
        let mut gaps: Vec<usize> = Vec::new();
        let mut prev: Option<char> = None;
        for (at, c) in normalized.char_indices() {
            let starts_word = is_syllable(c) && !prev.is_some_and(is_syllable);
            prev = Some(c);
            if !starts_word {
                continue;
            }
            // The word's first syllables, one past the longest alias (to see what follows it).
            // Most words start with no alias's first syllable and go on with no alias's second.
            let second = normalized[at + c.len_utf8()..].chars().next();
            if !(self.firsts.contains(c) || second.is_some_and(|s| self.seconds.contains(s))) {
                continue;
            }
            word.clear();
            word.extend(normalized[at..].char_indices().map(|(i, c)| (at + i, c)).take_while(|&(_, c)| is_syllable(c)).take(MAX_SYLLABLES + 1));
            if word.len() < 2 {
                continue;
            }
            syllables.clear();
            syllables.extend(word.iter().map(|&(_, c)| c));
            let found_before = hits.len();
            for &n in self.lengths.iter().rev() {
                if n > syllables.len() {
                    continue;
                }
                let end = word.get(n).map_or_else(|| at + syllables[..n].iter().map(|c| c.len_utf8()).sum::<usize>(), |&(i, _)| i);
                if !hangul_word_may_end(normalized, end, alias_starts) || covered.iter().any(|&(s, e)| at < e && s < end) {
                    continue;
                }
                let candidate = &syllables[..n];
                // The keys first: a word rarely shares all but one syllable with an alias, and
                // the word checks below are string lookups.
                for gap in 0..n {
                    if (gap == 0 && !self.seconds.contains(candidate[1])) || (gap > 0 && !self.firsts.contains(candidate[0])) {
                        continue;
                    }
                    for &e in self.posting(gap_hash(candidate, gap)) {
                        let entry = &self.entries[e as usize];
                        if one_jamo_from(candidate, &entry.syllables, gap) {
                            hits.push((at, end, entry.pattern));
                            gaps.push(gap);
                        }
                    }
                }
                if hits.len() > found_before {
                    let text = &normalized[at..end];
                    if self.known.contains(text) || self.common.contains(text) {
                        hits.truncate(found_before);
                    } else {
                        let tail = particle_tail(candidate);
                        let mut index = 0;
                        hits.retain(|_| {
                            let keep = index < found_before || {
                                let gap = gaps[index - found_before];
                                tail == 0 || (gap + tail < n && n - tail >= 2)
                            };
                            index += 1;
                            keep
                        });
                    }
                    gaps.clear();
                }
                if hits.len() > found_before {
                    break;
                }
            }
            hits[found_before..].sort_unstable_by_key(|h| h.2);
            hits.dedup();
        }
        hits
    }

    fn posting(&self, key: u64) -> &[u32] {
        self.keys.get(&key).map_or(&[], |&(s, e)| &self.postings[s as usize..e as usize])
    }
}

/// The syllable count of the longest particle the candidate ends in after at least one
/// syllable, or 0.
fn particle_tail(candidate: &[char]) -> usize {
    PARTICLES
        .iter()
        .map(|p| (p, p.chars().count()))
        .filter(|&(p, k)| k < candidate.len() && p.chars().eq(candidate[candidate.len() - k..].iter().copied()))
        .map(|(_, k)| k)
        .max()
        .unwrap_or(0)
}

/// Whether `candidate` equals `alias` but at syllable `gap`, and there is one jamo away, as
/// the alias's length allows.
fn one_jamo_from(candidate: &[char], alias: &[char], gap: usize) -> bool {
    if candidate.len() != alias.len() || candidate.iter().zip(alias.iter()).enumerate().any(|(i, (a, b))| i != gap && a != b) {
        return false;
    }
    let (a, b) = (jamo(candidate[gap]), jamo(alias[gap]));
    let changed = usize::from(a.0 != b.0) + usize::from(a.1 != b.1) + usize::from(a.2 != b.2);
    changed == 1 && (alias.len() >= ANY_JAMO_FROM || sound_alike(a, b))
}

/// (initial, vowel, final) indices of a Hangul syllable.
pub(crate) fn jamo(c: char) -> (u32, u32, u32) {
    let x = c as u32 - FIRST_SYLLABLE;
    (x / PER_INITIAL, x % PER_INITIAL / FINALS, x % FINALS)
}

/// Vowels written alike in speech: ㅐ/ㅔ, ㅒ/ㅖ, ㅙ/ㅞ/ㅚ (vowel indices 1/5, 3/7, 10/15/11).
const VOWEL_GROUPS: [&[u32]; 3] = [&[1, 5], &[3, 7], &[10, 11, 15]];
/// Plain initials and their tense twins: ㄱ/ㄲ, ㄷ/ㄸ, ㅂ/ㅃ, ㅅ/ㅆ, ㅈ/ㅉ (initial indices).
const TENSE_PAIRS: [(u32, u32); 5] = [(0, 1), (3, 4), (7, 8), (9, 10), (12, 13)];

/// Whether the one change between two syllables is a sound-alike one.
fn sound_alike(a: (u32, u32, u32), b: (u32, u32, u32)) -> bool {
    if a.0 != b.0 {
        TENSE_PAIRS.iter().any(|&(p, t)| (a.0, b.0) == (p, t) || (a.0, b.0) == (t, p))
    } else if a.1 != b.1 {
        VOWEL_GROUPS.iter().any(|g| g.contains(&a.1) && g.contains(&b.1))
    } else {
        false
    }
}

const BASE: u64 = 0x9E37_79B9_7F4A_7C15;

/// The hash of the syllables with the one at `gap` left out, and of where the gap is.
fn gap_hash(syllables: &[char], gap: usize) -> u64 {
    let seed = (syllables.len() as u64) << 8 | gap as u64;
    syllables.iter().enumerate().filter(|&(i, _)| i != gap).fold(seed, |h, (_, &c)| h.wrapping_mul(BASE).wrapping_add(u64::from(c)))
}

/// A set of Hangul syllables as one bit each (11,172 bits): a lookup is a shift and a mask.
struct SyllableSet(Box<[u64]>);

impl SyllableSet {
    fn new() -> Self {
        SyllableSet(vec![0; ((LAST_SYLLABLE - FIRST_SYLLABLE) / 64 + 1) as usize].into_boxed_slice())
    }

    fn insert(&mut self, c: char) {
        let i = c as u32 - FIRST_SYLLABLE;
        self.0[(i / 64) as usize] |= 1 << (i % 64);
    }

    fn contains(&self, c: char) -> bool {
        is_syllable(c) && {
            let i = c as u32 - FIRST_SYLLABLE;
            self.0[(i / 64) as usize] & (1 << (i % 64)) != 0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CATALOG: &[&str] = &["노트북", "갤럭시", "맥북", "맥북에어", "아이폰", "제주도", "한국어", "인사동", "대만", "여행지", "블루투스스피커", "호텔"];

    fn matcher() -> HangulTypoMatcher {
        HangulTypoMatcher::new(CATALOG.iter().enumerate().map(|(i, a)| (*a, i as u32, true)))
    }

    fn found(text: &str) -> Vec<&'static str> {
        let starts = vec![false; text.len() + 1];
        matcher().find(text, &[], &starts).into_iter().map(|(_, _, p)| CATALOG[p as usize]).collect()
    }

    #[test]
    fn one_jamo_finds_the_alias() {
        assert_eq!(found("노트븍 가벼운거 추천"), ["노트북"]); // a vowel
        assert_eq!(found("겔럭시 s25 사려고"), ["갤럭시"]); // ㅐ/ㅔ
        assert_eq!(found("아이펀 16 얼마야"), ["아이폰"]);
        assert_eq!(found("아이폰 16 얼마야"), Vec::<&str>::new()); // exact is the exact pass's
        assert_eq!(found("블루투스스피커"), Vec::<&str>::new());
        assert_eq!(found("블루투스스퓌커 추천"), ["블루투스스피커"]);
        // A final consonant added or dropped.
        assert_eq!(found("노트부 하나"), ["노트북"]);
    }

    #[test]
    fn a_two_syllable_alias_takes_only_a_sound_alike_change() {
        assert_eq!(found("맥뿍 에어 사고싶다"), ["맥북"]); // ㅂ/ㅃ
        assert_eq!(found("호탤 예약"), ["호텔"]); // ㅔ/ㅐ
        assert_eq!(found("맥묵 에어"), Vec::<&str>::new()); // ㅂ/ㅁ: another word, maybe
        assert_eq!(found("호틸 예약"), Vec::<&str>::new());
    }

    #[test]
    fn the_longest_candidate_wins_and_particles_may_follow() {
        assert_eq!(found("맥뿍에어 학생할인"), ["맥북에어"]);
        assert_eq!(found("노트븍을 사려고"), ["노트북"]);
        assert_eq!(found("노트븍추천"), Vec::<&str>::new()); // 추 is no particle and no alias starts there
        let text = "노트븍추천";
        let mut starts = vec![false; text.len() + 1];
        starts["노트븍".len()] = true; // an alias ("추천") starts right after
        assert_eq!(matcher().find(text, &[], &starts).len(), 1);
    }

    #[test]
    fn a_word_and_its_particle_are_not_a_typo() {
        assert_eq!(found("스타벅스 한국에 언제 들어왔어"), Vec::<&str>::new()); // 한국 + 에, not 한국어
        assert_eq!(found("마지막 인사도 못 했어"), Vec::<&str>::new()); // 인사 + 도, not 인사동
        assert_eq!(found("잘 데만 있으면 돼"), Vec::<&str>::new()); // 데 + 만, not 대만
                                                                    // The alias's own last syllable, after a stem of two syllables with the typo.
        assert_eq!(found("제쥬도 숙소 추천"), ["제주도"]);
    }

    #[test]
    fn common_words_and_other_aliases_are_not_typos() {
        assert_eq!(found("여행자 보험"), Vec::<&str>::new()); // a traveller, not 여행지
        let m = HangulTypoMatcher::new([("노트북", 0, true), ("노트븍", 1, true)]);
        let text = "노트븍 추천";
        assert!(m.find(text, &[], &vec![false; text.len() + 1]).is_empty());
    }

    #[test]
    fn only_word_starts_outside_exact_hits_and_things() {
        assert_eq!(found("사무용노트븍"), Vec::<&str>::new()); // inside a word
        let text = "노트븍 추천";
        let starts = vec![false; text.len() + 1];
        assert!(matcher().find(text, &[(0, 3)], &starts).is_empty()); // overlaps an exact hit
        let cue = HangulTypoMatcher::new([("노트북", 0, false)]);
        assert!(cue.find(text, &[], &starts).is_empty());
        assert_eq!(cue.eligible_count(), 0);
    }

    #[test]
    fn byte_offsets_and_every_alias_at_the_span() {
        let m = HangulTypoMatcher::new([("노트북", 7, true), ("노트북", 3, true), ("갤럭시", 9, true)]);
        let text = "new 노트븍, 겔럭시";
        let hits = m.find(text, &[], &vec![false; text.len() + 1]);
        assert_eq!(hits, vec![(4, 13, 3), (4, 13, 7), (15, 24, 9)]);
    }

    #[test]
    fn the_common_word_list_loads() {
        let words = common_words();
        assert!(words.len() > 20_000);
        assert!(words.contains("여행자") && words.contains("기자"));
        assert!(words.iter().all(|w| w.chars().count() >= 2 && w.chars().all(is_syllable)));
    }
}
