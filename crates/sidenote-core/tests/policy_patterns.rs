//! The pattern families' examples (`tests/policy-patterns/examples.jsonl`): each row a turn, the
//! family it is read for, and whether that family must find it (`expect`), with a `note` where
//! the row was written for a case. A change to a pattern is a change to this file first: add the
//! turn it is for and the ordinary turns it must leave alone.
use serde_json::Value;
use sidenote_core::normalize;
use sidenote_core::policy_patterns::{names_adult_venue, names_medicine, says_minor_age, sensitive_patterns};

const EXAMPLES: &str = include_str!("policy-patterns/examples.jsonl");

#[test]
fn every_example_reads_as_written() {
    let mut wrong = Vec::new();
    let mut rows = 0;
    for line in EXAMPLES.lines().filter(|l| !l.trim().is_empty()) {
        let row: Value = serde_json::from_str(line).expect("an example is JSON");
        let text = normalize(row["text"].as_str().expect("text"));
        let family = row["family"].as_str().expect("family");
        let found = match family {
            "minor_age" => says_minor_age(&text),
            "medicine_name" => names_medicine(&text),
            "adult_venue" => names_adult_venue(&text),
            other => panic!("unknown family {other}"),
        };
        if found != row["expect"].as_bool().expect("expect") {
            wrong.push(format!("{family} {} (expected {})", row["text"], row["expect"]));
        }
        rows += 1;
    }
    assert!(rows >= 100, "the examples file lost its rows ({rows})");
    assert!(wrong.is_empty(), "{} examples read wrong:\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn an_empty_turn_is_no_family() {
    assert!(sensitive_patterns("").is_empty());
}

#[test]
fn children_counted_or_taken_along_are_a_grown_ups_own() {
    let own = |text: &str| sidenote_core::policy_patterns::read(&normalize(text)).speaks_of_own_child;
    // A head count or "taking them along" is said by whoever is in charge of the children.
    assert!(own("여름에 파리 가는데 초등학생 둘 데리고 루브르 가려니 막막해서요"));
    assert!(own("겨울방학 되면 애들 둘(초2, 6살) 데리고 제주도 가려고 해요"));
    assert!(own("중학생 두 명이랑 같이 묵을 숙소"));
    assert!(own("아이들 데려갈 만한 호텔"));
    // The user's own school year, or a classmate's, is not.
    assert!(!own("저 초등학생인데 태블릿 사고 싶어요"));
    assert!(!own("친구랑 둘이 도쿄 가요"));
    assert!(!own("중학생 때 갔던 제주도"));
    // English head counts: a youth leader, a chaperone.
    assert!(own("is there a guided tour with the KTX down to Busan? I don't want to plan the logistics for 15 teenagers myself"));
    assert!(own("hotel near shinjuku station for our group, 18 people, 13 of them teenagers"));
    assert!(own("chaperoning twenty high schoolers to Paris in March, which hotels take groups?"));
    // Counting themselves in: a minor among minors.
    assert!(!own("we're 4 teenagers going to Seoul, cheapest hotel?"));
    assert!(!own("we are three teens, can we book a hotel by ourselves"));
    assert!(!own("im 15 and 2 of my friends want to come, which hotel"));
}
