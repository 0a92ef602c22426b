//! match+score on generated catalogs. `cargo bench -p sidenote-core` runs 1k and 100k offers;
//! SIDENOTE_BENCH_LARGE=1 adds 1M offers with 100k entities and 500k aliases.
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sidenote_core::{IndexDocument, MatchQuery, OfferIndex, OfferKind};

#[path = "../tests/support/generate.rs"]
mod generate;

fn bench(c: &mut Criterion) {
    let mut sizes = vec![(1_000usize, 2_000usize), (100_000, 20_000)];
    if std::env::var("SIDENOTE_BENCH_LARGE").is_ok() {
        sizes.push((1_000_000, 100_000));
    }
    for (offers, entities) in sizes {
        let doc: IndexDocument = generate::catalog(offers, entities, 42);
        let started = std::time::Instant::now();
        let index = OfferIndex::build(&doc).expect("builds");
        eprintln!("build {offers} offers / {entities} entities: {:?}, {:?}", started.elapsed(), index.stats());
        let mut group = c.benchmark_group(format!("match_score/{offers}_offers"));
        for (lang, len) in [("en", 50usize), ("en", 500), ("en", 4000), ("ko", 50), ("ko", 500), ("ko", 4000)] {
            let messages: Vec<String> = (0..64).map(|i| generate::message(&doc, lang, len, i)).collect();
            group.throughput(Throughput::Bytes(len as u64));
            group.bench_with_input(BenchmarkId::new(lang, len), &messages, |b, messages| {
                let mut i = 0usize;
                b.iter(|| {
                    i = (i + 1) % messages.len();
                    let q = MatchQuery {
                        message: Some(&messages[i]),
                        language: lang,
                        country: Some("KR"),
                        kind: Some(OfferKind::Sponsored),
                        now_ms: 1_790_000_000_000,
                        top_k: 8,
                        ..Default::default()
                    };
                    black_box(index.find(&q))
                })
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
