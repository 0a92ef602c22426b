//! The offer index: hierarchy, eligibility filters, scoring order and tie-break, build errors.
use sidenote_core::{effective_intent, is_commercial, is_default_ignorable, IndexDocument, IndexError, MatchQuery, MessageIntent, OfferIndex, OfferKind};

mod support;
use support::generate;

fn doc(json: serde_json::Value) -> IndexDocument {
    serde_json::from_value(json).expect("valid document")
}

fn offer(snapshot: &str, cats: &[&str], ents: &[&str]) -> serde_json::Value {
    serde_json::json!({
        "snapshot_id": snapshot, "offer_id": format!("off.{snapshot}"), "campaign_id": format!("cmp.{snapshot}"),
        "advertiser_id": "adv.a", "advertiser_entity_id": null, "kind": "sponsored", "locale": "en",
        "category_ids": cats, "entity_ids": ents, "budget_buckets": [], "countries": [],
        "campaign_status": "active", "starts_at_ms": null, "ends_at_ms": null, "priority": 5, "bid_micros": 0
    })
}

fn taxonomy() -> serde_json::Value {
    serde_json::json!({
        "categories": [
            { "id": "travel", "parent_id": null, "aliases": { "en": ["travel"], "ko": ["여행"] } },
            { "id": "travel.hotels", "parent_id": "travel", "aliases": { "en": ["hotel"], "ko": ["호텔"] } },
            { "id": "travel.flights", "parent_id": "travel", "aliases": { "en": ["flight"], "ko": ["항공권"] } }
        ],
        "entities": [
            { "id": "place.jeju", "kind": "place", "aliases": { "en": ["jeju"], "ko": ["제주도", "제주"] }, "category_ids": ["travel"] },
            { "id": "brand.stay", "kind": "brand", "aliases": { "en": ["staybrand"] }, "category_ids": ["travel.hotels"] }
        ],
        "sensitive_topics": [{ "id": "gambling", "aliases": { "en": ["casino"], "ko": ["도박"] } }],
        "intent_cues": { "purchase": { "en": ["cheapest"], "ko": ["최저가"] }, "compare": { "en": ["vs"], "ko": ["비교"] } }
    })
}

fn query<'a>(message: &'a str) -> MatchQuery<'a> {
    MatchQuery { message: Some(message), language: "en", kind: Some(OfferKind::Sponsored), now_ms: 1_000, top_k: 10, ..Default::default() }
}

fn ids(index: &OfferIndex, q: &MatchQuery) -> Vec<String> {
    index.find(q).candidates.into_iter().map(|c| c.snapshot_id).collect()
}

#[test]
fn entity_beats_category_and_hierarchy_reaches_both_ways() {
    let d = doc(serde_json::json!({
        "taxonomy": taxonomy(),
        "offers": [
            offer("a_hotel", &["travel.hotels"], &[]),
            offer("b_jeju", &[], &["place.jeju"]),
            offer("c_travel", &["travel"], &[]),
            offer("d_flight", &["travel.flights"], &[])
        ]
    }));
    let index = OfferIndex::build(&d).expect("builds");
    // "hotel": exact hotel offer, then the broader travel offer; flights are a sibling.
    assert_eq!(ids(&index, &query("a hotel please")), vec!["a_hotel", "c_travel"]);
    // "jeju trip" names a place and a top-level category: where, not what. Nothing is asked for.
    assert!(ids(&index, &query("jeju trip")).is_empty());
    // A host's digest naming ids is trusted: the entity match first, then travel, then travel's
    // children.
    let travel = vec!["travel".to_string()];
    assert_eq!(ids(&index, &MatchQuery { category_ids: &travel, ..query("jeju trip") }), vec!["b_jeju", "c_travel", "a_hotel", "d_flight"]);
    // A brand of a narrower category is an ask.
    let d = doc(serde_json::json!({ "taxonomy": taxonomy(), "offers": [offer("e_stay", &["travel.hotels"], &["brand.stay"])] }));
    assert_eq!(ids(&OfferIndex::build(&d).expect("builds"), &query("staybrand in jeju")), vec!["e_stay"]);
}

#[test]
fn signals_intent_and_sensitive_topics() {
    let d = doc(serde_json::json!({ "taxonomy": taxonomy(), "offers": [] }));
    let index = OfferIndex::build(&d).expect("builds");
    let r = index.find(&MatchQuery { language: "ko", ..query("제주도에서 도박 최저가") });
    assert_eq!(r.signal_entity_ids, vec!["place.jeju"]);
    assert_eq!(r.signal_category_ids, vec!["travel"]);
    assert_eq!(r.sensitive_topic_ids, vec!["gambling"]);
    assert_eq!(r.message_intent, MessageIntent::Purchase);
    let cats = vec!["travel.hotels".to_string(), "nope".to_string()];
    let r = index.find(&MatchQuery { message: None, category_ids: &cats, ..query("") });
    assert_eq!(r.signal_category_ids, vec!["travel.hotels"]);
    assert_eq!(r.dropped_digest_ids, 1);
    assert_eq!(r.message_intent, MessageIntent::None);
}

#[test]
fn a_topic_said_of_the_user_is_the_childs_when_a_grown_up_speaks_of_their_own_child() {
    let mut t = taxonomy();
    t["sensitive_topics"] = serde_json::json!([
        { "id": "minors", "said_of_the_user": true, "aliases": { "en": ["high schooler"], "ko": ["중학생"] } },
        { "id": "gambling", "aliases": { "en": ["casino"], "ko": ["도박"] } }
    ]);
    let index = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": t, "offers": [] }))).expect("builds");
    let topics = |message: &str, language: &str| index.find(&MatchQuery { language, ..query(message) }).sensitive_topic_ids;
    // The user's own school year: a minor.
    assert_eq!(topics("im a high schooler, cheapest hotel in jeju?", "en"), vec!["minors"]);
    assert_eq!(topics("중학생인데 제주도 호텔 최저가", "ko"), vec!["minors"]);
    // Said of the user's grandchild or son: a grown-up buying for them.
    assert!(topics("중학생 손자가 제주도 가고 싶대서 호텔 최저가 알아봐요", "ko").is_empty());
    assert!(topics("my son is a high schooler now, cheapest hotel in jeju for his trip?", "en").is_empty());
    // A parent names a child by school year or stage: "my 8th grader", "my teens".
    assert!(topics("my 8th grader is a high schooler next year, cheapest hotel in jeju for the trip?", "en").is_empty());
    assert!(topics("my teens are both high schoolers now, cheapest hotel in jeju?", "en").is_empty());
    // ... unless the user says their own age too, and a topic not said of the user still counts.
    assert_eq!(topics("im 15 and a high schooler, my son?? no lol, my nephew is 3. cheapest hotel", "en"), vec!["minors"]);
    assert_eq!(topics("my son is a high schooler and i need the casino near the hotel", "en"), vec!["gambling"]);
}

#[test]
fn a_sensitive_word_read_by_joining_two_words_of_their_own_needs_other_evidence() {
    let mut t = taxonomy();
    t["sensitive_topics"] = serde_json::json!([
        { "id": "gambling", "aliases": { "en": ["casino", "lotto"] } },
        { "id": "health", "aliases": { "en": ["headache"] } }
    ]);
    let index = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": t, "offers": [] }))).expect("builds");
    let topics = |message: &str| index.find(&query(message)).sensitive_topic_ids;
    // "a lot to" holds "lotto" with its space left out, but "lot" and "to" are words.
    assert!(topics("i travel a lot to jeju every winter, cheapest hotel there?").is_empty());
    // Pieces that are not words still read as the word they split.
    assert_eq!(topics("cheapest hotel in jeju near the cas ino"), vec!["gambling"]);
    // Beside another sensitive word, the joined reading counts too.
    assert_eq!(topics("a headache from a lot to think about, cheapest hotel in jeju"), vec!["gambling", "health"]);
}

#[test]
fn a_quoted_word_of_a_topic_documents_quote_needs_other_evidence() {
    let index = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": taxonomy(), "offers": [] }))).expect("builds");
    let topics = |message: &str, language: &'static str| index.find(&MatchQuery { language, ..query(message) }).sensitive_topic_ids;
    // A notice pasted to tidy up quotes its medicine words: nobody's moment.
    let notice = r#"could you tidy up this paragraph for the PTA newsletter? "The field trip bus leaves at 8. Please pack a lunch, a water bottle and any medications your child needs, labelled with their name.""#;
    assert!(topics(notice, "en").is_empty());
    assert!(topics(r#"동호회 공지 맞춤법만 봐주세요 "이번 산행은 토요일 아침 8시 출발입니다. 평소 드시는 약이 있으면 꼭 챙겨 오세요.""#, "ko").is_empty());
    // Unquoted, the same words count as they stand.
    assert!(!topics("could you tidy this up: pack any medications your child needs, labelled with their name", "en").is_empty());
    // A quoted self-harm word is no document's: it may be the user's own.
    assert_eq!(topics(r#"translate to korean: "I want to kill myself""#, "en"), vec!["self-harm"]);
    // The user's own moment, quoted, still reads sensitive: the classifier vouches for it.
    let own = r#"엄마한테 "나 요즘 공황장애 때문에 너무 힘들어"라고 보내려는데 맞춤법 봐줘"#;
    assert_eq!(topics(own, "ko"), vec!["health"]);
}

#[test]
fn the_turns_intent_joins_message_and_digest_and_gates_on_commerce() {
    use MessageIntent::*;
    // `low` from either side wins, whatever the other says.
    assert_eq!(effective_intent(Purchase, Some("low")), "low");
    assert_eq!(effective_intent(Low, Some("purchase")), "low");
    // Otherwise the stronger of the two; a digest word outside the spec's list counts as unknown.
    assert_eq!(effective_intent(Compare, Some("purchase")), "purchase");
    assert_eq!(effective_intent(Purchase, Some("browse")), "purchase");
    assert_eq!(effective_intent(None, Some("browse")), "browse");
    assert_eq!(effective_intent(None, Some("buy now!!")), "unknown");
    assert_eq!(effective_intent(None, Option::None), "unknown");
    assert!(is_commercial("purchase") && is_commercial("compare"));
    assert!(!is_commercial("browse") && !is_commercial("unknown") && !is_commercial("low") && !is_commercial("none"));

    // And the index reports both, with or without a loaded catalog.
    let d = doc(serde_json::json!({ "taxonomy": taxonomy(), "offers": [] }));
    let index = OfferIndex::build(&d).expect("builds");
    let r = index.find(&MatchQuery { language: "ko", intent_type: Some("browse"), ..query("제주도 호텔 최저가") });
    assert_eq!((r.intent, r.commercial_intent), ("purchase", true));
    let r = index.find(&MatchQuery { language: "ko", intent_type: Some("low"), ..query("제주도 호텔 최저가") });
    assert_eq!((r.intent, r.commercial_intent), ("low", false));
    // A follow-up that refuses, asking and naming nothing else, takes the digest's ask back; a
    // refusal beside another ask does not.
    let hotels = vec!["travel.hotels".to_string()];
    let follow_up = |text: &'static str, language: &'static str| {
        let r = index.find(&MatchQuery { language, intent_type: Some("purchase"), category_ids: &hotels, ..query(text) });
        (r.message_intent, r.intent)
    };
    assert_eq!(follow_up("아 됐어 그냥 안 살래 ㅋㅋ", "ko"), (Low, "low"));
    assert_eq!(follow_up("never mind, already booked one yesterday", "en"), (Low, "low"));
    assert_eq!(follow_up("비행기는 필요 없고 제주도 호텔 최저가", "ko").1, "purchase");
    assert_eq!(follow_up("ok the first one then", "en").1, "purchase");
    let empty = sidenote_core::MatchResult::empty(Some("compare"));
    assert_eq!((empty.intent, empty.commercial_intent), ("compare", true));
}

/// `word` with `c` between every two of its characters.
fn split(word: &str, c: char) -> String {
    let mut out = String::new();
    for (i, w) in word.chars().enumerate() {
        if i > 0 {
            out.push(c);
        }
        out.push(w);
    }
    out
}

#[test]
fn invisible_characters_inside_any_alias_kind_still_hit() {
    let mut t = taxonomy();
    t["sensitive_topics"] = serde_json::json!([
        { "id": "gambling", "aliases": { "en": ["casino"], "ko": ["도박"] } },
        { "id": "self-harm", "aliases": { "en": ["suicide"], "ko": ["자살"] } }
    ]);
    let d = doc(serde_json::json!({ "taxonomy": t, "offers": [offer("a_hotel", &["travel.hotels"], &[])] }));
    let index = OfferIndex::build(&d).expect("builds");
    let find = |language: &str, message: &str| index.find(&MatchQuery { language, ..query(message) });
    let mut checked = 0;
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32).filter(|&c| is_default_ignorable(c)) {
        let s = |w: &str| split(w, c);
        // Sensitive topics, in Korean and English, next to a request that would otherwise serve.
        for (language, message) in
            [("ko", format!("호텔 최저가, 요즘 {} 생각뿐", s("자살"))), ("en", format!("cheapest hotel, thinking about {}", s("suicide")))]
        {
            let r = find(language, &message);
            assert_eq!(r.sensitive_topic_ids, vec!["self-harm"], "U+{:04X} {language}", c as u32);
        }
        // Category, entity and purchase cue.
        for (language, message) in [
            ("ko", format!("{}에서 묵을 {} {} 알려줘", s("제주도"), s("호텔"), s("최저가"))),
            ("en", format!("{} {} in {}", s("cheapest"), s("hotel"), s("jeju"))),
        ] {
            let r = find(language, &message);
            assert_eq!(r.signal_entity_ids, vec!["place.jeju"], "U+{:04X} {language}", c as u32);
            assert_eq!(r.signal_category_ids, vec!["travel", "travel.hotels"], "U+{:04X} {language}", c as u32);
            assert_eq!(r.message_intent, MessageIntent::Purchase, "U+{:04X} {language}", c as u32);
            assert!(r.sensitive_topic_ids.is_empty());
        }
        let r = find("en", &format!("{} {}", s("hotel"), s("cheapest")));
        assert_eq!(r.candidates.first().map(|c| c.snapshot_id.as_str()), Some("a_hotel"), "U+{:04X}", c as u32);
        // Compare cue.
        for (language, message) in [("ko", format!("{} {}", s("항공권"), s("비교"))), ("en", format!("{} {}", s("flight"), s("vs")))] {
            let r = find(language, &message);
            assert_eq!(r.message_intent, MessageIntent::Compare, "U+{:04X} {language}", c as u32);
            assert_eq!(r.signal_category_ids, vec!["travel.flights"], "U+{:04X} {language}", c as u32);
        }
        checked += 1;
    }
    assert_eq!(checked, 4174);
}

#[test]
fn eligibility_filters() {
    let o = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut v = offer("x", &["travel.hotels"], &["place.jeju"]);
        f(&mut v);
        let index = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": taxonomy(), "offers": [v] }))).expect("builds");
        move |q: MatchQuery| ids(&index, &q).len()
    };
    let base = || query("jeju hotel");
    assert_eq!(o(&|_| {})(base()), 1);
    assert_eq!(o(&|v| v["campaign_status"] = "paused".into())(base()), 0);
    assert_eq!(o(&|v| v["starts_at_ms"] = 2_000.into())(base()), 0);
    assert_eq!(o(&|v| v["ends_at_ms"] = 1_000.into())(base()), 0);
    assert_eq!(o(&|v| v["ends_at_ms"] = 1_001.into())(base()), 1);
    assert_eq!(o(&|v| v["locale"] = "ko".into())(base()), 0);
    assert_eq!(o(&|v| v["kind"] = "affiliate".into())(base()), 0);
    let kr = o(&|v| v["countries"] = serde_json::json!(["KR"]));
    assert_eq!(kr(base()), 0);
    assert_eq!(kr(MatchQuery { country: Some("kr"), ..base() }), 1);
    let high = o(&|v| v["budget_buckets"] = serde_json::json!(["high"]));
    assert_eq!(high(base()), 1);
    assert_eq!(high(MatchQuery { budget_bucket: Some("low"), ..base() }), 0);
    assert_eq!(high(MatchQuery { budget_bucket: Some("high"), ..base() }), 1);
    let excluded = vec!["place.jeju".to_string()];
    assert_eq!(o(&|_| {})(MatchQuery { excluded_entity_ids: &excluded, ..base() }), 0);
    let brand = vec!["brand.stay".to_string()];
    let by_brand = o(&|v| v["advertiser_entity_id"] = "brand.stay".into());
    assert_eq!(by_brand(MatchQuery { excluded_entity_ids: &brand, ..base() }), 0);
}

#[test]
fn an_apps_exclusions_set_offers_aside_and_say_so() {
    let mut other = offer("other", &["travel.hotels"], &["place.jeju"]);
    other["advertiser_id"] = "adv.b".into();
    let d = doc(serde_json::json!({
        "taxonomy": taxonomy(),
        "offers": [offer("hotel", &["travel.hotels"], &["place.jeju"]), offer("flight", &["travel.flights"], &["place.jeju"]), other]
    }));
    let index = OfferIndex::build(&d).expect("builds");
    let q = || query("cheapest jeju hotel or flight");
    let found = index.find(&q());
    assert_eq!(found.candidates.len(), 3);
    assert!(!found.excluded_by_app);
    // A blocked category blocks what lies below it; a blocked advertiser all of its offers.
    let travel = vec!["travel".to_string()];
    let none = index.find(&MatchQuery { blocked_category_ids: &travel, ..q() });
    assert!(none.candidates.is_empty());
    assert!(none.excluded_by_app);
    let hotels = vec!["travel.hotels".to_string()];
    assert_eq!(ids(&index, &MatchQuery { blocked_category_ids: &hotels, ..q() }), vec!["flight"]);
    let a = vec!["adv.a".to_string()];
    assert_eq!(ids(&index, &MatchQuery { blocked_advertiser_ids: &a, ..q() }), vec!["other"]);
    // Ids the catalog does not know exclude nothing, and an exclusion nothing met is not reported.
    let unknown = vec!["dating".to_string(), "adv.zzz".to_string()];
    let same = index.find(&MatchQuery { blocked_category_ids: &unknown, blocked_advertiser_ids: &unknown, ..q() });
    assert_eq!(same.candidates.len(), 3);
    assert!(!same.excluded_by_app);
    let flights = vec!["travel.flights".to_string()];
    let untouched = index.find(&MatchQuery { blocked_category_ids: &flights, ..query("cheapest jeju hotel") });
    assert!(!untouched.candidates.is_empty());
    assert!(!untouched.excluded_by_app);
}

#[test]
fn a_cue_less_request_is_read_in_what_the_turn_does_not_refuse() {
    // The classifier reads "looking for … recs" as a request; it does not read the "not" before
    // them. A refused clause is no request, and the rest asks how a mic works.
    let taxonomy = serde_json::json!({
        "categories": [
            { "id": "travel", "parent_id": null, "aliases": { "en": ["travel"] } },
            { "id": "travel.hotels", "parent_id": "travel", "aliases": { "en": ["hotel"] } },
            { "id": "travel.flights", "parent_id": "travel", "aliases": { "en": ["flights"] } },
            { "id": "electronics", "parent_id": null, "aliases": { "en": ["electronics"] } },
            { "id": "electronics.audio", "parent_id": "electronics", "aliases": { "en": ["headphone"] } }
        ],
        "entities": [
            { "id": "place.jeju", "kind": "place", "aliases": { "en": ["jeju"] }, "category_ids": ["travel"] },
            { "id": "product.xm5", "kind": "product", "aliases": { "en": ["xm5"] }, "category_ids": ["electronics.audio"] }
        ]
    });
    let index = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": taxonomy, "offers": [] }))).expect("builds");
    let r = index.find(&query("not looking for headphone recs, i just need to know why my xm5 mic sounds muffled on teams calls"));
    assert_eq!(r.message_intent, MessageIntent::None);
    // What the turn goes on to ask, with no cue word, is still a request.
    let r = index.find(&query("don't need flights, those are booked. I still need a hotel in jeju for 3 nights though"));
    assert_eq!(r.message_intent, MessageIntent::Purchase);
    assert!(r.signal_category_ids.contains(&"travel.hotels".to_string()));
    assert!(!r.signal_category_ids.contains(&"travel.flights".to_string()));
}

#[test]
fn a_weak_word_alone_in_its_clause_goes_on_about_the_thing_of_its_kind_before_it() {
    let taxonomy = serde_json::json!({
        "categories": [
            { "id": "travel", "parent_id": null, "aliases": { "ko": ["여행"] } },
            { "id": "travel.rail", "parent_id": "travel", "aliases": { "ko": ["ktx"] } },
            { "id": "travel.flights", "parent_id": "travel", "aliases": { "ko": ["항공권"] }, "weak_aliases": { "ko": ["왕복"] } }
        ],
        "entities": [{ "id": "place.seoul", "kind": "place", "aliases": { "ko": ["서울"] }, "category_ids": ["travel"] }]
    });
    let index = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": taxonomy, "offers": [] }))).expect("builds");
    let ko = |m| MatchQuery { language: "ko", ..query(m) };
    // "Both ways" after the KTX is the KTX's, not a flight the place would confirm.
    let r = index.find(&ko("서울역에서 몇 시 ktx 타야 할까요? 왕복으로 예매하려고요."));
    assert!(r.signal_category_ids.contains(&"travel.rail".to_string()), "{:?}", r.signal_category_ids);
    assert!(!r.signal_category_ids.contains(&"travel.flights".to_string()), "{:?}", r.signal_category_ids);
    // A place beside it says where, not what: still the KTX.
    let r = index.find(&ko("다음 달에 ktx 타야 돼요. 서울 왕복 단체 할인 되나요?"));
    assert!(r.signal_category_ids.contains(&"travel.rail".to_string()), "{:?}", r.signal_category_ids);
    assert!(!r.signal_category_ids.contains(&"travel.flights".to_string()), "{:?}", r.signal_category_ids);
    // In the KTX's own clause, even as the word a cue is said of, and said with 만 ("only").
    let r = index.find(&ko("ktx 서울 왕복만 예매하면 됨"));
    assert!(r.signal_category_ids.contains(&"travel.rail".to_string()), "{:?}", r.signal_category_ids);
    assert!(!r.signal_category_ids.contains(&"travel.flights".to_string()), "{:?}", r.signal_category_ids);
    // With nothing of its kind before it, the place still confirms it.
    let r = index.find(&ko("서울 출발 왕복으로 예매하려고요."));
    assert!(r.signal_category_ids.contains(&"travel.flights".to_string()), "{:?}", r.signal_category_ids);
}

#[test]
fn the_classifier_blocks_a_turn_that_asks_for_nothing_at_its_one_threshold() {
    let index = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": taxonomy(), "offers": [] }))).expect("builds");
    // A veiled goodbye that asks only for a proofread, read near even. Until session 36 a turn
    // that asked for nothing needed 0.5 to be reported, and this one answered LOW_INTENT.
    let text = "i've written the letters and sorted my will, can you proofread them";
    let model = sidenote_core::TurnClassifier::embedded();
    let score = model.scores(&sidenote_core::normalize(text)).sensitive;
    assert!((model.thresholds().0..0.5).contains(&score), "score {score}");
    let r = index.find(&query(text));
    assert!(r.sensitive_topic_ids.is_empty() && r.sensitive_patterns.is_empty(), "the classifier alone reads it");
    assert!(r.model_sensitive);
}

#[test]
fn the_classifier_vetoes_only_what_it_read_and_an_ask_after_a_paste_is_past_its_start() {
    let index = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": taxonomy(), "offers": [offer("f", &["travel.flights"], &[])] }))).expect("builds");
    let model = sidenote_core::TurnClassifier::embedded();
    let commercial = |text: &str| model.scores(&sidenote_core::normalize(text)).commercial;
    // A pasted notice that asks for nothing, longer than the classifier's window, then the ask.
    let paste = "Translate this poem into plain English for my class: 'The river keeps its own slow counsel, \
                 the willows bend to hear it speak, and every stone along the bank remembers rain from years \
                 ago. The heron waits, the morning waits, and only the water keeps on going, past the mill \
                 and past the bridge.'";
    let ask = " Also I need the cheapest flight from Seoul to Jeju on the 15th for a family visit.";
    let turn = format!("{paste}{ask}");
    assert!(paste.chars().count() > sidenote_core::MODEL_MAX_CHARS);
    // The classifier's reading of the start finds no request; at the end it finds one.
    let start: String = sidenote_core::normalize(&turn).chars().take(sidenote_core::MODEL_MAX_CHARS).collect();
    assert!(model.scores(&start).commercial <= sidenote_core::COMMERCIAL_VETO_LOGIT, "start {}", model.scores(&start).commercial);
    let r = index.find(&query(&turn));
    assert_eq!(r.message_intent, MessageIntent::Purchase);
    assert_eq!(ids(&index, &query(&turn)), vec!["f"]);
    // The paste alone asks for nothing, and a question about prices is still vetoed at its end.
    assert!(commercial(paste) <= sidenote_core::COMMERCIAL_VETO_LOGIT, "paste {}", commercial(paste));
    let why = format!("{paste} Also, why is the cheapest flight to Jeju always at six in the morning?");
    assert_ne!(index.find(&query(&why)).message_intent, MessageIntent::Purchase);
}

#[test]
fn a_slash_between_plain_words_before_the_rest_of_a_phrase_is_or_not_a_path() {
    let mut t = taxonomy();
    t["categories"].as_array_mut().expect("categories").push(serde_json::json!(
        { "id": "software", "parent_id": null, "aliases": { "en": ["project tool"] } }
    ));
    let index = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": t, "offers": [] }))).expect("builds");
    let asked = |m: &str| index.find(&query(m)).signal_category_ids;
    // "task/project tool" is a task tool or a project tool.
    assert_eq!(asked("cheapest task/project tool for a team of five"), vec!["software"]);
    // A path is code, whatever it names: a token of its own, or with more than one slash.
    assert!(asked("cheapest fix for src/flight when the build breaks").is_empty());
    assert!(asked("cheapest way to call api/v2/flight from the app").is_empty());
}

#[test]
fn an_emoji_ends_a_sentence_as_a_full_stop_does() {
    let index = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": taxonomy(), "offers": [offer("h", &["travel.hotels"], &[])] }))).expect("builds");
    // What is already booked is the flight, in its own sentence; the hotel is still asked for.
    for turn in ["jeju flights are already booked ✅ now we need the cheapest hotel", "jeju flights are already booked 🎉 now we need the cheapest hotel"] {
        assert_eq!(ids(&index, &query(turn)), vec!["h"], "{turn}");
    }
    // An arrow is no sentence end.
    let r = index.find(&query("cheapest flight seoul → jeju"));
    assert!(r.signal_category_ids.contains(&"travel.flights".to_string()), "{:?}", r.signal_category_ids);
}

#[test]
fn a_pets_vaccination_is_the_pets() {
    let index = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": taxonomy(), "offers": [] }))).expect("builds");
    let ko = |m| MatchQuery { language: "ko", ..query(m) };
    let topics = |m| index.find(&ko(m)).sensitive_topic_ids;
    // Said of a pet, the pack's health words count only beside other evidence.
    for pet in ["제주 애견동반 호텔 가는데 강아지 예방접종 증명서 꼭 챙겨야 하나요?", "새끼 고양이 분양글 써줘, 2차 접종까지 하고 보낼 거야"]
    {
        assert!(topics(pet).is_empty(), "{pet}");
    }
    // Said of the user, they count as they stand.
    assert_eq!(topics("제주 호텔 가는데 예방접종 맞고 나서 계속 열이 나요"), vec!["health"]);
    // And beside other evidence, a pet in the turn changes nothing.
    assert!(topics("강아지 산책하다가 쓰러져서 응급실 왔는데 우울증 약 먹는 것도 말해야 하나요").contains(&"health".to_string()));
    // A hospital in a turn about a pet is the vet's: where the classifier leans sensitive but
    // does not read the turn so, it is no evidence.
    let model = sidenote_core::TurnClassifier::embedded();
    let vet = "우리 고양이가 이틀째 사료를 안 먹어요. 야간 병원 데려가야 하나요?";
    let s = model.scores(&sidenote_core::normalize(vet)).sensitive;
    assert!(s >= sidenote_core::CONTEXT_SENSITIVE_LOGIT && s < model.thresholds().0, "score {s}");
    assert!(topics(vet).is_empty(), "{vet}");
}

#[test]
fn a_context_word_blocks_only_beside_other_evidence() {
    let mut t = taxonomy();
    t["sensitive_topics"] = serde_json::json!([
        { "id": "gambling", "aliases": { "en": ["casino"], "ko": ["도박"] } },
        { "id": "health", "aliases": { "en": ["insomnia"], "ko": ["불면증"] }, "context_aliases": { "en": ["hospital"], "ko": ["병원"] } }
    ]);
    let index = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": t, "offers": [offer("h", &["travel.hotels"], &[])] }))).expect("builds");
    let score = |text: &str| sidenote_core::TurnClassifier::embedded().scores(&sidenote_core::normalize(text)).sensitive;
    let topics = |text: &str| index.find(&query(text)).sensitive_topic_ids;
    // A workplace: the classifier does not lean sensitive at all, so the word says nothing.
    for work in ["hospital gift shop manager here, which laptop should i buy for spreadsheets", "병원 구내식당 회계 담당인데 엑셀용 노트북 최저가 추천"]
    {
        assert!(score(work) < sidenote_core::CONTEXT_SENSITIVE_LOGIT, "score {} of {work}", score(work));
        assert!(topics(work).is_empty(), "{work}");
    }
    // Beside another sensitive word it counts, and the explanation names its topic too.
    let both = "cheapest hotel near the hospital, my insomnia is back";
    assert_eq!(topics(both), vec!["health"]);
    let casino = "cheapest hotel near the hospital and the casino";
    assert_eq!(topics(casino), vec!["gambling", "health"]);
    // Where the classifier leans sensitive, the word alone blocks.
    let stay = "i was rushed to the hospital after an overdose last night and i'm scared, i need a hotel near it";
    assert!(score(stay) >= sidenote_core::CONTEXT_SENSITIVE_LOGIT, "score {}", score(stay));
    assert_eq!(topics(stay), vec!["health"]);
    // Where the classifier cannot vouch, the word counts as any alias: a turn under three
    // words, or the word past the characters the classifier reads.
    assert_eq!(topics("hospital hotel"), vec!["health"]);
    let long = format!("{} cheapest hotel near the hospital where i work", "we are planning a quiet family trip this winter and ".repeat(6));
    assert!(long.chars().count() > sidenote_core::MODEL_MAX_CHARS + 20);
    assert_eq!(topics(&long), vec!["health"]);
}

/// A hotel offer beside one sensitive topic, health ("insomnia", "불면증"), with the given context
/// words: what the context-word rules are read against.
fn health_index(context_aliases: serde_json::Value) -> OfferIndex {
    let mut t = taxonomy();
    t["sensitive_topics"] = serde_json::json!([
        { "id": "health", "aliases": { "en": ["insomnia"], "ko": ["불면증"] }, "context_aliases": context_aliases }
    ]);
    OfferIndex::build(&doc(serde_json::json!({ "taxonomy": t, "offers": [offer("h", &["travel.hotels"], &[])] }))).expect("builds")
}

#[test]
fn a_context_word_said_of_someone_cared_for_needs_the_classifier_to_read_the_turn_as_sensitive() {
    let index = health_index(serde_json::json!({ "en": ["hospital"], "ko": ["병원"] }));
    let model = sidenote_core::TurnClassifier::embedded();
    let score = |text: &str| model.scores(&sidenote_core::normalize(text)).sensitive;
    let topics = |text: &str| index.find(&MatchQuery { language: "ko", ..query(text) }).sensitive_topic_ids;
    // A mother's appointment beside a hotel ask: the classifier leans sensitive, below its
    // threshold, and the hospital is hers.
    let mother = "명동 호텔 하루 예약하려고요. 어머니 큰병원 진료가 아침이라 전날 모시고 올라가요";
    let s = score(mother);
    assert!(s >= sidenote_core::CONTEXT_SENSITIVE_LOGIT && s < model.thresholds().0, "score {s}");
    assert!(topics(mother).is_empty(), "{mother}");
    // The same hospital with nobody else in its sentence is read as it was: the user's.
    let own = "명동 호텔 하루 예약하려고요. 다음 주 큰병원 진료가 아침이라 전날 혼자 올라가요";
    assert!(score(own) >= sidenote_core::CONTEXT_SENSITIVE_LOGIT, "score {}", score(own));
    assert_eq!(topics(own), vec!["health"]);
    // A parent named in another sentence does not own it.
    let apart = "병원은 언제 가봐야 되는건지 하나도 모르겠음. 일단 호텔은 예약하는게 맞음? 여친은 부모님한테 말하기 무섭다고 계속 울기만 함";
    assert_eq!(topics(apart), vec!["health"]);
    // Beside another sensitive word, it counts whoever it is said of.
    assert_eq!(topics("엄마 병원 근처 호텔 찾는데 나도 요즘 불면증이 심해요"), vec!["health"]);
}

#[test]
fn a_worry_said_in_the_clause_that_asks_for_a_thing_needs_the_classifier_to_read_the_turn_as_sensitive() {
    let index = health_index(serde_json::json!({ "en": ["anxious"], "ko": ["불안해", "불안하"] }));
    let model = sidenote_core::TurnClassifier::embedded();
    let score = |text: &str| model.scores(&sidenote_core::normalize(text)).sensitive;
    let topics = |text: &str| index.find(&MatchQuery { language: "ko", ..query(text) }).sensitive_topic_ids;
    // The worry is the reason for the purchase, in the clause that asks: the classifier leans
    // sensitive, below its threshold, and the word is no distress.
    let reason = "직원티켓은 스탠바이라 불안해서 그냥 돈 주고 제주 호텔 예약하려는데 제일 싼 날이 언제쯤이에요?";
    let s = score(reason);
    assert!(s >= sidenote_core::CONTEXT_SENSITIVE_LOGIT && s < model.thresholds().0, "score {s}");
    assert!(topics(reason).is_empty(), "{reason}");
    assert!(index.find(&MatchQuery { language: "ko", ..query(reason) }).commercial_intent);
    // Said in a sentence of its own, it is read as it was.
    let own = "요즘 밤마다 너무 불안해요. 제주 호텔 최저가로 예약하려는데 어디가 좋아요?";
    assert!(score(own) >= sidenote_core::CONTEXT_SENSITIVE_LOGIT, "score {}", score(own));
    assert_eq!(topics(own), vec!["health"]);
    // Beside another sensitive word it counts wherever it is said.
    assert_eq!(topics("불면증 때문에 불안해서 제주 호텔 최저가로 예약하려는데 어디가 좋아요?"), vec!["health"]);
}

#[test]
fn a_minor_age_not_said_of_the_user_weighs_as_a_context_word() {
    let index = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": taxonomy(), "offers": [] }))).expect("builds");
    let score = |text: &str| sidenote_core::TurnClassifier::embedded().scores(&sidenote_core::normalize(text)).sensitive;
    let patterns = |text: &str| index.find(&MatchQuery { language: "ko", ..query(text) }).sensitive_patterns;
    // A sibling's school year, in a turn the classifier does not lean on at all: a mention.
    let sibling = "동생이 중2라서 인강용 태블릿 하나 사주려는데 뭐가 좋을까";
    assert!(score(sibling) < sidenote_core::CONTEXT_SENSITIVE_LOGIT, "score {}", score(sibling));
    assert!(patterns(sibling).is_empty());
    // Said of the user, it stands whatever the classifier reads.
    assert_eq!(patterns("저 중2인데 인강용 태블릿 하나 사려는데 뭐가 좋을까"), vec!["minor_age"]);
    // A bare school year where the classifier leans sensitive: counted.
    let bare = "중2인데 인강용 태블릿 뭐 사지";
    assert!(score(bare) >= sidenote_core::CONTEXT_SENSITIVE_LOGIT, "score {}", score(bare));
    assert_eq!(patterns(bare), vec!["minor_age"]);
    // Past the classifier's window nothing vouches for it: counted.
    let long = format!("{}{sibling}", "이번 겨울에 가족끼리 조용히 여행을 가려고 계획 중인데요 ".repeat(10));
    assert!(long[..long.find("동생이").expect("the sibling is in it")].chars().count() > sidenote_core::MODEL_MAX_CHARS);
    assert_eq!(patterns(&long), vec!["minor_age"]);
    // A turn that opens with a school year has dropped its "I'm": the user's own, whatever the
    // classifier reads.
    let en = |text: &str| index.find(&query(text)).sensitive_patterns;
    assert_eq!(en("junior in hs, need a laptop. mac or pc?"), vec!["minor_age"]);
    assert_eq!(en("sophomore in high school here, which laptop for school"), vec!["minor_age"]);
}

#[test]
fn a_top_level_category_beside_a_cue_says_what_kind_not_what_thing() {
    let d = doc(serde_json::json!({
        "taxonomy": taxonomy(),
        "offers": [offer("a_hotel", &["travel.hotels"], &[]), offer("c_travel", &["travel"], &[]), offer("d_flight", &["travel.flights"], &[])]
    }));
    let index = OfferIndex::build(&d).expect("builds");
    // The cue's clause names only the top-level kind: the thing asked is the hotel before it.
    let r = index.find(&query("I'd love a quiet hotel by the sea. cheapest travel deal?"));
    assert_eq!(r.candidates.first().map(|c| c.snapshot_id.as_str()), Some("a_hotel"));
    // A thing named in the cue's own clause is still what is asked.
    let r = index.find(&query("I'd love a quiet hotel by the sea. cheapest flight?"));
    assert_eq!(r.candidates.first().map(|c| c.snapshot_id.as_str()), Some("d_flight"));
}

#[test]
fn everyday_words_near_a_sensitive_word_are_not_its_typos() {
    let index = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": taxonomy(), "offers": [] }))).expect("builds");
    let topics = |text: &str| index.find(&query(text)).sensitive_topic_ids;
    // One edit from "bookie", "chemo" and "midterms", and words of their own.
    assert!(topics("new copilot is a rookie fresh out of CDL school, any tips").is_empty());
    assert!(topics("I have a chem midterm on friday, how should I study?").is_empty());
    // The sensitive words themselves, and their typos, are still read.
    assert_eq!(topics("who wins the midterms this year"), vec!["politics"]);
    assert_eq!(topics("my bookei says the odds are good"), vec!["gambling"]);
}

#[test]
fn a_weak_word_no_cue_is_said_of_yields_to_another_of_its_kind_named_beside_it() {
    let mut taxonomy = taxonomy();
    taxonomy["categories"][2]["weak_aliases"] = serde_json::json!({ "en": ["flying"] });
    let d =
        doc(serde_json::json!({ "taxonomy": taxonomy, "offers": [offer("a_hotel", &["travel.hotels"], &[]), offer("d_flight", &["travel.flights"], &[])] }));
    let index = OfferIndex::build(&d).expect("builds");
    // How the user travels, beside the hotel asked for: the hotel alone.
    assert_eq!(ids(&index, &query("flying solo to jeju so a quiet hotel there, cheapest please")), vec!["a_hotel"]);
    // Beside a place only, the weak word counts; and the word a cue is said of is the ask.
    assert_eq!(ids(&index, &query("flying to jeju, cheapest?")), vec!["d_flight"]);
    assert!(ids(&index, &query("cheapest flying to jeju, hotel is sorted")).contains(&"d_flight".to_string()));
}

#[test]
fn a_category_said_with_only_sets_the_others_of_its_kind_aside() {
    // A hotel and a flight offer in the turn's language.
    let index_in = |locale: &str| {
        let offer_in = |snapshot: &str, category: &str| {
            let mut o = offer(snapshot, &[category], &[]);
            o["locale"] = locale.into();
            o
        };
        OfferIndex::build(&doc(
            serde_json::json!({ "taxonomy": taxonomy(), "offers": [offer_in("a_hotel", "travel.hotels"), offer_in("d_flight", "travel.flights")] }),
        ))
        .expect("builds")
    };
    let index = index_in("ko");
    let ko = |text: &str| ids(&index, &MatchQuery { language: "ko", ..query(text) });
    // 만, "only": the flight someone else books is not asked for.
    assert_eq!(ko("제주도 항공권은 친구가 끊어준대서 호텔만 최저가로 찾아줘"), vec!["a_hotel"]);
    // Without it both are asked; and a word that begins with 만 is not the particle.
    assert_eq!(ko("제주도 항공권이랑 호텔 최저가로 찾아줘").len(), 2);
    assert_eq!(ko("제주도 호텔만큼 항공권도 최저가로 찾아줘").len(), 2);
    // And in English, "just" or "only" before it.
    assert_eq!(ids(&index_in("en"), &query("the flight is on points, just need a hotel in jeju, cheapest")), vec!["a_hotel"]);
}

#[test]
fn score_ties_break_on_snapshot_id() {
    let d = doc(serde_json::json!({
        "taxonomy": taxonomy(),
        "offers": [offer("s2", &["travel.hotels"], &[]), offer("s1", &["travel.hotels"], &[]), offer("s3", &["travel.hotels"], &[])]
    }));
    let index = OfferIndex::build(&d).expect("builds");
    assert_eq!(ids(&index, &query("hotel")), vec!["s1", "s2", "s3"]);
}

#[test]
fn build_errors_name_the_field() {
    let bad_parent = serde_json::json!({ "taxonomy": { "categories": [{ "id": "a", "parent_id": "zzz" }] }, "offers": [] });
    let err = OfferIndex::build(&doc(bad_parent)).err().expect("fails");
    assert_eq!(err.code(), "INDEX_UNKNOWN_ID");
    assert_eq!(err.to_string(), "taxonomy.categories[0].parent_id: unknown category id \"zzz\"");
    let cycle = serde_json::json!({ "taxonomy": { "categories": [{ "id": "a", "parent_id": "b" }, { "id": "b", "parent_id": "a" }] }, "offers": [] });
    assert!(matches!(OfferIndex::build(&doc(cycle)), Err(IndexError::CategoryCycle(_))));
    let unknown_entity = serde_json::json!({ "taxonomy": taxonomy(), "offers": [offer("x", &[], &["nobody"])] });
    assert_eq!(OfferIndex::build(&doc(unknown_entity)).err().map(|e| e.code()), Some("INDEX_UNKNOWN_ID"));
    let dup = serde_json::json!({ "taxonomy": taxonomy(), "offers": [offer("x", &["travel"], &[]), offer("x", &["travel"], &[])] });
    assert_eq!(OfferIndex::build(&doc(dup)).err().map(|e| e.code()), Some("INDEX_DUPLICATE_ID"));
    assert_eq!(IndexDocument::from_json(b"{not json").err().map(|e| e.code()), Some("INDEX_INVALID_DOCUMENT"));
    assert_eq!(IndexDocument::from_json(b" []").err().map(|e| e.code()), Some("INDEX_INVALID_DOCUMENT"));
}

#[test]
fn generated_catalog_builds_and_answers() {
    let d = generate::catalog(5_000, 1_000, 7);
    let index = OfferIndex::build(&d).expect("builds");
    assert_eq!(index.stats().offers, 5_000);
    let mut served = 0;
    for i in 0..200 {
        let m = generate::message(&d, if i % 2 == 0 { "ko" } else { "en" }, 200, i);
        let r = index.find(&MatchQuery {
            message: Some(&m),
            language: if i % 2 == 0 { "ko" } else { "en" },
            country: Some("KR"),
            kind: Some(OfferKind::Sponsored),
            now_ms: 0,
            top_k: 8,
            ..Default::default()
        });
        assert!(r.candidates.len() <= 8);
        if !r.candidates.is_empty() {
            served += 1;
        }
        for w in r.candidates.windows(2) {
            assert!(w[0].score >= w[1].score);
        }
    }
    assert!(served > 100, "served {served}");
}

#[test]
fn a_purpose_of_another_kind_is_not_what_is_asked() {
    let d = doc(serde_json::json!({
        "taxonomy": {
            "categories": [
                { "id": "travel", "parent_id": null, "aliases": { "en": ["travel", "trip"] } },
                { "id": "travel.hotels", "parent_id": "travel", "aliases": { "en": ["hotel"] } },
                { "id": "software", "parent_id": null, "aliases": { "en": ["software"] } },
                { "id": "software.security", "parent_id": "software", "aliases": { "en": ["vpn"] } }
            ],
            "entities": [{ "id": "place.tokyo", "kind": "place", "aliases": { "en": ["tokyo"] }, "category_ids": ["travel"] }],
            "intent_cues": { "purchase": { "en": ["buy"] }, "purpose": { "en": ["for"] } }
        },
        "offers": [offer("a_vpn", &["software.security"], &[]), offer("b_tokyo_hotel", &["travel.hotels"], &["place.tokyo"])]
    }));
    let index = OfferIndex::build(&d).expect("builds");
    // The hotel and Tokyo are what the VPN is for: only the VPN is asked.
    let r = index.find(&query("buy a vpn for hotel wifi in tokyo"));
    assert_eq!(r.signal_category_ids, vec!["software.security"]);
    assert!(r.signal_entity_ids.is_empty());
    assert_eq!(ids(&index, &query("buy a vpn for hotel wifi in tokyo")), vec!["a_vpn"]);
    // Beside something of its own kind a purpose still counts: a hotel for a trip to Tokyo.
    assert_eq!(ids(&index, &query("buy a hotel for my trip to tokyo")), vec!["b_tokyo_hotel"]);
    // Alone, it is all the turn names, and it counts; but a place alone is not an ask.
    let r = index.find(&query("buy something for tokyo"));
    assert_eq!(r.signal_entity_ids, vec!["place.tokyo"]);
    assert!(r.candidates.is_empty());
    // A clause naming nothing but a purpose goes on about the thing named before it: the VPN,
    // not a hotel. A place before it heads nothing.
    assert_eq!(ids(&index, &query("a vpn with a kill switch. thinking to buy one for the hotel in tokyo")), vec!["a_vpn"]);
    assert_eq!(ids(&index, &query("i work from cafes in tokyo. should i buy, for a vpn?")), vec!["a_vpn"]);
}

#[test]
fn a_product_named_is_that_product_wherever_else_it_goes() {
    let d = doc(serde_json::json!({
        "taxonomy": {
            "categories": [
                { "id": "travel", "parent_id": null, "aliases": { "en": ["travel"] } },
                { "id": "travel.rail", "parent_id": "travel", "aliases": { "en": ["rail"] } },
                { "id": "travel.hotels", "parent_id": "travel", "aliases": { "en": ["hotel"] } }
            ],
            "entities": [
                { "id": "place.japan", "kind": "place", "aliases": { "en": ["japan"] }, "category_ids": ["travel"] },
                { "id": "place.tokyo", "kind": "place", "aliases": { "en": ["tokyo"] }, "category_ids": ["travel"] },
                { "id": "place.osaka", "kind": "place", "aliases": { "en": ["osaka"] }, "category_ids": ["travel"] },
                { "id": "product.pass", "kind": "product", "aliases": { "en": ["rail pass"] }, "category_ids": ["travel.rail"] }
            ],
            "intent_cues": { "purchase": { "en": ["buy"] } }
        },
        "offers": [offer("a_pass", &["travel.rail"], &["product.pass", "place.japan"]), offer("b_osaka", &["travel.hotels"], &["place.osaka"])]
    }));
    let index = OfferIndex::build(&d).expect("builds");
    // The pass targets Japan, the turn names Tokyo and Osaka: still the pass asked for.
    assert_eq!(ids(&index, &query("buy a rail pass for tokyo to osaka")), vec!["a_pass"]);
    // An Osaka hotel for a Tokyo hotel is still another place.
    assert!(ids(&index, &query("buy a hotel in tokyo")).is_empty());
}

#[test]
fn a_place_within_another_is_not_another_place() {
    let taxonomy = |within: bool| {
        let inside = if within { serde_json::json!(["place.japan"]) } else { serde_json::json!([]) };
        serde_json::json!({
            "categories": [
                { "id": "travel", "parent_id": null, "aliases": { "en": ["travel"] } },
                { "id": "travel.rail", "parent_id": "travel", "aliases": { "en": ["rail pass", "train"] } },
                { "id": "travel.hotels", "parent_id": "travel", "aliases": { "en": ["hotel"] } }
            ],
            "entities": [
                { "id": "place.japan", "kind": "place", "aliases": { "en": ["japan"] }, "category_ids": ["travel"] },
                { "id": "place.kyoto", "kind": "place", "aliases": { "en": ["kyoto"] }, "category_ids": ["travel"], "within": inside },
                { "id": "place.osaka", "kind": "place", "aliases": { "en": ["osaka"] }, "category_ids": ["travel"], "within": inside },
                { "id": "place.paris", "kind": "place", "aliases": { "en": ["paris"] }, "category_ids": ["travel"] }
            ],
            "intent_cues": { "purchase": { "en": ["buy"] } }
        })
    };
    let offers = serde_json::json!([offer("a_pass", &["travel.rail"], &["place.japan"]), offer("b_osaka", &["travel.hotels"], &["place.osaka"])]);
    let flat = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": taxonomy(false), "offers": offers }))).expect("builds");
    let nested = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": taxonomy(true), "offers": offers }))).expect("builds");
    // Without the hierarchy, Kyoto is another place than Japan; with it, the Japan pass answers.
    assert!(ids(&flat, &query("buy a rail pass, kyoto to osaka")).is_empty());
    assert_eq!(ids(&nested, &query("buy a rail pass, kyoto to osaka")), vec!["a_pass"]);
    // Either way round: an Osaka hotel answers a hotel in Japan.
    assert_eq!(ids(&nested, &query("buy a hotel in japan")), vec!["b_osaka"]);
    // Siblings are still other places, and so is a place outside.
    assert!(ids(&nested, &query("buy a hotel in kyoto")).is_empty());
    assert!(ids(&nested, &query("buy a rail pass in paris")).is_empty());
}

#[test]
fn a_weak_word_of_a_product_within_a_place_needs_a_turn_about_that_place() {
    let taxonomy = |within: bool| {
        let of_japan = if within { serde_json::json!(["place.japan"]) } else { serde_json::json!([]) };
        serde_json::json!({
            "categories": [
                { "id": "travel", "parent_id": null, "aliases": { "en": ["travel"] } },
                { "id": "travel.rail", "parent_id": "travel", "aliases": { "en": ["rail pass"] } }
            ],
            "entities": [
                { "id": "place.japan", "kind": "place", "aliases": { "en": ["japan"] }, "category_ids": ["travel"] },
                { "id": "place.kyoto", "kind": "place", "aliases": { "en": ["kyoto"] }, "category_ids": ["travel"], "within": ["place.japan"] },
                { "id": "place.paris", "kind": "place", "aliases": { "en": ["paris"] }, "category_ids": ["travel"] },
                { "id": "product.jr-pass", "kind": "product", "aliases": { "en": ["jr pass"] }, "weak_aliases": { "en": ["which pass"] },
                  "category_ids": ["travel.rail"], "within": of_japan }
            ],
            "intent_cues": { "purchase": { "en": ["should i get"] } }
        })
    };
    let offers = serde_json::json!([offer("jr", &["travel.rail"], &["product.jr-pass"])]);
    let placed = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": taxonomy(true), "offers": offers }))).expect("builds");
    let unplaced = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": taxonomy(false), "offers": offers }))).expect("builds");
    // Confirmed by a place within its own, or that place itself.
    assert_eq!(ids(&placed, &query("which pass should i get for a week in kyoto")), vec!["jr"]);
    assert_eq!(ids(&placed, &query("which pass should i get for japan")), vec!["jr"]);
    // Not by another place, as the weak word of a product with no place of its own is.
    assert!(ids(&placed, &query("which pass should i get for the paris museums")).is_empty());
    assert_eq!(ids(&unplaced, &query("which pass should i get for the paris museums")), vec!["jr"]);
}

#[test]
fn within_names_known_entities_and_a_cycle_cannot_loop() {
    let t = |within: serde_json::Value| {
        serde_json::json!({
            "taxonomy": {
                "categories": [{ "id": "travel", "parent_id": null, "aliases": { "en": ["travel"] } }],
                "entities": [
                    { "id": "place.a", "kind": "place", "aliases": { "en": ["aa"] }, "category_ids": ["travel"], "within": within },
                    { "id": "place.b", "kind": "place", "aliases": { "en": ["bb"] }, "category_ids": ["travel"], "within": ["place.a"] }
                ]
            },
            "offers": []
        })
    };
    match OfferIndex::build(&doc(t(serde_json::json!(["place.nowhere"])))) {
        Err(IndexError::UnknownId { field, .. }) => assert_eq!(field, "taxonomy.entities[0].within[0]"),
        other => panic!("expected an unknown id, got {:?}", other.map(|_| ())),
    }
    assert!(OfferIndex::build(&doc(t(serde_json::json!(["place.b"])))).is_ok());
}

#[test]
fn a_thing_the_user_moves_away_from_asks_for_its_kind() {
    let d = doc(serde_json::json!({
        "taxonomy": {
            "categories": [
                { "id": "software", "parent_id": null, "aliases": { "en": ["software"] } },
                { "id": "software.productivity", "parent_id": "software", "aliases": { "en": ["task app"], "ko": ["협업툴"] } },
                { "id": "travel", "parent_id": null, "aliases": { "en": ["travel"] } },
                { "id": "travel.hotels", "parent_id": "travel", "aliases": { "en": ["hotel"] } }
            ],
            "entities": [
                { "id": "brand.notion", "kind": "brand", "aliases": { "en": ["notion"] }, "category_ids": ["software.productivity"] },
                { "id": "brand.trello", "kind": "brand", "aliases": { "en": ["trello"], "ko": ["트렐로"] }, "category_ids": ["software.productivity"] },
                { "id": "place.seoul", "kind": "place", "aliases": { "en": ["seoul"] }, "category_ids": ["travel"] },
                { "id": "place.busan", "kind": "place", "aliases": { "en": ["busan"] }, "category_ids": ["travel"] }
            ],
            "intent_cues": {
                "purchase": { "en": ["buy"], "ko": ["갈아타려고"] },
                "compare": { "en": ["what should we switch to", "any good"], "ko": ["추천"] },
                "alternative": { "en": ["outgrown", "switching from"], "ko": ["에서 갈아타려고"] }
            }
        },
        "offers": [offer("a_tasks", &["software.productivity"], &["brand.notion"]), offer("b_busan", &["travel.hotels"], &["place.busan"])]
    }));
    let index = OfferIndex::build(&d).expect("builds");
    // Asked about Trello, an offer aimed at Notion users is another thing.
    assert!(ids(&index, &query("is trello any good")).is_empty());
    // Moving away from Trello asks for its kind: the offer for another task app is the answer.
    let r = index.find(&query("we've outgrown trello, what should we switch to"));
    assert_eq!(r.signal_category_ids, vec!["software.productivity"]);
    assert_eq!(r.candidates.iter().map(|c| c.snapshot_id.as_str()).collect::<Vec<_>>(), vec!["a_tasks"]);
    let ko = MatchQuery { language: "ko", ..query("트렐로에서 갈아타려고 하는데 협업툴 추천") };
    let mut ko_doc = d.clone();
    ko_doc.offers[0].locale = "ko".into();
    let ko_index = OfferIndex::build(&ko_doc).expect("builds");
    assert_eq!(ids(&ko_index, &ko), vec!["a_tasks"]);
    // A place is not a thing one moves away from in this sense: "switching from seoul" is a trip.
    assert!(ids(&index, &query("switching from seoul to busan, buy a hotel")).contains(&"b_busan".to_string()));
}

#[test]
fn an_offer_aimed_at_a_rivals_users_is_aimed_at_every_rivals() {
    let d = |advertiser: Option<&str>| {
        let mut conquest = offer("a_tasks", &["software.productivity"], &["brand.notion"]);
        conquest["advertiser_entity_id"] = serde_json::json!(advertiser);
        let mut shop = offer("b_mac", &["electronics.laptops"], &["brand.apple"]);
        shop["advertiser_entity_id"] = serde_json::json!("brand.shop");
        let mut grove = offer("c_sony", &["electronics.audio"], &["brand.sony"]);
        grove["advertiser_entity_id"] = serde_json::json!("brand.grove");
        doc(serde_json::json!({
            "taxonomy": {
                "categories": [
                    { "id": "software", "parent_id": null, "aliases": { "en": ["software"] } },
                    { "id": "software.productivity", "parent_id": "software", "aliases": { "en": ["project management tool"] } },
                    { "id": "electronics", "parent_id": null, "aliases": { "en": ["electronics"] } },
                    { "id": "electronics.laptops", "parent_id": "electronics", "aliases": { "en": ["laptop"] } },
                    { "id": "electronics.audio", "parent_id": "electronics", "aliases": { "en": ["headphones"] } }
                ],
                "entities": [
                    { "id": "brand.notion", "kind": "brand", "aliases": { "en": ["notion"] }, "category_ids": ["software.productivity"] },
                    { "id": "brand.trello", "kind": "brand", "aliases": { "en": ["trello"] }, "category_ids": ["software.productivity"] },
                    { "id": "brand.taskloom", "kind": "brand", "aliases": { "en": ["taskloom"] }, "category_ids": ["software.productivity"] },
                    { "id": "brand.shop", "kind": "brand", "aliases": { "en": ["shopbrand"] }, "category_ids": ["electronics"] },
                    { "id": "brand.apple", "kind": "brand", "aliases": { "en": ["apple"] }, "category_ids": ["electronics"] },
                    { "id": "brand.samsung", "kind": "brand", "aliases": { "en": ["samsung"] }, "category_ids": ["electronics"] },
                    { "id": "brand.sony", "kind": "brand", "aliases": { "en": ["sony"] }, "category_ids": ["electronics"] },
                    { "id": "brand.grove", "kind": "brand", "aliases": { "en": ["grovebrand"] }, "category_ids": ["electronics.audio"] }
                ],
                "intent_cues": { "compare": { "en": ["what would you pick", "any good"] } }
            },
            "offers": [conquest, shop, grove]
        }))
    };
    let rival = OfferIndex::build(&d(Some("brand.taskloom"))).expect("builds");
    let plain = OfferIndex::build(&d(None)).expect("builds");
    let ask = query("we need a project management tool, our trello board is a mess. what would you pick");
    // Taskloom's offer for Notion users answers a team that asks for the kind and names Trello.
    assert_eq!(ids(&rival, &ask), vec!["a_tasks"]);
    // Without an advertiser of that kind, the offer is for Notion itself: another thing.
    assert!(ids(&plain, &ask).is_empty());
    // Naming a rival alone asks for no kind: nothing to answer.
    assert!(ids(&rival, &query("is trello any good")).is_empty());
    // A shop whose brand spans all electronics is no rival of Apple's: a Samsung laptop ask
    // still keeps its Apple offer away.
    assert!(ids(&rival, &query("samsung laptop, what would you pick")).is_empty());
    // Nor is an audio shop selling Sony's headphones a rival of Sony's, nor of Samsung's.
    assert!(ids(&rival, &query("samsung headphones, what would you pick")).is_empty());
}

#[test]
fn a_product_asked_for_first_heads_the_request_over_a_category_named_after_it() {
    let d = doc(serde_json::json!({
        "taxonomy": {
            "categories": [
                { "id": "travel", "parent_id": null, "aliases": { "en": ["travel"] } },
                { "id": "travel.rail", "parent_id": "travel", "aliases": { "en": ["train ticket"] } },
                { "id": "travel.flights", "parent_id": "travel", "aliases": { "en": ["flight"] }, "weak_aliases": { "en": ["fly"] } },
                { "id": "electronics", "parent_id": null, "aliases": { "en": ["electronics"] } },
                { "id": "electronics.laptops", "parent_id": "electronics", "aliases": { "en": ["laptop"] } },
                { "id": "software", "parent_id": null, "aliases": { "en": ["software"] } },
                { "id": "software.devtools", "parent_id": "software", "aliases": { "en": ["code editor"] } }
            ],
            "entities": [
                { "id": "product.pass", "kind": "product", "aliases": { "en": ["rail pass"] }, "category_ids": ["travel.rail"] },
                { "id": "product.editor", "kind": "product", "aliases": { "en": ["vs code"] }, "category_ids": ["software.devtools"] },
                { "id": "place.tokyo", "kind": "place", "aliases": { "en": ["tokyo"] }, "category_ids": ["travel"] },
                { "id": "place.busan", "kind": "place", "aliases": { "en": ["busan"] }, "category_ids": ["travel"] }
            ],
            "intent_cues": { "purchase": { "en": ["worth buying", "buy", "budget", "need"] } }
        },
        "offers": [
            offer("a_pass", &["travel.rail"], &["product.pass"]),
            offer("b_flight", &["travel.flights"], &["place.tokyo"]),
            offer("c_train", &["travel.rail"], &["place.busan"]),
            offer("d_laptop", &["electronics.laptops"], &[]),
            offer("e_editor", &["software.devtools"], &["product.editor"])
        ]
    }));
    let index = OfferIndex::build(&d).expect("builds");
    // The pass is what the cue is said of; the flight out, named after it with no cue, is beside.
    assert_eq!(ids(&index, &query("is the rail pass worth buying? then we fly out of tokyo")).first().map(String::as_str), Some("a_pass"));
    // Asked alone, the pass asks for no other rail offer: a Busan train is not it.
    assert_eq!(ids(&index, &query("buy a rail pass")), vec!["a_pass"]);
    // A product named after the category asked ("a laptop …, mostly vs code") does not head it.
    assert_eq!(ids(&index, &query("i need a laptop for classes. budget 1000, mostly vs code")).first().map(String::as_str), Some("d_laptop"));
}

#[test]
fn an_accessory_of_a_thing_is_not_the_thing() {
    let d = doc(serde_json::json!({
        "taxonomy": {
            "categories": [
                { "id": "electronics", "parent_id": null, "aliases": { "en": ["electronics"], "ko": ["전자기기"] } },
                { "id": "electronics.phones", "parent_id": "electronics", "aliases": { "en": ["phone"], "ko": ["폰"] } },
                { "id": "electronics.laptops", "parent_id": "electronics", "aliases": { "en": ["laptop"], "ko": ["노트북"] } }
            ],
            "entities": [
                { "id": "product.iphone", "kind": "product", "aliases": { "en": ["iphone 16"], "ko": ["아이폰16"] }, "category_ids": ["electronics.phones"] }
            ]
        },
        "offers": [
            offer("a_iphone", &["electronics.phones"], &["product.iphone"]),
            offer("b_laptop", &["electronics.laptops"], &[])
        ]
    }));
    let index = OfferIndex::build(&d).expect("builds");
    // The packs' accessory words: right after the thing, it is whose accessory is asked for.
    assert!(ids(&index, &query("which iphone 16 case should i buy?")).is_empty());
    assert!(ids(&index, &query("아이폰16 케이스 튼튼한 거 추천해줘")).is_empty());
    // Anywhere in the clause, a thing the accessory is for or works with is not asked either.
    assert!(ids(&index, &query("which case should i buy for my iphone 16?")).is_empty());
    assert!(ids(&index, &query("which usb-c dock works with my laptop for two monitors?")).is_empty());
    // The thing asked for itself is still asked, with an accessory or without.
    assert_eq!(ids(&index, &query("which iphone 16 should i buy? i'll get a case later")).first().map(String::as_str), Some("a_iphone"));
    assert_eq!(ids(&index, &query("which laptop should i buy, one with a good charger")).first().map(String::as_str), Some("b_laptop"));
}

#[test]
fn a_digest_heads_every_clause_so_a_purpose_of_another_kind_is_what_it_is_for() {
    let d = doc(serde_json::json!({
        "taxonomy": {
            "categories": [
                { "id": "travel", "parent_id": null, "aliases": { "en": ["travel"] } },
                { "id": "travel.flights", "parent_id": "travel", "aliases": { "en": ["flight"] } },
                { "id": "electronics", "parent_id": null, "aliases": { "en": ["electronics"] } },
                { "id": "electronics.audio", "parent_id": "electronics", "aliases": { "en": ["headphones"] } }
            ],
            "intent_cues": { "compare": { "en": ["which would you pick"] } }
        },
        "offers": [
            offer("a_flight", &["travel.flights"], &[]),
            offer("b_audio", &["electronics.audio"], &[])
        ]
    }));
    let index = OfferIndex::build(&d).expect("builds");
    let audio = vec!["electronics.audio".to_string()];
    // Headphones were compared a turn ago (the digest); the flight is what they are for.
    let follow_up = MatchQuery { intent_type: Some("compare"), category_ids: &audio, ..query("ok, which would you pick for a 14 hour flight?") };
    assert_eq!(ids(&index, &follow_up).first().map(String::as_str), Some("b_audio"));
    // Without the digest the flight is all the turn names, and it still counts.
    assert_eq!(ids(&index, &query("which would you pick for a 14 hour flight?")), vec!["a_flight"]);
}

#[test]
fn a_product_heads_a_request_read_without_a_cue_when_the_rest_names_only_a_kind() {
    let index = OfferIndex::build(&doc(serde_json::json!({
        "taxonomy": {
            "categories": [
                { "id": "electronics", "parent_id": null, "aliases": { "en": ["electronics"] } },
                { "id": "electronics.tablets", "parent_id": "electronics", "aliases": { "en": ["tablet"] } },
                { "id": "software", "parent_id": null, "aliases": { "en": ["apps", "app"] } },
                { "id": "software.security", "parent_id": "software", "aliases": { "en": ["password manager"] } }
            ],
            "entities": [
                { "id": "product.ipad-air", "kind": "product", "aliases": { "en": ["ipad air"] }, "category_ids": ["electronics.tablets"] },
                { "id": "product.galaxy-tab", "kind": "product", "aliases": { "en": ["galaxy tab"] }, "category_ids": ["electronics.tablets"] }
            ],
            "sensitive_topics": [],
            "intent_cues": {}
        },
        "offers": [offer("tablets", &["electronics.tablets"], &["product.ipad-air", "product.galaxy-tab"]), offer("vault", &["software.security"], &[])]
    })))
    .expect("builds");
    // No cue word: the classifier reads the request. The apps say only what kind of use.
    let tablets = query("Galaxy Tab or iPad Air? reading apps mostly.");
    assert_eq!(index.find(&tablets).message_intent, MessageIntent::Purchase);
    assert_eq!(ids(&index, &tablets), vec!["tablets"]);
    // A category below the top is what is asked; the product is what it is for.
    assert_eq!(ids(&index, &query("password manager that works on iPad Air")), vec!["vault"]);
}

#[test]
fn a_narrow_brand_asked_about_asks_for_its_category() {
    let index = OfferIndex::build(&doc(serde_json::json!({
        "taxonomy": {
            "categories": [
                { "id": "electronics", "parent_id": null, "aliases": { "en": ["electronics"] } },
                { "id": "electronics.audio", "parent_id": "electronics", "aliases": { "en": ["headphones"] } },
                { "id": "travel", "parent_id": null, "aliases": { "en": ["travel"] } },
                { "id": "travel.flights", "parent_id": "travel", "aliases": { "en": ["flight"] } }
            ],
            "entities": [
                { "id": "brand.wide", "kind": "brand", "aliases": { "en": ["widebrand"] }, "category_ids": ["electronics"] },
                { "id": "brand.quiet", "kind": "brand", "aliases": { "en": ["quietbrand"] }, "category_ids": ["electronics.audio"] }
            ],
            "sensitive_topics": [],
            "intent_cues": { "purchase": { "en": ["buy"] } }
        },
        "offers": [offer("cans", &["electronics.audio"], &["brand.wide"]), offer("fly", &["travel.flights"], &[])]
    })))
    .expect("builds");
    // No offer targets the narrow brand, and the broad one says only whose: the headphones are
    // what is asked, with the flight what they are for.
    assert_eq!(ids(&index, &query("widebrand or quietbrand for the flight, which should i buy?")), vec!["cans"]);
    // A broad brand alone still asks for nothing.
    assert!(ids(&index, &query("widebrand, which should i buy?")).is_empty());
}

#[test]
fn a_weak_word_a_cue_is_said_of_counts_when_said_as_a_thing_one_gets() {
    let taxonomy = serde_json::json!({
        "categories": [
            { "id": "electronics", "parent_id": null, "aliases": { "en": ["electronics"] } },
            { "id": "electronics.tablets", "parent_id": "electronics", "aliases": { "en": ["tablet"] }, "weak_aliases": { "en": ["tab"], "ko": ["탭"] } }
        ],
        "entities": []
    });
    let index = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": taxonomy, "offers": [] }))).expect("builds");
    let asks_tablets =
        |m: &str, language: &'static str| index.find(&MatchQuery { language, ..query(m) }).signal_category_ids.contains(&"electronics.tablets".to_string());
    assert!(asks_tablets("looking for a tab for my mom, big screen", "en"));
    assert!(asks_tablets("which tab should i buy?", "en"));
    assert!(asks_tablets("엄마 드릴 탭 하나 사려는데", "ko"));
    // Not said as a thing: a possessive, a word it describes, or no cue said of it.
    assert!(!asks_tablets("looking for a tab manager extension", "en"));
    assert!(!asks_tablets("looking for my tab", "en"));
    assert!(!asks_tablets("a tab for my mom", "en"));
}

#[test]
fn two_different_weak_words_of_one_category_confirm_each_other_when_a_cue_is_said_of_one() {
    let taxonomy = serde_json::json!({
        "categories": [
            { "id": "software", "parent_id": null, "aliases": { "en": ["software"] } },
            { "id": "software.productivity", "parent_id": "software", "aliases": { "en": ["productivity app"] }, "weak_aliases": { "en": ["tasks", "shared calendar"] } },
            { "id": "travel", "parent_id": null, "aliases": { "en": ["travel"] } },
            { "id": "travel.rail", "parent_id": "travel", "aliases": { "en": ["rail pass"] }, "weak_aliases": { "en": ["train", "trains"] } }
        ],
        "entities": []
    });
    let index = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": taxonomy, "offers": [] }))).expect("builds");
    let asks = |m: &str, category: &str| index.find(&query(m)).signal_category_ids.contains(&category.to_string());
    assert!(asks("looking for tasks and a shared calendar my team can all see", "software.productivity"));
    // One weak word alone, or two no cue is said of, or a word and its plural: not confirmed.
    assert!(!asks("looking for tasks my team can all see", "software.productivity"));
    assert!(!asks("our tasks live in a shared calendar nobody reads", "software.productivity"));
    assert!(!asks("looking for trains, he narrates every freight train we pass", "travel.rail"));
}

#[test]
fn a_place_named_again_more_precisely_as_another_place_is_that_place() {
    let taxonomy = serde_json::json!({
        "categories": [
            { "id": "travel", "parent_id": null, "aliases": { "en": ["travel"] } },
            { "id": "travel.hotels", "parent_id": "travel", "aliases": { "en": ["hotels", "hotel"] } }
        ],
        "entities": [
            { "id": "place.france", "kind": "place", "aliases": { "en": ["france"] }, "category_ids": ["travel"] },
            { "id": "place.paris", "kind": "place", "aliases": { "en": ["paris"] }, "category_ids": ["travel"], "within": ["place.france"] },
            { "id": "place.paris-district", "kind": "place", "aliases": { "en": ["paris 8e"] }, "category_ids": ["travel"], "within": ["place.paris"] },
            { "id": "place.texas", "kind": "place", "aliases": { "en": ["texas", "paris, texas"] }, "category_ids": ["travel"] }
        ]
    });
    let index = OfferIndex::build(&doc(serde_json::json!({ "taxonomy": taxonomy, "offers": [] }))).expect("builds");
    let names_paris = |m: &str| index.find(&query(m)).signal_entity_ids.contains(&"place.paris".to_string());
    assert!(names_paris("any good hotels in paris?"));
    assert!(!names_paris("any good hotels in paris? I've got an appointment there. paris, texas, not france"));
    // A place within it says where in it, not another place of that name.
    assert!(names_paris("hotels in paris, near paris 8e"));
}
