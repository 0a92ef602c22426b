//! The ranking's early stop never changes the answer (docs/matching.md, "Bounds"): the top K of a
//! turn are exactly the first K of a walk that cannot stop early, which a query asking for more
//! candidates than the catalog holds makes (the heap is never full, so no list is left early).
//! Catalogs whose posting lists pass MAX_POSTING_SCAN exercise the bounds for cut lists.
use proptest::prelude::*;
use sidenote_core::{MatchQuery, OfferIndex, OfferKind};
use std::sync::OnceLock;

mod support;
use support::generate;

fn catalogs() -> &'static [(sidenote_core::IndexDocument, OfferIndex)] {
    static CATALOGS: OnceLock<Vec<(sidenote_core::IndexDocument, OfferIndex)>> = OnceLock::new();
    CATALOGS.get_or_init(|| {
        // Many offers on few entities (lists past the scan bound), and an ordinary spread.
        [(16_000usize, 6usize, 5u64), (3_000, 300, 11)]
            .into_iter()
            .map(|(offers, entities, seed)| {
                let doc = generate::catalog(offers, entities, seed);
                let index = OfferIndex::build(&doc).expect("a generated catalog builds");
                (doc, index)
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn the_top_k_are_the_first_k_of_a_full_walk(which in 0usize..2, seed in 0u64..1_000_000, ko in any::<bool>(), len in 20usize..400, k in 1usize..10) {
        let (doc, index) = &catalogs()[which];
        let lang = if ko { "ko" } else { "en" };
        let message = generate::message(doc, lang, len, seed);
        let query = |top_k| MatchQuery {
            message: Some(&message),
            language: lang,
            country: Some("KR"),
            kind: Some(OfferKind::Sponsored),
            now_ms: 1_790_000_000_000,
            top_k,
            ..Default::default()
        };
        let stopped = index.find(&query(k)).candidates;
        let full = index.find(&query(doc.offers.len() + 1)).candidates;
        prop_assert_eq!(&stopped[..], &full[..k.min(full.len())]);
    }
}

/// The property above is not vacuous: most generated turns rank far more offers than K.
#[test]
fn generated_turns_rank_more_offers_than_asked() {
    let (doc, index) = &catalogs()[0];
    let mut longer = 0;
    for seed in 0..100u64 {
        let message = generate::message(doc, if seed % 2 == 0 { "ko" } else { "en" }, 200, seed);
        let q = MatchQuery {
            message: Some(&message),
            language: if seed % 2 == 0 { "ko" } else { "en" },
            country: Some("KR"),
            kind: Some(OfferKind::Sponsored),
            now_ms: 1_790_000_000_000,
            top_k: doc.offers.len() + 1,
            ..Default::default()
        };
        longer += usize::from(index.find(&q).candidates.len() > 10);
    }
    assert!(longer >= 50, "{longer} of 100 turns ranked more than 10 offers");
}
