//! The index document: what the service hands the core to build an index from (the catalog's
//! taxonomy plus every live offer snapshot with its campaign's eligibility flattened in).
use serde::Deserialize;

use crate::text_match::TextHit;

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Aliases {
    #[serde(default)]
    pub ko: Vec<String>,
    #[serde(default)]
    pub en: Vec<String>,
}

impl Aliases {
    pub fn iter(&self) -> impl Iterator<Item = &String> {
        self.ko.iter().chain(self.en.iter())
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct CategoryDoc {
    pub id: String,
    #[serde(default)]
    pub parent_id: Option<String>,
    #[serde(default)]
    pub aliases: Aliases,
    /// Aliases with another common sense ("train", "파리"): they count only beside a strong
    /// signal of a related category or entity in the same turn.
    #[serde(default)]
    pub weak_aliases: Aliases,
    /// Phrases that, in the same clause, mean one of its aliases is used in another sense
    /// ("model train", "파인애플").
    #[serde(default)]
    pub negative_contexts: Aliases,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct EntityDoc {
    pub id: String,
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub aliases: Aliases,
    #[serde(default)]
    pub category_ids: Vec<String>,
    #[serde(default)]
    pub weak_aliases: Aliases,
    #[serde(default)]
    pub negative_contexts: Aliases,
    /// Entities this one lies within (a city's country): naming Kyoto is not naming another
    /// place than an offer aimed at Japan.
    #[serde(default)]
    pub within: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SensitiveTopicDoc {
    pub id: String,
    #[serde(default)]
    pub aliases: Aliases,
    /// Phrases in which one of its aliases is said of a thing, not of the user ("와이파이가
    /// 불안"): overlapping hits resolve leftmost-longest, so the phrase hides the alias inside it.
    #[serde(default)]
    pub negative_contexts: Aliases,
    /// Words that say the topic only beside other evidence: where care happens or what was
    /// done (병원, "hospital", surgery) and a common worry (불안해), said of a workplace, a
    /// visit or someone else as often as of the user's own moment. One counts when the turn
    /// names something sensitive otherwise or the learned classifier leans that way
    /// ([`crate::index::CONTEXT_SENSITIVE_LOGIT`]).
    #[serde(default)]
    pub context_aliases: Aliases,
    /// Its aliases say something of the user (a minor's school year): in a turn where a grown-up
    /// speaks of their own child ([`crate::policy_patterns::PatternReading::speaks_of_own_child`]) they are said
    /// of the child, and do not count.
    #[serde(default)]
    pub said_of_the_user: bool,
    /// Its aliases are said of pets as often as of people (a vaccination, an upset stomach, a
    /// night at the vet's): in a turn that speaks of a pet
    /// ([`crate::policy_patterns::PatternReading::speaks_of_a_pet`]) they count as context words
    /// do, beside other evidence. The pack's to say; a catalog cannot set it.
    #[serde(skip)]
    pub said_of_pets: bool,
    /// Its aliases are quoted from documents as often as said of the user (a clinic's notice, a
    /// case note, a school letter pasted to proofread or translate): inside a quotation or code
    /// they count beside other evidence or where the classifier reads the turn as sensitive. A
    /// topic without it (a quoted "I want to die") counts wherever it is said. The pack's to say;
    /// a catalog cannot set it.
    #[serde(skip)]
    pub mentioned_in_quotes: bool,
    /// Words that say the topic when the turn asks for them: an asset's name (삼전, 솔라나,
    /// NVDA) in a clause with a purchase or compare cue and no catalog topic is a request for
    /// investment advice ("하이닉스 지금 더 사도 됨?"); anywhere else (an employer's name, a
    /// windfall spent on a phone) it is a context word. The pack's to say; a catalog cannot set
    /// it.
    #[serde(skip)]
    pub asked_aliases: Aliases,
}

/// Writes the cue kinds once: the struct a catalog's cues and a pack's rows share, each kind's
/// field in the order [`CUE_KINDS`] gives them, and what the matcher reports for each. A new kind
/// is one line here (and its reading, in `reading.rs`).
macro_rules! cue_kinds {
    ($($(#[$doc:meta])* $kind:ident => $hit:ident,)*) => {
        /// The cues by kind: [`IntentCues`] for a catalog's phrases, `PackCues` for a pack's rows
        /// with their examples.
        #[derive(Debug, Clone, Default, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct CueKinds<T> {
            $($(#[$doc])* #[serde(default)] pub $kind: T,)*
        }

        /// The kinds of cue, by their JSON names, with what the matcher reports for each: the one
        /// list the packs, the catalog's cues and the index read.
        pub const CUE_KINDS: [(&str, TextHit); [$(stringify!($kind)),*].len()] = [$((stringify!($kind), TextHit::$hit)),*];

        impl<T> CueKinds<T> {
            /// Every kind's cues, in the order of [`CUE_KINDS`].
            pub fn kinds(&self) -> [&T; CUE_KINDS.len()] {
                [$(&self.$kind),*]
            }

            /// [`Self::kinds`], to add to.
            pub fn kinds_mut(&mut self) -> [&mut T; CUE_KINDS.len()] {
                [$(&mut self.$kind),*]
            }
        }
    };
}

cue_kinds! {
    /// "buy", "최저가", "예매": the user wants the thing their clause names.
    purchase => PurchaseCue,
    /// "vs", "which is better", "뭐가 나아": the user chooses among the things named.
    compare => CompareCue,
    /// "already have", "don't need": the clause's topics and cues do not count.
    negation => Negation,
    /// "예약했고", "are booked": the thing before is done, had or someone else's ("KTX는
    /// 예매했고 숙소 추천"), and with it a place that describes it ("KTX 부산행 예매 끝냈어요").
    negation_before => NegationBefore,
    /// "말고", "대신": what is right before is what the user does not want ("비행기 말고 숙소",
    /// "부산 말고 제주 호텔": a place too).
    instead => Instead,
    /// "refund", "complain", "환불": a clause about something already bought.
    after_sales => AfterSales,
    /// "selling my", "팔려고": a clause about selling what the user has; a price asked after it
    /// is the sale's, so its things never count again.
    selling => Selling,
    /// "translate", "write a poem", "stack trace": the whole turn is not a shopping turn.
    not_commercial => NotCommercial,
    /// "but", "하지만": a clause ends here as at a full stop.
    clause_break => ClauseBreak,
    /// "for", "during": what follows in the clause is what the thing is for ("a VPN for hotel
    /// wifi"), not what is asked.
    purpose => Purpose,
    /// "에서 쓸", "가서 쓸": what comes before in the clause is what the thing is for ("비행기에서
    /// 쓸 헤드폰").
    purpose_before => PurposeBefore,
    /// "outgrown", "alternatives to", "에서 갈아타": the thing it is said of is what the user
    /// moves away from; another thing of its kind is asked for ("we've outgrown Trello").
    alternative => Alternative,
    /// "case", "charger", "케이스", "충전기": a thing bought for another thing. Right after a thing
    /// ("아이폰16 케이스"), that thing is whose accessory is asked for, not what is asked; anywhere
    /// in a clause, it is something else that clause names ("a case for my iPad").
    accessory => Accessory,
}

/// A catalog's cue phrases by kind, added to the packs' (packs.rs).
pub type IntentCues = CueKinds<Aliases>;

#[derive(Debug, Clone, Default, Deserialize)]
pub struct TaxonomyDoc {
    #[serde(default)]
    pub categories: Vec<CategoryDoc>,
    #[serde(default)]
    pub entities: Vec<EntityDoc>,
    #[serde(default)]
    pub sensitive_topics: Vec<SensitiveTopicDoc>,
    #[serde(default)]
    pub intent_cues: IntentCues,
}

#[derive(Debug, Clone, Deserialize)]
pub struct OfferDoc {
    pub snapshot_id: String,
    pub offer_id: String,
    pub campaign_id: String,
    pub advertiser_id: String,
    #[serde(default)]
    pub advertiser_entity_id: Option<String>,
    pub kind: String,
    pub locale: String,
    #[serde(default)]
    pub category_ids: Vec<String>,
    #[serde(default)]
    pub entity_ids: Vec<String>,
    #[serde(default)]
    pub budget_buckets: Vec<String>,
    #[serde(default)]
    pub countries: Vec<String>,
    pub campaign_status: String,
    #[serde(default)]
    pub starts_at_ms: Option<i64>,
    #[serde(default)]
    pub ends_at_ms: Option<i64>,
    pub priority: u32,
    pub bid_micros: u64,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct IndexDocument {
    #[serde(default)]
    pub taxonomy: TaxonomyDoc,
    #[serde(default)]
    pub offers: Vec<OfferDoc>,
}

impl IndexDocument {
    pub fn from_json(bytes: &[u8]) -> Result<Self, crate::IndexError> {
        parse_json(bytes, b'{', "the index document must be a JSON object")
    }
}

// The document in pieces (`OfferIndexBuilder`): the taxonomy as one JSON object, then the offers
// as JSON arrays of a few thousand each. Each piece is the JSON the whole document would hold
// there, so both ways of loading read one format.
impl TaxonomyDoc {
    pub fn from_json(bytes: &[u8]) -> Result<Self, crate::IndexError> {
        parse_json(bytes, b'{', "the taxonomy must be a JSON object")
    }
}

impl OfferDoc {
    /// A chunk of offers: a JSON array of what the document's `offers` holds.
    pub fn list_from_json(bytes: &[u8]) -> Result<Vec<Self>, crate::IndexError> {
        parse_json(bytes, b'[', "a chunk of offers must be a JSON array")
    }
}

fn parse_json<T: serde::de::DeserializeOwned>(bytes: &[u8], opening: u8, expected: &str) -> Result<T, crate::IndexError> {
    // serde would also accept a JSON array as a struct's fields in order; say which shape is meant.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&opening) {
        return Err(crate::IndexError::InvalidDocument(expected.into()));
    }
    serde_json::from_slice(bytes).map_err(|e| crate::IndexError::InvalidDocument(e.to_string()))
}
