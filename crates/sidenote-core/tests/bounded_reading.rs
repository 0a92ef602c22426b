//! The reading is bounded: whatever a message says, a turn costs the core work linear in its
//! length, and a step budget (a counter, not a clock) stops any turn that would cost more.
//!
//! - The attacks that stalled the service (a 4,000-character chain of places with "switching
//!   away from X" cues: 12–28 s of CPU in one decide) answer at once.
//! - The corpus `tests/slow-inputs/` holds the costliest messages the search
//!   (`examples/slow_inputs.rs`) found; each stays within the linear bound below.
//! - A property: random messages built from the catalog's own words and the characters the
//!   reading acts on stay within it too.
//! - Past the budget, a turn is a safe no-fill that still names its sensitive topics.
use proptest::prelude::*;
use sidenote_core::{MatchQuery, MessageIntent, OfferIndex, OfferKind, Steps, READING_STEPS};
use std::sync::{mpsc, Arc, OnceLock};
use std::time::Duration;

#[path = "support/adversarial.rs"]
mod adversarial;
#[path = "support/demo.rs"]
mod demo;

/// Steps a turn may take per character of its message, plus a constant: the linear bound every
/// turn is held to. The costliest messages found take about 7 a character.
const STEPS_PER_CHAR: u64 = 16;
const STEPS_BASE: u64 = 2_000;

fn index() -> Arc<OfferIndex> {
    static INDEX: OnceLock<Arc<OfferIndex>> = OnceLock::new();
    INDEX.get_or_init(|| Arc::new(OfferIndex::build(&demo::demo_document()).expect("the demo catalog builds"))).clone()
}

fn query<'a>(message: &'a str, intent_type: Option<&'a str>) -> MatchQuery<'a> {
    MatchQuery {
        message: Some(message),
        language: "ko",
        country: Some("KR"),
        kind: Some(OfferKind::Sponsored),
        intent_type,
        now_ms: 1_795_402_800_000,
        top_k: 3,
        ..Default::default()
    }
}

/// The steps a turn took, whether it ran out of them, and whether it ranked anything.
fn cost(message: &str) -> (u64, bool) {
    let mut steps = Steps::default();
    let m = index().find_indexed_within(&query(message, None), &mut steps);
    (steps.used(), m.over_budget)
}

fn bound(message: &str) -> u64 {
    STEPS_BASE + STEPS_PER_CHAR * message.chars().count() as u64
}

/// Matches `message` on another thread and waits at most `limit` for it. A stall is what this
/// guards against (the old reading took 12–28 s on these messages, a linear one well under a
/// millisecond), so the limit is thousands of times what a turn costs, not a timing.
fn answers_within(message: String, limit: Duration) -> bool {
    let (tx, rx) = mpsc::channel();
    let index = index();
    std::thread::spawn(move || {
        let m = index.find(&query(&message, None));
        let _ = tx.send(m.over_budget);
    });
    rx.recv_timeout(limit).is_ok()
}

/// Every message of the corpus: the attacks that stalled the service (`attack-*`: places chained
/// by 에서 or "to" with "switching away from" cues, once 12–28 s of CPU in one decide, every
/// place an origin beside every other and every leaving cue re-reading them all; one long clause
/// of negations, whose comma search walked to its end from each; a run of compounds with no
/// space, 도쿄호텔 a thousand times, whose "just / only" look-back walked to the turn's start from
/// each hotel: 9 ms a match before it read a fixed window), and the costliest messages the search
/// found (`search-*`).
#[test]
fn every_message_of_the_corpus_answers_at_once_within_the_linear_bound() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/slow-inputs");
    let (mut attacks, mut found) = (0, 0);
    for entry in std::fs::read_dir(dir).expect("tests/slow-inputs") {
        let path = entry.expect("a corpus entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        let message = std::fs::read_to_string(&path).expect("a corpus message is UTF-8");
        let (steps, over_budget) = cost(&message);
        assert!(!over_budget && steps <= bound(&message), "{name}: {steps} steps, bound {}", bound(&message));
        assert!(answers_within(message, Duration::from_secs(2)), "{name} stalled the matcher");
        attacks += usize::from(name.starts_with("attack-"));
        found += usize::from(name.starts_with("search-"));
    }
    assert!(attacks >= 4 && found >= 4, "the corpus holds {attacks} attacks and {found} found messages");
}

#[test]
fn past_the_budget_a_turn_is_a_safe_no_fill_that_keeps_its_sensitive_topics() {
    let index = index();
    // An ask that fills, with a digest that says purchase, and a sensitive word at its end.
    let ask = "다음 달 제주도 호텔 최저가 추천해줘";
    let full = index.find_indexed_within(&query(ask, Some("purchase")), &mut Steps::default());
    assert!(!full.over_budget && !full.candidates.is_empty() && full.message_intent == MessageIntent::Purchase);
    let mut few = Steps::new(3);
    let cut = index.find_indexed_within(&query(ask, Some("purchase")), &mut few);
    assert!(cut.over_budget && cut.candidates.is_empty() && cut.signal_categories.is_empty() && cut.signal_entities.is_empty());
    assert_eq!(cut.message_intent, MessageIntent::None);
    let sensitive = format!("{ask} 요즘 우울증 때문에 힘들어");
    let whole = index.find_indexed_within(&query(&sensitive, None), &mut Steps::default());
    let cut = index.find_indexed_within(&query(&sensitive, None), &mut Steps::new(3));
    assert!(!whole.sensitive_topics.is_empty());
    assert!(cut.over_budget);
    assert_eq!(cut.sensitive_topics, whole.sensitive_topics);
    // The default budget is far above what any turn takes.
    assert!(bound(&"가".repeat(adversarial::MAX_CHARS)) * 4 < READING_STEPS);
}

fn vocabulary() -> &'static [String] {
    static WORDS: OnceLock<Vec<String>> = OnceLock::new();
    WORDS.get_or_init(|| adversarial::vocabulary(&demo::demo_document()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Any message tiled from the catalog's words and the reading's structure characters costs
    /// steps linear in its length, and never the budget.
    #[test]
    fn any_tiled_message_costs_steps_linear_in_its_length(seed in 1u64.., chars in 1usize..=adversarial::MAX_CHARS) {
        let mut rng = adversarial::Rng::new(seed);
        let words = vocabulary();
        let motif = adversarial::motif(&mut rng, words);
        let message = adversarial::tile(&motif, words, chars);
        let (steps, over_budget) = cost(&message);
        prop_assert!(!over_budget && steps <= bound(&message), "{} steps, bound {}", steps, bound(&message));
    }

    /// Mixed motifs too: a message of several tiled motifs one after the other.
    #[test]
    fn any_mixed_message_costs_steps_linear_in_its_length(seed in 1u64.., parts in 1usize..6) {
        let mut rng = adversarial::Rng::new(seed);
        let words = vocabulary();
        let message: String = (0..parts).map(|_| {
            let motif = adversarial::motif(&mut rng, words);
            adversarial::tile(&motif, words, adversarial::MAX_CHARS / parts)
        }).collect();
        let (steps, over_budget) = cost(&message);
        prop_assert!(!over_budget && steps <= bound(&message), "{} steps, bound {}", steps, bound(&message));
    }
}
