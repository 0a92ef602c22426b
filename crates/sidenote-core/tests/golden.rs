//! Characterisation of the core on every labelled turn (eval/relevance/*.jsonl) over the demo
//! catalog: what it reads (sensitive topics, intent, signals) and what it ranks, one line per
//! turn in `tests/golden/relevance.jsonl`. A change to the core that should not change an answer
//! (a faster reading, a refactor) leaves this file as it is; one that should is blessed with
//! `SIDENOTE_BLESS=1 cargo test --release -p sidenote-core --test golden` and its diff read and
//! explained in the commit, beside the relevance report's before/after table.
use serde_json::{json, Value};
use sidenote_core::{MatchQuery, OfferIndex, OfferKind};

#[path = "support/demo.rs"]
mod demo;
use demo::demo_document;

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/relevance.jsonl");
const CASES: [&str; 2] = ["dev.jsonl", "held-out.jsonl"];
/// The relevance benchmark's clock (eval/relevance/benchmark.ts, DEFAULT_EVAL_NOW): every demo
/// campaign is live then.
const NOW_MS: i64 = 1_795_402_800_000; // 2026-11-23T03:00:00Z

fn strings(v: &Value) -> Vec<String> {
    v.as_array().map_or_else(Vec::new, |a| a.iter().filter_map(|s| s.as_str().map(String::from)).collect())
}

fn characterise(index: &OfferIndex, case: &Value) -> Value {
    let lang = case["lang"].as_str().unwrap_or("en");
    let digest = &case["digest"];
    let (categories, entities) = (strings(&digest["category_ids"]), strings(&digest["entity_ids"]));
    let q = MatchQuery {
        message: case["message"].as_str(),
        language: lang,
        country: Some(if lang == "ko" { "KR" } else { "US" }),
        category_ids: &categories,
        entity_ids: &entities,
        intent_type: digest["intent_type"].as_str(),
        kind: Some(OfferKind::Sponsored),
        now_ms: NOW_MS,
        top_k: 3,
        ..Default::default()
    };
    let m = index.find(&q);
    json!({
        "id": case["id"],
        "sensitive": m.sensitive_topic_ids,
        "patterns": m.sensitive_patterns,
        "model_sensitive": m.model_sensitive,
        "message_intent": m.message_intent.as_str(),
        "intent": m.intent,
        "categories": m.signal_category_ids,
        "entities": m.signal_entity_ids,
        "offers": m.candidates.iter().map(|c| json!([c.offer_id, c.score])).collect::<Vec<_>>(),
    })
}

#[test]
fn every_labelled_turn_reads_as_characterised() {
    let index = OfferIndex::build(&demo_document()).expect("the demo catalog builds");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../eval/relevance/");
    let mut lines = Vec::new();
    for file in CASES {
        let text = std::fs::read_to_string(format!("{dir}{file}")).expect("relevance cases");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let case: Value = serde_json::from_str(line).expect("a relevance case is JSON");
            lines.push(characterise(&index, &case).to_string());
        }
    }
    let now = lines.join("\n") + "\n";
    if std::env::var_os("SIDENOTE_BLESS").is_some() {
        std::fs::write(GOLDEN, &now).expect("writes the golden file");
        return;
    }
    let golden = std::fs::read_to_string(GOLDEN).expect("tests/golden/relevance.jsonl (bless it with SIDENOTE_BLESS=1)");
    let changed: Vec<String> = golden.lines().zip(now.lines()).filter(|(a, b)| a != b).map(|(a, b)| format!("- {a}\n+ {b}")).collect();
    assert_eq!(golden.lines().count(), now.lines().count(), "the labelled set changed size: bless the golden file");
    assert!(changed.is_empty(), "{} turns read differently:\n{}", changed.len(), changed.iter().take(20).cloned().collect::<Vec<_>>().join("\n"));
}
