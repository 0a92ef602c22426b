//! The turn as a person reads it past the spellings that hide a sensitive word from a plain
//! match: a hyphen, dot or emoji inside the word ("sui-cidal", "s.u.i.c.i.d.e", "공-황-장-애",
//! "우🌧울증"), its letters spaced out ("d r u g s", "도 박"), a digit for a letter ("k1lling",
//! "p0rn"), an accent ("dépression"), a letter of another script that looks the same (Cyrillic
//! "саsino", Greek "οverdose": UTS #39's confusable skeleton, from the `unicode-security`
//! crate of the unicode-rs project). The reading runs the same matcher over this text for
//! sensitive topics only (`reading::read`), so every boundary rule that keeps ordinary words
//! from being read as sensitive ones holds here too; folding only ever joins or unmasks the
//! letters of one word, never the end of one word and the start of the next ("제주도 박물관"
//! stays two words: only runs of single letters are joined across spaces).
use crate::korean_words::is_syllable;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// Marks that hide nothing when dropped from inside a word: hyphens, dots, underscores, stars,
/// middle dots, slashes, tildes, pipes and pluses (not an apostrophe: "here's" is a word).
fn is_masking_mark(c: char) -> bool {
    matches!(c, '-' | '.' | '_' | '*' | '·' | '•' | '~' | '/' | '+' | '|' | '‐' | '‑' | '‒' | '⋅' | '∙')
        || (!c.is_ascii() && !is_syllable(c) && !c.is_alphanumeric() && !c.is_whitespace() && !is_combining_mark(c) && !is_sentence_end(c))
}

fn is_sentence_end(c: char) -> bool {
    matches!(c, '。' | '！' | '？' | '…' | '—' | '–' | '«' | '»' | '“' | '”' | '‘' | '’' | '「' | '」' | '『' | '』')
}

/// A digit written for the letter it looks like, between letters.
fn leet(c: char) -> Option<char> {
    Some(match c {
        '0' => 'o',
        '1' => 'i',
        '3' => 'e',
        '4' => 'a',
        '5' => 's',
        '7' => 't',
        '8' => 'b',
        '@' => 'a',
        '$' => 's',
        _ => return None,
    })
}

/// ASCII and Hangul syllables (most of what is read) are answered without Unicode's tables: a
/// table lookup costs tens of nanoseconds, and the masking test asks it several times per
/// character (on a 4,000-character Korean turn it was most of the core's time).
fn is_letter(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphabetic()
    } else {
        is_syllable(c) || c.is_alphabetic()
    }
}

/// A letter of another script read as the Latin letter it looks like, accents dropped: "а"
/// (Cyrillic) as "a", "ο" (Greek) as "o", "é" as "e". Hangul and letters with no Latin
/// look-alike stay as they are.
fn unmask_letter(c: char, out: &mut String) -> bool {
    if c.is_ascii() || is_syllable(c) {
        out.push(c);
        return false;
    }
    let whole = c.to_string();
    let mut bare = whole.nfd().filter(|&d| !is_combining_mark(d));
    if let (Some(base), None) = (bare.next(), bare.next()) {
        if base.is_ascii_alphabetic() {
            out.push(base.to_ascii_lowercase());
            return true;
        }
        let mut buf = [0; 4];
        let base_text: &str = base.encode_utf8(&mut buf);
        let mut skeleton = unicode_security::skeleton(base_text);
        if let (Some(latin), None) = (skeleton.next(), skeleton.next()) {
            if latin.is_ascii_alphabetic() {
                out.push(latin.to_ascii_lowercase());
                return true;
            }
        }
    }
    out.push(c);
    false
}

/// Per character: whether it is a digit written for a letter in a word that has such a digit
/// between two of its letters too ("4dd3r4ll", "s0m3"). That word is masked, so the digits at
/// its ends are letters as well; a word with digits only at its ends ("1000xm5", "4k", "s25")
/// is left as written. Linear: each word is read twice.
fn leet_words(chars: &[char]) -> Vec<bool> {
    let mut out = vec![false; chars.len()];
    let part = |c: char| is_letter(c) || leet(c).is_some();
    let mut start = 0;
    while start < chars.len() {
        if !part(chars[start]) {
            start += 1;
            continue;
        }
        let end = (start..chars.len()).find(|&j| !part(chars[j])).unwrap_or(chars.len());
        let word = &chars[start..end];
        let first_letter = word.iter().position(|&c| is_letter(c));
        let last_letter = word.iter().rposition(|&c| is_letter(c));
        if let (Some(a), Some(b)) = (first_letter, last_letter) {
            if word[a..b].iter().any(|&c| !is_letter(c)) {
                for (k, &c) in word.iter().enumerate() {
                    out[start + k] = !is_letter(c);
                }
            }
        }
        start = end;
    }
    out
}

/// Whether `chars[k]` is a letter standing alone between non-letters (or the ends). A letter that
/// masking marks join to another ("꼭 카.지.노": 카) is the start or end of a masked word, not
/// one of a run of spaced-out letters, which would join "꼭" to it and hide the word.
fn single_letter(chars: &[char], k: usize) -> bool {
    chars.get(k).is_some_and(|&c| is_letter(c))
        && (k == 0 || !(is_letter(chars[k - 1]) || marks_join(chars, k - 1, false)))
        && !chars.get(k + 1).is_some_and(|&c| is_letter(c))
        && !marks_join(chars, k + 1, true)
}

/// Whether a run of masking marks starts at `from` and reaches a letter, read forwards or
/// backwards. Linear in the run, which only `single_letter` asks and only beside a lone letter.
fn marks_join(chars: &[char], from: usize, forwards: bool) -> bool {
    let mut k = from;
    while chars.get(k).is_some_and(|&c| is_masking_mark(c)) {
        if forwards {
            k += 1;
        } else if k == 0 {
            return false;
        } else {
            k -= 1;
        }
        if chars.get(k).is_some_and(|&c| is_letter(c)) {
            return true;
        }
    }
    false
}

/// Whether anything in the turn masks a word: the test that lets an ordinary turn skip the copy.
fn masked(chars: &[char]) -> bool {
    (0..chars.len()).any(|i| {
        let c = chars[i];
        // Most of a turn is ASCII letters and Hangul syllables, which mask nothing themselves:
        // answered before any table is asked.
        if c.is_ascii_alphabetic() || is_syllable(c) {
            return false;
        }
        if c == ' ' {
            return i > 0 && single_letter(chars, i - 1) && single_letter(chars, i + 1);
        }
        // A combining mark, or a letter of another script.
        if !c.is_ascii() && (is_combining_mark(c) || is_letter(c)) {
            return true;
        }
        // A mark or a digit between two letters.
        (is_masking_mark(c) || leet(c).is_some())
            && i > 0
            && is_letter(chars[i - 1])
            && chars.get(i + 1).is_some_and(|&n| is_letter(n) || leet(n).is_some() || is_masking_mark(n))
    })
}

/// The turn unmasked, and where: byte ranges of the unmasked text that differ from the turn
/// (a letter read as another, `start < end`) and seams where something was dropped between two
/// letters (`start == end`).
#[derive(Debug)]
pub struct Unmasked {
    pub text: String,
    changes: Vec<(usize, usize)>,
}

impl Unmasked {
    /// Whether unmasking changed anything at all: a letter read as another, or a seam.
    pub fn changes_anything(&self) -> bool {
        !self.changes.is_empty()
    }

    /// Whether the span `start..end` of the unmasked text was masked in the turn: it holds a
    /// letter read as another, or a seam between two of its letters. A word that was written
    /// plainly was already read as it stands (with the negative contexts around it), and is not
    /// read again here: joining "casino royale" to an emoji and the next word must not make a
    /// bare "casino" of it.
    ///
    /// Changes are in order of position and do not overlap, so this is one binary search: the
    /// first change that ends after `start` is the only one that can lie inside the span.
    pub fn masked(&self, start: usize, end: usize) -> bool {
        let first = self.changes.partition_point(|&(_, b)| b <= start);
        self.changes.get(first).is_some_and(|&(a, _)| a < end)
    }
}

/// The turn unmasked, or `None` when there is nothing to unmask (the common case: one pass
/// over the characters, no copy of the text).
pub fn unmask(text: &str) -> Option<Unmasked> {
    let chars: Vec<char> = text.chars().collect();
    if !masked(&chars) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut changes = Vec::new();
    let letter = |c: char, out: &mut String, changes: &mut Vec<(usize, usize)>| {
        let at = out.len();
        if unmask_letter(c, out) {
            changes.push((at, out.len()));
        }
    };
    // The digits of a masked word are its letters for every rule below (a spaced-out run of
    // single letters must not take "n" of "c4n" for one).
    let leet_word = leet_words(&chars);
    let chars: Vec<char> = chars.iter().zip(&leet_word).map(|(&c, &w)| if w { leet(c).expect("a digit for a letter") } else { c }).collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if leet_word[i] {
            let at = out.len();
            out.push(c);
            changes.push((at, out.len()));
            i += 1;
            continue;
        }
        if is_combining_mark(c) {
            // Said of the letter before it: that letter is what changed.
            let before = out.chars().next_back().map_or(0, char::len_utf8);
            changes.push((out.len() - before, out.len()));
            i += 1;
            continue;
        }
        let after_letter = out.chars().next_back().is_some_and(is_letter);
        // A run of masking marks inside a word: dropped.
        if after_letter && is_masking_mark(c) {
            let end = (i..chars.len()).find(|&j| !is_masking_mark(chars[j])).unwrap_or(chars.len());
            if chars.get(end).is_some_and(|&n| is_letter(n)) {
                changes.push((out.len(), out.len()));
                i = end;
                continue;
            }
        }
        // Digits for letters inside a word ("k1lling", "p0rn").
        if after_letter && leet(c).is_some() {
            let end = (i..chars.len()).find(|&j| leet(chars[j]).is_none()).unwrap_or(chars.len());
            if chars.get(end).is_some_and(|&n| is_letter(n)) {
                let at = out.len();
                out.extend(chars[i..end].iter().filter_map(|&d| leet(d)));
                changes.push((at, out.len()));
                i = end;
                continue;
            }
        }
        // Letters spaced out one by one ("d r u g s", "도 박"): joined when at least two Hangul
        // syllables or three other letters stand alone in a row, one space apart.
        if single_letter(&chars, i) {
            let (mut j, mut end) = (i, i);
            let mut letters = Vec::new();
            while single_letter(&chars, j) {
                letters.push(chars[j]);
                end = j + 1;
                if chars.get(j + 1) != Some(&' ') {
                    break;
                }
                j += 2;
            }
            let hangul = is_syllable(letters[0]);
            let needed = if hangul { 2 } else { 3 };
            if letters.len() >= needed && letters.iter().all(|&l| is_syllable(l) == hangul) {
                for (k, l) in letters.into_iter().enumerate() {
                    if k > 0 {
                        changes.push((out.len(), out.len()));
                    }
                    letter(l, &mut out, &mut changes);
                }
                i = end;
                continue;
            }
        }
        letter(c, &mut out, &mut changes);
        i += 1;
    }
    Some(Unmasked { text: out, changes })
}

#[cfg(test)]
mod tests {
    use super::unmask;

    fn read(s: &str) -> String {
        unmask(s).map_or_else(|| s.to_string(), |u| u.text)
    }

    #[test]
    fn reads_through_the_spellings_that_mask_a_word() {
        assert_eq!(read("feeling sui-cidal again"), "feeling suicidal again");
        assert_eq!(read("s.u.i.c.i.d.e methods"), "suicide methods");
        assert_eq!(read("공-황-장-애 있어도"), "공황장애 있어도");
        assert_eq!(read("우🌧울증"), "우울증");
        assert_eq!(read("k1lling myself"), "killing myself");
        assert_eq!(read("p0rn sites"), "porn sites");
        assert_eq!(read("dépression"), "depression");
        assert_eq!(read("са\u{0455}ino"), "casino"); // Cyrillic а and ѕ
        assert_eq!(read("\u{03bf}verdose"), "overdose"); // Greek omicron
        assert_eq!(read("토토 도 박 사이트"), "토토 도박 사이트");
        assert_eq!(read("buy d r u g s online"), "buy drugs online");
        // A word of one syllable before a masked word is not a spaced-out letter of it.
        assert_eq!(read("남편이 꼭 카.지.노 들러야"), "남편이 꼭 카지노 들러야");
        assert_eq!(read("i s.u.i.c.i.d.e"), "i suicide");
        // A word with a digit between its letters has its other digits read as letters too,
        // also at its ends.
        assert_eq!(read("wh3r3 c4n i g3t s0m3 4dd3r4ll"), "where can i get some adderall");
        assert_eq!(read("p4yd4y l0an"), "payday loan");
    }

    #[test]
    fn leaves_ordinary_text_alone() {
        // Nothing to unmask: no copy at all.
        assert!(unmask("제주도 호텔 최저가 추천해줘").is_none());
        assert!(unmask("cheapest flights from seoul to tokyo").is_none());
        assert!(unmask("galaxy s25 ultra vs iphone 16, 256gb").is_none());
        // Words are never joined to their neighbours.
        assert_eq!(read("제주도 박물관 가는 길"), "제주도 박물관 가는 길");
        assert_eq!(read("the rapist is a word; i am a fan"), "the rapist is a word; i am a fan");
        assert_eq!(read("end of sentence. next one"), "end of sentence. next one");
        assert_eq!(read("a b testing"), "a b testing");
        assert_eq!(read("sony wh-1000xm5"), "sony wh-1000xm5");
        assert_eq!(read("4k 3rd s25 x86 1000xm5 but k1ll"), "4k 3rd s25 x86 1000xm5 but kill");
        assert_eq!(read("東京のホテル"), "東京のホテル");
        assert_eq!(read("our ci is killing us. here's the workflow"), "our ci is killing us. here's the workflow");
    }

    #[test]
    fn says_which_words_were_masked() {
        let u = unmask("casino royale😀next sui-cidal").expect("masked");
        assert_eq!(u.text, "casino royalenext suicidal");
        // "casino" was written plainly: not masked; "suicidal" was.
        assert!(!u.masked(0, 6));
        assert!(u.masked(18, 26));
        let u = unmask("са\u{0455}ino").expect("masked");
        assert!(u.masked(0, u.text.len()));
    }
}
