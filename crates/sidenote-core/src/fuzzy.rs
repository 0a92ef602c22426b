//! Typo-tolerant matching of Latin-script aliases: "labtop" → "laptop", "iphnoe" → "iphone",
//! "lap top" → "laptop", "airpodspro" → "airpods pro", for the words the exact Aho-Corasick pass
//! ([`crate::TextMatcher`]) did not find. [`FuzzyMatcher`] states the rules; its unit tests and the
//! golden answers of every labelled turn (`tests/golden.rs`) hold them.
//!
//! How: a deletion-neighbourhood index (SymSpell). Every eligible alias, and every alias with one
//! byte deleted, is keyed by a polynomial hash; a candidate looks up its own hash and the hashes
//! of itself with one byte deleted, which finds every alias within one insertion, deletion,
//! substitution or adjacent transposition (plus a few at distance 2, and hash collisions), and
//! each is then checked for an optimal string alignment distance of exactly 1. The hash of a
//! candidate with byte `i` deleted comes from its prefix hashes in O(1), so a lookup copies
//! nothing: a call allocates only its result.
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

/// Aliases with fewer letters never match fuzzily: among short words one edit reaches too many
/// other real words ("apple"/"apply", "tour"/"your").
const MIN_FUZZY_LETTERS: usize = 5;

/// A word of an alias with fewer letters (and no digit) is never the edited word: one edit from
/// a short word reaches too many others ("or the" / "of the", "tab" / "tax").
const MIN_EDITED_WORD: usize = 4;

/// One word a line. Words of 3 letters or fewer are left out: a token one edit from an alias of
/// `MIN_FUZZY_LETTERS` letters has at least 4.
const COMMON_WORDS_TEXT: &str = include_str!("model/common-english-words.txt");

/// The common words of 1 to 3 letters, one a line: only [`is_english_word`] asks for them (every
/// typo rule above reads words of 4 letters or more).
const SHORT_WORDS_TEXT: &str = include_str!("model/short-english-words.txt");

/// The base of the polynomial hash, odd. Collisions cost an extra verification, never a wrong
/// answer: every hit is checked on the bytes.
const BASE: u64 = 0x9E37_79B9_7F4A_7C15;

/// Finds aliases one typo away from a word, or from two adjacent words, of a normalised message.
///
/// Rules:
/// - Eligible aliases are lower-case ASCII letters, digits and single spaces, with at least 5
///   letters. Other aliases never match fuzzily, but a candidate that equals any alias of those
///   characters is a word the taxonomy knows, never a typo of another ("labtop" is not "laptop"
///   when both are aliases).
/// - Tokens are maximal runs of `[a-z0-9]` with neither a letter or digit of any script nor
///   Hangul on either side ("labtop을" and "café" hold none). Candidates are each token and each
///   two tokens separated by exactly one space, except tokens that overlap a `covered` span (the
///   exact matcher's hits).
/// - A hit is an optimal string alignment distance of exactly 1 (exact equality is the exact
///   matcher's), or a plural in "-es" of an alias ending in s, x, z, ch or sh ("watches").
/// - A short word of an alias (under 4 letters, no digit) must be written exactly; the typo is in
///   a longer word ("galxy tab" is "galaxy tab", "ipda air" is "ipad air"). An alias with a short
///   word matches fuzzily only when it names a thing (a cue or a sensitive phrase with one never
///   does: "how mucj" is left alone).
/// - Spaces may only be inserted or deleted ("lap top" → "laptop", "airpodspro" → "airpods
///   pro"), never substituted or transposed.
/// - Digits must match exactly: a candidate starting with a digit never matches, and an edit may
///   not change a digit nor a letter of a word that holds a digit ("iphone 15" is not "iphone
///   16", "galaxy s24" not "galaxy a24", "iphone 16s" not "iphone 16"). Splitting or joining
///   words is fine ("iphone16" → "iphone 16").
/// - The edited word must not be a common English word (`model/common-english-words.txt`):
///   "brain" is not a typo of "train", nor "apply" of "apple". An alias plus "s" is a plural,
///   not a typo, and always matches ("laptops", "hotels", "phones"). One exception: in an alias
///   of two words that names a thing (a category or an entity, marked so by the caller), a
///   common word of five letters or more may be the typo when the other word is exact
///   ("password manger" is "password manager"); a cue's or a sensitive phrase's words may not
///   ("already looked" is not "already booked").
/// - Overlapping hits resolve leftmost-longest ("macbok pro" → "macbook pro", not "macbook");
///   every alias at the chosen span is reported.
pub struct FuzzyMatcher {
    /// Alias bytes, end to end; each entry names its slice.
    text: Vec<u8>,
    entries: Vec<AliasEntry>,
    /// Hash of an alias, or of an eligible alias with one byte deleted → `postings[start..end]`.
    keys: KeyMap<(u32, u32)>,
    /// Entry indices.
    postings: Vec<u32>,
    /// Hashes of the first and last words of eligible multi-word aliases: a pair of tokens can
    /// reach a multi-word alias only if one of its words is exact.
    first_words: KeySet,
    last_words: KeySet,
    /// `BASE^k` for every k a candidate can need.
    powers: Vec<u64>,
    /// Byte lengths of the shortest and longest eligible alias (0 when there is none).
    min_len: usize,
    max_len: usize,
    common: &'static CommonWords,
}

struct AliasEntry {
    start: u32,
    end: u32,
    pattern: u32,
    eligible: bool,
    /// Names a thing: a common word may be its typo inside a pair (see the rules).
    thing: bool,
    /// Says a sensitive topic or an accessory: its typo must not be one edit from another common
    /// word.
    needs_a_clear_typo: bool,
    /// The alias spelt as it sounds, "f" for "ph" ("headfones"): written so, it is the alias.
    sounded: bool,
}

/// A Latin alias with "ph" as it sounds, every "ph" written "f", when that spelling has
/// [`MIN_FUZZY_LETTERS`] letters or more and turns no word of it into a common word.
fn sounded_alias(alias: &[u8], common: &CommonWords) -> Option<Vec<u8>> {
    if !is_latin_alias(alias) || !alias.windows(2).any(|w| w == b"ph") {
        return None;
    }
    let mut out = Vec::with_capacity(alias.len());
    let mut i = 0;
    while i < alias.len() {
        if alias[i..].starts_with(b"ph") {
            out.push(b'f');
            i += 2;
        } else {
            out.push(alias[i]);
            i += 1;
        }
    }
    let letters = out.iter().filter(|b| b.is_ascii_lowercase()).count();
    let turns_common = alias.split(|&b| b == b' ').zip(out.split(|&b| b == b' ')).any(|(w, v)| w != v && common.contains(v, poly_hash(v)));
    (letters >= MIN_FUZZY_LETTERS && !turns_common).then_some(out)
}

/// Whether an alias holds a word under [`MIN_EDITED_WORD`] letters without a digit.
fn has_short_word(alias: &[u8]) -> bool {
    alias.split(|&b| b == b' ').any(|w| w.len() < MIN_EDITED_WORD && !has_digit(w))
}

/// One candidate: a token, or two tokens and the space between them.
struct Candidate<'m> {
    start: usize,
    end: usize,
    text: &'m [u8],
    hash: u64,
    /// Offset of the space in `text`, for a pair.
    space: Option<usize>,
    /// Per word: its hash, and whether it is a common English word.
    word_hashes: [u64; 2],
    common: [bool; 2],
}

impl Candidate<'_> {
    /// Whether the word holding byte `p` of the candidate is a common English word.
    fn common_at(&self, p: usize) -> bool {
        match self.space {
            Some(space) if p > space => self.common[1],
            _ => self.common[0],
        }
    }
}

/// A token of the message, with what its candidates need.
#[derive(Clone, Copy)]
struct Token {
    start: usize,
    end: usize,
    hash: u64,
    common: bool,
}

/// The single edit turning a candidate `a` into an alias `b`, at byte `p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Edit {
    /// `a[p]` replaced by `b[p]`.
    Substitute(usize),
    /// `a[p]` and `a[p + 1]` swapped.
    Transpose(usize),
    /// `a[p]` is one byte too many.
    Extra(usize),
    /// `b[p]` is missing from `a`, before `a[p]`.
    Missing(usize),
}

impl FuzzyMatcher {
    /// Indexes `(normalised alias, pattern id)` pairs. An alias may come with several ids (each
    /// is reported), and aliases outside the rules are skipped.
    pub fn new<'a>(aliases: impl IntoIterator<Item = (&'a str, u32)>) -> Self {
        Self::with_things(aliases.into_iter().map(|(alias, pattern)| (alias, pattern, false)))
    }

    /// As [`new`](Self::new), each alias marked with whether it names a thing (a category or an
    /// entity), which lets a common word be its typo inside a pair of words.
    pub fn with_things<'a>(aliases: impl IntoIterator<Item = (&'a str, u32, bool)>) -> Self {
        Self::with_kinds(aliases.into_iter().map(|(alias, pattern, thing)| (alias, pattern, thing, false)))
    }

    /// As [`with_things`](Self::with_things), each alias also marked with whether its typo must
    /// be clear (a sensitive topic's, an accessory's: the caller's to say): a token one edit from
    /// a common word other than such an alias is read as that word misspelt ("codeing" is
    /// "coding", not "codeine"; "clases" is "classes", not "cases").
    pub fn with_kinds<'a>(aliases: impl IntoIterator<Item = (&'a str, u32, bool, bool)>) -> Self {
        let mut text = Vec::new();
        let mut entries = Vec::new();
        let mut keyed: Vec<(u64, u32)> = Vec::new();
        let mut powers = vec![1u64];
        let (mut min_len, mut max_len) = (usize::MAX, 0usize);
        let mut first_words = KeySet::default();
        let mut last_words = KeySet::default();
        let common = common_words();
        // An alias with "ph" is also indexed as it sounds, "f" (after the aliases as written, so
        // a word that is both is the written one's): "headfone" is "headphone", as writers who
        // spell by ear put it. Not when the sounded alias is short or turns a word common.
        let written: Vec<(&str, u32, bool, bool)> = aliases.into_iter().collect();
        let sounded: Vec<(Vec<u8>, u32, bool, bool)> =
            written.iter().filter_map(|&(alias, pattern, thing, clear)| sounded_alias(alias.as_bytes(), common).map(|v| (v, pattern, thing, clear))).collect();
        let all = written
            .iter()
            .map(|&(alias, pattern, thing, clear)| (alias.as_bytes(), pattern, thing, clear, false))
            .chain(sounded.iter().map(|(v, pattern, thing, clear)| (v.as_slice(), *pattern, *thing, *clear, true)));
        for (bytes, pattern, thing, needs_a_clear_typo, sounded) in all {
            if !is_latin_alias(bytes) {
                continue;
            }
            let eligible = bytes.iter().filter(|b| b.is_ascii_lowercase()).count() >= MIN_FUZZY_LETTERS && (thing || !has_short_word(bytes));
            let index = u32::try_from(entries.len()).expect("fewer than 2^32 aliases");
            let start = u32::try_from(text.len()).expect("alias text under 4 GiB");
            text.extend_from_slice(bytes);
            let end = u32::try_from(text.len()).expect("alias text under 4 GiB");
            entries.push(AliasEntry { start, end, pattern, eligible, thing, needs_a_clear_typo, sounded });
            let whole = poly_hash(bytes);
            keyed.push((whole, index));
            if !eligible {
                continue;
            }
            min_len = min_len.min(bytes.len());
            max_len = max_len.max(bytes.len());
            extend_powers(&mut powers, bytes.len() + 3);
            for_each_deletion(bytes, whole, &powers, |_, key| keyed.push((key, index)));
            if let (Some(first), Some(last)) = (bytes.iter().position(|&b| b == b' '), bytes.iter().rposition(|&b| b == b' ')) {
                first_words.insert(poly_hash(&bytes[..first]));
                last_words.insert(poly_hash(&bytes[last + 1..]));
            }
        }
        keyed.sort_unstable();
        keyed.dedup();
        let mut keys = KeyMap::default();
        keys.reserve(keyed.len());
        let mut postings = Vec::with_capacity(keyed.len());
        for group in keyed.chunk_by(|x, y| x.0 == y.0) {
            let start = u32::try_from(postings.len()).expect("fewer than 2^32 keys");
            postings.extend(group.iter().map(|&(_, index)| index));
            keys.insert(group[0].0, (start, start + group.len() as u32));
        }
        if max_len == 0 {
            min_len = 0;
        }
        FuzzyMatcher { text, entries, keys, postings, first_words, last_words, powers, min_len, max_len, common }
    }

    /// How many aliases can match fuzzily.
    pub fn eligible_count(&self) -> usize {
        self.entries.iter().filter(|e| e.eligible).count()
    }

    /// Fuzzy hits in an already normalised message, as (byte start, byte end, pattern id), in
    /// order of position, then id. Tokens overlapping a `covered` byte span are skipped.
    pub fn find(&self, normalized: &str, covered: &[(usize, usize)]) -> Vec<(usize, usize, u32)> {
        let mut hits = Vec::new();
        if self.max_len == 0 {
            return hits;
        }
        let bytes = normalized.as_bytes();
        // No candidate longer than this can be one edit (or "-es") from an eligible alias.
        let longest = self.max_len + 2;
        let mut prev: Option<Token> = None;
        let mut i = 0;
        while i < bytes.len() {
            if !is_token_byte(bytes[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && is_token_byte(bytes[i]) {
                i += 1;
            }
            let end = i;
            if end - start > longest || !stands_alone(normalized, start, end) || overlaps(covered, start, end) {
                prev = None;
                continue;
            }
            let word = &bytes[start..end];
            let hash = poly_hash(word);
            let token = Token { start, end, hash, common: word.len() >= 4 && self.common.contains(word, hash) };
            self.candidate(
                &Candidate { start, end, text: word, hash, space: None, word_hashes: [hash, hash], common: [token.common, token.common] },
                &mut hits,
            );
            if let Some(p) = prev {
                if p.end + 1 == start && bytes[p.end] == b' ' && end - p.start <= longest {
                    let text = &bytes[p.start..end];
                    let hash = p.hash.wrapping_mul(BASE).wrapping_add(u64::from(b' ')).wrapping_mul(self.powers[word.len()]).wrapping_add(token.hash);
                    debug_assert_eq!(hash, poly_hash(text));
                    self.candidate(
                        &Candidate {
                            start: p.start,
                            end,
                            text,
                            hash,
                            space: Some(p.end - p.start),
                            word_hashes: [p.hash, token.hash],
                            common: [p.common, token.common],
                        },
                        &mut hits,
                    );
                }
            }
            prev = Some(token);
        }
        resolve_overlaps(&mut hits);
        hits
    }

    fn alias(&self, entry: &AliasEntry) -> &[u8] {
        &self.text[entry.start as usize..entry.end as usize]
    }

    fn posting(&self, key: u64) -> &[u32] {
        self.keys.get(&key).map_or(&[], |&(s, e)| &self.postings[s as usize..e as usize])
    }

    /// Every alias one edit from `c`, pushed to `hits`.
    fn candidate(&self, c: &Candidate, hits: &mut Vec<(usize, usize, u32)>) {
        let text = c.text;
        let n = text.len();
        if text[0].is_ascii_digit() || n + 1 < self.min_len || n > self.max_len + 2 {
            return;
        }
        let own = self.posting(c.hash);
        let equal = || own.iter().map(|&e| &self.entries[e as usize]).filter(|entry| self.alias(entry) == text);
        if equal().next().is_some() {
            // A word the taxonomy knows is no typo; one spelt as an alias sounds is that alias.
            if equal().all(|entry| entry.sounded) {
                hits.extend(equal().filter(|entry| entry.eligible).map(|entry| (c.start, c.end, entry.pattern)));
            }
            return;
        }
        // Which deletion keys can lead to an accepted hit. A common word as a single token can
        // only be a plural ("laptops": the alias is the token less its last byte). A pair reaches
        // a one-word alias only by losing its space, and a multi-word one only if one of its
        // words is exact.
        let all = match c.space {
            None => !c.common[0],
            Some(_) => self.first_words.contains(&c.word_hashes[0]) || self.last_words.contains(&c.word_hashes[1]),
        };
        for &e in own {
            self.verify(c, e, hits);
        }
        for_each_deletion(text, c.hash, &self.powers, |i, key| {
            if all || Some(i) == c.space || (c.space.is_none() && i == n - 1 && text[i] == b's') {
                for &e in self.posting(key) {
                    self.verify(c, e, hits);
                }
            }
        });
        if n > 2 && text.ends_with(b"es") {
            let stem = &text[..n - 2];
            for &e in self.posting(poly_hash(stem)) {
                let entry = &self.entries[e as usize];
                let alias = self.alias(entry);
                if entry.eligible && alias == stem && takes_es_plural(alias) && !has_digit(last_word(alias)) {
                    hits.push((c.start, c.end, entry.pattern));
                }
            }
        }
    }

    fn verify(&self, c: &Candidate, e: u32, hits: &mut Vec<(usize, usize, u32)>) {
        let entry = &self.entries[e as usize];
        let alias = self.alias(entry);
        // Two letters swapped is a slip of the fingers on the word meant ("bookei" is "bookie"
        // though one letter from "booked"); another edit may as well be a misspelling of a common
        // word, and then it is read as that word.
        let rival = || !matches!(single_edit(c.text, alias), Some(Edit::Transpose(_))) && self.common.near(c.text, alias);
        if entry.eligible && accepts(c, alias, entry.thing) && !(entry.needs_a_clear_typo && c.space.is_none() && rival()) {
            hits.push((c.start, c.end, entry.pattern));
        }
    }
}

/// Whether the one edit from candidate to alias is a typo these rules accept.
fn accepts(c: &Candidate, alias: &[u8], thing: bool) -> bool {
    let a = c.text;
    let Some(edit) = single_edit(a, alias) else {
        return false;
    };
    // The alias' word the edit lands in: a short one is never a typo's.
    let edited = match edit {
        Edit::Substitute(p) | Edit::Transpose(p) | Edit::Missing(p) => word_at(alias, p),
        Edit::Extra(p) => word_at(alias, gap_byte(alias, p)),
    };
    if edited.len() < MIN_EDITED_WORD
        && !has_digit(edited)
        && !matches!(edit, Edit::Extra(p) if a[p] == b' ')
        && !matches!(edit, Edit::Missing(p) if alias[p] == b' ')
    {
        return false;
    }
    // The edited word (holding byte `p` of the candidate) may not be a common word, except a
    // long one in a pair whose other word is exact, when the alias names a thing.
    let common_at = |p: usize| c.common_at(p) && !(thing && c.space.is_some() && word_at(a, p).len() >= MIN_FUZZY_LETTERS);
    match edit {
        Edit::Substitute(p) | Edit::Transpose(p) => {
            let (x, y) = if let Edit::Substitute(_) = edit { (a[p], alias[p]) } else { (a[p], a[p + 1]) };
            if [x, y].iter().any(|&b| b == b' ' || b.is_ascii_digit()) {
                return false;
            }
            !has_digit(word_at(a, p)) && !has_digit(word_at(alias, p)) && !common_at(p)
        }
        Edit::Extra(p) => {
            let extra = a[p];
            if extra == b' ' {
                // Split words: "lap top", "head phones".
                return true;
            }
            if extra.is_ascii_digit() || has_digit(word_at(a, p)) || has_digit(word_at(alias, gap_byte(alias, p))) {
                return false;
            }
            // The alias plus "s": a plural, even of a common word.
            (p == a.len() - 1 && extra == b's') || !common_at(p)
        }
        Edit::Missing(p) => {
            let missing = alias[p];
            let at = gap_byte(a, p);
            if missing == b' ' {
                // Joined words: "airpodspro" for "airpods pro", but not "carpet" for "car pet".
                return !c.common_at(at);
            }
            !missing.is_ascii_digit() && !has_digit(word_at(alias, p)) && !has_digit(word_at(a, at)) && !common_at(at)
        }
    }
}

/// The edit turning `a` into `b` when their optimal string alignment distance is exactly 1.
/// With `p` the length of their common prefix, the one edit can always be placed at `p`.
fn single_edit(a: &[u8], b: &[u8]) -> Option<Edit> {
    let p = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    if a.len() == b.len() {
        if p == a.len() {
            None
        } else if a[p + 1..] == b[p + 1..] {
            Some(Edit::Substitute(p))
        } else if p + 1 < a.len() && a[p] == b[p + 1] && a[p + 1] == b[p] && a[p + 2..] == b[p + 2..] {
            Some(Edit::Transpose(p))
        } else {
            None
        }
    } else if a.len() == b.len() + 1 {
        (a[p + 1..] == b[p..]).then_some(Edit::Extra(p))
    } else if a.len() + 1 == b.len() {
        (a[p..] == b[p + 1..]).then_some(Edit::Missing(p))
    } else {
        None
    }
}

/// A byte of the word at a gap before byte `p` of `s`: the word the gap is in, or ends.
fn gap_byte(s: &[u8], p: usize) -> usize {
    if p < s.len() && s[p] != b' ' {
        p
    } else {
        p - 1
    }
}

/// The space-delimited word holding byte `p`.
fn word_at(s: &[u8], p: usize) -> &[u8] {
    let start = s[..p].iter().rposition(|&b| b == b' ').map_or(0, |i| i + 1);
    let end = s[p..].iter().position(|&b| b == b' ').map_or(s.len(), |i| p + i);
    &s[start..end]
}

fn last_word(s: &[u8]) -> &[u8] {
    s.iter().rposition(|&b| b == b' ').map_or(s, |i| &s[i + 1..])
}

fn has_digit(word: &[u8]) -> bool {
    word.iter().any(u8::is_ascii_digit)
}

/// English adds "-es" after a sibilant: "watches", "boxes", "glasses", "brushes".
fn takes_es_plural(alias: &[u8]) -> bool {
    alias.ends_with(b"s") || alias.ends_with(b"x") || alias.ends_with(b"z") || alias.ends_with(b"ch") || alias.ends_with(b"sh")
}

/// Lower-case ASCII letters, digits and single spaces, neither leading nor trailing: the only
/// aliases a candidate (built from `[a-z0-9]` tokens and single spaces) can equal or approach.
fn is_latin_alias(bytes: &[u8]) -> bool {
    !bytes.is_empty()
        && bytes.iter().all(|&b| is_token_byte(b) || b == b' ')
        && bytes[0] != b' '
        && bytes[bytes.len() - 1] != b' '
        && !bytes.windows(2).any(|w| w == b"  ")
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// Whether the run `[start, end)` has neither a letter or digit (of any script) nor Hangul
/// right before or after it.
fn stands_alone(text: &str, start: usize, end: usize) -> bool {
    let free = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || is_hangul(c)));
    free(text[..start].chars().next_back()) && free(text[end..].chars().next())
}

/// Hangul syllables, jamo and compatibility jamo (the ranges of `text_match`).
fn is_hangul(c: char) -> bool {
    matches!(c as u32, 0xAC00..=0xD7A3 | 0x1100..=0x11FF | 0x3130..=0x318F | 0xA960..=0xA97F | 0xD7B0..=0xD7FF)
}

fn overlaps(covered: &[(usize, usize)], start: usize, end: usize) -> bool {
    covered.iter().any(|&(s, e)| start < e && s < end)
}

/// Leftmost-longest, as the exact matcher: among overlapping spans the one starting first, then
/// the longest, keeping every alias found at it.
fn resolve_overlaps(hits: &mut Vec<(usize, usize, u32)>) {
    hits.sort_unstable_by(|x, y| x.0.cmp(&y.0).then(y.1.cmp(&x.1)).then(x.2.cmp(&y.2)));
    hits.dedup();
    let mut chosen = (0, 0);
    hits.retain(|&(start, end, _)| {
        if (start, end) == chosen {
            true
        } else if start >= chosen.1 {
            chosen = (start, end);
            true
        } else {
            false
        }
    });
}

fn poly_hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0u64, |h, &b| h.wrapping_mul(BASE).wrapping_add(u64::from(b)))
}

fn extend_powers(powers: &mut Vec<u64>, len: usize) {
    while powers.len() < len {
        let last = powers[powers.len() - 1];
        powers.push(last.wrapping_mul(BASE));
    }
}

/// Calls `f(i, hash of s with byte i deleted)` once per distinct result: in a run of equal
/// bytes only for the last one. `whole` is `poly_hash(s)`; `powers` reaches `s.len()`.
fn for_each_deletion(s: &[u8], whole: u64, powers: &[u64], mut f: impl FnMut(usize, u64)) {
    let n = s.len();
    let mut prefix = 0u64;
    for i in 0..n {
        let next = prefix.wrapping_mul(BASE).wrapping_add(u64::from(s[i]));
        if i + 1 == n || s[i + 1] != s[i] {
            // whole = next·B^(n-1-i) + suffix, and the deletion is prefix·B^(n-1-i) + suffix.
            f(i, whole.wrapping_sub(next.wrapping_sub(prefix).wrapping_mul(powers[n - 1 - i])));
        }
        prefix = next;
    }
}

/// The stoplist, parsed once per process.
struct CommonWords {
    words: KeyMap<&'static str>,
    /// Words of 1 to 3 letters, apart: no typo rule reads them.
    short: KeyMap<&'static str>,
}

impl CommonWords {
    fn contains(&self, word: &[u8], hash: u64) -> bool {
        self.words.get(&hash).is_some_and(|w| w.as_bytes() == word)
    }

    /// Whether `token` is one edit (a letter deleted, inserted, changed, or two swapped) from a
    /// common word other than `alias`: then it is likelier that word misspelt than the alias.
    /// "codeing" is "coding" before it is "codeine". Asked only of a sensitive phrase's and an
    /// accessory's typos (a thing's, "hotle", and another cue's, "wich one", keep their reading):
    /// a few hundred lookups, on a rare hit.
    fn near(&self, token: &[u8], alias: &[u8]) -> bool {
        let mut variant: Vec<u8> = Vec::with_capacity(token.len() + 1);
        let rival = |v: &[u8]| v != alias && v.len() >= 4 && self.contains(v, poly_hash(v));
        for i in 0..token.len() {
            variant.clear();
            variant.extend_from_slice(&token[..i]);
            variant.extend_from_slice(&token[i + 1..]);
            if rival(&variant) {
                return true;
            }
            if i + 1 < token.len() {
                variant.clear();
                variant.extend_from_slice(token);
                variant.swap(i, i + 1);
                if rival(&variant) {
                    return true;
                }
            }
        }
        for i in 0..=token.len() {
            for letter in b'a'..=b'z' {
                variant.clear();
                variant.extend_from_slice(&token[..i]);
                variant.push(letter);
                variant.extend_from_slice(&token[i..]);
                if rival(&variant) {
                    return true;
                }
                if i < token.len() && token[i] != letter {
                    variant.clear();
                    variant.extend_from_slice(token);
                    variant[i] = letter;
                    if rival(&variant) {
                        return true;
                    }
                }
            }
        }
        false
    }
}

/// Whether `word` (lower-case ASCII) is a common English word, of any length.
pub(crate) fn is_english_word(word: &str) -> bool {
    let (words, hash) = (common_words(), poly_hash(word.as_bytes()));
    words.contains(word.as_bytes(), hash) || words.short.get(&hash).is_some_and(|w| *w == word)
}

fn common_words() -> &'static CommonWords {
    static WORDS: OnceLock<CommonWords> = OnceLock::new();
    WORDS.get_or_init(|| {
        let by_hash = |text: &'static str| {
            let mut words = KeyMap::default();
            for word in listed_words(text) {
                let previous = words.insert(poly_hash(word.as_bytes()), word);
                // A test checks that the shipped lists have no two words with one hash.
                debug_assert!(previous.is_none(), "hash collision in a common-word list: {word}");
            }
            words
        };
        CommonWords { words: by_hash(COMMON_WORDS_TEXT), short: by_hash(SHORT_WORDS_TEXT) }
    })
}

/// The words of a word list: one a line, '#' starting a comment line.
fn listed_words(text: &'static str) -> impl Iterator<Item = &'static str> {
    text.lines().map(str::trim).filter(|w| !w.is_empty() && !w.starts_with('#'))
}

pub(crate) type KeyMap<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;
type KeySet = HashSet<u64, BuildHasherDefault<KeyHasher>>;

/// The keys are already hashes: only mixed, so that both the high bits (the table's tags) and
/// the low bits (its buckets) spread.
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3);
        }
    }

    fn write_u64(&mut self, x: u64) {
        // The MurmurHash3 finaliser.
        let mut x = x ^ self.0;
        x ^= x >> 33;
        x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        x ^= x >> 33;
        x = x.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
        x ^= x >> 33;
        self.0 = x;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CATALOG: &[&str] = &[
        "laptop",
        "iphone",
        "iphone 16",
        "headphones",
        "earbuds",
        "antivirus",
        "airpods",
        "airpods pro",
        "macbook",
        "macbook pro",
        "hotel",
        "train",
        "paris",
        "apple",
        "watch",
        "speaker",
        "galaxy s25",
        "ipad",
        "sony",
        "car pet",
        "제주도",
        "wh-1000xm5",
    ];

    /// The catalog's aliases name things (categories and products).
    fn matcher(aliases: &[&str]) -> FuzzyMatcher {
        FuzzyMatcher::with_things(aliases.iter().enumerate().map(|(i, a)| (*a, i as u32, true)))
    }

    /// The aliases found in `text`, nothing covered.
    fn found(text: &str) -> Vec<&'static str> {
        matcher(CATALOG).find(text, &[]).iter().map(|&(_, _, id)| CATALOG[id as usize]).collect()
    }

    #[test]
    fn one_typo_finds_the_alias() {
        // Substitution, insertion, deletion, transposition.
        assert_eq!(found("is this labtop any good"), vec!["laptop"]);
        assert_eq!(found("iphoone"), vec!["iphone"]);
        assert_eq!(found("headphnes for running"), vec!["headphones"]);
        assert_eq!(found("the new macbok"), vec!["macbook"]);
        assert_eq!(found("one airpod is lost"), vec!["airpods"]);
        assert_eq!(found("iphnoe or pixel?"), vec!["iphone"]);
        assert_eq!(found("best antivirsu"), vec!["antivirus"]);
    }

    #[test]
    fn an_alias_spelt_as_it_sounds_is_the_alias() {
        // "f" for "ph", exactly or one typo further ("headfones" is a plural of it).
        assert_eq!(found("good headfone for sleeping"), vec!["headphones"]);
        assert_eq!(found("wich headfones"), vec!["headphones"]);
        assert_eq!(found("ifone or pixel?"), vec!["iphone"]);
        // Not when the sounded alias is short, and never over an alias written so.
        let m = matcher(&["phone", "graph paper", "headphone", "hedfone"]);
        assert!(m.find("a new fone", &[]).is_empty());
        assert_eq!(m.find("graf paper for math", &[]), vec![(0, 10, 1)]);
        assert!(m.find("hedfone", &[]).is_empty());
    }

    #[test]
    fn split_and_joined_words() {
        assert_eq!(found("a lap top for school"), vec!["laptop"]);
        assert_eq!(found("head phones"), vec!["headphones"]);
        assert_eq!(found("anti virus software"), vec!["antivirus"]);
        assert_eq!(found("ear buds"), vec!["earbuds"]);
        assert_eq!(found("airpodspro case"), vec!["airpods pro"]);
        // Joining words keeps the digits intact: not a different model.
        assert_eq!(found("iphone16"), vec!["iphone 16"]);
    }

    #[test]
    fn a_misspelt_common_word_is_not_a_sensitive_words_typo() {
        let m = FuzzyMatcher::with_kinds([("codeine", 0, false, true), ("suicide", 1, false, true), ("laptop", 2, true, false)]);
        // One edit from "coding" as well as from "codeine": the coder's word, not the medicine.
        assert!(m.find("a laptop for codeing", &[]).is_empty());
        // A typo of the sensitive word alone still reads as it.
        assert_eq!(m.find("suicdie", &[]), [(0, 7, 1)]);
        assert_eq!(m.find("codiene", &[]), [(0, 7, 0)]);
        // Two letters swapped stay the sensitive word's typo, whatever common word is one edit away.
        let bookie = FuzzyMatcher::with_kinds([("bookie", 0, false, true)]);
        assert_eq!(bookie.find("bookei", &[]), [(0, 6, 0)]);
        // Unmarked, the same alias keeps the typo (a thing's or a cue's typos are read as before).
        assert_eq!(FuzzyMatcher::new([("codeine", 0)]).find("codeing", &[]), [(0, 7, 0)]);
    }

    #[test]
    fn plurals_are_hits_even_when_common_words() {
        assert_eq!(found("laptops under $1000"), vec!["laptop"]);
        assert_eq!(found("cheap hotels"), vec!["hotel"]);
        assert_eq!(found("smart watches"), vec!["watch"]);
        assert_eq!(found("speakers"), vec!["speaker"]);
    }

    #[test]
    fn two_words_with_one_typo() {
        assert_eq!(found("iphnoe 16 deals"), vec!["iphone 16"]);
        // Leftmost-longest: the pair wins over its first word alone.
        assert_eq!(found("macbok pro vs air"), vec!["macbook pro"]);
        assert_eq!(found("airpdos pro"), vec!["airpods pro"]);
    }

    #[test]
    fn a_short_word_is_written_exactly() {
        // The typo is in the long word; the short one ("pro", "tab", "air") is exact.
        assert!(found("airpods por").is_empty());
        assert!(found("macbook pri").is_empty());
        let m = FuzzyMatcher::with_things([("galaxy tab", 0, true), ("ipad air", 1, true), ("how much", 2, false)]);
        let ids = |text: &str| m.find(text, &[]).iter().map(|&(_, _, id)| id).collect::<Vec<_>>();
        assert_eq!(ids("galxy tab or ipda air"), vec![0, 1]);
        assert!(ids("galaxy tax").is_empty());
        assert!(ids("ipad aim").is_empty());
        // An alias with a short word that names no thing (a cue) is never found by a typo.
        assert!(ids("how mucj").is_empty());
    }

    #[test]
    fn real_words_are_not_typos() {
        assert!(found("use your brain").is_empty(), "train");
        assert!(found("two pairs of socks").is_empty(), "paris");
        assert!(found("how to apply").is_empty(), "apple");
        assert!(found("a cheap motel").is_empty(), "hotel");
        assert!(found("white sneaker").is_empty(), "speaker");
        assert!(found("match the colors").is_empty(), "watch");
        // Joining two words into a common one: "carpet" is not "car pet".
        assert!(found("a new carpet").is_empty());
    }

    #[test]
    fn a_thing_named_in_two_words_may_have_a_common_word_as_its_typo() {
        let aliases = [("password manager", 0, true), ("already booked", 1, false), ("note taking", 2, true), ("train", 3, true)];
        let m = FuzzyMatcher::with_things(aliases.iter().copied());
        assert_eq!(m.find("password manger for my family", &[]), vec![(0, 15, 0)]);
        // Not a cue's words, not a word under five letters, not a single word.
        assert!(m.find("i already looked at it", &[]).is_empty());
        assert!(m.find("nose taking", &[]).is_empty());
        assert!(m.find("use your brain", &[]).is_empty());
        // Without the mark, the common word is never a typo.
        assert!(FuzzyMatcher::new([("password manager", 0)]).find("password manger", &[]).is_empty());
    }

    #[test]
    fn short_aliases_never_match_fuzzily() {
        assert!(found("ipda mini").is_empty());
        assert!(found("ipads").is_empty());
        assert!(found("sonny").is_empty());
    }

    #[test]
    fn digits_must_match() {
        assert!(found("iphone 15").is_empty());
        assert!(found("iphone 166").is_empty());
        assert!(found("iphone 16s").is_empty());
        assert!(found("galaxy s24").is_empty());
        assert!(found("galaxy a25").is_empty());
        assert!(found("1phone").is_empty());
        assert!(found("16 pro").is_empty());
        assert!(found("2024").is_empty());
    }

    #[test]
    fn exact_matches_and_known_aliases_are_not_fuzzy_hits() {
        assert!(found("laptop").is_empty());
        assert!(found("iphone 16").is_empty());
        assert!(found("airpods pro").is_empty());
        // A word the taxonomy knows is never a typo of another alias.
        let m = matcher(&["laptop", "labtop"]);
        assert!(m.find("labtop", &[]).is_empty());
    }

    #[test]
    fn covered_tokens_are_skipped() {
        let m = matcher(CATALOG);
        assert_eq!(m.find("my labtop", &[(3, 9)]), vec![]);
        assert_eq!(m.find("my labtop", &[(5, 6)]), vec![]);
        assert_eq!(m.find("my labtop", &[(0, 2)]), vec![(3, 9, 0)]);
        // A pair is skipped when either of its words is covered.
        assert_eq!(m.find("lap top", &[(4, 7)]), vec![]);
    }

    #[test]
    fn hangul_and_other_letters_are_word_characters() {
        assert!(found("labtop을 추천해줘").is_empty());
        assert!(found("노트북labtop").is_empty());
        assert!(found("labtopé").is_empty());
        assert!(found("제주도 호텔").is_empty());
        // Byte offsets count the Korean before the typo.
        let m = matcher(CATALOG);
        assert_eq!(m.find("제주 labtop 추천", &[]), vec![(7, 13, 0)]);
        assert_eq!(m.find("(labtop)", &[]), vec![(1, 7, 0)]);
    }

    #[test]
    fn spaces_are_only_inserted_or_deleted() {
        assert!(found("la top").is_empty());
        assert!(found("lapto p").iter().all(|&a| a == "laptop"));
    }

    #[test]
    fn every_alias_at_the_chosen_span_is_reported() {
        // One alias text under two ids, and another alias one edit away.
        let m = FuzzyMatcher::new([("laptop", 7), ("laptop", 3), ("labtops", 9)]);
        assert_eq!(m.find("labtop", &[]), vec![(0, 6, 3), (0, 6, 7), (0, 6, 9)]);
    }

    /// Optimal string alignment distance, by the textbook dynamic programme.
    fn osa(a: &[u8], b: &[u8]) -> usize {
        let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for (i, row) in d.iter_mut().enumerate() {
            row[0] = i;
        }
        for (j, cell) in d[0].iter_mut().enumerate() {
            *cell = j;
        }
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
                }
            }
        }
        d[a.len()][b.len()]
    }

    fn all_strings(alphabet: &[u8], max_len: usize) -> Vec<Vec<u8>> {
        let mut out = vec![Vec::new()];
        let mut level = vec![Vec::new()];
        for _ in 0..max_len {
            level = level.iter().flat_map(|s: &Vec<u8>| alphabet.iter().map(move |&c| [s.as_slice(), &[c]].concat())).collect();
            out.extend(level.iter().cloned());
        }
        out
    }

    #[test]
    fn single_edit_is_exactly_osa_distance_one() {
        let strings = all_strings(b"abc", 5);
        for a in &strings {
            for b in &strings {
                let edit = single_edit(a, b);
                assert_eq!(edit.is_some(), osa(a, b) == 1, "{:?} {:?}", String::from_utf8_lossy(a), String::from_utf8_lossy(b));
                // Applying the edit to `a` gives `b`.
                if let Some(edit) = edit {
                    let mut s = a.clone();
                    match edit {
                        Edit::Substitute(p) => s[p] = b[p],
                        Edit::Transpose(p) => s.swap(p, p + 1),
                        Edit::Extra(p) => {
                            s.remove(p);
                        }
                        Edit::Missing(p) => s.insert(p, b[p]),
                    }
                    assert_eq!(&s, b);
                }
            }
        }
    }

    #[test]
    fn deletion_hashes_are_the_hashes_of_the_deletions() {
        let mut powers = vec![1];
        extend_powers(&mut powers, 40);
        for s in ["laptop", "book", "aab", "airpods pro", "x", "mississippi"] {
            let s = s.as_bytes();
            let mut seen = Vec::new();
            for_each_deletion(s, poly_hash(s), &powers, |i, key| {
                let deleted = [&s[..i], &s[i + 1..]].concat();
                assert_eq!(key, poly_hash(&deleted));
                seen.push(deleted);
            });
            let mut all: Vec<Vec<u8>> = (0..s.len()).map(|i| [&s[..i], &s[i + 1..]].concat()).collect();
            all.dedup();
            assert_eq!(seen, all, "one call per distinct deletion");
        }
    }

    #[test]
    fn the_common_word_list_loads_whole() {
        let listed = |text: &'static str| listed_words(text).count();
        let words = common_words();
        // No two words share a hash (a collision would drop one).
        assert_eq!(words.words.len(), listed(COMMON_WORDS_TEXT));
        assert_eq!(words.short.len(), listed(SHORT_WORDS_TEXT));
        assert!(listed(COMMON_WORDS_TEXT) > 10_000 && listed(SHORT_WORDS_TEXT) > 300);
        for w in ["a", "to", "lot", "in", "hero"] {
            assert!(is_english_word(w), "{w}");
        }
        for w in ["brain", "train", "apply", "pairs", "motel", "sneaker", "phones"] {
            assert!(words.contains(w.as_bytes(), poly_hash(w.as_bytes())), "{w}");
        }
        for w in ["labtop", "iphone", "headphone", "earbud", "airpod"] {
            assert!(!words.contains(w.as_bytes(), poly_hash(w.as_bytes())), "{w}");
        }
        assert!(words.words.values().all(|w| w.len() >= 4 && w.bytes().all(|b| b.is_ascii_lowercase())));
    }

    /// `find` without the index or its shortcuts: every candidate against every alias.
    fn naive_find(written: &[(&str, u32)], text: &str, covered: &[(usize, usize)]) -> Vec<(usize, usize, u32)> {
        let common = common_words();
        let bytes = text.as_bytes();
        // Each alias with "ph", also as it sounds, under the same two conditions as the index's.
        let sounded: Vec<(String, u32)> = written
            .iter()
            .filter(|(a, _)| is_latin_alias(a.as_bytes()) && a.contains("ph"))
            .filter_map(|&(a, id)| {
                let v = a.replace("ph", "f");
                let long_enough = v.bytes().filter(u8::is_ascii_lowercase).count() >= MIN_FUZZY_LETTERS;
                let turns_common = a.split(' ').zip(v.split(' ')).any(|(w, x)| w != x && common.contains(x.as_bytes(), poly_hash(x.as_bytes())));
                (long_enough && !turns_common).then_some((v, id))
            })
            .collect();
        let mut all: Vec<(&str, u32)> = written.to_vec();
        all.extend(sounded.iter().map(|(v, id)| (v.as_str(), *id)));
        let aliases = all.as_slice();
        let eligible =
            |a: &str| is_latin_alias(a.as_bytes()) && a.bytes().filter(u8::is_ascii_lowercase).count() >= MIN_FUZZY_LETTERS && !has_short_word(a.as_bytes());
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if !is_token_byte(bytes[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && is_token_byte(bytes[i]) {
                i += 1;
            }
            if stands_alone(text, start, i) && !overlaps(covered, start, i) {
                tokens.push((start, i));
            }
        }
        let mut spans: Vec<(usize, usize, Option<usize>)> = tokens.iter().map(|&(s, e)| (s, e, None)).collect();
        for w in tokens.windows(2) {
            if w[0].1 + 1 == w[1].0 && bytes[w[0].1] == b' ' {
                spans.push((w[0].0, w[1].1, Some(w[0].1 - w[0].0)));
            }
        }
        let mut hits = Vec::new();
        for (start, end, space) in spans {
            let t = &bytes[start..end];
            if t[0].is_ascii_digit() || written.iter().any(|(a, _)| a.as_bytes() == t) {
                continue;
            }
            if sounded.iter().any(|(v, _)| v.as_bytes() == t) {
                hits.extend(sounded.iter().filter(|(v, _)| v.as_bytes() == t && eligible(v)).map(|&(_, id)| (start, end, id)));
                continue;
            }
            let words: Vec<&[u8]> = t.split(|&b| b == b' ').collect();
            let is_common = |w: &[u8]| common.contains(w, poly_hash(w));
            let c = Candidate { start, end, text: t, hash: 0, space, word_hashes: [0, 0], common: [is_common(words[0]), is_common(words[words.len() - 1])] };
            for &(alias, id) in aliases {
                let a = alias.as_bytes();
                if !eligible(alias) {
                    continue;
                }
                let es = t.len() == a.len() + 2 && t.starts_with(a) && t.ends_with(b"es") && takes_es_plural(a) && !has_digit(last_word(a));
                if accepts(&c, a, false) || es {
                    hits.push((start, end, id));
                }
            }
        }
        resolve_overlaps(&mut hits);
        hits
    }

    #[test]
    fn the_index_finds_what_brute_force_finds() {
        // Small xorshift: reproducible without a rand crate.
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let aliases: Vec<(&str, u32)> =
            CATALOG.iter().chain(&["airfare", "glass", "box", "ab cd ef", "a1b2c", "phones", "phone"]).enumerate().map(|(i, a)| (*a, i as u32)).collect();
        let words: Vec<&str> = aliases.iter().map(|(a, _)| *a).chain(["brain", "pairs", "the", "my", "for", "16", "s25", "top", "lap", "es", "s"]).collect();
        let m = FuzzyMatcher::new(aliases.iter().copied());
        let mut with_hits = 0;
        for _ in 0..20_000 {
            let mut text = String::new();
            for _ in 0..1 + next(5) {
                let mut w: Vec<u8> = words[next(words.len())].bytes().collect();
                // One or two random edits over a small alphabet, so that many land one edit away.
                for _ in 0..next(3) {
                    let alphabet = b"aeiopst 16";
                    let c = alphabet[next(alphabet.len())];
                    let p = next(w.len() + 1);
                    match next(4) {
                        0 if p < w.len() => w[p] = c,
                        1 => w.insert(p, c),
                        2 if p < w.len() => {
                            w.remove(p);
                        }
                        3 if p + 1 < w.len() => w.swap(p, p + 1),
                        _ => {}
                    }
                }
                text.push_str(&String::from_utf8_lossy(&w));
                text.push_str([" ", " ", " ", ", ", "을 ", "-"][next(6)]);
            }
            let covered: Vec<(usize, usize)> = if next(4) == 0 {
                let s = next(text.len() + 1);
                vec![(s, s + next(6))]
            } else {
                vec![]
            };
            let hits = m.find(&text, &covered);
            assert_eq!(hits, naive_find(&aliases, &text, &covered), "{text:?} {covered:?}");
            with_hits += usize::from(!hits.is_empty());
        }
        // The random edits land one typo from an alias often enough to test something.
        assert!(with_hits > 3_000, "{with_hits} of 20000 messages with hits");
    }
}
