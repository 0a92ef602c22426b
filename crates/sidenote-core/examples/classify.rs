//! The turn classifier from the command line.
//!
//! `cargo run --release -q -p sidenote-core --example classify < turns.txt` reads one turn per
//! line and prints one JSON object per line: the normalised text, both logits (also as f32 bit
//! patterns, for bit-exact comparison with the TypeScript twin) and both decisions.
//!
//! `... --example classify -- --bench` times `scores()` on turns of about 200 characters and
//! prints microseconds per call.
use std::io::{BufRead, Write};
use std::time::Instant;

use sidenote_core::{normalize, TurnClassifier};

fn main() -> std::io::Result<()> {
    let model = TurnClassifier::embedded();
    if std::env::args().any(|a| a == "--bench") {
        bench(model);
        return Ok(());
    }
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in stdin.lock().lines() {
        let normalized = normalize(&line?);
        let scores = model.scores(&normalized);
        let row = serde_json::json!({
            "normalized": normalized,
            "sensitive": scores.sensitive,
            "commercial": scores.commercial,
            "sensitive_bits": scores.sensitive.to_bits(),
            "commercial_bits": scores.commercial.to_bits(),
            "is_sensitive": model.is_sensitive(&normalized),
            "is_commercial": model.is_commercial(&normalized),
        });
        writeln!(out, "{row}")?;
    }
    out.flush()
}

fn bench(model: &TurnClassifier) {
    let turns = [
        "i'm planning a trip to tokyo with my partner next month and we need a quiet hotel near shinjuku station, ideally under 200 dollars a night, and maybe a day tour to hakone too",
        "다음 달에 부모님 모시고 제주도 가려고 하는데 바다 보이는 호텔 2박이랑 렌트카까지 같이 예약할 수 있는 곳 있을까요? 예산은 한 사람당 오십만 원 정도로 생각하고 있고 조식 포함이면 더 좋겠어요. 아버지가 무릎이 안 좋으셔서 많이 걷지 않는 일정이면 좋겠고, 공항에서 가까운 곳이면 더 좋아요. 추천 부탁드려요",
        "honestly i've been feeling so low lately, i can't sleep, i can't focus at work, and sometimes i think everyone would be better off without me around, i don't know what to do",
        "요즘 회사 일도 너무 힘들고 월급도 두 달째 밀려서 카드값이 연체됐는데 아무한테도 말을 못 하겠어 진짜 다 끝내고 싶다는 생각만 들어 어떻게 해야 할지 모르겠어. 부모님한테 말하면 실망하실 것 같고 친구들한테는 이미 돈을 빌려서 더는 부탁도 못 하겠어. 밤마다 잠도 안 오고 그냥 다 놓고 싶어",
    ];
    let normalized: Vec<String> = turns.iter().map(|t| normalize(t)).collect();
    let calls = 200_000;
    let mut sink = 0.0f32;
    // Warm-up: page in the weights and settle the branch predictors.
    for text in &normalized {
        sink += model.scores(text).sensitive;
    }
    for text in &normalized {
        let start = Instant::now();
        for _ in 0..calls {
            sink += std::hint::black_box(model.scores(std::hint::black_box(text))).commercial;
        }
        let micros = start.elapsed().as_secs_f64() * 1e6 / f64::from(calls);
        println!("{:>4} chars  {micros:.2} µs/call  {}…", text.chars().count(), text.chars().take(32).collect::<String>());
    }
    println!("(checksum {sink})");
}
