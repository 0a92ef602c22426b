//! Pack rows read on the demo catalog, where a row's letters also stand in turns it must not
//! change (a `not` example cannot say it: those turns do not hold the row's phrase).
use std::sync::OnceLock;

use sidenote_core::{MatchQuery, OfferIndex, OfferKind};

#[path = "support/demo.rs"]
mod demo;

/// The demo catalog's index, built once for every test here.
fn index() -> &'static OfferIndex {
    static INDEX: OnceLock<OfferIndex> = OnceLock::new();
    INDEX.get_or_init(|| OfferIndex::build(&demo::demo_document()).expect("the demo catalog builds"))
}

/// The offer a Korean turn is answered with first, if any.
fn first_offer(message: &str) -> Option<String> {
    let q = MatchQuery {
        message: Some(message),
        language: "ko",
        country: Some("KR"),
        kind: Some(OfferKind::Sponsored),
        now_ms: 1_795_402_800_000,
        top_k: 1,
        ..Default::default()
    };
    index().find(&q).candidates.first().map(|c| c.offer_id.clone())
}

#[test]
fn a_thing_put_off_is_not_asked_and_watching_later_is_a_use() {
    // "X는 나중에 …" puts X off: the KTX is asked, not the hotel.
    assert_eq!(
        first_offer("부산 갈 때 비행기랑 KTX 고민하다가 그냥 KTX로 정했어요. 서울역 출발 토요일 오전 표 있나요? 숙소는 나중에 볼게요").as_deref(),
        Some("off.railroam-ktx-busan-ko")
    );
    // "나중에 보려는데" without a topic particle is what the tablet is for (rows of the bare verb,
    // "나중에 보", refused the tablet here before they gave way to "는 나중에", "은 나중에").
    assert_eq!(first_offer("아이패드로 영화 다운받아 나중에 보려는데 용량 몇 기가짜리 사야 돼요?").as_deref(), Some("off.gh-tablets-ko"));
    assert_eq!(first_offer("갤탭으로 강의 녹화해서 나중에 볼 건데 어떤 모델 살까요?").as_deref(), Some("off.gh-tablets-ko"));
}

#[test]
fn someone_else_booking_is_reported_and_the_user_booking_for_someone_is_an_ask() {
    // "잡아준대요": they say they will book it, so the room is taken care of and the KTX is asked.
    assert_eq!(
        first_offer("부산 출장 가는데 숙소는 거래처 쪽에서 잡아준대요. 서울역에서 부산 가는 KTX 첫차 있나요?").as_deref(),
        Some("off.railroam-ktx-busan-ko")
    );
    // "제가 … 잡아주기로 했어요": the user books for their parents (rows of "잡아주기로" refused this).
    assert_eq!(first_offer("부모님 도쿄 오시는데 제가 신주쿠 호텔 잡아주기로 했어요. 추천 좀 해주세요").as_deref(), Some("off.haneul-tokyo-shinjuku-ko"));
}

/// The sensitive topics a Korean turn is read to name.
fn sensitive_topics(message: &str) -> Vec<String> {
    let q = MatchQuery {
        message: Some(message),
        language: "ko",
        country: Some("KR"),
        kind: Some(OfferKind::Sponsored),
        now_ms: 1_795_402_800_000,
        top_k: 1,
        ..Default::default()
    };
    index().find(&q).sensitive_topic_ids
}

#[test]
fn an_asset_asked_for_is_investment_advice_and_an_employer_is_not() {
    // Coins and shares by traders' names, asked for in a clause that names nothing the catalog
    // sells: a request for investment advice, whatever the rest of the turn buys.
    // (The classifier alone reads neither as sensitive.)
    assert_eq!(sensitive_topics("연말 보너스 나오면 삼전이랑 하이닉스 중에 뭐 살까"), vec!["finance-advice"]);
    assert_eq!(sensitive_topics("퇴근하고 코스닥 소형주 뭐 살지 골라줘. 남으면 에어팟도 살 거임"), vec!["finance-advice"]);
    // The same names as a windfall's source or an employer, beside a purchase, are no advice.
    assert!(sensitive_topics("하닉으로 좀 벌어서 갤럭시 S25로 바꾸려는데 자급제가 나아?").is_empty());
    assert!(sensitive_topics("하이닉스 다니는 남편 생일 선물로 에어팟 프로 살까").is_empty());
    assert_eq!(first_offer("하이닉스 다니는 남편 생일 선물로 에어팟 프로 살까").as_deref(), Some("off.sg-earbuds-ko"));
}

/// The intent a Korean turn is read to say.
fn intent(message: &str) -> &'static str {
    let q = MatchQuery {
        message: Some(message),
        language: "ko",
        country: Some("KR"),
        kind: Some(OfferKind::Sponsored),
        now_ms: 1_795_402_800_000,
        top_k: 1,
        ..Default::default()
    };
    index().find(&q).intent
}

#[test]
fn a_compare_cue_after_a_task_asks_for_a_topic_of_its_own_clause() {
    // A question, then a request for something the catalog sells: the request stands.
    assert_eq!(intent("노션 데이터베이스 관계형 속성이 뭔지 설명해줘. 그리고 다섯 명 팀에서 쓸 협업툴도 하나 추천해줘"), "compare");
    // A bare "which is better" after a task names nothing: it is part of the task.
    assert_eq!(intent("이 문장 영어로 번역해줘: 다음 주에 만나요. 그리고 어떤 게 나아?"), "low");
}
