//! The index built in pieces (`OfferIndexBuilder`, the binding's chunked transfer) is the index
//! built whole: same ids at the same positions, same matches, same errors at the same places.
use sidenote_core::{IndexError, MatchQuery, OfferDoc, OfferIndex, OfferIndexBuilder, OfferKind, TaxonomyDoc};

mod support;
use support::generate;

fn offer_json(snapshot: &str, entity: &str) -> serde_json::Value {
    serde_json::json!({
        "snapshot_id": snapshot, "offer_id": format!("off.{snapshot}"), "campaign_id": "cmp.a",
        "advertiser_id": "adv.a", "kind": "sponsored", "locale": "en",
        "category_ids": ["travel"], "entity_ids": [entity], "campaign_status": "active", "priority": 5, "bid_micros": 0
    })
}

fn taxonomy_json() -> serde_json::Value {
    serde_json::json!({
        "categories": [{ "id": "travel", "parent_id": null, "aliases": { "en": ["travel"] } }],
        "entities": [{ "id": "place.jeju", "kind": "place", "aliases": { "en": ["jeju"] }, "category_ids": ["travel"] }],
        "intent_cues": { "purchase": { "en": ["cheapest"] } }
    })
}

/// Builds from a taxonomy and offer chunks given as JSON, as the binding does.
fn build_in_pieces(taxonomy: &serde_json::Value, chunks: &[serde_json::Value]) -> Result<OfferIndex, IndexError> {
    let taxonomy = TaxonomyDoc::from_json(taxonomy.to_string().as_bytes())?;
    let mut builder = OfferIndexBuilder::new(&taxonomy, 0)?;
    for chunk in chunks {
        for o in OfferDoc::list_from_json(chunk.to_string().as_bytes())? {
            builder.add_offer(&o)?;
        }
    }
    Ok(builder.finish())
}

#[test]
fn built_in_chunks_it_matches_as_built_whole() {
    let doc = generate::catalog(3_000, 300, 11);
    let whole = OfferIndex::build(&doc).expect("builds whole");
    let mut builder = OfferIndexBuilder::new(&doc.taxonomy, doc.offers.len()).expect("taxonomy");
    // Chunks of an odd size, so chunk edges fall anywhere.
    for chunk in doc.offers.chunks(701) {
        for o in chunk {
            builder.add_offer(o).expect("offer");
        }
    }
    assert_eq!(builder.offers(), doc.offers.len());
    let pieces = builder.finish();
    assert_eq!(pieces.id_tables(), whole.id_tables());
    assert_eq!(pieces.stats(), whole.stats());
    let mut compared = 0;
    for seed in 0..300u64 {
        for (lang, len) in [("en", 60), ("ko", 60), ("en", 400)] {
            let message = generate::message(&doc, lang, len, seed);
            let q = MatchQuery { message: Some(&message), language: lang, kind: Some(OfferKind::Sponsored), now_ms: 1_000, top_k: 8, ..Default::default() };
            let expected = whole.find_indexed(&q);
            compared += expected.candidates.len();
            assert_eq!(pieces.find_indexed(&q), expected, "{message}");
        }
    }
    assert!(compared > 100, "the queries found offers ({compared})");
}

#[test]
fn errors_name_offers_by_their_place_in_the_whole_document() {
    let taxonomy = taxonomy_json();
    let first = serde_json::json!([offer_json("snp_1", "place.jeju"), offer_json("snp_2", "place.jeju")]);
    let duplicate = serde_json::json!([offer_json("snp_3", "place.jeju"), offer_json("snp_1", "place.jeju")]);
    assert_eq!(
        build_in_pieces(&taxonomy, &[first.clone(), duplicate]).err(),
        Some(IndexError::DuplicateId { field: "offers[3].snapshot_id".into(), id: "snp_1".into() })
    );
    let unknown = serde_json::json!([offer_json("snp_3", "place.nowhere")]);
    assert_eq!(
        build_in_pieces(&taxonomy, &[first.clone(), unknown]).err(),
        Some(IndexError::UnknownId { field: "offers[2].entity_ids[0]".into(), kind: "entity", id: "place.nowhere".into() })
    );
    let index = build_in_pieces(&taxonomy, &[first, serde_json::json!([]), serde_json::json!([offer_json("snp_3", "place.jeju")])]).expect("builds");
    assert_eq!(index.stats().offers, 3);
}

#[test]
fn each_piece_must_have_its_shape() {
    let shape = |r: Result<OfferIndex, IndexError>| match r {
        Err(IndexError::InvalidDocument(m)) => m,
        other => panic!("expected an invalid document, got {:?}", other.map(|i| i.stats())),
    };
    assert_eq!(shape(build_in_pieces(&serde_json::json!([]), &[])), "the taxonomy must be a JSON object");
    assert_eq!(shape(build_in_pieces(&taxonomy_json(), &[offer_json("snp_1", "place.jeju")])), "a chunk of offers must be a JSON array");
    assert!(shape(build_in_pieces(&taxonomy_json(), &[serde_json::json!([{ "snapshot_id": "snp_1" }])])).contains("missing field"));
}
