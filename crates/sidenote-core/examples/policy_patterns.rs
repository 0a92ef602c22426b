//! Times the pattern families (`policy_patterns`) over turns on stdin, one per line:
//! `cargo run --release -q -p sidenote-core --example policy_patterns < turns.txt`.
use std::io::BufRead;
fn main() {
    let texts: Vec<String> = std::io::stdin().lock().lines().map_while(Result::ok).map(|l| sidenote_core::normalize(&l)).collect();
    let _ = sidenote_core::policy_patterns::sensitive_patterns("warm up");
    let t = std::time::Instant::now();
    let mut n = 0;
    for _ in 0..20 {
        for s in &texts {
            n += sidenote_core::policy_patterns::sensitive_patterns(s).len();
        }
    }
    let per = t.elapsed().as_secs_f64() * 1e6 / (20.0 * texts.len() as f64);
    let chars: usize = texts.iter().map(|s| s.chars().count()).sum();
    println!("{} texts, {:.0} chars avg, {:.2} µs per turn ({n})", texts.len(), chars as f64 / texts.len() as f64, per);
}
