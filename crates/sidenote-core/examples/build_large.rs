//! Builds a generated index of N offers (default 1,000,000 with 100,000 entities / 500,000
//! aliases) and reports build time, the index's own memory estimate and the process RSS.
//!   cargo run --release -p sidenote-core --example build_large -- 1000000 100000
use sidenote_core::{MatchQuery, OfferIndex, OfferKind};
use std::time::Instant;

#[path = "../tests/support/generate.rs"]
mod generate;

fn rss_mib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse::<u64>().ok()))
        .map_or(0, |kb| kb / 1024)
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let offers = args.first().copied().unwrap_or(1_000_000);
    let entities = args.get(1).copied().unwrap_or(100_000);
    let started = Instant::now();
    let doc = generate::catalog(offers, entities, 42);
    let generated = started.elapsed();
    let rss_doc = rss_mib();
    let started = Instant::now();
    let index = OfferIndex::build(&doc).expect("builds");
    let built = started.elapsed();
    drop(doc);
    let stats = index.stats();
    println!("offers {offers}, entities {entities}, aliases {}: generate {generated:?}, build {built:?}", stats.aliases);
    println!("index estimate {} MiB; process RSS with document {rss_doc} MiB, after dropping it {} MiB", stats.memory_bytes >> 20, rss_mib());
    let mut times = Vec::new();
    for (i, lang) in ["en", "ko"].iter().cycle().take(2000).enumerate() {
        let m: String = format!("where can i buy {} {} cheapest", "zebo mipo", i);
        let q =
            MatchQuery { message: Some(&m), language: lang, country: Some("KR"), kind: Some(OfferKind::Sponsored), now_ms: 0, top_k: 8, ..Default::default() };
        let t = Instant::now();
        std::hint::black_box(index.find(&q));
        times.push(t.elapsed().as_nanos());
    }
    times.sort_unstable();
    println!("match+score short message: p50 {} µs, p99 {} µs", times[times.len() / 2] / 1000, times[times.len() * 99 / 100] / 1000);
}
