//! `normalize` alone on ASCII, Hangul and mixed chat messages of 50, 500 and 4000 characters:
//! the fast path (ASCII, precomposed Hangul) against text that takes the general NFKC path.
//!
//!   cargo bench -p sidenote-core --bench normalize
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sidenote_core::normalize;

const ASCII: &[&str] = &["the", "cheapest", "hotel", "in", "Jeju", "next", "month,", "please!", "iPhone", "16", "vs", "Galaxy"];
const HANGUL: &[&str] = &["다음", "달", "제주도", "호텔", "최저가", "알려줘", "아이폰", "가격이", "어디서", "비교해줘"];
/// What a chat message off the fast path looks like: accents, full-width forms, emoji, CJK
/// punctuation and ideographic space among ASCII and Hangul.
const MIXED: &[&str] = &["제주도", "Café", "ＩＰＨＯＮＥ", "호텔을", "😀", "naïve", "「추천」", "Tokyo", "東京", "가격\u{3000}비교", "Ü-Bahn", "좋아요!"];

fn message(words: &[&str], len: usize, seed: usize) -> String {
    let mut out = String::new();
    let mut i = seed;
    while out.chars().count() < len {
        out.push_str(words[i % words.len()]);
        out.push(' ');
        i = i.wrapping_mul(31).wrapping_add(7);
    }
    out.chars().take(len).collect()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("normalize");
    for (kind, words) in [("ascii", ASCII), ("hangul", HANGUL), ("mixed", MIXED)] {
        for len in [50usize, 500, 4000] {
            let messages: Vec<String> = (0..16).map(|s| message(words, len, s)).collect();
            group.throughput(Throughput::Elements(len as u64));
            group.bench_with_input(BenchmarkId::new(kind, len), &messages, |b, messages| {
                let mut i = 0usize;
                b.iter(|| {
                    i = (i + 1) % messages.len();
                    black_box(normalize(black_box(&messages[i])))
                })
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
