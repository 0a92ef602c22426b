//! Runs the fuzzy matcher on messages given as JSON (to see what it reads), or times it.
//!
//!   cargo run --release -q -p sidenote-core --example fuzzy < input.json
//!     input:  {"aliases": [["laptop", 0], ...], "things": [0, ...], "messages": [{"text": "...", "covered": [[0, 3]]}]}
//!     output: one line, per message its hits: [[[start, end, pattern], ...], ...]
//!   cargo run --release -q -p sidenote-core --example fuzzy -- --bench
//!     µs per call on English chat messages of 100-300 characters, with 2,000 and 50,000 aliases.
use sidenote_core::{normalize, FuzzyMatcher};
use std::collections::HashSet;
use std::hint::black_box;
use std::io::Read;
use std::time::Instant;

#[derive(serde::Deserialize)]
struct Input {
    aliases: Vec<(String, u32)>,
    /// Pattern ids of the aliases that name a thing (`FuzzyMatcher::with_things`).
    #[serde(default)]
    things: Vec<u32>,
    messages: Vec<Message>,
}

#[derive(serde::Deserialize)]
struct Message {
    text: String,
    #[serde(default)]
    covered: Vec<(usize, usize)>,
}

fn main() {
    if std::env::args().any(|a| a == "--bench") {
        bench();
        return;
    }
    let mut raw = String::new();
    std::io::stdin().read_to_string(&mut raw).expect("stdin");
    let input: Input = serde_json::from_str(&raw).expect("input json");
    let matcher = FuzzyMatcher::with_things(input.aliases.iter().map(|(a, id)| (a.as_str(), *id, input.things.contains(id))));
    let hits: Vec<Vec<(usize, usize, u32)>> = input.messages.iter().map(|m| matcher.find(&m.text, &m.covered)).collect();
    println!("{}", serde_json::to_string(&hits).expect("json"));
}

/// Typical turns, each with a typo or a split word or two.
const MESSAGES: &[&str] = &[
    "hey, can you recommend a good labtop for college? my budget is around 800 dollars and i mostly do coding, some photo editing and light gaming on weekends.",
    "i'm flying to paris next month with my wife and two kids. which area is best for a family hotel near the eiffel tower, and should we get a rail pass?",
    "my airpod keeps disconnecting from my iphnoe when i walk around the house. is this a known bug or should i just buy new ear buds instead?",
    "what's the difference between the macbok air and the pro for someone who edits 4k video? i also need a decent monitor and maybe a usb-c hub.",
    "can you help me write an email to my landlord about the broken heater? it has been cold for a week and nobody answered my calls.",
    "looking for cheap flights from seoul to tokyo in april, plus a hostel or a small hotel in shinjuku. any tips for the jr pass?",
    "is anti virus software still worth paying for in 2025 or is the built in windows defender good enough for a normal home user?",
    "we are planning a two week trip to japan in the autumn with my parents, who are in their seventies. could you suggest an itinerary that is not too tiring, with a few nights in kyoto, a ryokan with an onsen, and a way to get around without carrying heavy suitcases everywhere?",
    "my old laptpo is really slow now and the battery lasts maybe an hour. i use it for spreadsheets, video calls and some light photo editing. is it worth replacing the battery and adding more memory, or should i just buy a new one, and if so which brands would you look at first?",
    "compare noise cancelling head phones under 300 dollars for long flights: sony, bose and the new airpods pro are on my list, which one would you pick and why?",
];

/// Real product, travel and software words, as in a catalog.
const VOCABULARY: &[&str] = &[
    "laptop",
    "laptops",
    "notebook computer",
    "gaming laptop",
    "iphone",
    "iphone 16",
    "iphone 16 pro",
    "airpods",
    "airpods pro",
    "macbook",
    "macbook air",
    "macbook pro",
    "headphones",
    "earbuds",
    "wireless earbuds",
    "antivirus",
    "password manager",
    "hotel",
    "hotels",
    "hostel",
    "resort",
    "flights",
    "airfare",
    "airline",
    "rail pass",
    "train tickets",
    "monitor",
    "keyboard",
    "smartphone",
    "tablet",
    "galaxy s25",
    "galaxy tab",
    "pixel 9",
    "windows defender",
    "vpn service",
    "photo editing",
    "video editor",
    "shinjuku",
    "eiffel tower",
    "jeju island",
    "travel insurance",
    "noise cancelling",
    "usb hub",
    "gaming mouse",
    "mechanical keyboard",
    "smartwatch",
    "apple watch",
    "fitness tracker",
    "coffee maker",
    "espresso machine",
    "running shoes",
    "backpack",
    "suitcase",
];

const SYLLABLES: &[&str] =
    &["zen", "tra", "ko", "rav", "lum", "bri", "sto", "vex", "mar", "quo", "pel", "dri", "nax", "sol", "vi", "ter", "ga", "mon", "lix", "cor"];
const MODEL_WORDS: &[&str] = &["pro", "air", "max", "mini", "ultra", "plus", "lite", "one", "studio", "book", "pad", "buds", "watch", "cam", "go"];

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// `n` distinct aliases: the vocabulary, then invented brands alone, with a model word or with
/// a model number.
fn catalog(n: usize) -> Vec<String> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut seen: HashSet<String> = VOCABULARY.iter().map(|s| s.to_string()).collect();
    let mut out: Vec<String> = VOCABULARY.iter().map(|s| s.to_string()).collect();
    while out.len() < n {
        let brand: String = (0..2 + rng.below(2)).map(|_| SYLLABLES[rng.below(SYLLABLES.len())]).collect();
        let alias = match rng.below(10) {
            0..=4 => brand,
            5..=8 => format!("{brand} {}", MODEL_WORDS[rng.below(MODEL_WORDS.len())]),
            _ => format!("{brand} {}", 1 + rng.below(20)),
        };
        if seen.insert(alias.clone()) {
            out.push(alias);
        }
    }
    out.truncate(n);
    out
}

fn bench() {
    let messages: Vec<String> = MESSAGES.iter().map(|m| normalize(m)).collect();
    // Every token unknown: no common word to skip, every word and pair fully looked up.
    let mut rng = Rng(42);
    let unknown: String = (0..34).map(|_| (0..2).map(|_| SYLLABLES[rng.below(SYLLABLES.len())]).collect::<String>()).collect::<Vec<_>>().join(" ");
    for size in [2_000, 50_000] {
        let aliases = catalog(size);
        let rss_before = resident_mib();
        let started = Instant::now();
        let matcher = FuzzyMatcher::new(aliases.iter().enumerate().map(|(i, a)| (a.as_str(), i as u32)));
        let build_ms = started.elapsed().as_secs_f64() * 1e3;
        let grown = resident_mib() - rss_before;
        println!("{size} aliases ({} eligible): built in {build_ms:.1} ms, ~{grown:.1} MiB resident", matcher.eligible_count());
        let iterations = 20_000;
        let mut total = 0.0;
        for m in &messages {
            let per = time(&matcher, m, iterations);
            total += per;
            let hits: Vec<&str> = matcher.find(m, &[]).iter().map(|&(_, _, id)| aliases[id as usize].as_str()).collect();
            println!("  {:>3} chars {per:>6.2} µs  {hits:?}", m.chars().count());
        }
        println!("  mean {:.2} µs per call over {} messages", total / messages.len() as f64, messages.len());
        println!("  {:>3} chars {:>6.2} µs  (every token unknown)", unknown.len(), time(&matcher, &unknown, iterations));
    }
}

fn time(matcher: &FuzzyMatcher, message: &str, iterations: usize) -> f64 {
    for _ in 0..iterations / 10 {
        black_box(matcher.find(black_box(message), &[]));
    }
    let started = Instant::now();
    for _ in 0..iterations {
        black_box(matcher.find(black_box(message), &[]));
    }
    started.elapsed().as_secs_f64() * 1e6 / iterations as f64
}

/// Resident memory of this process (Linux), to size the index.
fn resident_mib() -> f64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: f64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0.0);
    pages * 4096.0 / (1024.0 * 1024.0)
}
