//! Searches for the messages that cost the core the most on the demo catalog, and writes the
//! worst it finds to `tests/slow-inputs/`, the corpus `tests/bounded_reading.rs` holds to the
//! step budget and a linear bound.
//!
//!     cargo run --release -p sidenote-core --example slow_inputs -- [--seconds 120] [--seed 7] [--write]
//!
//! An evolutionary search over motifs (a few catalog words and pieces of structure, tiled to the
//! envelope's 4,000 characters, `tests/support/adversarial.rs`): each generation mutates one of
//! the costliest (a piece swapped, added, dropped or taken from another), and a child costlier
//! than the cheapest of the population replaces it. The cost is wall time, the least of three
//! runs, so that work the step counter does not see is found too; the step count is reported
//! beside it. Ordinary turns (the labelled relevance set) give the median it is compared with.
use sidenote_core::{MatchQuery, OfferIndex, OfferKind, Steps};
use std::time::{Duration, Instant};

#[path = "../tests/support/adversarial.rs"]
mod adversarial;
#[path = "../tests/support/demo.rs"]
mod demo;

use adversarial::{tile, Rng, MAX_CHARS};

const POPULATION: usize = 24;
const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/slow-inputs");

fn query(message: &str) -> MatchQuery<'_> {
    MatchQuery {
        message: Some(message),
        language: "ko",
        country: Some("KR"),
        kind: Some(OfferKind::Sponsored),
        now_ms: 1_795_402_800_000,
        top_k: 3,
        ..Default::default()
    }
}

/// The least of three runs, and the steps of one.
fn cost(index: &OfferIndex, message: &str) -> (Duration, u64) {
    let mut best = Duration::MAX;
    let mut used = 0;
    for _ in 0..3 {
        let mut steps = Steps::default();
        let started = Instant::now();
        std::hint::black_box(index.find_indexed_within(&query(message), &mut steps));
        best = best.min(started.elapsed());
        used = steps.used();
    }
    (best, used)
}

struct Found {
    motif: Vec<String>,
    message: String,
    time: Duration,
    steps: u64,
}

fn main() {
    let mut seconds = 60u64;
    let mut seed = 7u64;
    let mut write = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--seconds" => seconds = args.next().and_then(|v| v.parse().ok()).expect("--seconds N"),
            "--seed" => seed = args.next().and_then(|v| v.parse().ok()).expect("--seed N"),
            "--write" => write = true,
            other => panic!("unknown argument {other}: [--seconds N] [--seed N] [--write]"),
        }
    }
    let doc = demo::demo_document();
    let index = OfferIndex::build(&doc).expect("the demo catalog builds");
    let vocabulary = adversarial::vocabulary(&doc);
    let mut rng = Rng::new(seed);

    // Ordinary turns: the labelled set's messages, the yardstick.
    let cases = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../eval/relevance/dev.jsonl")).expect("relevance cases");
    let mut ordinary: Vec<Duration> = cases
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|c| c["message"].as_str().map(String::from))
        .map(|m| cost(&index, &m).0)
        .collect();
    ordinary.sort();
    let median = ordinary[ordinary.len() / 2];

    let random_motif = |rng: &mut Rng| adversarial::motif(rng, &vocabulary).into_iter().map(|i| vocabulary[i].clone()).collect::<Vec<_>>();
    let evaluate = |motif: Vec<String>| {
        let positions: Vec<usize> = (0..motif.len()).collect();
        let message = tile(&positions, &motif, MAX_CHARS);
        let (time, steps) = cost(&index, &message);
        Found { motif, message, time, steps }
    };
    let mut population: Vec<Found> = (0..POPULATION).map(|_| evaluate(random_motif(&mut rng))).collect();
    let started = Instant::now();
    let mut generations = 0u64;
    while started.elapsed() < Duration::from_secs(seconds) {
        generations += 1;
        population.sort_by_key(|f| std::cmp::Reverse(f.time));
        let parent = &population[rng.below(POPULATION / 3)].motif;
        let mut child = parent.clone();
        match rng.below(4) {
            0 if !child.is_empty() => {
                let i = rng.below(child.len());
                child[i] = vocabulary[rng.below(vocabulary.len())].clone();
            }
            1 if child.len() < 12 => child.insert(rng.below(child.len() + 1), vocabulary[rng.below(vocabulary.len())].clone()),
            2 if child.len() > 1 => {
                child.remove(rng.below(child.len()));
            }
            _ => {
                let other = &population[rng.below(POPULATION)].motif;
                let cut = rng.below(child.len() + 1);
                child.truncate(cut);
                child.extend(other.iter().skip(rng.below(other.len() + 1)).cloned());
                child.truncate(12);
            }
        }
        if child.is_empty() {
            continue;
        }
        let found = evaluate(child);
        if found.time > population[POPULATION - 1].time {
            population[POPULATION - 1] = found;
        }
    }
    population.sort_by_key(|f| std::cmp::Reverse(f.time));
    println!("{generations} generations in {seconds} s, seed {seed}; ordinary turns: median {median:?}");
    println!("| rank | cost | × median | steps | motif |");
    println!("|---|---|---|---|---|");
    for (i, f) in population.iter().take(8).enumerate() {
        let ratio = f.time.as_secs_f64() / median.as_secs_f64();
        println!("| {} | {:?} | {ratio:.1} | {} | {:?} |", i + 1, f.time, f.steps, f.motif.concat());
    }
    if write {
        for (i, f) in population.iter().take(4).enumerate() {
            let path = format!("{CORPUS}/search-seed{seed}-{}.txt", i + 1);
            std::fs::write(&path, &f.message).expect("writes the corpus");
            println!("wrote {path}");
        }
    }
}
