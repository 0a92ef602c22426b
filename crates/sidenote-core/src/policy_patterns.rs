//! Sensitive moments that are patterns rather than words, read in the same pass as the words
//! (`index.rs`): an age or a school year that says the user is a minor ("I'm 14", "중2",
//! "15살"), a medicine named by its generic naming stem ("escitalopram", "알프라졸람"), and an
//! adult venue or a veiled ask for paid sex ("안마방", "a girl for the night"). The catalog's
//! sensitive topics list words; these cannot be listed. Recall first: a false block costs one
//! impression, an offer beside a child or a health moment is the worst outcome.
//!
//! Input is the core's `normalize()` output (invisible characters removed, NFKC, lower case,
//! white space collapsed). The `regex` crate runs in time linear in the text and has no
//! look-around: what a pattern must not be next to is checked on each candidate in code
//! (`any_where`), trying every start, so a rejected candidate never hides a later one.
//! `tests/policy-patterns/examples.jsonl` holds each family's positive and negative examples.
use aho_corasick::AhoCorasick;
use regex::{Match, Regex, RegexSet, SetMatches};
use std::sync::LazyLock;

/// The pattern families, as the core reports them (`IndexedMatch::sensitive_patterns`).
pub const MINOR_AGE: &str = "minor_age";
pub const MEDICINE_NAME: &str = "medicine_name";
pub const ADULT_VENUE: &str = "adult_venue";

/// What the patterns read in a turn, from one screening pass.
#[derive(Debug, Default)]
pub struct PatternReading {
    /// The families the turn matches, in this order: minor age, medicine, adult venue.
    pub families: Vec<&'static str>,
    /// A grown-up speaks of their own child: the turn names the user's own child, grandchild,
    /// nephew or niece, or pupils, and says no age or school year of the user themselves. Every
    /// age and school year of such a turn is the child's (no `minor_age`), and so are the
    /// catalog's sensitive topics said of the user (`said_of_the_user`: "중학생", "high schooler").
    pub speaks_of_own_child: bool,
    /// The minor age the turn holds is one the user says of themselves ("I'm 15", "저 중3인데",
    /// "나 16살"). Any other ("동생이 중2라", "a 6 year old", "13살 노견", a bare "중3인데") is a
    /// mention, which the index weighs with the classifier as it weighs context words.
    pub minor_age_own: bool,
    /// The turn speaks of a pet: "우리 강아지", 고양이, 반려견, "my dog", "the vet". A pet's
    /// vaccination or upset stomach is the pet's (`said_of_pets` topics).
    pub speaks_of_a_pet: bool,
    /// Where the turn names someone the user looks after or attends to (the byte each mention
    /// starts at, in order): a parent or grandparent (엄마, 어머님, 할머니, "my mum"), an elder in
    /// their care (어르신, 보호자), a patient or a client. See [`Self::said_of_someone_cared_for`].
    pub cared_for_at: Vec<usize>,
}

/// How near a mention of someone cared for must be to a word to be what the word is said of.
const CARED_FOR_REACH: usize = 30;

impl PatternReading {
    /// Whether the word at byte `at` of `text` is said of someone the user cares for: such a
    /// mention within [`CARED_FOR_REACH`] characters of it, in the same sentence ("어머니 서울
    /// 큰병원 진료", "Mum's just home from hospital"). A hospital or a discharge there is as often
    /// theirs (a check-up to take a mother to, a patient's handover) as the user's own moment.
    pub fn said_of_someone_cared_for(&self, text: &str, at: usize) -> bool {
        if self.cared_for_at.is_empty() {
            return false;
        }
        let ends_sentence = |c: char| matches!(c, '.' | '?' | '!' | '\n');
        let before = chars_before(text, at, CARED_FOR_REACH);
        let from = at - before.len() + before.rfind(ends_sentence).map_or(0, |i| i + 1);
        let after: &str = text[at..].char_indices().nth(CARED_FOR_REACH).map_or(&text[at..], |(i, _)| &text[at..at + i]);
        let to = at + after.find(ends_sentence).unwrap_or(after.len());
        let first = self.cared_for_at.partition_point(|&m| m < from);
        self.cared_for_at.get(first).is_some_and(|&m| m < to)
    }
}

/// The patterns of `text` (normalised).
pub fn read(text: &str) -> PatternReading {
    let turn = Screened::new(text);
    let mut families = Vec::new();
    // Whether the turn names the user's dependants, and (only then, or for a minor age) whether
    // the user gives an age of their own: each read once.
    let dependant = names_dependant(&turn);
    let own_age_beside_dependant = dependant.then(|| says_own_age(&turn));
    let mut minor_age_own = false;
    if own_age_beside_dependant.unwrap_or_else(|| age_or_school_year(&turn)) {
        families.push(MINOR_AGE);
        minor_age_own = own_age_beside_dependant.unwrap_or_else(|| says_own_age(&turn));
    }
    if names_medicine(text) {
        families.push(MEDICINE_NAME);
    }
    if adult_venue(&turn) {
        families.push(ADULT_VENUE);
    }
    let speaks_of_own_child = own_age_beside_dependant == Some(false);
    PatternReading {
        families,
        speaks_of_own_child,
        minor_age_own,
        speaks_of_a_pet: turn.holds(&PET),
        cared_for_at: if turn.holds(&CARED_FOR) { CARED_FOR.find_iter(text).map(|m| m.start()).collect() } else { Vec::new() },
    }
}

/// The families `text` (normalised) matches, in this order: minor age, medicine, adult venue.
pub fn sensitive_patterns(text: &str) -> Vec<&'static str> {
    read(text).families
}

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a policy pattern compiles")
}

/// Whether any match of `re` in `text`, from any start, satisfies `ok`: after a match that does
/// not, the search goes on from the character after its start (matches may overlap). Only for
/// patterns whose matches are short (a few words; white space is collapsed): the search from
/// each start then reads a bounded stretch past it, and the whole is linear in the text. A
/// pattern with an unbounded repeat (`[0-9]+`) would make it quadratic; `says_korean_age` walks
/// its matches instead.
fn any_where(re: &Regex, text: &str, ok: impl Fn(&Match) -> bool) -> bool {
    let mut at = 0;
    while at <= text.len() {
        let Some(m) = re.find_at(text, at) else { return false };
        if ok(&m) {
            return true;
        }
        at = m.start() + text[m.start()..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// The patterns read over the whole turn. They are first looked for all at once, in one pass
/// (`RegexSet`); most turns hold none, and then none of them reads the turn again. On a
/// 4,000-character turn the twenty passes cost 30–50 µs, the one pass 8–18 µs.
static SCANNED: [&LazyLock<Regex>; 26] = [
    &KO_AGE,
    &KO_WORD_AGE,
    &KO_SCHOOL_SHORT,
    &KO_SCHOOL_LONG,
    &KO_GRADE,
    &EN_AGE,
    &EN_WORD_AGE,
    &EN_GRADE_NUMBER,
    &EN_YEARS_OLD,
    &EN_GRADE,
    &EN_SCHOOL,
    &EN_DEPENDANT,
    &EN_COUNTED,
    &KO_DEPENDANT,
    &KO_KIDS_STAGE,
    &EN_OWN_AGE,
    &KO_OWN_AGE,
    &KO_VENUE,
    &KO_VEILED,
    &EN_FOR_THE_NIGHT,
    &EN_VEILED,
    &HAPPY_ENDING,
    &QUOTED_EUPHEMISM,
    &KO_QUOTED_EUPHEMISM,
    &PET,
    &CARED_FOR,
];
static SCREEN: LazyLock<RegexSet> = LazyLock::new(|| RegexSet::new(SCANNED.map(|re| re.as_str())).expect("the policy patterns compile as a set"));

/// A turn and which of the [`SCANNED`] patterns occur in it.
struct Screened<'a> {
    text: &'a str,
    hits: SetMatches,
}

impl<'a> Screened<'a> {
    fn new(text: &'a str) -> Self {
        Self { text, hits: SCREEN.matches(text) }
    }

    /// The screen's answer for `re`: whether it occurs, or `None` for a pattern missing from
    /// [`SCANNED`].
    fn screened(&self, re: &LazyLock<Regex>) -> Option<bool> {
        SCANNED.iter().position(|&scanned| std::ptr::eq(scanned, re)).map(|i| self.hits.matched(i))
    }

    /// Whether `re` occurs in the turn: the screen's answer, or, for a pattern missing from
    /// [`SCANNED`], the pattern run on the turn.
    fn holds(&self, re: &LazyLock<Regex>) -> bool {
        self.screened(re).unwrap_or_else(|| re.is_match(self.text))
    }

    /// [`any_where`], only when the screen does not rule `re` out.
    fn any_where(&self, re: &LazyLock<Regex>, ok: impl Fn(&Match) -> bool) -> bool {
        self.screened(re) != Some(false) && any_where(re, self.text, ok)
    }
}

fn char_before(text: &str, at: usize) -> Option<char> {
    text[..at].chars().next_back()
}

fn char_after(text: &str, at: usize) -> Option<char> {
    text[at..].chars().next()
}

/// The (at most) `n` characters of `text` before byte `at`: the context a candidate is read in.
fn chars_before(text: &str, at: usize, n: usize) -> &str {
    let from = text[..at].char_indices().rev().nth(n - 1).map_or(0, |(i, _)| i);
    &text[from..at]
}

fn is_hangul_syllable(c: char) -> bool {
    ('가'..='힣').contains(&c)
}

// --- minor ages ---------------------------------------------------------------------------------
// Ages under 19 count (Korea's age of majority; the US one is 18).

/// A number, then 살 or 세. The number is read whole (no digit, Latin letter or dot before it);
/// 살 is not the verb 사다 in any of its endings (살만해, 살려고, 살라구, 살래, 살까, 살게, 살거야,
/// 살건데, 살지, 살 수, 살 거, 살 생각): "아이폰16 살라구" buys a phone, "16살" is an age; 세 only
/// right after the number and not the start of another word (세일, 세트, 세대, 세금 …): "iPhone
/// 16 세일" is a sale, not an age.
static KO_AGE: LazyLock<Regex> = LazyLock::new(|| re(r"[0-9]+(?:\s*살|세)"));
static KO_SAL_VERB: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:[만려라래까게께거건꺼껀걸지]|\s+[수거건걸지까게만려라](?:[^가-힣]|$)|\s*(?:생각|계획|예정|마음)(?:[^가-힣]|$|[이은을도]))"));

fn says_korean_age(turn: &Screened) -> bool {
    let text = turn.text;
    // Matches are taken one after another (not from every start, as `any_where` does): each
    // begins a whole run of digits, the only place an age can begin, and a digit run of any
    // length is then read once.
    turn.holds(&KO_AGE)
        && KO_AGE.find_iter(text).any(|m| {
            let s = m.as_str();
            let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
            // The whole number, as written: 5 to 18, no leading zero.
            let number = &s[..digits];
            let age: u32 = match number.parse() {
                Ok(n) if number.len() <= 2 && !number.starts_with('0') => n,
                _ => return false,
            };
            if !(5..=18).contains(&age) || char_before(text, m.start()).is_some_and(|c| c.is_ascii_digit() || c.is_ascii_lowercase() || c == '.') {
                return false;
            }
            let rest = &text[m.end()..];
            if rest.starts_with(|c: char| c.is_ascii_digit()) {
                return false;
            }
            let an_age = if s.ends_with('세') {
                !rest.starts_with(['일', '트', '대', '금', '상', '계', '탁', '련', '븐', '팅'])
            } else {
                !KO_SAL_VERB.is_match(rest)
            };
            an_age && !said_of_family_ko(text, &m)
        })
}

static KO_WORD_AGE: LazyLock<Regex> = LazyLock::new(|| re(r"(?:^|[^가-힣])열(?:한|두|세|네|다섯|여섯|일곱|여덟|아홉)?\s*살"));

/// 중2, 고1 written together ("이 중 2개" is not a school year), also the year a pupil is about to
/// start ("예비고1": a middle-schooler).
static KO_SCHOOL_SHORT: LazyLock<Regex> = LazyLock::new(|| re(r"(?:^|[^가-힣0-9]|예비\s*)(?:초|중|고)[1-6]"));
static KO_SCHOOL_LONG: LazyLock<Regex> = LazyLock::new(|| re(r"(?:초등|중등|고등|중|고)학교\s*[1-6]\s*학년|고딩|중딩|초딩"));
/// A school year alone ("6학년인데") is a child's: only elementary school has a fourth to a
/// sixth, and a university's ("대학교 3학년", "대학 2학년", "대 3학년") is excluded. A tenth to a
/// twelfth is a child's too: the North American high school years Koreans abroad count in ("LA
/// 사는 11학년인데"). A seventh to a ninth is left out: it is also how elders joke about their
/// age (7학년 is one's seventies).
static KO_GRADE: LazyLock<Regex> = LazyLock::new(|| re(r"(?:1[0-2]|[1-6])\s*학년"));

fn says_korean_school_year(turn: &Screened) -> bool {
    let text = turn.text;
    turn.any_where(&KO_SCHOOL_SHORT, |m| !text[m.end()..].starts_with(|c: char| c.is_ascii_digit()) && !said_of_family_ko(text, m))
        || turn.any_where(&KO_SCHOOL_LONG, |m| !said_of_family_ko(text, m))
        || turn.any_where(&KO_GRADE, |m| {
            // The character before the digit is not a digit; what comes before that character
            // (white space aside) is not 대, 대학 or 대학교.
            let Some(c) = char_before(text, m.start()) else { return !said_of_family_ko(text, m) };
            if c.is_ascii_digit() {
                return false;
            }
            let before = text[..m.start() - c.len_utf8()].trim_end();
            !(before.ends_with("대학교") || before.ends_with("대학") || before.ends_with('대') || said_of_family_ko(text, m))
        })
}

/// Units that make a number after "I'm" something other than an age ("I'm 15 minutes late").
static EN_NOT_AGE_UNIT: LazyLock<Regex> = LazyLock::new(|| {
    // A height is feet and inches ("i'm 6'3", "im 5 ft 2", "i'm 6 foot"), not years.
    re(
        r"^\s*(?:%|percent|min|mins|minutes|hours?|days?|weeks?|months?|km|miles?|dollars?|bucks|k(?-u:\b)|am(?-u:\b)|pm(?-u:\b)|inch|inches|cm|kg|lbs?|pounds?|points?|euros?|won|['′’]\s*\d|ft(?-u:\b)|feet|foot)",
    )
});
static EN_AGE: LazyLock<Regex> = LazyLock::new(|| re(r"(?-u:\b)(?:i'?m|i am|im|age|aged)\s+(?:only\s+|just\s+)?(?:[5-9]|1[0-8])(?-u:\b)"));
/// Ages in words: "I'm fifteen", "fourteen years old", "a thirteen-year-old".
static EN_WORD_AGE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?-u:\b)(?:i'?m|i am|im|age|aged|turning|turn)\s+(?:only\s+|just\s+)?(?:five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen)(?-u:\b)|(?-u:\b)(?:five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen)\s*(?:-\s*)?(?:years?|yrs?)\s*(?:-\s*)?old(?-u:\b)",
    )
});
/// School years written the other way round or the British way: "grade 8 student", "in grade
/// 9", "I'm in year 10", "yr 10 here" (a British year 13 is 17 or 18).
static EN_GRADE_NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?-u:\b)(?:in|i'?m in|im in)\s+(?:grade|year|yr)\s+(?:[1-9]|1[0-3])(?-u:\b)|(?-u:\b)(?:grade|year|yr)\s+(?:[1-9]|1[0-3])\s+(?:student|here|kid|girl|boy|pupil)s?(?-u:\b)",
    )
});
static EN_YEARS_OLD: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?-u:\b)(?:[5-9]|1[0-8])\s*(?:-\s*)?(?:years?|yrs?|y/?o)\s*(?:-\s*)?old(?-u:\b)|(?-u:\b)(?:[5-9]|1[0-8])\s*y/?o(?-u:\b)"));
static EN_GRADE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?-u:\b)(?:[1-9]|1[0-2])(?:st|nd|rd|th)\s+grade(?:r|rs)?(?-u:\b)|(?-u:\b)(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth)\s+grade(?:r|rs)?(?-u:\b)",
    )
});
static EN_SCHOOL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?-u:\b)(?:freshman|sophomore|junior|senior)s?\s+(?:in|at)\s+(?:(?:high|middle)\s+school|hs)(?-u:\b)|(?-u:\b)(?:(?:high|middle|elementary|junior high|primary)\s+school(?:er|ers)?|hs)\s+(?:freshman|sophomore|junior|senior|student|kid)(?-u:\b)|(?-u:\b)i'?m\s+in\s+(?:(?:high|middle|elementary|junior high|primary)\s+school|hs)(?-u:\b)|(?-u:\b)im\s+in\s+(?:(?:high|middle|elementary)\s+school|hs)(?-u:\b)",
    )
});

// Things have ages too: "my laptop is 7 years old", "a 5 year old macbook" are why a turn asks
// for a new one. An "N years old" said of a word that is not a person (the word before "is",
// "'s", "are", "was"), or an "N-year-old" before a thing, is not the user's age; said of a
// person or of no one ("15 years old and …", "a 16-year-old asking …") it is. A child of the
// user's (son, daughter, kid, nephew, grandchild …) is not among these persons: a parent is
// speaking (below).
const PERSON: &[&str] = &[
    "i",
    "im",
    "i'm",
    "he",
    "she",
    "they",
    "we",
    "you",
    "who",
    "brother",
    "sister",
    "cousin",
    "boy",
    "boys",
    "girl",
    "girls",
    "baby",
    "boyfriend",
    "girlfriend",
    "friend",
    "friends",
    "student",
    "students",
    "teen",
    "teenager",
];
static SUBJECT: LazyLock<Regex> = LazyLock::new(|| re(r"([a-z']+)(?:\s+(?:is|are|was|were|turned|turns)|'s)\s*$"));
static THING: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?:laptops?|phones?|iphones?|macbooks?|computers?|pc|desktop|tablets?|ipads?|cars?|tv|headphones|earbuds|airpods|devices?|machines?|cameras?|consoles?|printers?|routers?|monitors?|speakers?|batter(?:y|ies)|models?|galaxy|samsung|apple|dell|lenovo|thinkpad|one|thing|house|apartment|building|mattress|account)(?-u:\b)",
    )
});

// An age or a school year said of the user's child is a parent speaking, not a minor: "초3 딸
// 첫 폰", "딸이 중2인데", "my 10 year old wants an ipad", "my son is in 6th grade". A sibling, a
// friend or a partner still counts (the user may be as young).

/// A pet is family too, and its age is its own: "16살 노묘", "우리 강아지 12살".
const PETS: &str = "강아지|고양이|고앵이|냥이|댕댕이|멍멍이|노묘|노견|반려견|반려묘|멍뭉이|말티즈|푸들|포메|시츄|코숏";

/// A child of the user's, right after the age or school year (after 되는, 인, 짜리 …).
static KO_FAMILY_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"^\s*(?:(?:이\s*)?되는|인|짜리|된|올라가는|올라갈|입학하는|졸업하는)?\s*(?:딸|아들|조카|손주|손자|손녀|자녀|아이|애|막내|아기|{PETS})(?:[^가-힣]|$|[이가은는을를도의들용임]|한테|에게|랑|내미|래미)",
    ))
});
/// A child of the user's, right before it, with its particle ("딸이 중2", "아들은 올해 15살").
static KO_FAMILY_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(r"(?:^|[^가-힣])(?:우리\s*)?(?:딸|아들|조카|손주|손자|손녀|자녀|아이|애|막내|{PETS})(?:[이가은는도]|이가)?\s*(?:(?:올해|이제|벌써|지금)\s*)?$"))
});
/// "my son is in", "our daughter's", "my 10 year old": the clause before the age names a child
/// of the user's (or the age follows "my").
static EN_FAMILY_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?:(?-u:\b)(?:my|our|his|her)\s+(?:(?:little|youngest|oldest|eldest)\s+)?(?:sons?|daughters?|kids?|child|children|nephews?|nieces?|grandsons?|granddaughters?|grandkids?|grandchild|stepsons?|stepdaughters?)(?:'s|\s+(?:is|was|will be|just|starts|started|goes|is going|going|starting))?(?:\s+(?:in|into|to|a))?\s*|(?-u:\b)(?:my|our)\s+)$",
    )
});

fn said_of_family_ko(text: &str, m: &Match) -> bool {
    KO_FAMILY_AFTER.is_match(&text[m.end()..]) || KO_FAMILY_BEFORE.is_match(chars_before(text, m.start(), 12))
}

fn said_of_family_en(text: &str, m: &Match) -> bool {
    EN_FAMILY_BEFORE.is_match(chars_before(text, m.start(), 60))
}

fn says_person_years_old(turn: &Screened) -> bool {
    let text = turn.text;
    turn.any_where(&EN_YEARS_OLD, |m| {
        // The 40 characters before, trimmed, then a space (as the subject's `\s*$` expects).
        let before = format!("{} ", chars_before(text, m.start(), 40).trim_end());
        if let Some(c) = SUBJECT.captures(&before) {
            let subject = c[1].strip_suffix("'s").unwrap_or(&c[1]);
            if !PERSON.contains(&subject) {
                return false;
            }
        }
        !THING.is_match(text[m.end()..].trim_start()) && !said_of_family_en(text, m)
    })
}

/// Whether a turn says the user is a minor by age or school year ("I'm 14", "8th grade",
/// "freshman in high school", "중2", "고1", "15살", "열다섯 살").
pub fn says_minor_age(text: &str) -> bool {
    minor_age(&Screened::new(text))
}

fn minor_age(turn: &Screened) -> bool {
    // A turn that names the user's own child, grandchild, nephew or pupil is a grown-up speaking:
    // an age or a school year anywhere in it is theirs ("my grandson … is the iPad Air overkill
    // for a twelve-year-old"), unless the user says it of themselves ("im 15 and my nephew …").
    if names_dependant(turn) {
        says_own_age(turn)
    } else {
        age_or_school_year(turn)
    }
}

/// An age or a school year of a minor, said of anyone but the user's family or class.
fn age_or_school_year(turn: &Screened) -> bool {
    let text = turn.text;
    if text.is_empty() {
        return false;
    }
    says_korean_age(turn)
        || turn.any_where(&KO_WORD_AGE, |m| !said_of_family_ko(text, m))
        || says_korean_school_year(turn)
        || turn.any_where(&EN_AGE, |m| !EN_NOT_AGE_UNIT.is_match(&text[m.end()..]) && !as_a_figure_of_speech(text, m))
        || says_person_years_old(turn)
        || turn.any_where(&EN_WORD_AGE, |m| !said_of_family_en(text, m) && !as_a_figure_of_speech(text, m))
        || [&EN_GRADE_NUMBER, &EN_GRADE, &EN_SCHOOL].into_iter().any(|re| turn.any_where(re, |m| !said_of_family_en(text, m) && !said_of_a_class(text, m)))
}

/// A school year that names a class the user teaches or serves, not the user's own: "I'm a 7th
/// grade science teacher", "I teach 8th grade", "a 6th grade curriculum", "3rd grade parents". A
/// pupil says "7th grade student" of themselves. A plural ("4th graders") is not enough: minors
/// speak of themselves so too ("we're 10th graders").
static EN_CLASS_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?:\s+(?:science|math|maths|english|ela|history|art|music|pe|gym|spanish|french|korean|esl|stem|reading|writing|biology|chemistry|physics|geography|social\s+studies|language\s+arts|special\s+ed|homeroom|band|computer))?\s+(?:teachers?|teaching|tutors?|curriculum|lesson\s+plans?|lessons|classrooms?|parents|students|pupils|kids|worksheets?)(?-u:\b)",
    )
});
static EN_TEACHES_BEFORE: LazyLock<Regex> = LazyLock::new(|| re(r"(?-u:\b)(?:teach|teaches|teaching|taught)\s+(?:the\s+)?$"));

fn said_of_a_class(text: &str, m: &Match) -> bool {
    EN_CLASS_AFTER.is_match(&text[m.end()..]) || EN_TEACHES_BEFORE.is_match(chars_before(text, m.start(), 24))
}

/// "Explain like I'm five", "as if I'm 5": an idiom for "simply", not an age.
fn as_a_figure_of_speech(text: &str, m: &Match) -> bool {
    let before = chars_before(text, m.start(), 8).trim_end();
    before.ends_with("like") || before.ends_with("as if")
}

/// A pet, by the words owners use: its kind, a breed people name, where it stays or comes from.
static PET: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"강아지|고양이|반려견|반려묘|반려동물|애견|애묘|냥이|댕댕이|멍멍이|강쥐|고앵이|코숏|믹스견|말티즈|푸들|포메|진돗개|리트리버|유기견|유기묘|펫호텔|동물병원|(?-u:\b)(?:my|our|the|his|her|their)\s+(?:(?:old|new|senior|little)\s+)?(?:dogs?|cats?|pupp(?:y|ies)|kittens?|pets?)(?-u:\b)|(?-u:\b)(?:vet|vets|veterinarian)(?-u:\b)",
    )
});

/// Someone the user looks after or attends to, by the words people use for them: a parent, a
/// grandparent or a parent-in-law, an elder in care, a patient, a resident, a client.
static CARED_FOR: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"엄마|어머니|어머님|아버지|아버님|아빠|부모님|친정|시댁|시어머니|시아버지|장모님|장인어른|할머니|할머님|할아버지|할아버님|어르신|보호자|환자|(?-u:\b)(?:(?:my|our|her|his)\s+(?:mom|mum|mother|dad|father|parents|grandma|grandmother|grandpa|grandfather|nan|nana|in-laws|mother-in-law|father-in-law)|mum|patients?|clients?|residents?)(?-u:\b)",
    )
});

/// The user's own child, grandchild, nephew or niece, or pupils: "my son", "our kids", "my
/// grand daughter", "my teens", "my 8th grader", "my students", 딸, 아들이, 손녀가, 조카, 제자, 우리 애; and children the user
/// counts or takes along, as only a grown-up in charge of them does: 초등학생 둘, 애들 셋, 중학생
/// 두 명, 아이들 데리고, "15 teenagers" ([`EN_COUNTED`]). A sibling, a friend or a classmate is
/// not among them (the user may be as young), nor a class's kids (우리반 애들).
static EN_DEPENDANT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?-u:\b)(?:my|our)\s+(?:(?:little|youngest|oldest|eldest|two|three|four)\s+)?(?:sons?|daughters?|kids?|child|children|grand\s*(?:sons?|daughters?|kids?|child|children)|nephews?|nieces?|step\s*(?:sons?|daughters?|kids?)|students|pupils|teens|teenagers|toddlers?|twins|(?:[1-9]|1[0-2])(?:st|nd|rd|th)\s*graders?)(?-u:\b)",
    )
});
/// Children counted, as a grown-up in charge of a group counts them: "15 teenagers", "18 people,
/// 13 of them teenagers", "20 high schoolers". Not when the user counts themselves among them
/// ("we're 4 teenagers"; [`counts_themselves_in`]).
static EN_COUNTED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?-u:\b)(?:[2-9]|[1-9][0-9]|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty)\s+(?:of\s+them\s+(?:are\s+)?)?(?:kids|children|teens|teenagers|students|middle\s+schoolers|high\s+schoolers|minors)(?-u:\b)",
    )
});

fn counts_themselves_in(text: &str, m: &Match) -> bool {
    let before = chars_before(text, m.start(), 12).trim_end();
    ["we're", "we are", "were", "we r", "us"].iter().any(|w| before.ends_with(w))
}

static KO_DEPENDANT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?:^|[^가-힣])(?:(?:우리|제|내)\s*)?(?:딸|아들|손녀|손자|손주|조카|자녀|제자)(?:[^가-힣]|$|[이가은는을를도의들랑]|님|한테|에게|내미|래미)|(?:^|[^가-힣])우리\s*(?:아이|애)(?:[^가-힣]|$|[가는를도의들랑]|한테|에게)|(?:^|[^가-힣])(?:초등학생|중학생|고등학생|초딩|중딩|고딩|아이|애)들?\s*(?:(?:둘|셋|넷|두\s*명|세\s*명|네\s*명|[2-9]\s*명)(?:[^가-힣]|$|[이을를은도]|이나|이랑)|(?:을|를)?\s*(?:데리고|데려))",
    )
});

/// Children the user tells the stage of, as a grown-up in charge of them does: "애들은
/// 초등학생이에요", "아이들이 중1, 초4라서". Not a class's, a school's or friends' (반 애들은 …).
static KO_KIDS_STAGE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?:^|[^가-힣])(?:애|아이)들(?:은|이)\s*(?:다\s*|둘\s*다\s*|모두\s*)?(?:초등학생|중학생|고등학생|초딩|중딩|고딩|[초중고]\s*[1-6]|[1-9]\s*살)")
});

fn names_dependant(turn: &Screened) -> bool {
    const NOT_THEIRS: [&str; 6] = ["반", "학원", "학교", "친구", "동네", "옆집"];
    turn.holds(&EN_DEPENDANT)
        || turn.any_where(&EN_COUNTED, |m| !counts_themselves_in(turn.text, m))
        || turn.holds(&KO_DEPENDANT)
        || turn.any_where(&KO_KIDS_STAGE, |m| {
            let before = chars_before(turn.text, m.start() + char_after(turn.text, m.start()).filter(|c| !is_hangul_syllable(*c)).map_or(0, char::len_utf8), 6);
            !NOT_THEIRS.iter().any(|w| before.trim_end().ends_with(w))
        })
}

/// An age or a school year the user says of themselves: "I'm 15", "im in year 10", "i'm a
/// sophomore in high school", 저 중3인데, 나 16살, 제가 고1이라.
static EN_OWN_AGE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?-u:\b)(?:i'?m|i am|im)\s+(?:only\s+|just\s+|in\s+|a\s+)?(?:[5-9]|1[0-8]|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|(?:grade|year|yr)\s+(?:[1-9]|1[0-3])|(?:[1-9]|1[0-2])(?:st|nd|rd|th)\s+grade|(?:freshman|sophomore|junior|senior)\s+in\s+(?:(?:high|middle)\s+school|hs)|(?:high|middle|elementary|junior high|primary)\s+school|hs)(?-u:\b)",
    )
});
static KO_OWN_AGE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?:^|[^가-힣])(?:저는|나는|제가|내가|저|나)\s*(?:이제\s*|올해\s*|지금\s*)?(?:예비\s*)?(?:(?:초|중|고)\s*[1-6]|(?:[5-9]|1[0-8])\s*살|열(?:한|두|세|네|다섯|여섯|일곱|여덟|아홉)?\s*살|(?:초등|중|고등?)학(?:교|생)\s*[1-6]\s*학년|고딩|중딩|초딩)",
    )
});

fn says_own_age(turn: &Screened) -> bool {
    let text = turn.text;
    turn.any_where(&EN_OWN_AGE, |m| !EN_NOT_AGE_UNIT.is_match(&text[m.end()..]) && !as_a_figure_of_speech(text, m))
        || turn.holds(&KO_OWN_AGE)
        // A turn that opens with a school year has dropped its subject, "I'm": "junior in hs,
        // need a laptop", "sophomore in high school here, …".
        || turn.any_where(&EN_SCHOOL, |m| m.start() == 0)
}

// --- medicines ----------------------------------------------------------------------------------
// The catalog's `medication` topic lists brand and common generic names ("lexapro",
// "sertraline", "졸피뎀"); the generics it cannot list share the naming stems of the USAN/INN
// system (-azepam, -oxetine, -statin, -sartan …). A medicine beside a purchase ("on
// escitalopram, ok to fly to Tokyo?") is a health moment.

/// Each stem ends a word of at least seven letters (three before the shortest stem), and none
/// ends a common English word ("april" is why -pril needs a letter other than a before it; -aline,
/// -pine and -done are left out for "saline", "alpine", "done").
const EN_STEMS: &[&str] = &[
    "azepam",
    "zolam",
    "oxetine",
    "alopram",
    "triptyline",
    "faxine",
    "iapine",
    "zapine",
    "piprazole",
    "peridone",
    "trigine",
    "statin",
    "sartan",
    "dipine",
    "olol",
    "prazole",
    "tidine",
    "gliflozin",
    "gliptin",
    "glutide",
    "formin",
    "cillin",
    "mycin",
    "floxacin",
    "cycline",
    "conazole",
    "codone",
    "morphone",
    "triptan",
    "profen",
    "coxib",
    "phenidate",
    "barbital",
    "semide",
    "thiazide",
    "lukast",
    "umab",
    "ximab",
    "tinib",
    "ciclovir",
    "navir",
    "setron",
    "nisone",
    "nisolone",
    "thasone",
    "thyroxine",
];

/// The same stems as Korean writes them (에스시탈로프람, 알프라졸람, 아토르바스타틴), after two
/// syllables at least: a stem alone is often a word of its own ("실린 기사").
const KO_STEMS: &[&str] = &[
    "제팜",
    "졸람",
    "옥세틴",
    "로프람",
    "팍신",
    "피프라졸",
    "리돈",
    "트리진",
    "스타틴",
    "사르탄",
    "디핀",
    "프라졸",
    "포르민",
    "글루타이드",
    "실린",
    "마이신",
    "플록사신",
    "사이클린",
    "코돈",
    "트립탄",
    "프로펜",
    "페니데이트",
    "니솔론",
];

/// Every stem, and "pril", in one automaton: the turn is read once for all of them (a test of
/// every stem against every long word cost 20–40 µs on a 4,000-character turn).
static STEMS: LazyLock<AhoCorasick> =
    LazyLock::new(|| AhoCorasick::new(EN_STEMS.iter().chain(KO_STEMS).copied().chain(["pril"])).expect("the medicine stems build an automaton"));

/// Whether a turn names a medicine by its generic name: an English word (a run of lower-case
/// ASCII letters) of seven letters or more that ends with a stem, or a stem and a plural s, or
/// "pril" after a letter other than a; or a Hangul word with a stem after two syllables at least.
pub fn names_medicine(text: &str) -> bool {
    let bytes = text.as_bytes();
    let lower = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_lowercase);
    STEMS.find_overlapping_iter(text).any(|m| {
        let (start, end) = (m.start(), m.end());
        let stem = m.pattern().as_usize();
        if stem >= EN_STEMS.len() && stem < EN_STEMS.len() + KO_STEMS.len() {
            // Two syllables before it, in the same word.
            let mut before = text[..start].chars().rev();
            return before.next().is_some_and(is_hangul_syllable) && before.next().is_some_and(is_hangul_syllable);
        }
        let pril = stem == EN_STEMS.len() + KO_STEMS.len();
        // Where the word ends: right after the stem, or after its plural s.
        let word_end = if !lower(end) {
            end
        } else if !pril && bytes[end] == b's' && !lower(end + 1) {
            end + 1
        } else {
            return false;
        };
        // Seven letters or more: every byte from seven before the word's end to the stem is a letter.
        word_end >= 7 && (word_end - 7..start).all(lower) && !(pril && start > 0 && bytes[start - 1] == b'a')
    })
}

// --- adult venues and veiled asks ---------------------------------------------------------------
// The catalog's `adult` topic lists the venues (룸살롱, 휴게텔, 대딸방, 소프랜드 …), but a
// sensitive alias is a stem that any Hangul may follow (text_match.rs), and three common names
// begin or end other words: 안마방 begins 안마방석 (a massage cushion) and 안마방법 (how to give a
// massage), 키스방 begins 키스방법 (how to kiss), and 립카페 ends 핸드드립카페 (a hand-drip coffee
// shop). So they are read here, with those continuations left out.

static KO_VENUE: LazyLock<Regex> = LazyLock::new(|| re(r"안마방|키스방|립카페"));

fn names_korean_venue(turn: &Screened) -> bool {
    let text = turn.text;
    turn.any_where(&KO_VENUE, |m| {
        let after = char_after(text, m.end());
        match m.as_str() {
            "안마방" => !matches!(after, Some('석' | '법')),
            "키스방" => after != Some('법'),
            _ => !matches!(char_before(text, m.start()), Some('드' | '슬')),
        }
    })
}

/// Veiled asks, which name no venue: the euphemisms people use for paid sex in both languages
/// ("그런 업소", a place where "아가씨" or "여자" come out, "풍속 쪽"; a woman "for the night",
/// paying a girl to come, bringing one back to the hotel). Each is a phrase whose ordinary sense
/// is the sensitive one; the words alone are not (업소용 냉장고, 그런 가게, a ladies' night, women
/// for the night shift).
static KO_VEILED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"그런\s*업소|아가씨\s*(?:있는|나오는|불러|부르|부를)|여자\s*(?:나오는|있는)\s*(?:술집|가게|곳|데|바|업소)|풍속\s*(?:쪽|업소|가게)|업소\s*(?:언니|아가씨|여자)",
    )
});
static EN_FOR_THE_NIGHT: LazyLock<Regex> = LazyLock::new(|| re(r"(?-u:\b)(?:woman|women|girl|girls|lady|ladies) for the night(?-u:\b)"));
static EN_VEILED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?-u:\b)ladies of the night(?-u:\b)|(?-u:\b)pay(?:ing)? (?:for )?(?:a |some )?(?:woman|women|girl|girls|lady|ladies) (?:for|to)(?-u:\b)|(?-u:\b)bring(?:ing)? (?:a |some )?(?:girl|girls|woman|women|lady) back to (?:my|the|our) (?:hotel|room)(?-u:\b)",
    )
});
static SHIFT: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*shift"));
/// "Happy ending" is a story's end until a place that sells massages is beside it ("'happy
/// ending' spots", "a spa with happy endings", 해피엔딩 마사지).
static HAPPY_ENDING: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?-u:\b)happy[^a-zA-Z0-9_]{0,3}endings?[^a-zA-Z0-9_]{0,3}(?:spots?|places?|parlou?rs?|shops?|joints?|salons?|massages?|spas?)(?-u:\b)|(?-u:\b)(?:massages?|spas?|parlou?rs?|salons?)(?-u:\b)[^.?!]{0,30}(?-u:\b)happy[^a-zA-Z0-9_]{0,3}endings?(?-u:\b)|해피\s*엔딩\s*(?:마사지|스파|업소|가게|있는|해주는|되는)|(?:마사지|스파|업소|안마)[^.?!]{0,15}해피\s*엔딩",
    )
});

/// A word put in scare quotes beside a place or service that sells it: the quotes say the word
/// means more than it says ("a massage with 'extras'", "the 'spicy' sites I pay for", "a
/// 'companion' for the night"). The word alone is ordinary (extras on a bill, spicy ramen, a
/// travel companion), and so is a quoted one far from such a place ("is 'spicy' at this
/// restaurant actually hot"): within one sentence, a few words either side.
static QUOTED_EUPHEMISM: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"['"‘“](?:extras?|companions?|companionship|company|spicy|special (?:service|massage)s?|entertainment)['"’”][^.?!]{0,40}(?-u:\b)(?:massages?|spas?|parlou?rs?|hotels?|rooms?|sites?|pages?|content|girls?|ladies|nights?|services?)(?-u:\b)|(?-u:\b)(?:massages?|spas?|parlou?rs?|hotels?|rooms?|sites?|pages?|girls?|ladies|places?|services?)(?-u:\b)[^.?!]{0,40}['"‘“](?:extras?|companions?|companionship|company|spicy|special|entertainment)['"’”]"#,
    )
});

/// The same in Korean: a word in scare quotes right before a massage or a place that sells one
/// ("밤에는 '특별한' 마사지 해주는 데"). Unquoted, or before anything else ("'특별한' 날이라 스파
/// 예약"), the word is ordinary.
static KO_QUOTED_EUPHEMISM: LazyLock<Regex> = LazyLock::new(|| re(r#"['"‘“](?:특별한|스페셜|그런|서비스|추가)['"’”]\s*(?:마사지|안마|스파|업소|가게|서비스)"#));

/// Whether a turn names an adult venue or asks for paid sex in the words people use for it.
pub fn names_adult_venue(text: &str) -> bool {
    adult_venue(&Screened::new(text))
}

fn adult_venue(turn: &Screened) -> bool {
    let text = turn.text;
    names_korean_venue(turn)
        || turn.holds(&KO_VEILED)
        || turn.any_where(&EN_FOR_THE_NIGHT, |m| !SHIFT.is_match(&text[m.end()..]))
        || turn.holds(&EN_VEILED)
        || turn.holds(&HAPPY_ENDING)
        || turn.holds(&QUOTED_EUPHEMISM)
        || turn.holds(&KO_QUOTED_EUPHEMISM)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::normalize;

    #[test]
    fn a_rejected_candidate_does_not_hide_a_later_one() {
        // "아이폰16 살라구" is the verb; the age comes after it.
        assert!(says_minor_age(&normalize("아이폰16 살라구 하는데 나 15살이야")));
        assert!(!says_minor_age(&normalize("아이폰16 살라구 하는데")));
        assert!(names_adult_venue(&normalize("안마방석 말고 진짜 안마방")));
    }

    #[test]
    fn a_korean_word_in_scare_quotes_beside_a_massage_is_a_euphemism() {
        for veiled in ["밤에는 '특별한' 마사지 해주는 데 알아봐줘", "호텔 근처에 \"스페셜\" 안마 되는 곳 있어?", "'그런' 업소 말고 '추가' 안마 되는 곳"]
        {
            assert!(names_adult_venue(&normalize(veiled)), "{veiled}");
        }
        for ordinary in ["'특별한' 날이라 호텔 스파 예약하려고", "특별한 마사지 오일 추천해줘", "발 마사지 받고 싶은데 괜찮은 데 있어?"]
        {
            assert!(!names_adult_venue(&normalize(ordinary)), "{ordinary}");
        }
    }

    #[test]
    fn a_pets_age_is_its_own() {
        for pet in ["고앵이 사료 ㅊㅊ 신장 안 좋은 16살 노묘임", "우리 강아지 15살인데 계단 오르기 힘들어해요", "고양이가 올해 17살이에요"]
        {
            assert!(!says_minor_age(&normalize(pet)), "{pet}");
        }
        assert!(says_minor_age(&normalize("저 16살인데 강아지 사료 추천해주세요")));
        assert!(!says_minor_age(&normalize("딸이 올해 중2인데 태블릿 뭐가 좋아요")));
        assert!(!says_minor_age(&normalize("아이패드 에어 살라카는데 중딩 아들래미 인강용으로 충분하나")));
    }

    #[test]
    fn a_height_is_no_age() {
        for tall in [
            "need a hotel in shinjuku, not a capsule, i'm 6'3 lol",
            "im 5’11 so legroom matters",
            "i'm 6 ft 2, which headphones fit big heads",
            "I am 6 foot tall",
        ] {
            assert!(!says_minor_age(&normalize(tall)), "{tall}");
        }
        assert!(says_minor_age(&normalize("i'm 15 and need a laptop for school")));
        assert!(says_minor_age(&normalize("im 16, what earbuds should i get")));
    }

    #[test]
    fn reports_each_family() {
        assert_eq!(sensitive_patterns(&normalize("im 14 and on escitalopram, a girl for the night?")), [MINOR_AGE, MEDICINE_NAME, ADULT_VENUE]);
        assert!(sensitive_patterns(&normalize("flights to tokyo next week")).is_empty());
    }

    /// The reading before the automaton (every stem tested against every long word), kept as the
    /// oracle of `names_medicine`.
    fn names_medicine_word_by_word(text: &str) -> bool {
        let ends_with_generic_stem = |word: &str| {
            let singular = word.strip_suffix('s');
            EN_STEMS.iter().any(|s| word.ends_with(s) || singular.is_some_and(|w| w.ends_with(s))) || (word.ends_with("pril") && !word.ends_with("april"))
        };
        let mut words = text.split(|c: char| !c.is_ascii_lowercase());
        if words.any(|w| w.len() >= 7 && ends_with_generic_stem(w)) {
            return true;
        }
        text.split(|c: char| !is_hangul_syllable(c)).filter(|w| w.chars().count() >= 4).any(|w| {
            let from = w.char_indices().nth(2).map_or(w.len(), |(i, _)| i);
            KO_STEMS.iter().any(|s| w[from..].contains(s))
        })
    }

    proptest::proptest! {
        #[test]
        fn medicine_stems_read_in_one_pass_as_word_by_word(parts in proptest::collection::vec(proptest::prop_oneof![
            proptest::sample::select(EN_STEMS.to_vec()),
            proptest::sample::select(KO_STEMS.to_vec()),
            proptest::sample::select(vec!["pril", "april", "s", "a", "x", "es", "ine", " ", "-", "Q", "가", "약", "ab", "cdefg", "1"]),
        ], 0..8)) {
            let text: String = parts.concat();
            proptest::prop_assert_eq!(names_medicine(&text), names_medicine_word_by_word(&text), "{:?}", text);
        }
    }
}
