//! Per-call latency of match+score (p50, p99, max), index build time and memory, for catalogs
//! of 1k to 1M offers and messages of 50, 500 and 4000 characters in Korean and English: the
//! curve of how cost grows with catalog size and message length. Criterion (`match_score`)
//! gives the statistically careful means; this gives the tail the targets are about.
//!
//!   cargo bench -p sidenote-core --bench latency_curve            (1k, 10k, 100k, 1M offers)
//!   SIDENOTE_CURVE_SIZES=1000,100000 cargo bench -p sidenote-core --bench latency_curve
//!
//! Writes bench/out/core-latency.json and .md. Catalogs come from tests/support/generate.rs
//! (5 aliases per entity, syllables from a 16-letter alphabet). Two kinds of message:
//! `chat`, ordinary sentences that name two entities, like a user asking about a product; and
//! `dense`, where one word in twelve names an entity — far denser than chat, an upper bound.
use sidenote_core::{MatchQuery, OfferIndex, OfferKind};
use std::fmt::Write as _;
use std::time::Instant;

#[path = "../tests/support/generate.rs"]
mod generate;

fn rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse::<f64>().ok()))
        .map_or(0.0, |kb| kb / 1024.0)
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Ordinary sentences (the HTTP benchmark's filler) naming two entities of the catalog.
fn chat_message(doc: &sidenote_core::IndexDocument, lang: &str, len: usize, seed: u64) -> String {
    let pick = |k: u64| {
        let e = &doc.taxonomy.entities[((seed * 7919 + k * 104_729) % doc.taxonomy.entities.len() as u64) as usize];
        let list = if lang == "ko" { &e.aliases.ko } else { &e.aliases.en };
        list[0].clone()
    };
    let (opening, filler) = if lang == "ko" {
        (
            format!("{}랑 {} 중에 뭐가 나아? 최저가도 알려줘.", pick(1), pick(2)),
            "이번 주말에 가족이랑 어디 갈지 고민 중인데 날씨도 좋고 맛있는 것도 먹고 싶어. ",
        )
    } else {
        (
            format!("Should I get the {} or the {}? Cheapest price please.", pick(1), pick(2)),
            "We are planning a long weekend and want something relaxing with good food nearby. ",
        )
    };
    let mut out = opening;
    while out.chars().count() < len {
        out.push(' ');
        out.push_str(filler);
    }
    out.chars().take(len).collect()
}

struct Row {
    style: &'static str,
    offers: usize,
    lang: &'static str,
    len: usize,
    p50_ns: u64,
    p99_ns: u64,
    max_ns: u64,
    mean_ns: u64,
}

fn main() {
    // `cargo bench` passes --bench; filters are not supported here.
    let sizes: Vec<usize> = std::env::var("SIDENOTE_CURVE_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000, 1_000_000]);
    let calls: usize = std::env::var("SIDENOTE_CURVE_CALLS").ok().and_then(|s| s.parse().ok()).unwrap_or(3_000);
    let mut rows = Vec::new();
    let mut builds = Vec::new();
    for &offers in &sizes {
        // 1M offers with 100k entities and 500k aliases, as the targets name; smaller catalogs
        // keep one entity per ten offers.
        let entities = (offers / 10).clamp(1_000, 100_000);
        let rss_start = rss_mib();
        let doc = generate::catalog(offers, entities, 42);
        let started = Instant::now();
        let index = OfferIndex::build(&doc).expect("builds");
        let build_s = started.elapsed().as_secs_f64();
        let mut messages: Vec<(&'static str, &'static str, usize, Vec<String>)> = Vec::new();
        for style in ["chat", "dense"] {
            for (lang, len) in [("en", 50usize), ("en", 500), ("en", 4000), ("ko", 50), ("ko", 500), ("ko", 4000)] {
                let msgs = (0..64).map(|i| if style == "chat" { chat_message(&doc, lang, len, i) } else { generate::message(&doc, lang, len, i) }).collect();
                messages.push((style, lang, len, msgs));
            }
        }
        drop(doc);
        let rss_index = rss_mib();
        let stats = index.stats();
        eprintln!(
            "{offers} offers, {entities} entities, {} aliases: built in {build_s:.2} s, index ~{} MiB, RSS {rss_index:.0} MiB",
            stats.aliases,
            stats.memory_bytes >> 20
        );
        builds.push((offers, entities, stats.aliases, build_s, stats.memory_bytes as f64 / 1048576.0, rss_index, rss_index - rss_start));
        for (style, lang, len, msgs) in &messages {
            let mut times = Vec::with_capacity(calls);
            for i in 0..calls + 200 {
                let q = MatchQuery {
                    message: Some(&msgs[i % msgs.len()]),
                    language: lang,
                    country: Some("KR"),
                    kind: Some(OfferKind::Sponsored),
                    now_ms: 1_790_000_000_000,
                    top_k: 8,
                    ..Default::default()
                };
                let t = Instant::now();
                std::hint::black_box(index.find_indexed(&q));
                // The first 200 calls warm caches and are not counted.
                if i >= 200 {
                    times.push(t.elapsed().as_nanos() as u64);
                }
            }
            let mean_ns = times.iter().sum::<u64>() / times.len() as u64;
            times.sort_unstable();
            let row = Row {
                style,
                offers,
                lang,
                len: *len,
                p50_ns: percentile(&times, 0.5),
                p99_ns: percentile(&times, 0.99),
                max_ns: *times.last().unwrap_or(&0),
                mean_ns,
            };
            eprintln!(
                "  {style} {lang} {len:>4} chars: p50 {:.1} µs, p99 {:.1} µs, max {:.1} µs",
                row.p50_ns as f64 / 1e3,
                row.p99_ns as f64 / 1e3,
                row.max_ns as f64 / 1e3
            );
            rows.push(row);
        }
        drop(index);
    }

    let us = |ns: u64| format!("{:.1}", ns as f64 / 1e3);
    let mut md = String::new();
    let _ = writeln!(md, "| offers | entities | aliases | build s | index estimate MiB | process RSS MiB |\n|---|---|---|---|---|---|");
    for (offers, entities, aliases, build_s, est, rss, _) in &builds {
        let _ = writeln!(md, "| {offers} | {entities} | {aliases} | {build_s:.2} | {est:.0} | {rss:.0} |");
    }
    let _ = writeln!(md, "\n| offers | message | p50 µs | p99 µs | max µs | mean µs |\n|---|---|---|---|---|---|");
    for r in &rows {
        let _ = writeln!(
            md,
            "| {} | {} {} {} chars | {} | {} | {} | {} |",
            r.offers,
            r.style,
            r.lang,
            r.len,
            us(r.p50_ns),
            us(r.p99_ns),
            us(r.max_ns),
            us(r.mean_ns)
        );
    }
    let json_rows: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                r#"{{"style":"{}","offers":{},"lang":"{}","chars":{},"p50_ns":{},"p99_ns":{},"max_ns":{},"mean_ns":{}}}"#,
                r.style, r.offers, r.lang, r.len, r.p50_ns, r.p99_ns, r.max_ns, r.mean_ns
            )
        })
        .collect();
    let json_builds: Vec<String> = builds
        .iter()
        .map(|(o, e, a, b, est, rss, _)| {
            format!(r#"{{"offers":{o},"entities":{e},"aliases":{a},"build_s":{b:.3},"index_estimate_mib":{est:.1},"process_rss_mib":{rss:.1}}}"#)
        })
        .collect();
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/out");
    let _ = std::fs::create_dir_all(&out);
    let _ = std::fs::write(
        out.join("core-latency.json"),
        format!(r#"{{"calls_per_cell":{calls},"builds":[{}],"latency":[{}]}}"#, json_builds.join(","), json_rows.join(",")),
    );
    let _ = std::fs::write(out.join("core-latency.md"), &md);
    println!("\n{md}");
}
