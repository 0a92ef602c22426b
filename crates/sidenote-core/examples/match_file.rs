//! Times match+score for messages from a JSON file against an index document from a file, so a
//! real catalog (e.g. the demo one) can be profiled with `perf`:
//!   cargo run --release -p sidenote-core --example match_file -- doc.json messages.json [iterations]
//! messages.json: [{"message": "...", "language": "ko"|"en"}, ...]
use sidenote_core::{IndexDocument, MatchQuery, OfferIndex, OfferKind};
use std::time::Instant;

#[derive(serde::Deserialize)]
struct Message {
    message: String,
    language: String,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let doc: IndexDocument = serde_json::from_str(&std::fs::read_to_string(&args[0]).expect("doc file")).expect("doc json");
    let messages: Vec<Message> = serde_json::from_str(&std::fs::read_to_string(&args[1]).expect("messages file")).expect("messages json");
    let iterations: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let index = OfferIndex::build(&doc).expect("builds");
    let none: Vec<String> = Vec::new();
    for m in &messages {
        let q = MatchQuery {
            message: Some(&m.message),
            language: &m.language,
            country: None,
            category_ids: &none,
            entity_ids: &none,
            excluded_entity_ids: &none,
            blocked_category_ids: &none,
            blocked_advertiser_ids: &none,
            budget_bucket: None,
            intent_type: None,
            kind: Some(OfferKind::Sponsored),
            now_ms: 1_800_000_000_000,
            top_k: 8,
        };
        let started = Instant::now();
        for _ in 0..iterations {
            std::hint::black_box(index.find(&q));
        }
        let per = started.elapsed().as_secs_f64() * 1e6 / iterations as f64;
        println!("{:>5} chars {} {:>8.1} µs", m.message.chars().count(), m.language, per);
    }
}
