//! Property tests: normalisation is idempotent and never panics; every hit sits on a boundary.
use proptest::prelude::*;
use sidenote_core::{normalize, TextHit, TextMatcher};

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
    fn normalize_never_panics_on_long_unicode(s in any::<String>().prop_map(|s| s.chars().cycle().take(4000).collect::<String>())) {
        let _ = normalize(&s);
    }

    #[test]
    fn english_hits_are_whole_words(prefix in "[a-z]{0,3}", suffix in "[a-z]{0,3}", sep in "[ ,.!?]{1,2}") {
        let m = TextMatcher::build([("cat", TextHit::Category(0))].into_iter()).expect("builds");
        let glued = format!("{prefix}cat{suffix}");
        let hits = m.find(&normalize(&glued));
        prop_assert_eq!(hits.is_empty(), !prefix.is_empty() || !suffix.is_empty());
        let spaced = format!("{prefix}{sep}cat{sep}{suffix}");
        prop_assert_eq!(m.find(&normalize(&spaced)), vec![TextHit::Category(0)]);
    }

    #[test]
    fn korean_hits_take_any_particle(particle in "[가-힣]{0,3}", before in "[ ,.!?]{0,2}") {
        let m = TextMatcher::build([("제주도", TextHit::Entity(7))].into_iter()).expect("builds");
        let text = format!("{before}제주도{particle} 여행");
        prop_assert_eq!(m.find(&normalize(&text)), vec![TextHit::Entity(7)]);
    }

    #[test]
    fn matching_never_panics(s in "\\PC{0,300}") {
        let m = TextMatcher::build([("a", TextHit::Entity(0)), ("제주", TextHit::Entity(1)), ("é", TextHit::Category(2))].into_iter()).expect("builds");
        let _ = m.find(&normalize(&s));
    }
}
