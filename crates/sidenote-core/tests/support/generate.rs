//! Deterministic catalog and message generator for tests and benchmarks (no rand crate: a
//! small xorshift keeps runs reproducible).
#![allow(dead_code)]
use sidenote_core::{Aliases, CategoryDoc, EntityDoc, IndexDocument, IntentCues, OfferDoc, SensitiveTopicDoc, TaxonomyDoc};

pub struct Rng(u64);
impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const SYLLABLES: [&str; 16] = ["가", "나", "다", "라", "마", "바", "사", "아", "자", "차", "카", "타", "파", "하", "서", "주"];
const LETTERS: [&str; 16] = ["ka", "lo", "mi", "ne", "po", "ri", "sa", "tu", "va", "ze", "bo", "du", "fi", "gu", "ho", "ju"];

fn word(rng: &mut Rng, parts: &[&str], n: usize) -> String {
    (0..n).map(|_| parts[rng.below(parts.len())]).collect()
}

/// `entities` entities with 5 aliases each (3 English, 2 Korean), 40 categories in a two-level
/// tree, and `offers` offers each targeting one category and, mostly, one entity.
pub fn catalog(offers: usize, entities: usize, seed: u64) -> IndexDocument {
    let mut rng = Rng::new(seed);
    let mut categories = Vec::new();
    for r in 0..8 {
        categories.push(CategoryDoc {
            id: format!("c{r}"),
            parent_id: None,
            aliases: Aliases { ko: vec![format!("분류{}", word(&mut rng, &SYLLABLES, 2))], en: vec![format!("topic{r}")] },
            ..Default::default()
        });
        for k in 0..4 {
            categories.push(CategoryDoc {
                id: format!("c{r}.{k}"),
                parent_id: Some(format!("c{r}")),
                aliases: Aliases { ko: vec![word(&mut rng, &SYLLABLES, 3)], en: vec![format!("{}{r}{k}", word(&mut rng, &LETTERS, 2))] },
                ..Default::default()
            });
        }
    }
    let mut ents = Vec::with_capacity(entities);
    for e in 0..entities {
        let en = (0..3).map(|j| format!("{} {}{}", word(&mut rng, &LETTERS, 2), word(&mut rng, &LETTERS, 2), e * 3 + j)).collect();
        let ko = (0..2).map(|j| format!("{}{}", word(&mut rng, &SYLLABLES, 3), e * 2 + j)).collect();
        let cat = format!("c{}.{}", rng.below(8), rng.below(4));
        ents.push(EntityDoc { id: format!("e{e}"), kind: Some("product".into()), aliases: Aliases { ko, en }, category_ids: vec![cat], ..Default::default() });
    }
    let mut offer_docs = Vec::with_capacity(offers);
    for o in 0..offers {
        let e = rng.below(entities);
        let cat = ents[e].category_ids[0].clone();
        offer_docs.push(OfferDoc {
            snapshot_id: format!("snp_{o:08}"),
            offer_id: format!("off.{o}"),
            campaign_id: format!("cmp.{}", o % 5000),
            advertiser_id: format!("adv.{}", o % 700),
            advertiser_entity_id: None,
            kind: if o % 10 == 0 { "affiliate".into() } else { "sponsored".into() },
            locale: if o % 2 == 0 { "ko".into() } else { "en".into() },
            category_ids: vec![cat],
            entity_ids: if o % 4 == 0 { vec![] } else { vec![format!("e{e}")] },
            budget_buckets: if o % 7 == 0 { vec!["high".into()] } else { vec![] },
            countries: if o % 3 == 0 { vec!["KR".into()] } else { vec![] },
            campaign_status: if o % 50 == 0 { "paused".into() } else { "active".into() },
            starts_at_ms: None,
            ends_at_ms: None,
            priority: (o % 10) as u32 + 1,
            bid_micros: (o as u64 % 40) * 25_000,
        });
    }
    IndexDocument {
        taxonomy: TaxonomyDoc {
            categories,
            entities: ents,
            sensitive_topics: vec![SensitiveTopicDoc {
                id: "health".into(),
                aliases: Aliases { ko: vec!["우울증".into()], en: vec!["depression".into()] },
                negative_contexts: Aliases::default(),
                context_aliases: Aliases::default(),
                said_of_the_user: false,
                said_of_pets: false,
                mentioned_in_quotes: false,
                asked_aliases: Aliases::default(),
            }],
            intent_cues: IntentCues {
                purchase: Aliases { ko: vec!["최저가".into(), "구매".into()], en: vec!["buy".into(), "cheapest".into()] },
                compare: Aliases { ko: vec!["비교".into(), "추천".into()], en: vec!["vs".into(), "compare".into()] },
                ..Default::default()
            },
        },
        offers: offer_docs,
    }
}

/// A message of about `len` characters in `lang` that names a few entities among filler words.
pub fn message(doc: &IndexDocument, lang: &str, len: usize, seed: u64) -> String {
    let mut rng = Rng::new(seed + 7);
    let mut out = String::new();
    let filler: &[&str] = if lang == "ko" {
        &["오늘", "그리고", "정말", "좋은", "어디서", "알려줘", "여행", "가격이"]
    } else {
        &["the", "and", "really", "good", "where", "tell", "me", "price"]
    };
    while out.chars().count() < len {
        if rng.below(12) == 0 {
            let e = &doc.taxonomy.entities[rng.below(doc.taxonomy.entities.len())];
            let list = if lang == "ko" { &e.aliases.ko } else { &e.aliases.en };
            out.push_str(&list[rng.below(list.len())]);
        } else {
            out.push_str(filler[rng.below(filler.len())]);
        }
        out.push(' ');
    }
    out.chars().take(len).collect()
}
