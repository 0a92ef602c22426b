//! Reading a turn: which of the matcher's hits count, clause by clause. One pass over the hits
//! the automaton found (no second scan of the message for words), plus one walk over the
//! message's bytes for the structure words do not carry: code, quotations and sentence ends.
//!
//! - Code (a fenced block or an `inline span`, an identifier such as `order.price` or `book()`,
//!   a SQL statement pasted without marks) names no topic and says no intent; a fenced block or a
//!   statement makes the whole turn a coding turn.
//! - A cue inside a quotation ("how do you say 'buy now' in Korean") is quoted, not meant.
//! - A clause ends at a sentence end (`.`, `!`, `?`, `;`, a line break, a dash, an emoji …) or a clause-break cue
//!   ("but", "하지만", the ending "는데"), and after a negation or after-sales cue also at the next
//!   comma ("Not looking for flights, just a hotel") or at the end of its word when that word ends
//!   in a connective ending ("아이폰은 이미 있어서 맥북 에어 살까": 고, 어서, 아서, 으니까 …), or
//!   that of the word or two after it, its predicate ("폰 액정 다 나가서 새로 사려고"). A negation ("already have", "필요 없") or
//!   after-sales cue ("refund", "환불") voids the topics and cues of its clause; an after-sales
//!   clause's topics count again when a later clause asks to buy and names nothing ("my
//!   headphones broke, time to replace them. what's good under 200?"); a negation-before cue ("말고",
//!   "끊었고") ends its clause and voids what it is said of: the nearest topic before it, every
//!   category of that clause when that topic is a category ("도쿄 가는 비행기 말고": not the
//!   flight, still Tokyo), and the cues after that topic (all the clause's cues when it names no
//!   topic); a negative context ("model train", "파인애플") voids its category's or entity's hits
//!   in its clause.
//! - A purpose cue marks the topics of its clause that say what the thing is for: those after
//!   "for" / "during" ("a VPN for hotel wifi"), those before "에서 쓸" / "가서 쓸" ("비행기에서 쓸
//!   헤드폰") but after the clause's last purchase or compare cue before it ("VPN 필요함 노트북에
//!   깔 거": the laptop is the purpose, not the VPN). The index drops them when the clause names
//!   something of another kind.
//! - An alternative cue ("outgrown", "alternatives to", "에서 갈아타") is said of the nearest entity
//!   of its clause, found as a head is: the thing the user moves away from (`TopicHit::left`).
//! - A not-commercial cue ("translate", "write a poem", "stack trace") anywhere makes the turn
//!   not a shopping turn.
//! - Sensitive topics count everywhere, in code and quotations too: recall first. A sensitive
//!   topic's negative context ("와이파이가 불안": the word said of a thing) hides the alias inside
//!   it, and counts for nothing else.
use crate::hangul_typo::jamo;
use crate::korean_words::is_syllable;
use crate::policy_text::unmask;
use crate::steps::Steps;
use crate::text_match::{Span, TextHit, TextMatcher};

/// A category or entity the turn names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Topic {
    Category(u32),
    Entity(u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopicHit {
    pub topic: Topic,
    /// From a weak alias: counts only beside a related strong signal.
    pub weak: bool,
    pub clause: u32,
    /// In a purpose phrase: what the thing asked about is for, not the thing.
    pub purpose: bool,
    /// Its byte span in the normalised turn: the index reads the words around a place only
    /// when a clause names two (`is_origin`).
    pub start: usize,
    pub end: usize,
    /// The head of a request: the category a purchase or compare cue of its clause is said of,
    /// the nearest one before a Korean cue ("호텔 와이파이 찜찜해서 VPN 하나 결제해둘까": the
    /// VPN) and the nearest one after an English cue ("looking for a hotel near the train
    /// station": the hotel), else the nearest on the other side. The index ranks the other
    /// categories asked beside a head lower.
    pub head: bool,
    /// An entity the user moves away from: the one an alternative cue of its clause is said of,
    /// found as a head is (nearest before a Korean cue, after an English one, else the other
    /// side): "we've outgrown **Trello**", "**트렐로**에서 갈아타려는데". The index reads it as
    /// asking for another thing of its kind.
    pub left: bool,
    /// Said with 만 ("only"): "숙소만 구하면 됨", "호텔만 알아봐주세요". What else of its kind the
    /// turn names is not asked for.
    pub only: bool,
}

#[derive(Debug, Default)]
pub struct Reading {
    /// Topic hits that survived code, negation, after-sales and negative contexts.
    pub topics: Vec<TopicHit>,
    pub sensitive: Vec<u32>,
    /// Context words of sensitive topics (`context_aliases`): (topic, byte start, clause). They
    /// count only beside other evidence, which the index weighs.
    pub context_sensitive: Vec<(u32, usize, u32)>,
    /// Words that say a sensitive topic when asked for (`asked_aliases`: "하이닉스 지금 더 사도
    /// 됨?"): (topic, byte start, clause). The index reads the clause they are in.
    pub asked_sensitive: Vec<(u32, usize, u32)>,
    /// Sensitive words read only by joining two words of their own ("a lot to" holds "lotto"):
    /// (topic, byte start). Weaker than a context word; the index weighs them.
    pub joined_sensitive: Vec<(u32, usize)>,
    /// Sensitive words inside a quotation or code ("proofread this: "… bring your medications
    /// …""): (topic, byte start). The index weighs them by their topic (`mentioned_in_quotes`).
    pub quoted_sensitive: Vec<(u32, usize)>,
    /// Clauses holding a purchase / compare cue that counts.
    pub purchase_clauses: Vec<u32>,
    pub compare_clauses: Vec<u32>,
    pub not_commercial: bool,
    /// A negation cue counted ("not looking to buy", "안 살게요", "already have"): the user
    /// refuses something. Whatever else the turn names, the refusal is evidence against an ask.
    pub refused: bool,
    /// The byte spans of the clauses a negation voids, in order: what the turn refuses. The
    /// classifier, which does not read negation, weighs a cue-less request without them.
    pub refused_spans: Vec<(usize, usize)>,
    /// The clauses after the last not-commercial cue, to the end of its line, where a purchase
    /// cue is an ask of its own ("원리가 뭐예요? … 하나 살까 고민 중"): `(first, last)`, empty
    /// (first > last) for fenced code. Before the cue it is part of the task; on a later line, of
    /// what was pasted (a traceback's `price`).
    pub asks_after_task: (u32, u32),
    /// Clauses holding a negative context: they name something else ("laptop bag", "phone
    /// case"), which a purpose in the clause is for.
    pub other_heads: Vec<u32>,
    /// Words read one typo away: (byte start, byte end, pattern), in order.
    pub typos: Vec<(usize, usize, u32)>,
    /// The reading spent its step budget and stopped: only `sensitive` is whole.
    pub over_budget: bool,
}

impl Reading {
    /// Whether `clause` holds a purchase or compare cue that counts: it asks for something.
    pub fn asks_in(&self, clause: u32) -> bool {
        self.purchase_clauses.binary_search(&clause).is_ok() || self.compare_clauses.binary_search(&clause).is_ok()
    }
}

/// The turn with each typo written as the alias it was read as ("flihgts to tokyo" → "flights
/// to tokyo"), for the classifier, which reads character n-grams and would otherwise score a
/// misspelt request as it scores noise. Borrowed when there is no typo.
pub fn corrected<'a>(matcher: &TextMatcher, text: &'a str, typos: &[(usize, usize, u32)]) -> std::borrow::Cow<'a, str> {
    if typos.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut at = 0;
    for &(start, end, pattern) in typos {
        if start < at {
            continue;
        }
        out.push_str(&text[at..start]);
        out.push_str(matcher.pattern_text(pattern));
        at = end;
    }
    out.push_str(&text[at..]);
    std::borrow::Cow::Owned(out)
}

/// Byte ranges of the message: code spans and quotations.
#[derive(Default)]
struct Structure {
    code: Vec<(usize, usize)>,
    quotes: Vec<(usize, usize)>,
    /// Byte offsets where a clause ends (a sentence end).
    clause_ends: Vec<usize>,
    fenced_code: bool,
}

/// Whether `span` lies in one of `ranges`, which are sorted and disjoint (one code span or
/// quotation is open at a time): a binary search, not a walk.
fn inside(ranges: &[(usize, usize)], span: &Span) -> bool {
    let i = ranges.partition_point(|&(s, _)| s <= span.start);
    i > 0 && span.end <= ranges[i - 1].1
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether a byte can start one of the characters `structure` acts on: backtick, quotation
/// marks, sentence ends, and the lead bytes of `«»`, `“”‘’…`, `「」『』。`, `！？`, of the crying
/// marks ㅠㅠ as normalising leaves them, and of emoji (`✅`, `🎉`). Every other byte is skipped
/// without decoding: the walk costs a byte compare where most text is.
fn is_structural(b: u8) -> bool {
    matches!(b, b'`' | b'"' | b'\'' | b'.' | b'!' | b'?' | b';' | b'\n' | b'-' | b'(' | b')' | 0xC2 | 0xE1 | 0xE2 | 0xE3 | 0xEF | 0xF0)
}

/// A pictograph: the symbols and dingbats (`☀`, `✅`, `✨`, `❤`) and the emoji planes (`🎉`,
/// `😭`, `🙏`). Chat ends a sentence with one as often as with a full stop ("flights are booked
/// ✅ now a hotel in Shinjuku"). Arrows ("seoul → tokyo") are not among them.
fn is_pictograph(c: char) -> bool {
    matches!(c as u32, 0x2600..=0x27BF | 0x1F300..=0x1FAFF)
}

/// Code, quotations and sentence ends, in one walk over the bytes.
fn structure(text: &str) -> Structure {
    let mut st = Structure::default();
    let bytes = text.as_bytes();
    let mut code_open: Option<(usize, bool)> = None; // (start, fenced)
    let mut quote_open: Option<(usize, char)> = None; // (start, closing character)
    let mut i = 0;
    while i < bytes.len() {
        if !is_structural(bytes[i]) {
            i += 1;
            continue;
        }
        // A structural byte is ASCII or a lead byte: a character starts here.
        let c = text[i..].chars().next().expect("a character starts at a structural byte");
        if c == '`' {
            let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
            let fence = run >= 3;
            match code_open {
                Some((start, fenced)) if fenced == fence => {
                    st.code.push((start, i + run));
                    code_open = None;
                }
                None => {
                    code_open = Some((i, fence));
                    st.fenced_code |= fence;
                }
                Some(_) => {}
            }
            i += run;
            continue;
        }
        let end = i + c.len_utf8();
        if code_open.is_some() {
            i = end;
            continue;
        }
        let next = text[end..].chars().next();
        match quote_open {
            Some((start, close)) => {
                let closes = c == close && (close != '\'' || !next.is_some_and(is_word)) && (close != '’' || !next.is_some_and(is_word));
                if closes {
                    st.quotes.push((start, end));
                    quote_open = None;
                }
            }
            None => {
                let close = match c {
                    '"' => Some('"'),
                    '“' => Some('”'),
                    '「' => Some('」'),
                    '『' => Some('』'),
                    '«' => Some('»'),
                    // Only here is a neighbour's class asked: it is a Unicode table lookup.
                    '\'' if !text[..i].chars().next_back().is_some_and(is_word) && next.is_some_and(is_word) => Some('\''),
                    '‘' => Some('’'),
                    _ => None,
                };
                if let Some(close) = close {
                    quote_open = Some((i, close));
                }
            }
        }
        let ends_sentence = match c {
            '.' => next.is_none_or(char::is_whitespace),
            // A parenthesis sets an aside apart: "숙소 추천 (항공권은 이미 끊음)".
            '!' | '?' | ';' | '\n' | '。' | '！' | '？' | '…' | '—' | '–' | '(' | ')' | '（' | '）' => true,
            // A hyphen between spaces is a dash: "doing a day trip to Busan - best restaurants?"
            '-' => next.is_some_and(char::is_whitespace) && text[..i].chars().next_back().is_some_and(char::is_whitespace),
            // A pictograph ends a sentence unless a word goes on from it ("a 🏨near the station").
            c if is_pictograph(c) => !next.is_some_and(is_word),
            // So does a run of crying letters, a Korean chat's full stop ("한쪽 잃어버렸어요 ㅠㅠ
            // 이번엔 싼 걸로"): at its last letter, two or more.
            c if chat_mark(c) => next.is_none_or(char::is_whitespace) && text[..i].chars().next_back().is_some_and(chat_mark),
            _ => false,
        };
        if ends_sentence {
            st.clause_ends.push(end);
        }
        i = end;
    }
    if let Some((start, _)) = code_open {
        st.code.push((start, text.len()));
    }
    let statements = sql_statements(text);
    if !statements.is_empty() {
        // Pasted SQL is code as a fenced block is, and the turn is a coding turn.
        st.fenced_code = true;
        st.code.extend(statements);
        st.code.sort_unstable();
        // Disjoint again: a backtick span inside a statement is part of it.
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(st.code.len());
        for (start, end) in st.code.drain(..) {
            match merged.last_mut() {
                Some(last) if start < last.1 => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        st.code = merged;
    }
    // An unclosed quotation quotes nothing: it is a stray mark.
    st
}

/// Words that follow "select" in English, never in a statement.
const NOT_A_COLUMN: [&str; 12] = ["a", "an", "the", "one", "some", "my", "your", "this", "that", "which", "what", "from"];

/// What a pasted statement says after its table (one of these, or a `;`).
const SQL_AFTER_FROM: [&str; 8] = [" where ", " group by ", " order by ", " join ", " limit ", " having ", "\nwhere ", ";"];

/// How far after `select` a statement's `from` may be (on any line): a long column list.
const SQL_FROM_WITHIN: usize = 600;

/// SQL pasted without backticks: from a `select` word to the end of its statement (a `;`, a
/// blank line or the end of the turn), when a `from` word follows it within
/// [`SQL_FROM_WITHIN`] bytes ("why is this query slow? SELECT carrier … FROM flights … ORDER BY
/// 2": the order and the flights are the query's). Each stretch up to a statement's end is
/// searched once and the search goes on after it, so a turn costs a few passes over its text.
fn sql_statements(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    // The next `from` word (after white space) at or after `from`, found once for every `select` before it.
    let mut next_from: Option<usize> = None;
    let mut from = 0;
    while let Some(i) = text[from..].find("select ").map(|i| from + i) {
        from = i + "select ".len();
        if text[..i].chars().next_back().is_some_and(is_word) {
            continue;
        }
        if next_from.is_none_or(|f| f < from) {
            next_from = None;
            let mut at = from;
            while let Some(f) = text[at..].find("from ").map(|f| at + f) {
                if text[..f].chars().next_back().is_some_and(char::is_whitespace) {
                    next_from = Some(f);
                    break;
                }
                at = f + "from ".len();
            }
        }
        match next_from {
            None => break,
            Some(f) if f - from > SQL_FROM_WITHIN => continue,
            Some(_) => {}
        }
        // "select a hotel from the list" is English: a statement selects columns, not "a" thing.
        let first_word = text[from..].split(|c: char| !is_word(c)).next().unwrap_or("");
        if NOT_A_COLUMN.contains(&first_word) {
            continue;
        }
        let rest = &text[from..];
        let end = from + [rest.find(';').map(|e| e + 1), rest.find("\n\n")].into_iter().flatten().min().unwrap_or(rest.len());
        // And it goes on as SQL does after its table: a condition, a grouping, an order, a join.
        // A `select` later in the same stretch ends there too and reads less of it, so none can
        // be a statement either: the search goes on after it, and each byte is read once.
        if SQL_AFTER_FROM.iter().any(|k| text[i..end].contains(k)) {
            out.push((i, end));
        }
        from = end;
    }
    out
}

/// An alias used as part of an identifier: `order.price`, `book()`, `$flight`, `src/flights`.
/// A slash between two plain words before the rest of a phrase is prose's "or" ("a task/project
/// tool", "a project/docs tool"), not a path.
fn in_identifier(text: &str, span: &Span) -> bool {
    let before = text[..span.start].chars().next_back();
    let mut after = text[span.end..].chars();
    let (a1, a2) = (after.next(), after.next());
    let joined = match before {
        Some('/') => !words_or_words(text, span),
        before => matches!(before, Some('.' | '$' | '#' | '@' | '\\')),
    };
    joined && text[..span.start].chars().rev().nth(1).is_some_and(is_word) || a1 == Some('(') || (a1 == Some('.') && a2.is_some_and(is_word))
}

/// Whether the slash just before `span` joins plain words and the alias goes on past them, as
/// "project tool" does in "a task/project tool": the whitespace-delimited token around the
/// slash holds letters, digits and that one slash only. A path ("src/flights", "/api/hotels",
/// "a/b/c", "src/flights.ts") is a token of its own. Each side is looked at for
/// [`SLASH_WORD_MAX`] bytes at most: a paste without spaces is not prose, and no turn pays for
/// it more than that per hit.
fn words_or_words(text: &str, span: &Span) -> bool {
    let slash = span.start - 1;
    let Some(left) = text[..slash].char_indices().rev().take_while(|&(i, c)| !c.is_whitespace() && slash - i <= SLASH_WORD_MAX).last().map(|(i, _)| i) else {
        return false;
    };
    let Some(right) =
        text[span.start..].char_indices().take_while(|&(i, _)| i <= SLASH_WORD_MAX).find(|&(_, c)| c.is_whitespace()).map(|(i, _)| span.start + i)
    else {
        return false;
    };
    (left == 0 || text[..left].ends_with(char::is_whitespace))
        && right < span.end
        && text[left..right].chars().all(|c| c.is_alphanumeric() || c == '/')
        && text[left..right].matches('/').count() == 1
}

/// How far [`words_or_words`] looks on either side of a slash.
const SLASH_WORD_MAX: usize = 48;

/// Words that say the place after them is where a trip starts, or a stop it comes from ("two
/// nights in Osaka after Tokyo").
const ORIGIN_BEFORE: [&str; 5] = ["from", "out of", "leaving", "departing", "after"];

/// Whether topic `t` of the normalised `text` is where a trip starts: after "from" or another
/// word of [`ORIGIN_BEFORE`], an article between or not ("jeju flights from seoul", "after the
/// tokyo games"), before "to" and another topic ("seoul to tokyo"), before "에서" and another
/// topic ("서울에서 도쿄 가는"), or before "출발" ("김포 출발", "부산에서 출발하는").
/// `topics` are the topics the reading kept. Whether it is a place is the index's to say; it
/// asks only when a clause names two places, so a turn pays for this only then.
/// `topics` are in order of position: "is a topic there" is a binary search.
pub fn is_origin(text: &str, t: &TopicHit, topics: &[TopicHit]) -> bool {
    let (start, end) = (t.start, t.end);
    let before = text[..start].strip_suffix(' ').unwrap_or("");
    // "after the Tokyo games": an article may stand between the word and the place ("the" is
    // no word of the list, so the words before it are the ones to read).
    let before_article = before.strip_suffix(" the").unwrap_or(before);
    let after_word = ORIGIN_BEFORE.iter().any(|w| before_article.strip_suffix(w).is_some_and(|rest| !rest.chars().next_back().is_some_and(is_word)));
    let after = &text[end..];
    let topic_at = |rest: &str| {
        let at = text.len() - rest.len();
        topics.binary_search_by_key(&at, |o| o.start).is_ok()
    };
    after_word
        || after.strip_prefix(" to ").is_some_and(topic_at)
        || after.strip_prefix("에서").is_some_and(|r| topic_at(r) || r.strip_prefix(' ').is_some_and(topic_at) || r.trim_start_matches(' ').starts_with("출발"))
        || after.trim_start_matches(' ').starts_with("출발")
}

/// Whether a weak word at `start..end` is said as a thing one gets: right after an article or a
/// shopper's word and not before a noun it would describe ("looking for a tab for my mom", "what
/// buds should i get", not "a korean phone number"), or followed by 하나, "one" ("탭 하나
/// 사려는데"). The index counts a weak word said so when a cue is said of it; "my buds", "taste
/// buds" and "browser tab" are not said so.
pub fn said_as_a_thing(text: &str, start: usize, end: usize) -> bool {
    const BEFORE: [&str; 11] = ["a", "an", "some", "new", "cheap", "decent", "good", "what", "which", "any", "best"];
    const AFTER: [&str; 16] = ["for", "to", "that", "which", "should", "under", "with", "so", "and", "or", "i", "we", "is", "are", "please", "pls"];
    let before = text[..start].strip_suffix(' ').unwrap_or("");
    let word_before = before.rsplit(' ').next().unwrap_or("");
    let after = &text[end..];
    let word_after = after.strip_prefix(' ').map(|rest| rest.split(|c: char| !c.is_alphanumeric()).next().unwrap_or(""));
    let ends_the_phrase = match word_after {
        Some(word) => AFTER.contains(&word),
        None => !after.chars().next().is_some_and(char::is_alphanumeric),
    };
    (!before.is_empty() && BEFORE.contains(&word_before) && ends_the_phrase) || after.trim_start_matches(' ').starts_with("하나")
}

/// A negation-before or an instead cue: said of what comes before it, it ends that clause.
fn said_of_what_is_before(targets: &[TextHit]) -> bool {
    targets.iter().any(|t| matches!(t, TextHit::NegationBefore | TextHit::Instead))
}

/// Korean refuses a kind of the thing asked for by describing it with 거/것 ("비싼 건 필요 없고",
/// "너무 비싼 거 말고", "그거 말고 더 가벼운 모델"): the negation is said of that description, not
/// of the topic asked before it, so it voids nothing ("노트북 하나 장만하려구 … 비싼 건 필요
/// 없고 배터리 오래 가는 걸로" still asks for a laptop) unless the description itself names a
/// topic after the clause's last cue ("유심 꽂는 거 말고"). A use said with 용 ("업무용 말고",
/// "승객응대용 말구 내 여행용") describes the thing the same way.
fn said_of_a_description(text: &str, at: usize) -> bool {
    const DESCRIBED: [&str; 10] = ["거", "것", "건", "걸", "거는", "거도", "거를", "것은", "것도", "것을"];
    let before = text[..at].trim_end();
    let mut last = before.chars().rev();
    DESCRIBED.iter().any(|d| before.ends_with(d)) || (last.next() == Some('용') && last.next().is_some_and(is_syllable))
}

/// An instead cue refuses what is right before it. When a word that is no topic stands between
/// the clause's last topic and the cue ("다낭 패키지 말고 항공만", "vpn 무료말구 유료로", "S25 울트라
/// 말고 기본"), the cue refuses that word (a kind, a plan, a version) and the topic stays asked.
/// Particles (부산은 말고), model numbers (아이폰 16 말고) and the ask ("노트북 추천은 말고") are no
/// word of their own; a description with 거/것 has its own reading (`said_of_a_description`). The
/// look is bounded: a gap longer than a few words holds a word.
fn refuses_a_word_not_a_topic(text: &str, topics: &[TopicHit], last_cue_end: Option<(u32, usize)>, clause: u32, at: usize, steps: &mut Steps) -> bool {
    // Particles, and the ask itself said of the topic ("노트북 추천은 말고요": no laptop at all).
    const SAID_OF_THE_TOPIC: [&str; 12] = ["은", "는", "은요", "는요", "도", "만", "쪽", "같은", "추천", "추천은", "추천도", "예약은"];
    const GAP_MAX_BYTES: usize = 48;
    // A syllable or two glued to the topic is its own ending ("부산은", "도쿄행").
    const GLUED_MAX_SYLLABLES: usize = 2;
    let Some(n) = nearest_ending_before(topics, clause, at, steps) else { return false };
    // What stands right before the cue: after the topic, and after a purchase or compare cue said
    // of it ("애플 사려는데 말고": not Apple after all).
    let from = last_cue_end.filter(|&(c, end)| c == clause && end > topics[n].end && end <= at).map_or(topics[n].end, |(_, end)| end);
    let gap = &text[from..at];
    if gap.len() > GAP_MAX_BYTES {
        return true;
    }
    gap.split(' ').filter(|w| !w.is_empty()).enumerate().any(|(i, word)| {
        let glued = i == 0 && !gap.starts_with(' ') && word.chars().count() <= GLUED_MAX_SYLLABLES;
        let has_letters = word.chars().any(|c| is_syllable(c) || c.is_ascii_alphabetic());
        has_letters && !glued && !SAID_OF_THE_TOPIC.contains(&word)
    })
}

/// Whether the description before a refusal names a topic of its own: one read in `clause` after
/// the clause's last purchase or compare cue ("유심 꽂는 거 말고" refuses the SIM). Topics come in
/// order of position, so the last one read is the only one that can be.
fn description_names_a_topic(topics: &[TopicHit], last_cue_end: Option<(u32, usize)>, clause: u32) -> bool {
    let from = last_cue_end.filter(|&(c, _)| c == clause).map_or(0, |(_, end)| end);
    topics.last().is_some_and(|t| t.clause == clause && t.start >= from)
}

/// The nearest topic of `clause` that ends at or before byte `at`: the last one starting before
/// it, then back past any that reach over it (only hits at one spot can). `topics` are in order
/// of position; each topic looked at costs a step.
fn nearest_ending_before(topics: &[TopicHit], clause: u32, at: usize, steps: &mut Steps) -> Option<usize> {
    let first = topics.partition_point(|t| t.clause < clause);
    let mut i = topics.partition_point(|t| (t.clause, t.start) < (clause, at));
    while i > first {
        i -= 1;
        steps.take(1);
        if topics[i].end <= at {
            return Some(i);
        }
    }
    None
}

/// Topic `n` and every other topic read at that very span (one alias may stand for several
/// things; they sit side by side): what is said of one is said of all of them.
fn at_the_same_span<'a>(topics: &'a [TopicHit], n: usize, steps: &'a mut Steps) -> impl Iterator<Item = usize> + 'a {
    let TopicHit { clause, start, end, .. } = topics[n];
    let group = topics.partition_point(|t| (t.clause, t.start) < (clause, start));
    topics[group..]
        .iter()
        .take_while(move |t| t.start == start && t.clause == clause)
        .inspect(move |_| {
            steps.take(1);
        })
        .enumerate()
        .filter(move |(_, t)| t.end == end)
        .map(move |(k, _)| group + k)
}

/// Whether what stands between a thing and an accessory word after it joins them into one
/// name: nothing, spaces or a hyphen ("laptop-friendly"), a size or model number ("13",
/// "16인치"), 용 or 전용 ("for"), or an English possessive. Anything longer is a phrase of its own
/// ("iPad Air, and a case").
fn accessory_of(between: &str) -> bool {
    const MAX_BYTES: usize = 16;
    if between.len() > MAX_BYTES {
        return false;
    }
    let rest = between.trim_matches(|c: char| c.is_whitespace() || c.is_ascii_digit() || c == '-');
    let rest = rest.strip_suffix("인치").unwrap_or(rest).trim_matches(|c: char| c.is_whitespace() || c.is_ascii_digit());
    matches!(rest, "" | "용" | "전용" | "'s" | "’s" | "inch" | "\"")
}

/// Whether a Korean word ending at `end` is named as a use: 용 ("for") ends its word ("코딩용",
/// "번역용으로"), or the next word is 용도 / 용 or a use by 용 ("번역 작업용"), also after a verb
/// said of it ("코드 짜는 용도로", "번역 돌릴 용도").
fn said_as_a_use(text: &str, end: usize) -> bool {
    const USES: [&str; 4] = ["작업용", "업무용", "공부용", "과제용"];
    /// ㄹ's index among the finals of [`jamo`].
    const FINAL_RIEUL: u32 = 8;
    // A word up to its last syllable: what follows it (punctuation, a question mark) says nothing.
    fn syllables(w: &str) -> &str {
        w.trim_end_matches(|c: char| !is_syllable(c))
    }
    let a_use = |w: &str| w == "용" || w.starts_with("용도") || w.starts_with("용으로") || USES.iter().any(|u| w.starts_with(u));
    let rest = &text[end..];
    let (word, after) = rest.split_at(rest.find(char::is_whitespace).unwrap_or(rest.len()));
    let word = syllables(word);
    if word.ends_with('용') || word.ends_with("용으로") || word.ends_with("용도로") {
        return true;
    }
    let mut next = after.split_whitespace().take(2).map(syllables);
    let first = next.next().unwrap_or_default();
    // A verb's adnominal form: -는, or a final ㄹ (짤, 돌릴, 할); `syllables` leaves a syllable last.
    let adnominal = first.ends_with('는') || first.chars().last().is_some_and(|c| jamo(c).2 == FINAL_RIEUL);
    a_use(first) || (adnominal && next.next().is_some_and(a_use))
}

/// Whether a word ending at `end` is said with the particle 만, "only" ("숙소만", "호텔만 알아봐"),
/// not with a word that begins with it (만큼 "as much as", 만한 "the size of", 만족, 만원, 만에).
fn said_only(text: &str, end: usize) -> bool {
    let Some(rest) = text[end..].strip_prefix('만') else { return false };
    !["큼", "한", "족", "원", "에", "나", "들", "두"].iter().any(|w| rest.starts_with(w))
}

/// How far back [`said_only_before`] and [`said_not_before`] read: the longest phrase ("only
/// wants the ") fits with room to spare. A fixed window, so a turn of many topics and no spaces
/// costs a few bytes per topic, not a walk back to the last space for each.
const ONLY_WINDOW_BYTES: usize = 24;

/// The English words before `start`, nearest first, read in [`ONLY_WINDOW_BYTES`], with an
/// article right before it skipped. A word the window cuts into is not a word of its own
/// ("adjust" is not "just").
fn words_before(text: &str, start: usize) -> impl Iterator<Item = &str> {
    let mut from = start.saturating_sub(ONLY_WINDOW_BYTES);
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    let window = &text[from..start];
    let cut = from > 0 && !text[..from].ends_with(char::is_whitespace);
    let mut words = window.split_whitespace().rev().filter(move |w| !(cut && w.as_ptr() == window.as_ptr())).peekable();
    if matches!(words.peek(), Some(&("a" | "an" | "the"))) {
        words.next();
    }
    words
}

/// Whether an English word starting at `start` is said after "just" or "only", with at most a
/// "need" or "want" and an article between: "not looking for flights, just a hotel", "only need
/// the hotel".
fn said_only_before(text: &str, start: usize) -> bool {
    let mut words = words_before(text, start);
    let mut next = words.next();
    if matches!(next, Some("need" | "want" | "needs" | "wants")) {
        next = words.next();
    }
    matches!(next, Some("just" | "only"))
}

/// Whether an English word starting at `start` is refused by a "not" right before it, with at
/// most an article between: "need hotel in shinjuku, not flight", "the tab not the phone". Not
/// "no", which also says what the user lacks ("I have no laptop, which one should I get").
fn said_not_before(text: &str, start: usize) -> bool {
    words_before(text, start).next() == Some("not")
}

/// Request and polite statement or question endings that close a Korean sentence said with no
/// mark after it (해줘, 주세요, "잡으면 돼요 비행기는 …", "있나요 …"); a past-tense statement
/// closes one too ([`past_statement`]). Not a bare 요, which ends nouns too (필요, 중요).
const SENTENCE_ENDINGS: [&str; 14] = ["줘", "주세요", "줘요", "돼요", "되요", "해요", "어요", "아요", "에요", "예요", "네요", "나요", "까요", "니다"];

/// ㅠ and ㅜ as normalising leaves them (NFKC turns the compatibility letters typed into these):
/// the crying marks of Korean chat. Laughter (ㅋㅋ, ㅎㅎ) is not one: it is as often said inside a
/// sentence ("모르겠음ㅋㅋ 쉽게 설명해 주고, 필요하면 결제하려고").
fn chat_mark(c: char) -> bool {
    matches!(c, '\u{1172}' | '\u{116E}')
}

/// Whether a word ends as a past-tense statement does: a syllable closed by ㅆ, then 어, 어요 or
/// 음 (끊었어, 했어요, 샀음, 잃어버렸어요, and 끊어놨어요, a thing done ahead).
fn past_statement(word: &str) -> bool {
    let mut rev = word.chars().rev();
    let (last, before) = (rev.next(), rev.next());
    let closed_by_ss = |c: char| ('가'..='힣').contains(&c) && (c as u32 - 0xAC00) % 28 == 20;
    match (last, before) {
        (Some('어' | '음'), Some(b)) => closed_by_ss(b),
        (Some('요'), Some('어')) => rev.next().is_some_and(closed_by_ss),
        _ => false,
    }
}

/// Connective endings that join two clauses ("있고", "있어서", "없으니까"): after a negation or
/// after-sales cue they end its clause as a comma does.
const CONNECTIVE_ENDINGS: [&str; 10] = ["고", "어서", "아서", "여서", "해서", "서", "으니까", "니까", "으니", "니"];

/// The longest connective ending, in syllables: a cue's word is read no further than this.
const CONNECTIVE_MAX_SYLLABLES: usize = 3;

/// A cue that is a noun leaves its predicate to the words after it, and the clause ends where
/// that predicate takes a connective ending: "폰 **액정** 다 **나가서** 걍 새로 사주려고" is two
/// clauses, the broken screen and the new phone. The first of the two words after the cue's word
/// that is all Hangul and ends in one (the particle 에서 is no verb): where it ends. Each word is
/// read up to [`PREDICATE_MAX_SYLLABLES`], so a cue costs a bounded walk.
fn predicate_after(text: &str, cue_end: usize) -> Option<usize> {
    let word_end = |from: usize| -> Option<usize> {
        let len: usize = text[from..].chars().take(PREDICATE_MAX_SYLLABLES + 1).take_while(|&c| is_syllable(c)).map(char::len_utf8).sum();
        // A word longer than the walk is not read.
        (text[from + len..].chars().next().is_none_or(|c| !is_syllable(c))).then_some(from + len)
    };
    let mut at = word_end(cue_end)?;
    for _ in 0..2 {
        let start = at + text[at..].len() - text[at..].trim_start_matches(' ').len();
        if start == at {
            return None;
        }
        at = word_end(start)?;
        let word = &text[start..at];
        if word.chars().count() < 2 {
            continue;
        }
        if !word.ends_with("에서") && CONNECTIVE_ENDINGS.iter().any(|e| word.ends_with(e)) {
            return Some(at);
        }
    }
    None
}

/// The longest word [`predicate_after`] reads, in syllables.
const PREDICATE_MAX_SYLLABLES: usize = 8;

/// Reads a normalised turn. Every pass walks the hits, topics or cues once (lookups are binary
/// searches or per-clause tables), and charges `steps` for what it walks: past the budget the
/// reading stops where it is, says so (`Reading::over_budget`), and keeps the sensitive topics,
/// which the first pass over the hits has already read in full. `places[e]` says entity `e` is a
/// place (the index's to know): a place before a thing said done describes it.
pub fn read(matcher: &TextMatcher, text: &str, places: &[bool], steps: &mut Steps) -> Reading {
    let spans = matcher.find_spans(text);
    let mut reading = Reading::default();
    // Sensitive topics are read a second time through the spellings that mask a word
    // ("sui-cidal", "공-황-장-애", "саsino": policy_text.rs), with the same matcher and its
    // boundary rules; only their sensitive hits count. Most turns mask nothing and skip it.
    // A word read there counts only where it was masked: one written plainly was read above.
    // A turn can hold letters of another script that read as no Latin letter (Japanese, say):
    // unmasked, it is the turn as it was, with nothing masked in it to read.
    if let Some(unmasked) = unmask(text).filter(|u| u.changes_anything()) {
        steps.take(unmasked.text.len());
        // Exact hits only: a word both masked and one typo away from an alias is too far from it
        // ("here's" unmasked is one letter from a disease).
        for span in matcher.find_spans(&unmasked.text).iter().filter(|s| !s.typo && unmasked.masked(s.start, s.end)) {
            reading.sensitive.extend(matcher.targets(span.pattern).iter().filter_map(|hit| match hit {
                TextHit::Sensitive(s) => Some(*s),
                _ => None,
            }));
        }
    }
    if spans.is_empty() {
        return reading;
    }
    for span in spans.iter().filter(|s| s.typo) {
        if reading.typos.last().is_none_or(|&(start, _, _)| start != span.start) {
            reading.typos.push((span.start, span.end, span.pattern));
        }
    }
    steps.take(spans.len() * 3);
    let mut st = structure(text);
    let mut clause_ends = std::mem::take(&mut st.clause_ends);
    // Korean chat often ends a sentence with no mark at all: a request or a past-tense statement
    // ending its word before another Hangul word ends a clause ("숙소 추천해줘 비행기는 이미
    // 끊었어"). One walk over the spaces.
    for (at, _) in text.match_indices(' ') {
        if !text[at + 1..].chars().next().is_some_and(is_syllable) {
            continue;
        }
        let word = &text[..at];
        if (SENTENCE_ENDINGS.iter().any(|e| word.ends_with(e)) || past_statement(word))
            && !inside(&st.code, &Span { start: at, end: at + 1, pattern: 0, typo: false })
        {
            clause_ends.push(at + 1);
        }
    }
    for span in &spans {
        let targets = matcher.targets(span.pattern);
        if (targets.contains(&TextHit::ClauseBreak) || said_of_what_is_before(targets)) && !inside(&st.code, span) {
            clause_ends.push(span.start);
        }
    }
    clause_ends.sort_unstable();
    // A negation or after-sales cue is said up to the next comma: "Not looking for flights,
    // just a hotel", "노트북은 필요 없고, 태블릿 추천"; a negation, or a negation-before cue, only
    // from the comma before it: "a hotel in tokyo for 3 nights, don't need flights", "we just
    // need the flights, the hotel is already covered". Commas are found by binary search in one
    // list of them, so a thousand cues in one long clause cost no more than a thousand.
    let commas: Vec<usize> = text.bytes().enumerate().filter(|&(_, b)| b == b',').map(|(i, _)| i).collect();
    // The last comma before a cue inside the clause it sits in. A negation-before cue's own start
    // is a clause end already (`ends_clause`): its clause begins at the end before that one.
    let comma_before = |start: usize, ends_clause: bool| {
        let ends = if ends_clause { clause_ends.partition_point(|&e| e < start) } else { clause_ends.partition_point(|&e| e <= start) };
        let from = clause_ends[..ends].last().copied().unwrap_or(0);
        commas.partition_point(|&c| c < start).checked_sub(1).map(|i| commas[i]).filter(|&c| c >= from)
    };
    // The first comma after a cue ending at `end`, inside the clause it sits in.
    let comma_after = |end: usize| {
        let next_end = clause_ends[clause_ends.partition_point(|&e| e <= end)..].first().copied().unwrap_or(text.len());
        commas.get(commas.partition_point(|&c| c < end)).copied().filter(|&c| c < next_end)
    };
    let mut comma_ends = Vec::new();
    for span in &spans {
        let targets = matcher.targets(span.pattern);
        if said_of_what_is_before(targets) && !inside(&st.code, span) {
            comma_ends.extend(comma_before(span.start, true).map(|comma| comma + 1));
        }
        // A not-commercial task is said up to the next comma too: what follows may ask of its
        // own ("why is the xm5 so expensive, is it worth it?").
        if targets.contains(&TextHit::NotCommercial) && !inside(&st.code, span) {
            comma_ends.extend(comma_after(span.end).map(|comma| comma + 1));
        }
        let negation = targets.contains(&TextHit::Negation);
        if (negation || targets.contains(&TextHit::AfterSales) || targets.contains(&TextHit::Selling)) && !inside(&st.code, span) {
            comma_ends.extend(comma_after(span.end).map(|comma| comma + 1));
            // Korean joins clauses with a connective ending where English puts a comma: the
            // cue's word ending in one ends the clause ("아이폰은 이미 있**어서** 맥북 살까").
            let rest: usize = text[span.end..].chars().take(CONNECTIVE_MAX_SYLLABLES + 1).take_while(|&c| is_syllable(c)).map(char::len_utf8).sum();
            if rest > 0 && CONNECTIVE_ENDINGS.contains(&&text[span.end..span.end + rest]) {
                comma_ends.push(span.end + rest);
            } else if let Some(end) = predicate_after(text, span.end) {
                comma_ends.push(end);
            }
            if negation {
                comma_ends.extend(comma_before(span.start, false).map(|comma| comma + 1));
            }
        }
    }
    if !comma_ends.is_empty() {
        clause_ends.extend(comma_ends);
        clause_ends.sort_unstable();
    }
    let clause_of = |pos: usize| clause_ends.partition_point(|&e| e <= pos) as u32;
    // Per-clause facts are tables indexed by clause: clause numbers run from 0 to this.
    let clauses = clause_ends.len() + 1;

    let mut voided = vec![false; clauses];
    // Clauses voided by a negation (never revived; see after-sales below).
    let mut negated_clause = vec![false; clauses];
    // Clauses about selling what the user has (never revived: a price asked after is the sale's).
    let mut sold = vec![false; clauses];
    let mut negative: Vec<(Topic, u32)> = Vec::new();
    let mut topics: Vec<TopicHit> = Vec::new();
    // Cues by (clause, byte offset).
    let mut purchase: Vec<(u32, usize)> = Vec::new();
    let mut compare: Vec<(u32, usize)> = Vec::new();
    // Per clause with a purpose cue: the earliest "for" (what follows it is the purpose); per
    // "에서 쓸", the window before it back to the clause's last purchase or compare cue.
    let mut purpose_from: Vec<Option<usize>> = vec![None; clauses];
    let mut purpose_windows: Vec<(u32, usize, usize)> = Vec::new();
    let mut last_cue_end: Option<(u32, usize)> = None;
    // Negation-before and instead cues: (the clause they end, where they start, whether a place
    // before is said of the thing before it).
    let mut negated_before: Vec<(u32, usize, bool)> = Vec::new();
    // Topics a "not" right before refuses (`said_not_before`), by index.
    let mut refused_here: Vec<usize> = Vec::new();
    // Alternative cues: (clause, where they start).
    let mut alternatives: Vec<(u32, usize)> = Vec::new();
    // Accessory words: (clause, where they start).
    let mut accessories: Vec<(u32, usize)> = Vec::new();
    reading.not_commercial = st.fenced_code;
    // The last not-commercial cue: (its clause, where it ends).
    let mut last_task: Option<(u32, usize)> = None;
    for span in &spans {
        let in_code = inside(&st.code, span);
        let clause = clause_of(span.start);
        let identifier = !in_code && in_identifier(text, span);
        for &hit in matcher.targets(span.pattern) {
            match hit {
                TextHit::Sensitive(s) if matcher.joins_two_words(text, span) => reading.joined_sensitive.push((s, span.start)),
                // Inside a quotation or code the word may be only mentioned (a notice pasted to
                // proofread, a case report to translate); the index weighs it by its topic.
                TextHit::Sensitive(s) if in_code || inside(&st.quotes, span) => reading.quoted_sensitive.push((s, span.start)),
                TextHit::Sensitive(s) => reading.sensitive.push(s),
                TextHit::ContextSensitive(s) => reading.context_sensitive.push((s, span.start, clause)),
                TextHit::AskedSensitive(s) => reading.asked_sensitive.push((s, span.start, clause)),
                // Said of a thing: it only hides the sensitive alias inside it.
                TextHit::NotSensitive(_) => {}
                _ if in_code => {}
                // Refusing a kind of the thing asked for leaves the ask standing (below). The clause
                // it is said in: a negation-before cue starts the next one.
                TextHit::Negation | TextHit::NegationBefore | TextHit::Instead
                    if said_of_a_description(text, span.start)
                        && !description_names_a_topic(&topics, last_cue_end, if hit == TextHit::Negation { clause } else { clause.saturating_sub(1) }) => {}
                TextHit::Instead
                    if !said_of_a_description(text, span.start)
                        && refuses_a_word_not_a_topic(text, &topics, last_cue_end, clause.saturating_sub(1), span.start, steps) => {}
                TextHit::Negation => {
                    voided[clause as usize] = true;
                    negated_clause[clause as usize] = true;
                    reading.refused = true;
                }
                TextHit::AfterSales => voided[clause as usize] = true,
                TextHit::Selling => {
                    voided[clause as usize] = true;
                    sold[clause as usize] = true;
                }
                // The span starts the next clause: the one it ends is the one before.
                TextHit::NegationBefore => negated_before.push((clause.saturating_sub(1), span.start, true)),
                TextHit::Instead => negated_before.push((clause.saturating_sub(1), span.start, false)),
                // A task named as what a thing asked for is for is no task asked: "which laptop
                // is best for writing python scripts", "번역 작업용 노트북", "코드 짜는 용도로"
                // (but "for my presentation i need to explain …" is one).
                TextHit::NotCommercial
                    if said_as_a_use(text, span.end)
                        || purpose_from[clause as usize]
                            .is_some_and(|from| from <= span.start && last_cue_end.is_some_and(|(c, end)| c == clause && end < from)) => {}
                TextHit::NotCommercial => {
                    reading.not_commercial = true;
                    last_task = Some((clause, span.end));
                }
                TextHit::ClauseBreak => {}
                TextHit::PurchaseCue | TextHit::CompareCue | TextHit::Purpose | TextHit::PurposeBefore | TextHit::Alternative if inside(&st.quotes, span) => {}
                TextHit::Alternative => alternatives.push((clause, span.start)),
                TextHit::Accessory => accessories.push((clause, span.start)),
                TextHit::Purpose => {
                    purpose_from[clause as usize].get_or_insert(span.end);
                }
                TextHit::PurposeBefore => {
                    let from = last_cue_end.filter(|&(c, _)| c == clause).map_or(0, |(_, end)| end);
                    purpose_windows.push((clause, from, span.start));
                }
                TextHit::PurchaseCue => {
                    purchase.push((clause, span.start));
                    last_cue_end = Some((clause, span.end));
                }
                TextHit::CompareCue => {
                    compare.push((clause, span.start));
                    last_cue_end = Some((clause, span.end));
                }
                TextHit::NotCategory(c) => negative.push((Topic::Category(c), clause)),
                TextHit::NotEntity(e) => negative.push((Topic::Entity(e), clause)),
                _ if identifier => {}
                TextHit::Category(_) | TextHit::Entity(_) | TextHit::WeakCategory(_) | TextHit::WeakEntity(_) => {
                    let (topic, weak) = match hit {
                        TextHit::Category(c) => (Topic::Category(c), false),
                        TextHit::Entity(e) => (Topic::Entity(e), false),
                        TextHit::WeakCategory(c) => (Topic::Category(c), true),
                        TextHit::WeakEntity(e) => (Topic::Entity(e), true),
                        _ => unreachable!("a topic hit"),
                    };
                    let only = said_only(text, span.end) || said_only_before(text, span.start);
                    if said_not_before(text, span.start) {
                        refused_here.push(topics.len());
                    }
                    topics.push(TopicHit { topic, weak, clause, purpose: false, start: span.start, end: span.end, head: false, left: false, only });
                }
            }
        }
    }
    // Where an ask after the task may stand: from the clause after its last cue to the end of
    // that cue's line (the clause the line break ends), found once; none in fenced code.
    reading.asks_after_task = match last_task {
        Some((clause, end)) if !st.fenced_code => (clause + 1, text[end..].find('\n').map_or(u32::MAX, |i| clause_of(end + i))),
        _ => (1, 0),
    };
    // Topics are in order of position, so in order of clause too: every lookup below is a
    // binary search over them or a table by clause.
    if !steps.take(topics.len() * 8 + purchase.len() + compare.len() + negated_before.len() + alternatives.len() + purpose_windows.len() + accessories.len()) {
        reading.over_budget = true;
        return reading;
    }
    // An accessory word right after a thing (only spaces, a model number or 용 between) names
    // that thing's accessory: "아이폰16 케이스", "갤탭s10용 커버", "MacBook Air 13 charger". The
    // thing is whose it is, as in a negative context ("맥북 충전기"), and the clause names
    // something else (`other_heads`).
    for &(clause, at) in &accessories {
        if let Some(n) = nearest_ending_before(&topics, clause, at, steps) {
            if accessory_of(&text[topics[n].end..at]) {
                negative.extend(at_the_same_span(&topics, n, steps).map(|j| (topics[j].topic, clause)));
            }
        }
    }
    negative.sort_unstable();
    negative.dedup();
    let said_of_another = |topic: Topic, clause: u32| negative.binary_search(&(topic, clause)).is_ok();
    // Purpose windows by clause and end; a topic is in one when a window of its clause ends at
    // or after it and, of those, the one reaching back furthest starts at or before it.
    purpose_windows.sort_unstable_by_key(|&(c, _, until)| (c, until));
    let mut reach_back = vec![0usize; purpose_windows.len()];
    for i in (0..purpose_windows.len()).rev() {
        let (clause, from, _) = purpose_windows[i];
        reach_back[i] = match purpose_windows.get(i + 1) {
            Some(&(next, _, _)) if next == clause => from.min(reach_back[i + 1]),
            _ => from,
        };
    }
    for t in topics.iter_mut() {
        let w = purpose_windows.partition_point(|&(c, _, until)| (c, until) < (t.clause, t.end));
        t.purpose = purpose_from[t.clause as usize].is_some_and(|from| t.start >= from)
            || purpose_windows.get(w).is_some_and(|&(c, _, _)| c == t.clause && reach_back[w] <= t.start);
    }
    // What a negation-before cue is said of: the nearest topic before it in the clause it ends
    // (with every category of the clause when that topic is a category), and the cues after it.
    let mut negated = vec![false; topics.len()];
    for &i in &refused_here {
        for j in at_the_same_span(&topics, i, steps) {
            negated[j] = true;
        }
    }
    let mut categories_negated = vec![false; clauses];
    let is_place = |t: &TopicHit| matches!(t.topic, Topic::Entity(e) if places.get(e as usize).copied().unwrap_or(false));
    // Cues said with a negated topic: (clause, from, until).
    let mut cue_cuts: Vec<(u32, usize, usize)> = Vec::new();
    for &(clause, at, describes) in &negated_before {
        // A done cue in an aside that names nothing before it is said of the thing the aside
        // follows: "신주쿠 호텔 3박 (회사에서 예약 완료)", "명동 호텔 (예약완료)".
        let said_of = nearest_ending_before(&topics, clause, at, steps).or_else(|| {
            if !describes {
                return None;
            }
            // The parenthesis opens a few clause ends back at most (a comma or the cue itself
            // may end one after it), and the aside is still open at the cue.
            let opens = |end: usize| text[..end].ends_with(['(', '（']);
            let opened = *clause_ends[..clause_of(at) as usize].iter().rev().take(3).find(|&&end| opens(end))?;
            // An aside is a few words: a longer reach is not read (and each cue's look stays bounded).
            const ASIDE_MAX_BYTES: usize = 64;
            let aside = at - opened <= ASIDE_MAX_BYTES && !text[opened..at].contains([')', '）']);
            // The clause the parenthesis opens in: what the aside follows.
            aside.then(|| nearest_ending_before(&topics, clause_of(opened - 1), opened, steps)).flatten()
        });
        let cues_from = match said_of {
            Some(mut n) => {
                // What is done is a thing, not a place: a place before a negation-before cue
                // describes the thing before it ("KTX 부산 가는 거 예매해둔 거", "flights to
                // tokyo are booked"), which the cue is said of with it. An instead cue refuses
                // the place itself ("부산 말고 제주").
                while describes && is_place(&topics[n]) {
                    for j in at_the_same_span(&topics, n, steps) {
                        negated[j] = true;
                    }
                    match nearest_ending_before(&topics, clause, topics[n].start, steps) {
                        Some(m) => n = m,
                        None => break,
                    }
                }
                let start = topics[n].start;
                for j in at_the_same_span(&topics, n, steps) {
                    negated[j] = true;
                }
                if matches!(topics[n].topic, Topic::Category(_)) {
                    categories_negated[topics[n].clause as usize] = true;
                }
                start
            }
            None => 0,
        };
        cue_cuts.push((clause, cues_from, at));
    }
    for (t, negated) in topics.iter().zip(negated.iter_mut()) {
        *negated |= matches!(t.topic, Topic::Category(_)) && categories_negated[t.clause as usize];
    }
    // The cue cuts as disjoint intervals per clause, then one binary search per cue.
    cue_cuts.sort_unstable();
    let mut cuts: Vec<(u32, usize, usize)> = Vec::with_capacity(cue_cuts.len());
    for (clause, from, until) in cue_cuts {
        match cuts.last_mut() {
            Some(last) if last.0 == clause && from <= last.2 => last.2 = last.2.max(until),
            _ => cuts.push((clause, from, until)),
        }
    }
    let cut = |&(clause, pos): &(u32, usize)| {
        let i = cuts.partition_point(|&(c, from, _)| (c, from) <= (clause, pos));
        i > 0 && cuts[i - 1].0 == clause && pos < cuts[i - 1].2
    };
    purchase.retain(|cue| !cut(cue));
    compare.retain(|cue| !cut(cue));
    // After-sales is what happened to a thing; a later clause that asks to buy and names
    // nothing asks for that thing again: "my old headphones finally broke, time to replace
    // them. what's good under 200?". The topics of the after-sales clauses before such a
    // clause count (a negation's never do; a clause asking for nothing new, "how do I
    // complain", is after-sales itself).
    let mut names_topic = vec![false; clauses];
    for (t, &negated) in topics.iter().zip(&negated) {
        if !negated && !said_of_another(t.topic, t.clause) {
            names_topic[t.clause as usize] = true;
        }
    }
    let asks_again = purchase.iter().chain(&compare).map(|&(c, _)| c).filter(|&c| !voided[c as usize] && !names_topic[c as usize]).max();
    let revived = |c: u32| !negated_clause[c as usize] && !sold[c as usize] && asks_again.is_some_and(|a| c < a);
    let mut i = 0;
    topics.retain(|t| {
        i += 1;
        !negated[i - 1] && (!voided[t.clause as usize] || revived(t.clause)) && !said_of_another(t.topic, t.clause)
    });
    // The nearest topic of a cue's clause among `candidates` (indices of topics, in order of
    // position): before the cue for a Korean one, after it for an English one, else the other
    // side. Clauses follow positions, so the neighbours in the list are the only ones to ask.
    let nearest = |topics: &[TopicHit], candidates: &[usize], clause: u32, at: usize| {
        let korean = text[at..].chars().next().is_some_and(is_syllable);
        let k = candidates.partition_point(|&i| topics[i].start < at);
        let before = k.checked_sub(1).map(|k| candidates[k]).filter(|&i| topics[i].clause == clause);
        let m = candidates.partition_point(|&i| topics[i].start <= at);
        let after = candidates.get(m).copied().filter(|&i| topics[i].clause == clause);
        if korean {
            before.or(after)
        } else {
            after.or(before)
        }
    };
    // The head each counting cue is said of, in its clause (a category not in a purpose phrase).
    let categories: Vec<usize> = (0..topics.len()).filter(|&i| !topics[i].purpose && matches!(topics[i].topic, Topic::Category(_))).collect();
    for &(clause, at) in purchase.iter().chain(&compare) {
        if !voided[clause as usize] {
            if let Some(i) = nearest(&topics, &categories, clause, at) {
                topics[i].head = true;
            }
        }
    }
    // What each alternative cue is said of: the nearest entity of its clause, on the side a head
    // is looked for first.
    let entities: Vec<usize> = (0..topics.len()).filter(|&i| matches!(topics[i].topic, Topic::Entity(_))).collect();
    for &(clause, at) in &alternatives {
        if !voided[clause as usize] {
            if let Some(i) = nearest(&topics, &entities, clause, at) {
                topics[i].left = true;
            }
        }
    }
    reading.over_budget = steps.spent();
    let clause_start = |c: usize| if c == 0 { 0 } else { clause_ends[c - 1] };
    let clause_end = |c: usize| clause_ends.get(c).copied().unwrap_or(text.len());
    reading.refused_spans = (0..clauses).filter(|&c| negated_clause[c]).map(|c| (clause_start(c), clause_end(c))).collect();
    reading.other_heads = negative.iter().map(|&(_, c)| c).chain(accessories.iter().map(|&(c, _)| c)).collect();
    reading.other_heads.sort_unstable();
    reading.other_heads.dedup();
    reading.topics = topics;
    reading.purchase_clauses = purchase.into_iter().map(|(c, _)| c).filter(|&c| !voided[c as usize]).collect();
    reading.compare_clauses = compare.into_iter().map(|(c, _)| c).filter(|&c| !voided[c as usize]).collect();
    reading
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::normalize;

    fn matcher() -> TextMatcher {
        let aliases: Vec<(&str, TextHit)> = vec![
            ("laptop", TextHit::Category(0)),
            ("hotel", TextHit::Category(1)),
            ("flight", TextHit::Category(2)),
            ("train", TextHit::WeakCategory(3)),
            ("model train", TextHit::NotCategory(3)),
            ("tokyo", TextHit::Entity(0)),
            ("seoul", TextHit::Entity(3)),
            ("서울", TextHit::Entity(3)),
            ("해운대", TextHit::Entity(5)),
            ("대구", TextHit::Entity(6)),
            ("buy", TextHit::PurchaseCue),
            ("looking for", TextHit::PurchaseCue),
            ("vs", TextHit::CompareCue),
            ("already have", TextHit::Negation),
            ("refund", TextHit::AfterSales),
            ("selling my", TextHit::Selling),
            ("translate", TextHit::NotCommercial),
            ("번역", TextHit::NotCommercial),
            ("but", TextHit::ClauseBreak),
            ("suicide", TextHit::Sensitive(0)),
            ("for", TextHit::Purpose),
            ("에서 쓸", TextHit::PurposeBefore),
            ("노트북", TextHit::Category(0)),
            ("비행기", TextHit::Category(2)),
            ("도쿄", TextHit::Entity(0)),
            ("숙소", TextHit::Category(1)),
            ("애플", TextHit::Entity(1)),
            ("삼성", TextHit::Entity(2)),
            ("vpn", TextHit::Category(4)),
            ("말고", TextHit::Instead),
            ("예약했고", TextHit::NegationBefore),
            ("are booked", TextHit::NegationBefore),
            ("에 깔", TextHit::PurposeBefore),
            ("필요", TextHit::PurchaseCue),
            ("추천", TextHit::CompareCue),
            ("사려는데", TextHit::PurchaseCue),
            ("outgrown", TextHit::Alternative),
            ("불안하", TextHit::Sensitive(1)),
            ("와이파이가 불안", TextHit::NotSensitive(1)),
            ("에서 갈아타", TextHit::Alternative),
            ("이미 있", TextHit::Negation),
            ("필요 없", TextHit::Negation),
            ("case", TextHit::Accessory),
            ("케이스", TextHit::Accessory),
            ("액정", TextHit::AfterSales),
        ];
        TextMatcher::build(aliases.into_iter()).expect("test aliases build")
    }

    fn read_text(text: &str) -> Reading {
        // Entity 0 (도쿄) is a place.
        read(&matcher(), &normalize(text), &[true], &mut Steps::default())
    }

    fn topics(r: &Reading) -> Vec<(Topic, u32)> {
        r.topics.iter().map(|t| (t.topic, t.clause)).collect()
    }

    #[test]
    fn clauses_end_at_sentence_ends_and_breaks() {
        let r = read_text("I'm in Tokyo. Looking for a hotel, but maybe a flight");
        assert_eq!(topics(&r), vec![(Topic::Entity(0), 0), (Topic::Category(1), 1), (Topic::Category(2), 2)]);
        assert_eq!(r.purchase_clauses, vec![1]);
        // A polite Korean ending before another Hangul word ends its sentence: the hotel asked
        // for and the flight someone else booked are two clauses.
        assert_eq!(
            topics(&read_text("도쿄 숙소 잡으면 돼요 비행기는 회사에서")),
            vec![(Topic::Entity(0), 0), (Topic::Category(1), 0), (Topic::Category(2), 1)]
        );
        assert_eq!(topics(&read_text("숙소 필요 비행기")), vec![(Topic::Category(1), 0), (Topic::Category(2), 0)]);
        let r = read_text("tokyo\nbuy a laptop");
        assert_eq!(topics(&r), vec![(Topic::Entity(0), 0), (Topic::Category(0), 1)]);
        // A decimal point is not a sentence end.
        assert_eq!(topics(&read_text("a 1.5 kg laptop, tokyo")), vec![(Topic::Category(0), 0), (Topic::Entity(0), 0)]);
        // A dash is; a hyphen inside a word is not.
        assert_eq!(topics(&read_text("tokyo — a hotel")), vec![(Topic::Entity(0), 0), (Topic::Category(1), 1)]);
        assert_eq!(topics(&read_text("tokyo - a hotel")), vec![(Topic::Entity(0), 0), (Topic::Category(1), 1)]);
        assert_eq!(topics(&read_text("tokyo-hotel laptop")), vec![(Topic::Entity(0), 0), (Topic::Category(1), 0), (Topic::Category(0), 0)]);
    }

    #[test]
    fn negation_and_after_sales_void_their_clause_only() {
        let r = read_text("We already have a laptop. Looking for a hotel");
        assert_eq!(topics(&r), vec![(Topic::Category(1), 1)]);
        let r = read_text("I want a refund for the flight I buy");
        assert!(r.topics.is_empty() && r.purchase_clauses.is_empty());
    }

    #[test]
    fn a_negation_is_said_up_to_the_next_comma() {
        let r = read_text("already have a flight, just a hotel in tokyo");
        assert_eq!(topics(&r), vec![(Topic::Category(1), 1), (Topic::Entity(0), 1)]);
        let r = read_text("we already have a laptop, and a hotel");
        assert_eq!(topics(&r), vec![(Topic::Category(1), 1)]);
        // Without a comma, the whole clause.
        assert!(read_text("we already have a laptop and a hotel").topics.is_empty());
        // A negation is said from the comma before it: the hotel stays.
        let r = read_text("a hotel in tokyo, already have a flight, and a laptop");
        assert_eq!(topics(&r), vec![(Topic::Category(1), 0), (Topic::Entity(0), 0), (Topic::Category(0), 2)]);
    }

    #[test]
    fn a_korean_negation_is_said_up_to_a_connective_ending() {
        // "이미 있어서" / "이미 있고": the laptop is had, the hotel is asked.
        let r = read_text("노트북은 이미 있어서 도쿄 숙소 사려는데");
        assert_eq!(topics(&r), vec![(Topic::Entity(0), 1), (Topic::Category(1), 1)]);
        let r = read_text("노트북은 이미 있고 숙소 추천");
        assert_eq!(topics(&r), vec![(Topic::Category(1), 1)]);
        // Any other continuation keeps the whole clause voided ("이미 있는": the ones had).
        assert!(read_text("노트북이랑 숙소 이미 있는 상태 숙소 추천").topics.is_empty());
        assert!(read_text("노트북이랑 숙소 이미 있음").topics.is_empty());
        // A cue that is a noun ends its clause where its predicate, a word or two on, does.
        let r = read_text("노트북 액정 다 나가서 걍 숙소 사려는데");
        assert_eq!(topics(&r), vec![(Topic::Category(1), 1)]);
        // Not at the particle 에서, nor past two words.
        assert!(read_text("노트북 액정 나감 부산에서 숙소").topics.is_empty());
        assert!(read_text("노트북 액정 정말 다 나가서 숙소").topics.is_empty());
    }

    #[test]
    fn a_later_ask_for_nothing_new_revives_an_after_sales_clause() {
        let r = read_text("my laptop needs a refund. buy what?");
        assert_eq!(topics(&r), vec![(Topic::Category(0), 0)]);
        assert_eq!(r.purchase_clauses, vec![1]);
        // Not when the later clause names a topic of its own, nor after a negation.
        let r = read_text("my laptop needs a refund. buy a hotel");
        assert_eq!(topics(&r), vec![(Topic::Category(1), 1)]);
        assert!(read_text("we already have a laptop. buy what?").topics.is_empty());
        // Not when the later clause is after-sales itself.
        assert!(read_text("my laptop needs a refund. refund or buy?").topics.is_empty());
        // Nor after a sale: a price asked after it is what the thing sells for.
        let r = read_text("selling my laptop. buy what?");
        assert!(r.topics.is_empty());
        assert_eq!(r.purchase_clauses, vec![1]);
    }

    #[test]
    fn code_names_nothing() {
        let r = read_text("why does `flight.price` fail when I buy");
        assert!(r.topics.is_empty());
        assert_eq!(r.purchase_clauses, vec![0]);
        assert!(read_text("order.flight is null").topics.is_empty());
        assert!(read_text("call book_flight() then hotel()").topics.is_empty());
        let r = read_text("```\nbuy(laptop)\n```\nwhat is wrong");
        assert!(r.topics.is_empty() && r.purchase_clauses.is_empty() && r.not_commercial);
        // Sensitive words are read even in code, as quoted ones are: the index weighs them by
        // their topic (a quoted "I want to die" counts as it stands).
        assert_eq!(read_text("`suicide`").quoted_sensitive, vec![(0, 1)]);
    }

    #[test]
    fn pasted_sql_is_code() {
        // The statement's words name nothing and ask nothing; the turn is a coding turn.
        let r = read_text("why so slow?\nSELECT vpn, count(*) FROM 노트북 GROUP BY 1; buy");
        assert!(r.topics.is_empty() && r.not_commercial);
        // English that selects a thing from a list is no statement.
        let r = read_text("I'll select a vpn from the list where it is cheap, buy it");
        assert_eq!(topics(&r), vec![(Topic::Category(4), 0)]);
        assert!(!r.not_commercial);
        // Nor is a select with no table after it.
        assert!(!read_text("select the best vpn for travel").not_commercial);
    }

    #[test]
    fn an_ask_after_a_task_on_its_line_is_an_ask_of_its_own() {
        let asked_after = |r: &Reading| r.purchase_clauses.iter().any(|c| (r.asks_after_task.0..=r.asks_after_task.1).contains(c));
        // A question, then a purchase of its own, on one line.
        let r = read_text("translate this word. then buy a laptop");
        assert!(r.not_commercial && asked_after(&r));
        // A task is said up to the next comma, as a negation is.
        let r = read_text("translate this word, then buy a laptop");
        assert!(r.not_commercial && asked_after(&r));
        // The cue inside the task, or on a pasted line after it, is the task's.
        let r = read_text("translate: buy a laptop");
        assert!(r.not_commercial && !asked_after(&r));
        let r = read_text("translate this\nthe laptop is $900. buy now");
        assert!(r.not_commercial && !asked_after(&r));
        let r = read_text("buy a laptop. translate that");
        assert!(r.not_commercial && !asked_after(&r));
        // Fenced code is the task whole.
        let r = read_text("```\nbuy(laptop)\n```\nwhat is wrong. buy?");
        assert!(r.not_commercial && !asked_after(&r));
    }

    #[test]
    fn only_is_read_a_few_words_back_and_never_inside_a_word() {
        let only = |text: &str| said_only_before(text, text.rfind("hotel").expect("a hotel"));
        assert!(only("just a hotel") && only("only need the hotel") && only("flights are sorted, just needs a hotel"));
        assert!(!only("adjust the hotel") && !only("just a cheap hotel") && !only("a hotel"));
        // However long the turn before it, only the window is read.
        assert!(only(&format!("{} just a hotel", "x".repeat(5_000))));
        assert!(!only(&format!("{}djust the hotel", "a".repeat(5_000))));
    }

    #[test]
    fn a_not_right_before_a_topic_refuses_it_alone() {
        // Category 1 is the hotel, 2 the flight.
        assert_eq!(topics(&read_text("need hotel in tokyo area only, not flight, i have ticket")), vec![(Topic::Category(1), 0), (Topic::Entity(0), 0)]);
        assert_eq!(topics(&read_text("a hotel, not a flight")), vec![(Topic::Category(1), 0)]);
        assert!(!read_text("a hotel, not a flight").refused);
        // Not "no" (what the user lacks), not a word between, not a word ending in "not".
        assert_eq!(read_text("i have no flight yet").topics.len(), 1);
        assert_eq!(read_text("not cheap flight").topics.len(), 1);
        assert_eq!(read_text("cannot flight").topics.len(), 1);
    }

    #[test]
    fn a_korean_sentence_ending_ends_a_clause_without_a_mark() {
        // A request, then another sentence with no mark between them.
        let r = read_text("숙소 추천해줘 비행기 필요");
        assert_eq!(r.topics.iter().map(|t| t.clause).collect::<Vec<_>>(), vec![0, 1]);
        // A contracted past: "에어팟 잃어버렸어요 이어폰 추천".
        assert_eq!(read_text("비행기 잃어버렸어요 숙소 추천").topics.iter().map(|t| t.clause).collect::<Vec<_>>(), vec![0, 1]);
        // A run of crying letters ends a sentence too.
        assert_eq!(read_text("비행기 놓침 ㅠㅠ 숙소 추천").topics.iter().map(|t| t.clause).collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(read_text("비행기 ㅠ 숙소").topics.iter().map(|t| t.clause).collect::<Vec<_>>(), vec![0, 0]);
        // A thing done ahead, with 놓았어 contracted: "비행기는 끊어놨어요 숙소 추천".
        assert_eq!(read_text("비행기 끊어놨어요 숙소 추천").topics.iter().map(|t| t.clause).collect::<Vec<_>>(), vec![0, 1]);
        // Not inside a word, nor before a word that is not Hangul.
        assert_eq!(read_text("숙소 추천해 줘서 고마워 비행기").topics.iter().map(|t| t.clause).collect::<Vec<_>>(), vec![0, 0]);
    }

    #[test]
    fn quoted_cues_are_not_meant() {
        let r = read_text("how do you say 'buy a laptop' in Korean");
        assert!(r.purchase_clauses.is_empty());
        assert_eq!(r.topics.len(), 1);
        // An apostrophe is not a quotation mark.
        assert_eq!(read_text("I'm looking for a laptop, it's for work").purchase_clauses, vec![0]);
        assert!(read_text("translate “buy now”").not_commercial);
    }

    #[test]
    fn negative_context_voids_its_topic_in_its_clause() {
        assert!(read_text("looking for a model train set").topics.is_empty());
        let r = read_text("a model train. train to tokyo");
        assert_eq!(topics(&r), vec![(Topic::Category(3), 1), (Topic::Entity(0), 1)]);
        assert!(r.topics[0].weak);
    }

    #[test]
    fn an_instead_cue_refuses_the_word_right_before_it() {
        // A word between the topic and the cue is what is refused: a package, a free plan.
        let r = read_text("도쿄 패키지 말고 비행기만 추천");
        assert_eq!(topics(&r), vec![(Topic::Entity(0), 0), (Topic::Category(2), 1)]);
        assert_eq!(topics(&read_text("vpn 무료말고 유료로 추천")), vec![(Topic::Category(4), 0)]);
        // The topic itself, with its particle or the ask said of it, is refused.
        assert_eq!(topics(&read_text("비행기는 말고 숙소 추천")), vec![(Topic::Category(1), 1)]);
        assert!(read_text("노트북 추천은 말고요").topics.is_empty());
    }

    #[test]
    fn negation_before_voids_what_it_is_said_of() {
        // The nearest topic, and every category of the clause when it is one: not the flight,
        // still Tokyo.
        let r = read_text("도쿄 가는 비행기 말고 숙소 추천");
        assert_eq!(topics(&r), vec![(Topic::Entity(0), 0), (Topic::Category(1), 1)]);
        assert_eq!(r.compare_clauses, vec![1]);
        // An entity: that entity only.
        let r = read_text("노트북 애플 말고 삼성");
        assert_eq!(topics(&r), vec![(Topic::Category(0), 0), (Topic::Entity(2), 1)]);
        // The cues after the topic go with it, those before it stay.
        let r = read_text("노트북 사려는데 애플 말고");
        assert_eq!(topics(&r), vec![(Topic::Category(0), 0)]);
        assert_eq!(r.purchase_clauses, vec![0]);
        let r = read_text("애플 사려는데 말고");
        assert!(r.topics.is_empty() && r.purchase_clauses.is_empty());
        // No topic: the clause's cues.
        assert!(read_text("사려는데 말고 노트북").purchase_clauses.is_empty());
        // Only from the comma before it: the flight asked before the comma stays asked.
        let r = read_text("we need a flight to tokyo, the hotel 말고");
        assert_eq!(topics(&r), vec![(Topic::Category(2), 0), (Topic::Entity(0), 0)]);
        let r = read_text("a flight to tokyo, a laptop, the hotel 말고");
        assert_eq!(topics(&r), vec![(Topic::Category(2), 0), (Topic::Entity(0), 0), (Topic::Category(0), 0)]);
    }

    #[test]
    fn a_place_before_a_thing_done_describes_it_but_a_place_refused_is_the_place() {
        // The thing booked goes, and the place it was booked for stays for what is asked after.
        let r = read_text("도쿄 가는 비행기 예약했고 숙소 추천");
        assert_eq!(topics(&r), vec![(Topic::Entity(0), 0), (Topic::Category(1), 1)]);
        // After the thing, the place describes it: what is booked is the flight, not Tokyo alone.
        let r = read_text("비행기 도쿄 가는 거 예약했고 숙소 추천");
        assert_eq!(topics(&r), vec![(Topic::Category(1), 1)]);
        let r = read_text("the flight to tokyo are booked. need a hotel");
        assert_eq!(topics(&r), vec![(Topic::Category(1), 2)]);
        // A place alone before it is what is done with (a trip to Tokyo): that place only.
        let r = read_text("도쿄 예약했고 숙소 추천");
        assert_eq!(topics(&r), vec![(Topic::Category(1), 1)]);
        // Refused, the place is the thing refused: the hotel is still asked for.
        let r = read_text("숙소는 도쿄 말고 추천");
        assert_eq!(topics(&r), vec![(Topic::Category(1), 0)]);
    }

    #[test]
    fn a_thing_done_said_in_an_aside_that_names_nothing_is_the_thing_the_aside_follows() {
        // "(예약했고)" right after the hotel, with or without words before it in the aside: the
        // hotel is done; the flight asked after is still asked.
        for text in ["숙소 (예약했고) 비행기 추천", "숙소 (회사에서 예약했고) 비행기 추천", "hotel (are booked) need a flight"] {
            let r = read_text(text);
            assert_eq!(topics(&r).iter().map(|&(t, _)| t).collect::<Vec<_>>(), vec![Topic::Category(2)], "{text}");
        }
        // An aside that names its own thing refuses that thing, as before.
        let r = read_text("숙소 추천 (비행기는 예약했고)");
        assert_eq!(topics(&r), vec![(Topic::Category(1), 0)]);
        // Once the aside is closed, a cue after it is no longer the aside's.
        let r = read_text("숙소 (2박) 회사에서 예약했고 비행기 추천");
        assert!(topics(&r).contains(&(Topic::Category(1), 0)), "{:?}", topics(&r));
    }

    #[test]
    fn a_weak_word_is_said_as_a_thing_after_an_article_and_before_no_noun() {
        let said = |text: &str, word: &str| {
            let start = text.find(word).expect("the word is in the text");
            said_as_a_thing(text, start, start + word.len())
        };
        assert!(said("what buds should i get", "buds"));
        assert!(said("need some buds for the gym", "buds"));
        assert!(said("looking for a tab?", "tab"));
        assert!(said("탭 하나 살까", "탭"));
        assert!(!said("my buds love it", "buds"));
        assert!(!said("get a korean phone number", "korean"));
        assert!(!said("tab", "tab"));
    }

    #[test]
    fn refusing_a_kind_of_the_thing_leaves_the_ask_standing() {
        // Said of a description (a modifier and 거/것), a negation voids nothing.
        let r = read_text("노트북 사려는데 너무 비싼 거 말고 가벼운 걸로");
        assert_eq!(topics(&r), vec![(Topic::Category(0), 0)]);
        assert_eq!(r.purchase_clauses, vec![0]);
        let r = read_text("노트북 사려는데 비싼 건 필요 없고 배터리 오래 가는 걸로");
        assert_eq!(topics(&r), vec![(Topic::Category(0), 0)]);
        assert_eq!(r.purchase_clauses, vec![0]);
        assert!(!read_text("노트북 사려는데 비싼거말고").topics.is_empty());
        // A use said with 용 describes the thing too.
        assert!(!read_text("노트북 추천 업무용 말고 게임용으로").topics.is_empty());
        assert!(read_text("노트북 추천 노트북 말고 게임용으로").topics.is_empty());
        // Said of the thing, or of a description that names it, it still does.
        assert!(read_text("노트북 사려는데 노트북은 필요 없고").topics.is_empty());
        assert!(read_text("노트북 사려는데 vpn 깔린 거 말고").topics.iter().all(|t| t.topic != Topic::Category(4)));
        assert!(read_text("애플 말고").topics.is_empty());
    }

    #[test]
    fn purpose_before_reaches_back_to_the_last_cue() {
        let purpose = |text: &str| read_text(text).topics.iter().map(|t| (t.topic, t.purpose)).collect::<Vec<_>>();
        assert_eq!(purpose("vpn 필요함 노트북에 깔 거"), vec![(Topic::Category(4), false), (Topic::Category(0), true)]);
        assert_eq!(purpose("도쿄 숙소 와이파이에 깔 vpn"), vec![(Topic::Entity(0), true), (Topic::Category(1), true), (Topic::Category(4), false)]);
    }

    #[test]
    fn a_negative_context_marks_its_clause_as_naming_something_else() {
        let r = read_text("looking for a model train for tokyo. a hotel");
        assert_eq!(r.other_heads, vec![0]);
        assert_eq!(topics(&r), vec![(Topic::Entity(0), 0), (Topic::Category(1), 1)]);
    }

    #[test]
    fn a_district_of_a_place_is_that_place() {
        // "해운대구" is Haeundae's district (구 goes on from a place name), not 대구 (Daegu) read
        // inside it.
        assert_eq!(topics(&read_text("해운대구 맛집 추천")), vec![(Topic::Entity(5), 0)]);
        assert_eq!(topics(&read_text("대구 맛집 추천")), vec![(Topic::Entity(6), 0)]);
    }

    #[test]
    fn a_parenthesis_sets_an_aside_apart() {
        // The aside's refusal is its own clause: the hotel before it is still asked.
        let r = read_text("buy a hotel in tokyo (already have flight)");
        assert_eq!(topics(&r), vec![(Topic::Category(1), 0), (Topic::Entity(0), 0)]);
        assert_eq!(r.purchase_clauses, vec![0]);
    }

    #[test]
    fn a_task_named_as_what_a_thing_is_for_is_no_task_asked() {
        for text in ["looking for a laptop for translate work", "번역 작업용 노트북 추천", "번역용 노트북 추천", "노트북 사려는데 번역 돌릴 용도"]
        {
            assert!(!read_text(text).not_commercial, "{text}");
        }
        // Asked for itself, or with "for" before any request, it is the task.
        for text in ["translate this for my boss", "for my boss, translate this", "번역 좀 해줘", "노트북 후기 번역해줘"] {
            assert!(read_text(text).not_commercial, "{text}");
        }
    }

    #[test]
    fn an_accessory_word_right_after_a_thing_names_that_things_accessory() {
        // Right after it, with spaces, a hyphen, a model number or 용 between: whose accessory it is.
        for text in [
            "looking for a laptop case",
            "looking for a laptop-case",
            "laptop 13 case, buy",
            "노트북케이스 추천",
            "노트북 16인치 케이스 추천",
            "노트북용 케이스 추천",
        ] {
            let r = read_text(text);
            assert!(r.topics.is_empty(), "{text}: {:?}", topics(&r));
            assert_eq!(r.other_heads, vec![0], "{text}");
        }
        // Anywhere else in its clause, the clause names something else: a thing the accessory is
        // for is dropped by the index (`purpose`), and a thing asked beside it stays.
        let r = read_text("looking for a case for my laptop");
        assert_eq!(r.other_heads, vec![0]);
        assert_eq!(r.topics.iter().map(|t| (t.topic, t.purpose)).collect::<Vec<_>>(), vec![(Topic::Category(0), true)]);
        let r = read_text("buy a laptop, and a hotel case");
        assert_eq!(topics(&r), vec![(Topic::Category(0), 0)]);
        // A phrase between is not one name: the laptop is still asked.
        assert_eq!(topics(&read_text("buy a laptop with a good case")), vec![(Topic::Category(0), 0)]);
        assert!(read_text("buy a laptop").other_heads.is_empty());
    }

    #[test]
    fn typos_are_read_as_the_alias_for_the_classifier() {
        let m = matcher();
        let text = normalize("a labtop and a hotle in tokyo");
        let r = read(&m, &text, &[], &mut Steps::default());
        assert_eq!(r.typos.len(), 2);
        assert_eq!(corrected(&m, &text, &r.typos), "a laptop and a hotel in tokyo");
        let plain = normalize("a laptop in tokyo");
        assert!(matches!(corrected(&m, &plain, &read(&m, &plain, &[], &mut Steps::default()).typos), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn a_trip_origin_is_read_from_the_words_around_it() {
        let origin = |text: &str| {
            let text = normalize(text);
            let r = read(&matcher(), &text, &[], &mut Steps::default());
            r.topics.iter().map(|t| (t.topic, is_origin(&text, t, &r.topics))).collect::<Vec<_>>()
        };
        let (tokyo, seoul) = (Topic::Entity(0), Topic::Entity(3));
        assert_eq!(origin("flight from seoul to tokyo"), vec![(Topic::Category(2), false), (seoul, true), (tokyo, false)]);
        assert_eq!(origin("seoul to tokyo"), vec![(seoul, true), (tokyo, false)]);
        assert_eq!(origin("tokyo flights out of seoul"), vec![(tokyo, false), (Topic::Category(2), false), (seoul, true)]);
        assert_eq!(origin("서울에서 도쿄 가는 비행기"), vec![(seoul, true), (tokyo, false), (Topic::Category(2), false)]);
        assert_eq!(origin("서울 출발 도쿄"), vec![(seoul, true), (tokyo, false)]);
        assert_eq!(origin("서울에서 출발하는 비행기"), vec![(seoul, true), (Topic::Category(2), false)]);
        // A stop the trip comes from: "a hotel in tokyo after seoul".
        assert_eq!(origin("a hotel in tokyo after seoul"), vec![(Topic::Category(1), false), (tokyo, false), (seoul, true)]);
        // An article may stand between the word and the place.
        assert_eq!(origin("after the seoul show, a hotel in tokyo"), vec![(seoul, true), (Topic::Category(1), false), (tokyo, false)]);
        assert_eq!(origin("bathe seoul"), vec![(seoul, false)]);
        // Not a word that only ends in "from", nor "to" before a word that is no topic, nor a
        // place something is done in.
        assert_eq!(origin("wherefrom seoul"), vec![(seoul, false)]);
        assert_eq!(origin("seoul to celebrate"), vec![(seoul, false)]);
        assert_eq!(origin("도쿄에서 쓸 노트북"), vec![(tokyo, false), (Topic::Category(0), false)]);
    }

    #[test]
    fn a_cue_is_said_of_the_nearest_category_before_it_in_korean_and_after_it_in_english() {
        let heads = |text: &str| read_text(text).topics.iter().filter(|t| t.head).map(|t| t.topic).collect::<Vec<_>>();
        assert_eq!(heads("숙소 말고 노트북 vpn 필요"), vec![Topic::Category(4)]);
        assert_eq!(heads("looking for a hotel near a flight"), vec![Topic::Category(1)]);
        // Else the nearest on the other side; none for a cue without a category in its clause.
        assert_eq!(heads("추천 노트북 vpn"), vec![Topic::Category(0)]);
        assert_eq!(heads("a laptop and a hotel, buy"), vec![Topic::Category(1)]);
        assert!(heads("tokyo. buy").is_empty());
        // Not a purpose, nor in a voided clause.
        assert_eq!(heads("비행기에서 쓸 노트북 추천"), vec![Topic::Category(0)]);
        assert!(heads("already have a laptop, buy").is_empty());
    }

    #[test]
    fn purpose_cues_mark_what_the_thing_is_for() {
        let purpose = |text: &str| read_text(text).topics.iter().map(|t| (t.topic, t.purpose)).collect::<Vec<_>>();
        // After "for", within its clause only.
        assert_eq!(purpose("a laptop for a hotel. a flight"), vec![(Topic::Category(0), false), (Topic::Category(1), true), (Topic::Category(2), false)]);
        // Before "에서 쓸": the earlier topics are the purpose, the head after it is not.
        assert_eq!(purpose("비행기에서 쓸 노트북"), vec![(Topic::Category(2), true), (Topic::Category(0), false)]);
        // A quoted "for" is not meant.
        assert_eq!(purpose("laptop 'for' hotel"), vec![(Topic::Category(0), false), (Topic::Category(1), false)]);
    }

    #[test]
    fn an_alternative_cue_is_said_of_the_nearest_entity_on_the_side_of_its_language() {
        let left = |r: &Reading| r.topics.iter().filter(|t| t.left).map(|t| t.topic).collect::<Vec<_>>();
        // English: the entity after the cue, else the one before.
        assert_eq!(left(&read_text("seoul, outgrown tokyo")), vec![Topic::Entity(0)]);
        assert_eq!(left(&read_text("tokyo outgrown")), vec![Topic::Entity(0)]);
        // Korean: the entity before the cue.
        assert_eq!(left(&read_text("삼성에서 갈아타 애플")), vec![Topic::Entity(2)]);
        // Never a category, never from another clause, a quotation or a voided clause.
        assert!(left(&read_text("outgrown my laptop")).is_empty());
        assert!(left(&read_text("tokyo. outgrown")).is_empty());
        assert!(left(&read_text("'outgrown' tokyo")).is_empty());
        assert!(left(&read_text("already have tokyo outgrown")).is_empty());
    }

    #[test]
    fn a_sensitive_word_said_of_a_thing_counts_for_nothing() {
        assert_eq!(read_text("요즘 너무 불안하다").sensitive, vec![1]);
        // The negative context hides the alias inside it, with or without the space.
        assert!(read_text("호텔 와이파이가 불안하다던데 vpn 살까").sensitive.is_empty());
        assert!(read_text("와이파이가불안하대서").sensitive.is_empty());
        // Every other hit of the turn still counts.
        assert_eq!(read_text("와이파이가 불안하고 나도 불안하다").sensitive, vec![1]);
        assert_eq!(read_text("와이파이가 불안해서 suicide").sensitive, vec![0]);
    }
}
