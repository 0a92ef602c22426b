//! Property tests: normalisation is idempotent, never panics and ignores invisible characters;
//! every hit sits on a boundary.
use proptest::prelude::*;
use sidenote_core::{is_default_ignorable, normalize, TextHit, TextMatcher, HANGUL_CONTINUATIONS};
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// The plain definition `normalize` must equal: default-ignorables removed, NFKC of the whole
/// text, lower-cased, white space folded, and NFKC again if lower-casing left something unstable.
fn normalize_by_definition(text: &str) -> String {
    let cleaned: String = text.chars().filter(|&c| !is_default_ignorable(c)).collect();
    let mut out = String::new();
    // 0: nothing pending, 1: a space, 2: a line break (a run holding one becomes "\n").
    let mut pending = 0;
    for c in cleaned.nfkc().flat_map(char::to_lowercase) {
        if c.is_whitespace() {
            if !out.is_empty() {
                pending = pending.max(if matches!(c, '\n' | '\u{b}' | '\u{c}' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}') { 2 } else { 1 });
            }
        } else {
            if pending > 0 {
                out.push(if pending == 2 { '\n' } else { ' ' });
                pending = 0;
            }
            out.push(c);
        }
    }
    if is_nfkc_quick(out.chars()) == IsNormalized::Yes {
        out
    } else {
        out.nfkc().collect()
    }
}

/// Default_Ignorable_Code_Point as regex-syntax's Unicode tables have it: not the core's table.
const IGNORABLE: &str = "\\p{Default_Ignorable_Code_Point}";

/// Text where the fast path and the general path meet: ASCII, Hangul syllables, conjoining
/// jamo, combining marks, full-width forms, odd white space, ligatures and case pairs, and
/// invisible characters between any of them.
fn mixed_text() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        "[a-zA-Z0-9 ,.!?]{1,4}",
        "[가-힣]{1,3}",
        "[\u{1100}-\u{1112}\u{1161}-\u{1175}\u{11A8}-\u{11C2}]{1,3}",
        "[\u{0300}-\u{0315}\u{0327}\u{0338}]{1,2}",
        "[ＡＢＣａｂｃ１２３　]{1,3}",
        "[\u{00A0}\u{2003}\u{3000}\t\n]{1,2}",
        "[ﬁﬂİıÉéẞß㈜㎏]{1,2}",
        "\\PC{1,3}",
        "\\p{Default_Ignorable_Code_Point}{1,2}",
    ];
    proptest::collection::vec(pieces, 0..24).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn normalize_is_idempotent(s in "\\PC{0,200}") {
        let once = normalize(&s);
        prop_assert_eq!(normalize(&once), once.clone());
        prop_assert!(!once.starts_with(' ') && !once.ends_with(' '));
        prop_assert!(!once.contains("  "));
    }

    #[test]
    fn normalize_is_idempotent_and_invisible_free(s in mixed_text()) {
        let once = normalize(&s);
        prop_assert_eq!(normalize(&once), once.clone());
        prop_assert!(!once.chars().any(is_default_ignorable));
    }

    #[test]
    fn inserted_default_ignorables_change_nothing(
        s in prop_oneof![mixed_text(), "\\PC{0,120}"],
        insertions in proptest::collection::vec((any::<proptest::sample::Index>(), proptest::string::string_regex(&format!("{IGNORABLE}{{1,3}}")).expect("regex")), 1..12),
    ) {
        let mut chars: Vec<String> = s.chars().map(String::from).collect();
        for (at, invisible) in &insertions {
            let i = at.index(chars.len() + 1);
            chars.insert(i, invisible.clone());
        }
        let with = chars.concat();
        prop_assert_eq!(normalize(&with), normalize(&s));
    }

    #[test]
    fn normalize_equals_its_definition(s in mixed_text()) {
        prop_assert_eq!(normalize(&s), normalize_by_definition(&s));
    }

    #[test]
    fn normalize_never_panics_on_long_unicode(s in any::<String>().prop_map(|s| s.chars().cycle().take(4000).collect::<String>())) {
        let _ = normalize(&s);
    }

    #[test]
    fn english_hits_are_whole_words(prefix in "[a-z]{0,3}", suffix in "[a-z]{0,3}", sep in "[ ,.!?]{1,2}") {
        let m = TextMatcher::build([("cat", TextHit::Category(0))].into_iter()).expect("builds");
        let glued = format!("{prefix}cat{suffix}");
        let hits = m.find(&normalize(&glued));
        // "cats" is the plural: a hit.
        prop_assert_eq!(hits.is_empty(), !prefix.is_empty() || !(suffix.is_empty() || suffix == "s"));
        let spaced = format!("{prefix}{sep}cat{sep}{suffix}");
        // A prefix or suffix that is itself "cat" is a word of its own and a hit of its own.
        let words = 1 + usize::from(prefix == "cat") + usize::from(suffix == "cat");
        prop_assert_eq!(m.find(&normalize(&spaced)), vec![TextHit::Category(0); words]);
    }

    #[test]
    fn korean_hits_take_a_particle_not_a_continuing_word(
        particle in proptest::string::string_regex(&format!("[{HANGUL_CONTINUATIONS}][가-힣]{{0,2}}")).expect("regex"),
        other in "[가-힣]{1,3}",
        before in "[ ,.!?]{0,2}",
        compound in "(|[가-힣]{2,3})",
    ) {
        let m = TextMatcher::build([("제주도", TextHit::Entity(7))].into_iter()).expect("builds");
        let text = format!("{before}{compound}제주도{particle} 여행");
        prop_assert_eq!(m.find(&normalize(&text)), vec![TextHit::Entity(7)]);
        let continued = format!("{before}제주도{other} 여행");
        let takes = HANGUL_CONTINUATIONS.contains(other.chars().next().expect("a word follows")) || other.starts_with("제주도");
        prop_assert_eq!(m.find(&normalize(&continued)).is_empty(), !takes);
    }

    #[test]
    fn matching_never_panics(s in "\\PC{0,300}") {
        let m = TextMatcher::build([("a", TextHit::Entity(0)), ("제주", TextHit::Entity(1)), ("é", TextHit::Category(2))].into_iter()).expect("builds");
        let _ = m.find(&normalize(&s));
    }
}

/// The core's table against regex-syntax's Unicode tables, code point by code point.
#[test]
fn default_ignorables_are_exactly_the_unicode_property() {
    use regex_syntax::hir::{Class, HirKind};
    let hir = regex_syntax::Parser::new().parse(IGNORABLE).expect("parses");
    let HirKind::Class(Class::Unicode(class)) = hir.kind() else { panic!("not a Unicode class: {hir:?}") };
    let mut expected = 0;
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        let want = class.ranges().iter().any(|r| r.start() <= c && c <= r.end());
        expected += usize::from(want);
        assert_eq!(is_default_ignorable(c), want, "U+{:04X}", c as u32);
    }
    assert_eq!(expected, 4174);
}
