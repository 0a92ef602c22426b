//! The language packs (`packs/*.json`): well formed, and every example read as it says. A row's
//! `reads` turns hold the phrase as its kind of cue; its `not` turns hold the phrase's letters
//! inside something else, where the cue is not read. The turns are read by a matcher of the
//! packs' cues alone, as the core's matcher reads them beside a catalog's words.
use sidenote_core::packs::{negations_with_adverbs, packs, CueRow, CUE_KINDS};
use sidenote_core::{normalize, TextHit, TextMatcher};

/// Every cue row: its language, its kind's name and what the matcher reports for the kind.
fn rows() -> Vec<(&'static str, &'static str, TextHit, &'static CueRow)> {
    packs()
        .iter()
        .flat_map(|p| {
            CUE_KINDS.iter().zip(p.intent_cues.kinds()).flat_map(move |(&(kind, hit), rows)| rows.iter().map(move |r| (p.language.as_str(), kind, hit, r)))
        })
        .collect()
}

/// Whether `turn` holds `phrase` itself read as `is_it` says (as written, not one typo away).
fn reads(matcher: &TextMatcher, turn: &str, phrase: &str, is_it: impl Fn(&TextHit) -> bool) -> bool {
    let text = normalize(turn);
    let phrase = normalize(phrase);
    matcher.find_spans(&text).iter().any(|s| !s.typo && text[s.start..s.end] == phrase && matcher.targets(s.pattern).iter().any(&is_it))
}

/// Whether the turn reads as `is_it` says where it holds `phrase`: the phrase itself, or a longer
/// one of the same kind overlapping it that the leftmost-longest reading took instead ("should i
/// get" over "get one" in "should i get one").
fn reads_there(matcher: &TextMatcher, turn: &str, phrase: &str, is_it: impl Fn(&TextHit) -> bool) -> bool {
    let text = normalize(turn);
    let phrase = normalize(phrase);
    let at: Vec<(usize, usize)> = text.match_indices(&phrase).map(|(i, m)| (i, i + m.len())).collect();
    matcher.find_spans(&text).iter().any(|s| !s.typo && matcher.targets(s.pattern).iter().any(&is_it) && at.iter().any(|&(a, b)| s.start < b && a < s.end))
}

#[test]
fn every_pack_is_well_formed() {
    let languages: Vec<&str> = packs().iter().map(|p| p.language.as_str()).collect();
    assert_eq!(languages, ["ko", "en"]);
    let mut seen = std::collections::HashSet::new();
    for (language, kind, _, row) in rows() {
        assert!(!row.phrase.trim().is_empty(), "{language} {kind}: an empty phrase");
        assert_eq!(normalize(&row.phrase), row.phrase, "{language} {kind}: \"{}\" is not written as the core normalises it", row.phrase);
        assert!(seen.insert((language, kind, row.phrase.as_str())), "{language} {kind}: \"{}\" twice", row.phrase);
    }
}

#[test]
fn every_example_reads_as_its_row_says() {
    let matcher = TextMatcher::build(rows().into_iter().map(|(_, _, hit, row)| (row.phrase.as_str(), hit))).expect("the packs' cues build a matcher");
    let mut wrong = Vec::new();
    for (language, kind, hit, row) in rows() {
        for turn in &row.reads {
            if !reads_there(&matcher, turn, &row.phrase, |h| *h == hit) {
                wrong.push(format!("{language} {kind} \"{}\" not read in: {turn}", row.phrase));
            }
        }
        for turn in &row.not {
            assert!(normalize(turn).contains(&normalize(&row.phrase)), "{language} {kind}: a `not` turn without \"{}\": {turn}", row.phrase);
            if reads(&matcher, turn, &row.phrase, |h| *h == hit) {
                wrong.push(format!("{language} {kind} \"{}\" read in: {turn}", row.phrase));
            }
        }
    }
    assert!(wrong.is_empty(), "{} examples read otherwise:\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn every_negation_adverb_is_read_inside_a_negation() {
    // The packs' cues and their negations with an adverb, as the core's matcher has them.
    let with_adverbs: Vec<String> = packs().iter().flat_map(negations_with_adverbs).collect();
    let matcher = TextMatcher::build(
        rows().into_iter().map(|(_, _, hit, row)| (row.phrase.as_str(), hit)).chain(with_adverbs.iter().map(|p| (p.as_str(), TextHit::Negation))),
    )
    .expect("the packs' cues build a matcher");
    let mut wrong = Vec::new();
    for pack in packs() {
        for row in &pack.negation_adverbs {
            assert!(!row.reads.is_empty(), "{} negation adverb \"{}\" without a `reads` turn", pack.language, row.phrase);
            for turn in &row.reads {
                if !reads_there(&matcher, turn, &row.phrase, |h| *h == TextHit::Negation) {
                    wrong.push(format!("{} negation adverb \"{}\" not read in a negation in: {turn}", pack.language, row.phrase));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{} examples read otherwise:\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn every_row_has_an_example() {
    let bare: Vec<String> = rows().into_iter().filter(|(_, _, _, r)| r.reads.is_empty()).map(|(l, k, _, r)| format!("{l} {k} \"{}\"", r.phrase)).collect();
    assert!(bare.is_empty(), "{} rows without a `reads` turn:\n{}", bare.len(), bare.join("\n"));
}

#[test]
fn a_catalog_without_cues_reads_the_packs_and_one_with_cues_adds_to_them() {
    use sidenote_core::{IndexDocument, MatchQuery, MessageIntent, OfferIndex, OfferKind};
    let index = |cues: serde_json::Value| {
        let doc: IndexDocument = serde_json::from_value(serde_json::json!({
            "taxonomy": {
                "categories": [{ "id": "travel.hotels", "parent_id": null, "aliases": { "en": ["hotel"], "ko": ["호텔"] } }],
                "intent_cues": cues
            },
            "offers": []
        }))
        .expect("a document");
        OfferIndex::build(&doc).expect("builds")
    };
    let intent = |index: &OfferIndex, message: &str| {
        index
            .find(&MatchQuery { message: Some(message), language: "en", kind: Some(OfferKind::Sponsored), now_ms: 1, top_k: 1, ..Default::default() })
            .message_intent
    };
    let bare = index(serde_json::json!({}));
    assert_eq!(intent(&bare, "i want to buy a hotel night in jeju"), MessageIntent::Purchase);
    assert_eq!(intent(&bare, "제주 호텔 예약하려고"), MessageIntent::Purchase);
    // A word no pack holds is a cue only where the catalog adds it; the packs' still count.
    assert_eq!(intent(&bare, "cheapest hotel sonnet"), MessageIntent::Purchase);
    let added = index(serde_json::json!({ "not_commercial": { "en": ["sonnet"] } }));
    assert_eq!(intent(&added, "cheapest hotel sonnet"), MessageIntent::Low);
    assert_eq!(intent(&added, "i want to buy a hotel night"), MessageIntent::Purchase);
}

#[test]
fn a_catalog_without_topics_reads_the_pack_and_one_with_topics_adds_to_it() {
    use sidenote_core::{IndexDocument, MatchQuery, OfferIndex, OfferKind};
    let index = |topics: serde_json::Value| {
        let doc: IndexDocument = serde_json::from_value(serde_json::json!({
            "taxonomy": { "categories": [{ "id": "travel.hotels", "parent_id": null, "aliases": { "en": ["hotel"], "ko": ["호텔"] } }], "sensitive_topics": topics },
            "offers": []
        }))
        .expect("a document");
        OfferIndex::build(&doc).expect("builds")
    };
    let topics = |index: &OfferIndex, message: &str| {
        index
            .find(&MatchQuery { message: Some(message), language: "en", kind: Some(OfferKind::Sponsored), now_ms: 1, top_k: 1, ..Default::default() })
            .sensitive_topic_ids
    };
    let bare = index(serde_json::json!([]));
    assert_eq!(topics(&bare, "cheapest hotel near the casino"), ["gambling"]);
    assert_eq!(topics(&bare, "카지노 근처 호텔 최저가"), ["gambling"]);
    assert!(topics(&bare, "cheapest hotel near the zorbing park").is_empty());
    // A pack topic gains the catalog's words; a topic of its own id joins.
    let added = index(serde_json::json!([
        { "id": "gambling", "aliases": { "en": ["pachinko"] } },
        { "id": "extreme-sports", "aliases": { "en": ["zorbing"] } }
    ]));
    assert_eq!(topics(&added, "cheapest hotel near the pachinko parlour"), ["gambling"]);
    assert_eq!(topics(&added, "cheapest hotel near the casino"), ["gambling"]);
    assert_eq!(topics(&added, "cheapest hotel near the zorbing park"), ["extreme-sports"]);
}

/// What reads otherwise among `owner`'s words and their examples: a word without a `reads` turn, a
/// `reads` turn where neither the word nor a longer word of the same owner over it is read as
/// `is_it`, a `not` turn where it is, and examples of a word the owner does not have.
fn examples_read_otherwise(
    matcher: &TextMatcher,
    owner: &str,
    words: &[&String],
    examples: &std::collections::BTreeMap<String, sidenote_core::packs::WordExamples>,
    is_it: impl Fn(&TextHit) -> bool + Copy,
) -> Vec<String> {
    let mut wrong = Vec::new();
    for word in words {
        let Some(examples) = examples.get(*word) else {
            wrong.push(format!("{owner} \"{word}\": no examples"));
            continue;
        };
        if examples.reads.is_empty() {
            wrong.push(format!("{owner} \"{word}\": no `reads` turn"));
        }
        for turn in &examples.reads {
            if !reads_there(matcher, turn, word, is_it) {
                wrong.push(format!("{owner} \"{word}\" not read in: {turn}"));
            }
        }
        for turn in &examples.not {
            if reads(matcher, turn, word, is_it) {
                wrong.push(format!("{owner} \"{word}\" read in: {turn}"));
            }
        }
    }
    for word in examples.keys() {
        if !words.contains(&word) {
            wrong.push(format!("{owner} \"{word}\": examples of none of its words"));
        }
    }
    wrong
}

#[test]
fn every_policy_word_reads_as_its_topic() {
    use sidenote_core::packs::sensitive_topic_pack;
    let topics = sensitive_topic_pack();
    let mut aliases: Vec<(&str, TextHit)> = Vec::new();
    for (i, t) in topics.iter().enumerate() {
        let i = i as u32;
        aliases.extend(t.aliases.iter().map(|a| (a.as_str(), TextHit::Sensitive(i))));
        aliases.extend(t.context_aliases.iter().map(|a| (a.as_str(), TextHit::ContextSensitive(i))));
        aliases.extend(t.asked_aliases.iter().map(|a| (a.as_str(), TextHit::AskedSensitive(i))));
        aliases.extend(t.negative_contexts.iter().map(|a| (a.as_str(), TextHit::NotSensitive(i))));
    }
    let matcher = TextMatcher::build(aliases.into_iter()).expect("the pack's words build a matcher");
    let mut wrong = Vec::new();
    for (i, t) in topics.iter().enumerate() {
        let i = i as u32;
        let of_topic = |hit: &TextHit| matches!(hit, TextHit::Sensitive(s) | TextHit::ContextSensitive(s) | TextHit::AskedSensitive(s) if *s == i);
        let words: Vec<&String> = t.aliases.iter().chain(t.context_aliases.iter()).chain(t.asked_aliases.iter()).collect();
        wrong.extend(examples_read_otherwise(&matcher, &t.id, &words, &t.examples, of_topic));
    }
    assert!(wrong.is_empty(), "{} policy words read otherwise:\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn every_place_alias_reads_as_its_place() {
    use sidenote_core::packs::place_pack;
    let places = place_pack();
    let mut aliases: Vec<(&str, TextHit)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, p) in places.iter().enumerate() {
        let i = i as u32;
        assert!(p.id.starts_with("place."), "{}: a place id starts with place.", p.id);
        for a in p.aliases.iter() {
            assert_eq!(&normalize(a), a, "{}: \"{a}\" is not written as the core normalises it", p.id);
            assert!(seen.insert(a.as_str()), "{}: \"{a}\" is another place's alias too", p.id);
        }
        aliases.extend(p.aliases.iter().map(|a| (a.as_str(), TextHit::Entity(i))));
        aliases.extend(p.negative_contexts.iter().map(|a| (a.as_str(), TextHit::NotEntity(i))));
    }
    let matcher = TextMatcher::build(aliases.into_iter()).expect("the pack's places build a matcher");
    let mut wrong = Vec::new();
    for (i, p) in places.iter().enumerate() {
        let i = i as u32;
        let words: Vec<&String> = p.aliases.iter().collect();
        wrong.extend(examples_read_otherwise(&matcher, &p.id, &words, &p.examples, |hit: &TextHit| *hit == TextHit::Entity(i)));
    }
    assert!(wrong.is_empty(), "{} place aliases read otherwise:\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn a_pack_place_keeps_another_citys_offer_from_answering_and_gives_way_to_the_catalogs() {
    use sidenote_core::{IndexDocument, MatchQuery, OfferIndex, OfferKind};
    let index = |entities: serde_json::Value| {
        let doc: IndexDocument = serde_json::from_value(serde_json::json!({
            "taxonomy": {
                "categories": [
                    { "id": "travel", "parent_id": null, "aliases": { "en": ["trip"], "ko": ["여행"] } },
                    { "id": "travel.hotels", "parent_id": "travel", "aliases": { "en": ["hotel"], "ko": ["호텔"] } }
                ],
                "entities": entities
            },
            "offers": [{
                "snapshot_id": "snp_paris", "offer_id": "off.paris", "campaign_id": "cmp", "advertiser_id": "adv", "kind": "sponsored",
                "locale": "en", "category_ids": ["travel.hotels"], "entity_ids": ["place.paris"], "countries": [],
                "campaign_status": "active", "starts_at_ms": null, "ends_at_ms": null, "priority": 5, "bid_micros": 0
            }]
        }))
        .expect("a document");
        OfferIndex::build(&doc).expect("builds")
    };
    let offers = |index: &OfferIndex, message: &str| {
        index
            .find(&MatchQuery { message: Some(message), language: "en", kind: Some(OfferKind::Sponsored), now_ms: 1, top_k: 1, ..Default::default() })
            .candidates
            .into_iter()
            .map(|c| c.offer_id)
            .collect::<Vec<_>>()
    };
    let paris = serde_json::json!({ "id": "place.paris", "kind": "place", "aliases": { "en": ["paris"] }, "category_ids": ["travel"] });
    let bare = index(serde_json::json!([paris]));
    assert_eq!(offers(&bare, "book a hotel in paris for two nights"), ["off.paris"]);
    // Chicago is the pack's: a Paris hotel does not answer a hotel in Chicago.
    assert!(offers(&bare, "book a hotel in chicago for two nights").is_empty());
    // A catalog that has Chicago keeps its own: here Chicago lies within Paris (a catalog may say
    // so), and the Paris offer answers it.
    let own = index(
        serde_json::json!([paris, { "id": "place.chicago", "kind": "place", "aliases": { "en": ["chicago"] }, "category_ids": ["travel"], "within": ["place.paris"] }]),
    );
    assert_eq!(offers(&own, "book a hotel in chicago for two nights"), ["off.paris"]);
}
