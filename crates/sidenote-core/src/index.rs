//! The offer snapshot index: taxonomy, text matcher, offers, and postings from category and
//! entity ids to offers. Matching is a read-only walk over it; see docs/matching.md.
use crate::classifier::TurnClassifier;
use crate::document::{EntityDoc, IndexDocument, OfferDoc, TaxonomyDoc};
use crate::normalize::normalize;
use crate::policy_patterns;
use crate::reading::{self, Topic, TopicHit};
use crate::steps::Steps;
use crate::text_match::{TextHit, TextMatcher};
use crate::IndexError;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};

/// A ranked candidate. "Less" is better (higher score, then lower offer id, then lower snapshot
/// id), so a max-heap keeps the worst of the current top K on top, ready to be replaced. Ties
/// fall to the operator's offer id, which is the same in every import (snapshot ids are not).
#[derive(PartialEq, Eq)]
struct Ranked<'a> {
    score: u64,
    key: (&'a str, &'a str),
    offer: u32,
}

impl Ord for Ranked<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        other.score.cmp(&self.score).then_with(|| self.key.cmp(&other.key))
    }
}

impl PartialOrd for Ranked<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Offer indices are small dense integers: a multiplicative hash is all a set of them needs.
#[derive(Clone, Copy, Default)]
struct BuildU32Hasher;

#[derive(Default)]
struct U32Hasher(u64);

impl Hasher for U32Hasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.0 = u64::from(i).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl BuildHasher for BuildU32Hasher {
    type Hasher = U32Hasher;
    fn build_hasher(&self) -> U32Hasher {
        U32Hasher::default()
    }
}

/// Most entries read from one posting list per query. Postings are sorted by static score, so
/// the entries read are the list's best; the bound keeps a broad category on a huge catalog
/// from turning one decide into a full scan.
pub const MAX_POSTING_SCAN: usize = 512;

/// Most entries read from a list reached only through a category a named entity implies: those
/// offers are fallbacks beside the entity's own, and when the turn names, say, one product,
/// most of such a list targets other products and is not eligible: every entry read is a cache
/// miss on a large catalog (at 1M offers, 64 entries a list cost a short turn ~5 µs).
pub const MAX_IMPLIED_SCAN: usize = 16;

/// The classifier's sensitive head counts only on turns of at least this many words: over a
/// handful of n-grams a linear model is noise, and it scored greetings ("안녕하세요", "test")
/// as sensitive. Short sensitive turns ("살기 싫어", "죽고싶다") are the word lists' to catch.
pub const MODEL_MIN_WORDS: usize = 3;

/// A purchase or compare cue does not make a turn commercial when the classifier's commercial
/// head reads it, at this logit or below, as plainly not a request (turns of at least
/// [`MODEL_MIN_WORDS`] words): a price word in a why-question ("비행기표는 왜 사람마다 가격이
/// 달라?"), "best" in a question about a pilot's career. A turn longer than the classifier's
/// window is read at its end as well, and both must say so: the ask after a pasted email is
/// past the window. Chosen on the benchmark's dev split out of fold (session 37: from −3.0,
/// read at the start only, to −2.0 at both ends: fewer false serves and fewer asks refused).
pub const COMMERCIAL_VETO_LOGIT: f32 = -2.0;

/// A sensitive topic's context word (`context_aliases`: 병원, "hospital", 불안해) counts when the
/// classifier's sensitive head reads the turn at this logit or above (p ≥ 0.05), far below the
/// service threshold: the word needs the turn to lean that way at all, not to be sensitive on its
/// own. Where the classifier cannot vouch (a turn under [`MODEL_MIN_WORDS`] words, a word past
/// the [`MODEL_MAX_CHARS`] it reads) the word counts as any alias does: recall first. With the
/// session-36 model, −4.0 blocked no more dev sensitive turns out of fold and refused more
/// commercial ones (`models/turn-classifier/out_of_fold.py`).
pub const CONTEXT_SENSITIVE_LOGIT: f32 = -3.0;

/// The classifier reads at most this many characters of a turn: it costs about 15 ns a character
/// (n-grams of every length at every position), so a 4,000-character paste would add 60 µs to a
/// decide. A chat turn is shorter; beyond this the word lists, which read everything, decide.
pub const MODEL_MAX_CHARS: usize = 256;

/// Match points by how an offer's targeting met the turn's evidence; they add up: an entity
/// named plus the category asked for (160) beats either alone. A category the turn asked for
/// counts fully; one only implied by a named entity (a place implies travel) counts weakly, so
/// "a hotel in Tokyo" ranks a Tokyo hotel (100 + 60) above a Tokyo flight (100 + 10).
pub const POINTS_ENTITY: u64 = 100;
pub const POINTS_CATEGORY: u64 = 60;
pub const POINTS_OFFER_BROADER: u64 = 40;
pub const POINTS_OFFER_NARROWER: u64 = 30;
/// A category asked beside the head of the request ("호텔 와이파이 찜찜해서 VPN 하나 결제해둘까":
/// the hotel, beside the VPN), and offers above or below it.
pub const POINTS_BESIDE_CATEGORY: u64 = 45;
pub const POINTS_BESIDE_BROADER: u64 = 30;
pub const POINTS_BESIDE_NARROWER: u64 = 22;
pub const POINTS_IMPLIED_CATEGORY: u64 = 20;
pub const POINTS_IMPLIED_BROADER: u64 = 14;
pub const POINTS_IMPLIED_NARROWER: u64 = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfferKind {
    Sponsored,
    Affiliate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageIntent {
    Purchase,
    Compare,
    None,
    /// The message says this is not a shopping turn (a translation, a poem, code) or takes
    /// back what it asked ("아 됐어 안 살래"): wins over a digest's intent, as a digest `low`
    /// does.
    Low,
}

impl MessageIntent {
    pub fn as_str(self) -> &'static str {
        match self {
            MessageIntent::Purchase => "purchase",
            MessageIntent::Compare => "compare",
            MessageIntent::None => "none",
            MessageIntent::Low => "low",
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct MatchQuery<'a> {
    pub message: Option<&'a str>,
    /// Primary language, `ko` or `en`.
    pub language: &'a str,
    pub country: Option<&'a str>,
    pub category_ids: &'a [String],
    pub entity_ids: &'a [String],
    pub excluded_entity_ids: &'a [String],
    /// The host app's brand-safety exclusions: offers in these categories (or below them) or
    /// from these advertisers are never eligible for it. Unknown ids exclude nothing.
    pub blocked_category_ids: &'a [String],
    pub blocked_advertiser_ids: &'a [String],
    pub budget_bucket: Option<&'a str>,
    pub intent_type: Option<&'a str>,
    pub kind: Option<OfferKind>,
    pub now_ms: i64,
    pub top_k: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    pub snapshot_id: String,
    pub offer_id: String,
    pub campaign_id: String,
    pub advertiser_id: String,
    pub score: u64,
    /// The offer's categories that met a category the turn asked for.
    pub matched_category_ids: Vec<String>,
    pub matched_entity_ids: Vec<String>,
    /// The offer's categories that met only a category implied by a named entity.
    pub implied_category_ids: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MatchResult {
    pub sensitive_topic_ids: Vec<String>,
    /// Sensitive moments read as patterns, by family (`policy_patterns`): `minor_age`,
    /// `medicine_name`, `adult_venue`.
    pub sensitive_patterns: Vec<&'static str>,
    /// The learned classifier reads the turn as a sensitive moment (no topic id to name).
    pub model_sensitive: bool,
    pub message_intent: MessageIntent,
    /// The turn's intent ([`effective_intent`]): the message's and the digest's together.
    pub intent: &'static str,
    /// Whether that intent lets the turn serve ([`is_commercial`]).
    pub commercial_intent: bool,
    pub signal_category_ids: Vec<String>,
    pub signal_entity_ids: Vec<String>,
    pub dropped_digest_ids: u32,
    pub candidates: Vec<Candidate>,
    /// The turn spent its step budget: a safe no-fill, whatever it asked (`steps`).
    pub over_budget: bool,
    /// An offer that was otherwise eligible was set aside by the app's brand-safety exclusions.
    pub excluded_by_app: bool,
}

impl MatchResult {
    /// The answer of an index that has not been loaded yet: nothing read, the digest's intent.
    pub fn empty(digest_intent: Option<&str>) -> Self {
        let intent = effective_intent(MessageIntent::None, digest_intent);
        MatchResult {
            sensitive_topic_ids: Vec::new(),
            sensitive_patterns: Vec::new(),
            model_sensitive: false,
            message_intent: MessageIntent::None,
            intent,
            commercial_intent: is_commercial(intent),
            signal_category_ids: Vec::new(),
            signal_entity_ids: Vec::new(),
            dropped_digest_ids: 0,
            candidates: Vec::new(),
            over_budget: false,
            excluded_by_app: false,
        }
    }
}

/// A [`MatchResult`] with every id given as its position in the index document (categories,
/// entities and sensitive topics in `taxonomy` order, offers in `offers` order), each list in
/// the order of its ids. The binding sends this across the N-API boundary: a few integers
/// instead of kilobytes of id strings, which the caller already knows.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct IndexedMatch {
    #[serde(rename = "s")]
    pub sensitive_topics: Vec<u32>,
    /// Sensitive moments read as patterns, by family (`policy_patterns`).
    #[serde(rename = "t")]
    pub sensitive_patterns: Vec<&'static str>,
    #[serde(rename = "m")]
    pub model_sensitive: bool,
    #[serde(rename = "i")]
    pub message_intent: MessageIntent,
    /// The turn's intent ([`effective_intent`]): the message's and the digest's together.
    #[serde(rename = "n")]
    pub intent: &'static str,
    /// Whether that intent lets the turn serve ([`is_commercial`]).
    #[serde(rename = "p")]
    pub commercial_intent: bool,
    #[serde(rename = "c")]
    pub signal_categories: Vec<u32>,
    #[serde(rename = "e")]
    pub signal_entities: Vec<u32>,
    #[serde(rename = "d")]
    pub dropped_digest_ids: u32,
    /// Per candidate, best first.
    #[serde(rename = "k")]
    pub candidates: Vec<RankedOffer>,
    /// The turn spent its step budget (`steps`): a safe no-fill, whatever it asked.
    #[serde(rename = "b")]
    pub over_budget: bool,
    /// An otherwise eligible offer was set aside by the app's brand-safety exclusions.
    #[serde(rename = "x")]
    pub excluded_by_app: bool,
}

impl IndexedMatch {
    /// The answer of an index that has not been loaded yet: nothing read, the digest's intent.
    pub fn empty(digest_intent: Option<&str>) -> Self {
        let intent = effective_intent(MessageIntent::None, digest_intent);
        IndexedMatch {
            sensitive_topics: Vec::new(),
            sensitive_patterns: Vec::new(),
            model_sensitive: false,
            message_intent: MessageIntent::None,
            intent,
            commercial_intent: is_commercial(intent),
            signal_categories: Vec::new(),
            signal_entities: Vec::new(),
            dropped_digest_ids: 0,
            candidates: Vec::new(),
            over_budget: false,
            excluded_by_app: false,
        }
    }
}

/// One ranked offer: (offer, score, matched categories, matched entities, implied categories).
/// A tuple, not a struct, because it crosses N-API as a compact JSON array.
pub type RankedOffer = (u32, u64, Vec<u32>, Vec<u32>, Vec<u32>);

/// The ids behind the positions of an [`IndexedMatch`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct IdTables<'a> {
    pub categories: &'a [Box<str>],
    pub entities: &'a [Box<str>],
    pub sensitive_topics: &'a [Box<str>],
    /// Per offer: snapshot, offer, campaign and advertiser ids.
    pub offers: Vec<[&'a str; 4]>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IndexStats {
    pub offers: usize,
    pub categories: usize,
    pub entities: usize,
    pub aliases: usize,
    pub memory_bytes: usize,
}

const BUCKETS: [&str; 4] = ["unknown", "low", "mid", "high"];

struct Offer {
    snapshot_id: Box<str>,
    offer_id: Box<str>,
    campaign: u32,
    advertiser: u32,
    advertiser_entity: Option<u32>,
    kind: OfferKind,
    /// Index into `languages`.
    language: u8,
    categories: Box<[u32]>,
    entities: Box<[u32]>,
    /// Bit i set: fits BUCKETS[i]. Zero: any bucket.
    buckets: u8,
    /// Interned country codes; empty: any country.
    countries: Box<[u16]>,
    active: bool,
    starts_at_ms: Option<i64>,
    ends_at_ms: Option<i64>,
    /// priority_factor × bid_factor: the part of the score that does not depend on the query.
    static_score: u64,
}

pub struct OfferIndex {
    category_ids: Vec<Box<str>>,
    category_by_id: HashMap<Box<str>, u32>,
    /// Ancestors of each category, nearest first.
    ancestors: Vec<Box<[u32]>>,
    /// All descendants of each category.
    descendants: Vec<Box<[u32]>>,
    entity_ids: Vec<Box<str>>,
    entity_by_id: HashMap<Box<str>, u32>,
    entity_categories: Vec<Box<[u32]>>,
    /// Per entity: its kind, interned (brand, product, place …).
    entity_kinds: Vec<u8>,
    /// Per entity: a place, or an entity whose categories are all top-level ones: naming it
    /// says where or whose, not what is asked for.
    entity_broad: Vec<bool>,
    /// Per entity: of kind `product`.
    entity_product: Vec<bool>,
    /// Per entity: of kind `place`.
    entity_place: Vec<bool>,
    /// Per entity: every entity it lies within, directly or not (sorted).
    entity_within: Vec<Box<[u32]>>,
    sensitive_ids: Vec<Box<str>>,
    /// Per sensitive topic: its aliases say something of the user (`said_of_the_user`).
    sensitive_of_the_user: Vec<bool>,
    /// Per sensitive topic: its aliases are said of pets too (`said_of_pets`).
    sensitive_of_pets: Vec<bool>,
    /// Per sensitive topic: its aliases are quoted from documents too (`mentioned_in_quotes`).
    sensitive_mentioned_in_quotes: Vec<bool>,
    matcher: TextMatcher,
    campaign_ids: Vec<Box<str>>,
    advertiser_ids: Vec<Box<str>>,
    advertiser_by_id: HashMap<Box<str>, u32>,
    country_by_code: HashMap<Box<str>, u16>,
    languages: Vec<Box<str>>,
    offers: Vec<Offer>,
    /// Offers targeting each category / entity, by static score desc then snapshot id asc.
    category_postings: Vec<Box<[u32]>>,
    entity_postings: Vec<Box<[u32]>>,
    alias_count: usize,
}

/// Per entity, every entity it lies within, directly or through another (sorted), up to
/// [`MAX_WITHIN`]: a city in a region in a country is three deep, and a catalog chaining
/// thousands cannot make the index quadratic. A cycle ("A within B within A") only makes each
/// lie within the other; it cannot loop.
const MAX_WITHIN: usize = 32;

fn within_closure(entities: &[EntityDoc], entity_by_id: &HashMap<Box<str>, u32>) -> Result<Vec<Box<[u32]>>, IndexError> {
    let mut direct: Vec<Vec<u32>> = Vec::with_capacity(entities.len());
    for (i, e) in entities.iter().enumerate() {
        let mut ids = Vec::with_capacity(e.within.len());
        for (j, w) in e.within.iter().enumerate() {
            ids.push(*entity_by_id.get(w.as_str()).ok_or_else(|| IndexError::UnknownId {
                field: format!("taxonomy.entities[{i}].within[{j}]"),
                kind: "entity",
                id: w.clone(),
            })?);
        }
        direct.push(ids);
    }
    let mut closure = Vec::with_capacity(direct.len());
    for (i, first) in direct.iter().enumerate() {
        let mut out: Vec<u32> = Vec::new();
        let mut stack = first.clone();
        while let Some(w) = stack.pop() {
            if out.len() == MAX_WITHIN {
                break;
            }
            if w as usize == i || out.contains(&w) {
                continue;
            }
            out.push(w);
            stack.extend_from_slice(&direct[w as usize]);
        }
        out.sort_unstable();
        closure.push(out.into_boxed_slice());
    }
    Ok(closure)
}

fn intern(map: &mut HashMap<Box<str>, u32>, list: &mut Vec<Box<str>>, id: &str) -> u32 {
    if let Some(&i) = map.get(id) {
        return i;
    }
    let i = list.len() as u32;
    list.push(id.into());
    map.insert(id.into(), i);
    i
}

/// Priority 1–10 → 92..110; bid → 100..120 (one step per 0.05 of currency per serve). Kept
/// narrow so that how an offer matched outweighs what it pays: the widest priority × bid ratio
/// (110×120)/(92×100) ≈ 1.43 is below entity/category (100/60) and category/broader (60/40).
pub fn static_score(priority: u32, bid_micros: u64) -> u64 {
    let priority_factor = 90 + 2 * u64::from(priority.clamp(1, 10));
    let bid_factor = 100 + (bid_micros / 50_000).min(20);
    priority_factor * bid_factor
}

/// Purchase or compare intent favours offers matched on a named entity: the user asked about
/// that very thing. Per-mille.
pub fn intent_boost(effective_intent: &str, entity_matched: bool) -> u64 {
    match (effective_intent, entity_matched) {
        ("purchase", true) => 1200,
        ("compare", true) => 1100,
        _ => 1000,
    }
}

pub fn intent_strength(intent: &str) -> u8 {
    match intent {
        "purchase" => 4,
        "compare" => 3,
        "browse" => 2,
        "low" => 1,
        _ => 0,
    }
}

/// The intent of a turn: `low` from a fresh digest (the conversation has moved off buying,
/// whatever words or earlier ids are about) or from the message (a translation, a poem, code)
/// wins; otherwise the stronger of what the digest says and what the message's cues say.
/// Always one of the spec's `intent_type` words (or `none`), never the caller's own text.
pub fn effective_intent(message_intent: MessageIntent, digest_intent: Option<&str>) -> &'static str {
    let digest = match digest_intent.unwrap_or("unknown") {
        "purchase" => "purchase",
        "compare" => "compare",
        "browse" => "browse",
        "low" => "low",
        _ => "unknown",
    };
    if message_intent == MessageIntent::Low || digest == "low" {
        "low"
    } else if intent_strength(message_intent.as_str()) > intent_strength(digest) {
        message_intent.as_str()
    } else {
        digest
    }
}

/// Intent is a gate, not a score: a turn serves only with evidence of commercial
/// intent, purchase or compare, from the message's cues or a fresh digest. A topic named
/// without it ("what year did the first iPhone come out?") is `LOW_INTENT`.
pub fn is_commercial(intent: &str) -> bool {
    intent_strength(intent) >= intent_strength("compare")
}

impl OfferIndex {
    pub fn build(doc: &IndexDocument) -> Result<OfferIndex, IndexError> {
        let mut builder = OfferIndexBuilder::new(&doc.taxonomy, doc.offers.len())?;
        for o in &doc.offers {
            builder.add_offer(o)?;
        }
        Ok(builder.finish())
    }

    /// The index of a taxonomy, with room for `offers` offers and none yet.
    fn with_taxonomy(t: &TaxonomyDoc, offers: usize) -> Result<OfferIndex, IndexError> {
        let mut category_ids = Vec::with_capacity(t.categories.len());
        let mut category_by_id = HashMap::with_capacity(t.categories.len());
        for (i, c) in t.categories.iter().enumerate() {
            if category_by_id.contains_key(c.id.as_str()) {
                return Err(IndexError::DuplicateId { field: format!("taxonomy.categories[{i}].id"), id: c.id.clone() });
            }
            intern(&mut category_by_id, &mut category_ids, &c.id);
        }
        let mut parent: Vec<Option<u32>> = vec![None; category_ids.len()];
        for (i, c) in t.categories.iter().enumerate() {
            if let Some(p) = &c.parent_id {
                let pi = *category_by_id.get(p.as_str()).ok_or_else(|| IndexError::UnknownId {
                    field: format!("taxonomy.categories[{i}].parent_id"),
                    kind: "category",
                    id: p.clone(),
                })?;
                parent[i] = Some(pi);
            }
        }
        let mut ancestors: Vec<Box<[u32]>> = Vec::with_capacity(parent.len());
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); parent.len()];
        for i in 0..parent.len() {
            let mut chain = Vec::new();
            let mut cur = parent[i];
            while let Some(p) = cur {
                if p as usize == i || chain.len() > parent.len() {
                    return Err(IndexError::CategoryCycle(category_ids[i].to_string()));
                }
                chain.push(p);
                cur = parent[p as usize];
            }
            if let Some(p) = parent[i] {
                children[p as usize].push(i as u32);
            }
            ancestors.push(chain.into_boxed_slice());
        }
        let mut descendants: Vec<Box<[u32]>> = Vec::with_capacity(parent.len());
        for i in 0..parent.len() {
            let mut out = Vec::new();
            let mut stack: Vec<u32> = children[i].clone();
            while let Some(c) = stack.pop() {
                out.push(c);
                stack.extend_from_slice(&children[c as usize]);
            }
            out.sort_unstable();
            descendants.push(out.into_boxed_slice());
        }

        // The catalog's entities, then the place pack's cities it lacks (packs.rs).
        let all_entities = crate::packs::entities_with(t);
        let mut entity_ids = Vec::with_capacity(all_entities.len());
        let mut entity_by_id = HashMap::with_capacity(all_entities.len());
        let mut entity_categories = Vec::with_capacity(all_entities.len());
        let mut kinds: Vec<&str> = Vec::new();
        let mut entity_kinds = Vec::with_capacity(all_entities.len());
        let mut entity_broad = Vec::with_capacity(all_entities.len());
        let mut entity_product = Vec::with_capacity(all_entities.len());
        let mut entity_place = Vec::with_capacity(all_entities.len());
        for (i, e) in all_entities.iter().enumerate() {
            let kind = e.kind.as_deref().unwrap_or("");
            let k = kinds.iter().position(|x| *x == kind).unwrap_or_else(|| {
                kinds.push(kind);
                kinds.len() - 1
            });
            entity_kinds.push(u8::try_from(k).map_err(|_| IndexError::InvalidDocument("more than 256 entity kinds".into()))?);
            if entity_by_id.contains_key(e.id.as_str()) || category_by_id.contains_key(e.id.as_str()) {
                return Err(IndexError::DuplicateId { field: format!("taxonomy.entities[{i}].id"), id: e.id.clone() });
            }
            intern(&mut entity_by_id, &mut entity_ids, &e.id);
            let mut cats = Vec::with_capacity(e.category_ids.len());
            for (j, c) in e.category_ids.iter().enumerate() {
                cats.push(*category_by_id.get(c.as_str()).ok_or_else(|| IndexError::UnknownId {
                    field: format!("taxonomy.entities[{i}].category_ids[{j}]"),
                    kind: "category",
                    id: c.clone(),
                })?);
            }
            // A place, or a brand whose categories are all top-level ones ("Apple": electronics),
            // says where or whose, not what.
            entity_broad.push(kind == "place" || (!cats.is_empty() && cats.iter().all(|&c| ancestors[c as usize].is_empty())));
            entity_product.push(kind == "product");
            entity_place.push(kind == "place");
            entity_categories.push(cats.into_boxed_slice());
        }
        let entity_within = within_closure(&all_entities, &entity_by_id)?;
        // The sensitive-topic pack's topics, and any the catalog adds (packs.rs).
        let topics = crate::packs::sensitive_topics_with(&t.sensitive_topics);
        let sensitive_ids: Vec<Box<str>> = topics.iter().map(|s| s.id.as_str().into()).collect();
        let sensitive_of_the_user: Vec<bool> = topics.iter().map(|s| s.said_of_the_user).collect();
        let sensitive_of_pets: Vec<bool> = topics.iter().map(|s| s.said_of_pets).collect();
        let sensitive_mentioned_in_quotes: Vec<bool> = topics.iter().map(|s| s.mentioned_in_quotes).collect();

        let mut aliases: Vec<(&str, TextHit)> = Vec::new();
        for (i, c) in t.categories.iter().enumerate() {
            let i = i as u32;
            aliases.extend(c.aliases.iter().map(|a| (a.as_str(), TextHit::Category(i))));
            aliases.extend(c.weak_aliases.iter().map(|a| (a.as_str(), TextHit::WeakCategory(i))));
            aliases.extend(c.negative_contexts.iter().map(|a| (a.as_str(), TextHit::NotCategory(i))));
        }
        for (i, e) in all_entities.iter().enumerate() {
            let i = i as u32;
            aliases.extend(e.aliases.iter().map(|a| (a.as_str(), TextHit::Entity(i))));
            aliases.extend(e.weak_aliases.iter().map(|a| (a.as_str(), TextHit::WeakEntity(i))));
            aliases.extend(e.negative_contexts.iter().map(|a| (a.as_str(), TextHit::NotEntity(i))));
        }
        for (i, s) in topics.iter().enumerate() {
            aliases.extend(s.aliases.iter().map(|a| (a.as_str(), TextHit::Sensitive(i as u32))));
            aliases.extend(s.context_aliases.iter().map(|a| (a.as_str(), TextHit::ContextSensitive(i as u32))));
            aliases.extend(s.asked_aliases.iter().map(|a| (a.as_str(), TextHit::AskedSensitive(i as u32))));
            aliases.extend(s.negative_contexts.iter().map(|a| (a.as_str(), TextHit::NotSensitive(i as u32))));
        }
        // The language packs' cues, and any the catalog adds (packs.rs).
        let cues = crate::packs::intent_cues_with(&t.intent_cues);
        for (&(_, hit), kind) in crate::packs::CUE_KINDS.iter().zip(cues.kinds()) {
            aliases.extend(kind.iter().map(|a| (a.as_str(), hit)));
        }
        let alias_count = aliases.len();
        let matcher = TextMatcher::build(aliases.into_iter())?;

        Ok(OfferIndex {
            category_ids,
            category_by_id,
            ancestors,
            descendants,
            entity_ids,
            entity_by_id,
            entity_categories,
            entity_kinds,
            entity_broad,
            entity_product,
            entity_place,
            entity_within,
            sensitive_ids,
            sensitive_of_the_user,
            sensitive_of_pets,
            sensitive_mentioned_in_quotes,
            matcher,
            campaign_ids: Vec::new(),
            advertiser_ids: Vec::new(),
            advertiser_by_id: HashMap::new(),
            country_by_code: HashMap::new(),
            languages: Vec::new(),
            offers: Vec::with_capacity(offers),
            category_postings: Vec::new(),
            entity_postings: Vec::new(),
            alias_count,
        })
    }

    fn offer_from_doc(
        &mut self,
        i: usize,
        o: &OfferDoc,
        campaign_by_id: &mut HashMap<Box<str>, u32>,
        advertiser_by_id: &mut HashMap<Box<str>, u32>,
    ) -> Result<Offer, IndexError> {
        let unknown = |field: String, kind: &'static str, id: &str| IndexError::UnknownId { field, kind, id: id.to_string() };
        let mut categories = Vec::with_capacity(o.category_ids.len());
        for (j, c) in o.category_ids.iter().enumerate() {
            categories.push(*self.category_by_id.get(c.as_str()).ok_or_else(|| unknown(format!("offers[{i}].category_ids[{j}]"), "category", c))?);
        }
        let mut entities = Vec::with_capacity(o.entity_ids.len());
        for (j, e) in o.entity_ids.iter().enumerate() {
            entities.push(*self.entity_by_id.get(e.as_str()).ok_or_else(|| unknown(format!("offers[{i}].entity_ids[{j}]"), "entity", e))?);
        }
        let advertiser_entity = match &o.advertiser_entity_id {
            Some(e) => Some(*self.entity_by_id.get(e.as_str()).ok_or_else(|| unknown(format!("offers[{i}].advertiser_entity_id"), "entity", e))?),
            None => None,
        };
        let kind = match o.kind.as_str() {
            "sponsored" => OfferKind::Sponsored,
            "affiliate" => OfferKind::Affiliate,
            other => return Err(IndexError::InvalidDocument(format!("offers[{i}].kind: unknown kind \"{other}\""))),
        };
        let mut buckets = 0u8;
        for b in &o.budget_buckets {
            let bit = BUCKETS
                .iter()
                .position(|x| x == b)
                .ok_or_else(|| IndexError::InvalidDocument(format!("offers[{i}].budget_buckets: unknown bucket \"{b}\"")))?;
            buckets |= 1 << bit;
        }
        let countries = o
            .countries
            .iter()
            .map(|c| {
                let code: Box<str> = c.to_ascii_uppercase().into();
                let next = self.country_by_code.len() as u16;
                *self.country_by_code.entry(code).or_insert(next)
            })
            .collect::<Vec<_>>()
            .into_boxed_slice();
        let language = match self.languages.iter().position(|l| **l == *o.locale) {
            Some(p) => p as u8,
            None => {
                self.languages.push(o.locale.as_str().into());
                (self.languages.len() - 1) as u8
            }
        };
        Ok(Offer {
            snapshot_id: o.snapshot_id.as_str().into(),
            offer_id: o.offer_id.as_str().into(),
            campaign: intern(campaign_by_id, &mut self.campaign_ids, &o.campaign_id),
            advertiser: intern(advertiser_by_id, &mut self.advertiser_ids, &o.advertiser_id),
            advertiser_entity,
            kind,
            language,
            categories: categories.into_boxed_slice(),
            entities: entities.into_boxed_slice(),
            buckets,
            countries,
            active: o.campaign_status == "active",
            starts_at_ms: o.starts_at_ms,
            ends_at_ms: o.ends_at_ms,
            static_score: static_score(o.priority, o.bid_micros),
        })
    }

    pub fn stats(&self) -> IndexStats {
        let per_offer: usize = self
            .offers
            .iter()
            .map(|o| {
                std::mem::size_of::<Offer>() + o.snapshot_id.len() + o.offer_id.len() + 4 * (o.categories.len() + o.entities.len()) + 2 * o.countries.len()
            })
            .sum();
        let postings: usize = self.category_postings.iter().chain(self.entity_postings.iter()).map(|p| p.len() * 4 + 16).sum();
        IndexStats {
            offers: self.offers.len(),
            categories: self.category_ids.len(),
            entities: self.entity_ids.len(),
            aliases: self.alias_count,
            memory_bytes: per_offer + postings + self.matcher_memory(),
        }
    }

    fn matcher_memory(&self) -> usize {
        // The automaton's own heap is not exposed; aliases × ~64 bytes is a fair estimate.
        self.alias_count * 64
    }

    /// Matches one turn: the ids of [`find_indexed`](Self::find_indexed) as strings.
    pub fn find(&self, q: &MatchQuery) -> MatchResult {
        let m = self.find_indexed(q);
        let names = |ids: &[Box<str>], list: &[u32]| -> Vec<String> { list.iter().map(|&i| ids[i as usize].to_string()).collect() };
        MatchResult {
            sensitive_topic_ids: names(&self.sensitive_ids, &m.sensitive_topics),
            sensitive_patterns: m.sensitive_patterns,
            model_sensitive: m.model_sensitive,
            message_intent: m.message_intent,
            intent: m.intent,
            commercial_intent: m.commercial_intent,
            signal_category_ids: names(&self.category_ids, &m.signal_categories),
            signal_entity_ids: names(&self.entity_ids, &m.signal_entities),
            dropped_digest_ids: m.dropped_digest_ids,
            over_budget: m.over_budget,
            excluded_by_app: m.excluded_by_app,
            candidates: m
                .candidates
                .iter()
                .map(|(oi, score, cats, ents, implied)| {
                    let o = &self.offers[*oi as usize];
                    Candidate {
                        snapshot_id: o.snapshot_id.to_string(),
                        offer_id: o.offer_id.to_string(),
                        campaign_id: self.campaign_ids[o.campaign as usize].to_string(),
                        advertiser_id: self.advertiser_ids[o.advertiser as usize].to_string(),
                        score: *score,
                        matched_category_ids: names(&self.category_ids, cats),
                        matched_entity_ids: names(&self.entity_ids, ents),
                        implied_category_ids: names(&self.category_ids, implied),
                    }
                })
                .collect(),
        }
    }

    /// The ids behind an [`IndexedMatch`]'s positions.
    pub fn id_tables(&self) -> IdTables<'_> {
        IdTables {
            categories: &self.category_ids,
            entities: &self.entity_ids,
            sensitive_topics: &self.sensitive_ids,
            offers: self
                .offers
                .iter()
                .map(|o| [&*o.snapshot_id, &*o.offer_id, &*self.campaign_ids[o.campaign as usize], &*self.advertiser_ids[o.advertiser as usize]])
                .collect(),
        }
    }

    /// Whether a topic's category (a category is its own; an entity has its categories) meets `f`.
    fn any_category_of(&self, topic: Topic, f: impl Fn(u32) -> bool) -> bool {
        match topic {
            Topic::Category(c) => f(c),
            Topic::Entity(e) => self.entity_categories[e as usize].iter().any(|&c| f(c)),
        }
    }

    /// Whether a weak topic is confirmed: a category of it is related (`related`) to a strong
    /// signal's category, or to a category of another weak topic. The lists are sorted once,
    /// so each question is a few binary searches, not a walk over every other topic.
    fn confirmation(&self, strong: &[u32], weak: impl Iterator<Item = Topic>) -> impl Fn(Topic) -> bool + '_ {
        let mut strong = strong.to_vec();
        strong.sort_unstable();
        strong.dedup();
        // Categories above a strong one: a category among them is related to it.
        let mut above_strong: Vec<u32> = strong.iter().flat_map(|&s| self.ancestors[s as usize].iter().copied()).collect();
        above_strong.sort_unstable();
        above_strong.dedup();
        let mut weak: Vec<Topic> = weak.collect();
        weak.sort_unstable();
        weak.dedup();
        // (category, weak topic) for each category of a weak topic, and for each above one.
        let mut weak_at: Vec<(u32, Topic)> = Vec::new();
        let mut above_weak: Vec<(u32, Topic)> = Vec::new();
        for &w in &weak {
            let categories: &[u32] = match w {
                Topic::Category(ref c) => std::slice::from_ref(c),
                Topic::Entity(e) => &self.entity_categories[e as usize],
            };
            for &o in categories {
                weak_at.push((o, w));
                above_weak.extend(self.ancestors[o as usize].iter().map(|&a| (a, w)));
            }
        }
        weak_at.sort_unstable();
        weak_at.dedup();
        above_weak.sort_unstable();
        above_weak.dedup();
        // Whether `list` holds, for category `c`, a topic other than `topic` (entries are
        // distinct, so two entries for `c` always include another).
        let another = |list: &[(u32, Topic)], c: u32, topic: Topic| {
            let from = list.partition_point(|&(x, _)| x < c);
            let mut at = list[from..].iter().take_while(|&&(x, _)| x == c);
            match (at.next(), at.next()) {
                (Some(_), Some(_)) => true,
                (Some(&(_, only)), None) => only != topic,
                _ => false,
            }
        };
        move |topic: Topic| {
            self.any_category_of(topic, |c| {
                let up = &self.ancestors[c as usize];
                strong.binary_search(&c).is_ok()
                    || above_strong.binary_search(&c).is_ok()
                    || up.iter().any(|a| strong.binary_search(a).is_ok())
                    || another(&weak_at, c, topic)
                    || another(&above_weak, c, topic)
                    || up.iter().any(|&a| another(&weak_at, a, topic))
            })
        }
    }

    /// The top-level category above a category (or the category itself).
    fn root(&self, c: u32) -> u32 {
        self.ancestors[c as usize].last().copied().unwrap_or(c)
    }

    /// Whether a topic names what is asked: a category below the top or a thing that is not
    /// broad (a product, a brand of a narrow category). A place or a broad brand says where or
    /// whose, and a top-level category only what kind.
    fn names_a_thing(&self, topic: Topic) -> bool {
        match topic {
            Topic::Category(c) => !self.ancestors[c as usize].is_empty(),
            Topic::Entity(e) => !self.entity_broad[e as usize],
        }
    }

    /// Whether two categories are the same or one is an ancestor of the other.
    fn related(&self, a: u32, b: u32) -> bool {
        a == b || self.ancestors[a as usize].contains(&b) || self.ancestors[b as usize].contains(&a)
    }

    /// Matches one turn: what the message says (read clause by clause), digest ids, intent,
    /// then the top-K eligible offers.
    pub fn find_indexed(&self, q: &MatchQuery) -> IndexedMatch {
        self.find_indexed_within(q, &mut Steps::default())
    }

    /// [`find_indexed`](Self::find_indexed) within a step budget (`steps`): past it, the turn is
    /// a no-fill that says so (`over_budget`: no message intent, no signal, no candidate) and
    /// keeps every sensitive topic the message names, which are read before anything can spend
    /// the budget. `steps.used()` is what the turn cost, the fuzz harness's measure.
    pub fn find_indexed_within(&self, q: &MatchQuery, steps: &mut Steps) -> IndexedMatch {
        // 1. What the message says: its words read clause by clause, and the learned classifier's
        //    reading of the whole turn (models/turn-classifier/).
        let normalized = q.message.map(normalize);
        let reading = normalized.as_deref().map(|m| reading::read(&self.matcher, m, &self.entity_place, steps)).unwrap_or_default();
        let model = TurnClassifier::embedded();
        let (sensitive_at, commercial_at) = model.thresholds();
        // The model reads the turn with its typos corrected ("flihgts" as "flights").
        let model_text = normalized.as_deref().map(|m| reading::corrected(&self.matcher, m, &reading.typos));
        let scores = model_text.as_deref().map(|m| model.scores(m.char_indices().nth(MODEL_MAX_CHARS).map_or(m, |(end, _)| &m[..end])));
        // Counted up to the threshold only: a full count walks a 4,000-character paste.
        let words = normalized.as_deref().map_or(0, |m| m.split_whitespace().take(MODEL_MIN_WORDS).count());
        let model_sensitive = words >= MODEL_MIN_WORDS && scores.is_some_and(|s| s.sensitive >= sensitive_at);
        // The classifier does not read negation: in a turn that refuses something ("not looking
        // for headphone recs, why is my xm5 mic muffled"), a cue-less request is what it reads in
        // the rest of the turn ("don't need flights, booked. still need a hotel in tokyo").
        let model_commercial = scores.is_some_and(|s| s.commercial >= commercial_at)
            && (reading.refused_spans.is_empty()
                || normalized.as_deref().is_some_and(|m| model.scores(&unrefused(m, &reading.refused_spans)).commercial >= commercial_at));
        let model_not_commercial = words >= MODEL_MIN_WORDS
            && scores.is_some_and(|s| s.commercial <= COMMERCIAL_VETO_LOGIT)
            && model_text.as_deref().and_then(past_the_window).is_none_or(|end| model.scores(end).commercial <= COMMERCIAL_VETO_LOGIT);
        // Ages, school years, medicine names and adult venues: patterns, not words (linear in
        // the text, read whatever the budget).
        let mut patterns = normalized.as_deref().map(policy_patterns::read).unwrap_or_default();
        let mut sensitive_patterns = std::mem::take(&mut patterns.families);
        let mut sensitive = reading.sensitive.clone();
        let leans_sensitive = words < MODEL_MIN_WORDS || scores.is_some_and(|s| s.sensitive >= CONTEXT_SENSITIVE_LOGIT);
        // An asset's name asked for (`asked_aliases`) in a clause that asks and names no catalog
        // topic, where the classifier leans sensitive at all, is the topic itself ("하이닉스 지금
        // 더 사도 됨?"); anywhere else it is a context word (a windfall from 하닉 spent on a
        // phone, a gift for a husband who works at 하이닉스).
        let mut context = std::borrow::Cow::Borrowed(reading.context_sensitive.as_slice());
        for &(s, at, clause) in &reading.asked_sensitive {
            let first = reading.topics.partition_point(|t| t.clause < clause);
            let names_a_topic = reading.topics.get(first).is_some_and(|t| t.clause == clause);
            if leans_sensitive && reading.asks_in(clause) && !names_a_topic {
                sensitive.push(s);
            } else {
                context.to_mut().push((s, at, clause));
            }
        }
        // The byte where the classifier's window ends in the turn as read (typos corrected in
        // place keep a word where it was, give or take a letter); with whether the classifier
        // leans sensitive at all or cannot vouch (a short turn, above), what context evidence needs.
        let text = normalized.as_deref().unwrap_or("");
        let model_window = text.char_indices().nth(MODEL_MAX_CHARS).map_or(text.len(), |(end, _)| end);
        // A turn that speaks of a pet: a topic's words said of pets too (a vaccination, a night
        // at the vet's) count only beside other evidence, as context words do. Past the
        // classifier's window it cannot vouch, and they count as they stand.
        if patterns.speaks_of_a_pet && model_window == text.len() && sensitive.iter().any(|&s| self.sensitive_of_pets[s as usize]) {
            let others = sensitive.iter().any(|&s| !self.sensitive_of_pets[s as usize]) || !context.is_empty();
            if !(others || !sensitive_patterns.is_empty() || leans_sensitive) {
                sensitive.retain(|&s| !self.sensitive_of_pets[s as usize]);
            }
        }
        // Context evidence (a topic's context words, a minor age not said of the user) counts
        // beside a sensitive word or another pattern, where the classifier leans sensitive at
        // all, or where it cannot vouch (a short turn; past its window).
        let age_mentioned = !patterns.minor_age_own && sensitive_patterns.contains(&policy_patterns::MINOR_AGE);
        if !context.is_empty() || age_mentioned {
            let other_patterns = sensitive_patterns.iter().any(|&p| !(age_mentioned && p == policy_patterns::MINOR_AGE));
            let beside_other_evidence = !sensitive.is_empty() || other_patterns;
            let corroborated = beside_other_evidence || leans_sensitive;
            // A context word said of someone the user cares for (a mother's check-up, a patient's
            // discharge), in a turn about a pet (the vet's "야간 병원"), or in the clause that asks
            // for a thing (a worry that is the reason for a purchase: "불안해서 vpn 하나
            // 결제하려고요"), needs the classifier to read the turn as sensitive, not merely to
            // lean (or to be unable to vouch: a short turn).
            let reads_sensitive = model_sensitive || words < MODEL_MIN_WORDS;
            let counts = |at: usize, clause: u32| {
                at >= model_window
                    || beside_other_evidence
                    || (leans_sensitive
                        && (reads_sensitive || !(reading.asks_in(clause) || patterns.speaks_of_a_pet || patterns.said_of_someone_cared_for(text, at))))
            };
            sensitive.extend(context.iter().filter(|&&(_, at, clause)| counts(at, clause)).map(|&(s, _, _)| s));
            // An age the classifier did not read (only past its window) counts as it stands.
            if age_mentioned && !corroborated && policy_patterns::says_minor_age(&text[..model_window]) {
                sensitive_patterns.retain(|&p| p != policy_patterns::MINOR_AGE);
            }
        }
        // A quoted word of a topic that documents quote (a clinic's notice, a case note pasted to
        // proofread: `mentioned_in_quotes`) may be only mentioned, as a word joined from two of
        // its own may ("travels a lot to events" holds "lotto", "a hero in" "heroin"); any other
        // quoted word (a quoted "I want to die") counts as it stands.
        let mentioned_in_quotes = |s: u32| self.sensitive_mentioned_in_quotes[s as usize];
        sensitive.extend(reading.quoted_sensitive.iter().map(|&(s, _)| s).filter(|&s| !mentioned_in_quotes(s)));
        let mentioned = reading.quoted_sensitive.iter().filter(|&&(s, _)| mentioned_in_quotes(s));
        // One that may be only mentioned counts beside other evidence or where the classifier
        // reads the turn as sensitive itself; where it cannot vouch, as it stands.
        if !reading.joined_sensitive.is_empty() || mentioned.clone().next().is_some() {
            let corroborated = !sensitive.is_empty() || !sensitive_patterns.is_empty() || model_sensitive || words < MODEL_MIN_WORDS;
            let counts = |&&(_, at): &&(u32, usize)| corroborated || at >= model_window;
            sensitive.extend(reading.joined_sensitive.iter().chain(mentioned).filter(counts).map(|&(s, _)| s));
        }
        // A topic said of the user (a minor's school year) is said of their child when a grown-up
        // speaks of their own child ("중학생 손자가 영어를 어려워해서 …"), as ages are.
        if patterns.speaks_of_own_child {
            sensitive.retain(|&s| !self.sensitive_of_the_user[s as usize]);
        }
        let over_budget = |mut sensitive: Vec<u32>, dropped: u32| {
            sensitive.sort_unstable();
            sensitive.dedup();
            let intent = effective_intent(MessageIntent::None, q.intent_type);
            IndexedMatch {
                sensitive_topics: self.by_position(&self.sensitive_ids, sensitive),
                sensitive_patterns: sensitive_patterns.clone(),
                model_sensitive,
                message_intent: MessageIntent::None,
                intent,
                commercial_intent: is_commercial(intent),
                signal_categories: Vec::new(),
                signal_entities: Vec::new(),
                dropped_digest_ids: dropped,
                candidates: Vec::new(),
                over_budget: true,
                excluded_by_app: false,
            }
        };
        if reading.over_budget {
            return over_budget(sensitive, 0);
        }
        // 2. Digest ids: allowlisted ones count, the rest are dropped and counted.
        let mut dropped = 0u32;
        let mut asked: Vec<u32> = Vec::new();
        let mut entities: Vec<u32> = Vec::new();
        for id in q.category_ids {
            match self.category_by_id.get(id.as_str()) {
                Some(&c) => asked.push(c),
                None => dropped += 1,
            }
        }
        for id in q.entity_ids {
            match self.entity_by_id.get(id.as_str()) {
                Some(&e) => entities.push(e),
                None => dropped += 1,
            }
        }
        let mut excluded: Vec<u32> = Vec::new();
        for id in q.excluded_entity_ids {
            match self.entity_by_id.get(id.as_str()) {
                Some(&e) => excluded.push(e),
                None => dropped += 1,
            }
        }
        // 3. Message topics: strong ones count; a weak one only beside a related strong signal
        //    (a category or an entity's category, from the message or the digest).
        // Two weak aliases of related things confirm each other (파리 + 투어), a lone one does not.
        // Every test below is a lookup in a sorted list or a table by clause, built in one walk
        // over the topics: a turn pays for each topic once, however many it names.
        let topics = &reading.topics;
        steps.take(topics.len() * 8);
        let mut strong: Vec<u32> = asked.iter().copied().chain(entities.iter().flat_map(|&e| self.entity_categories[e as usize].iter().copied())).collect();
        for t in topics.iter().filter(|t| !t.weak) {
            match t.topic {
                Topic::Category(c) => strong.push(c),
                Topic::Entity(e) => strong.extend_from_slice(&self.entity_categories[e as usize]),
            }
        }
        let confirmed_by_others = self.confirmation(&strong, topics.iter().filter(|t| t.weak).map(|t| t.topic));
        // Two different weak words of one category, one of them the word a cue is said of,
        // confirm each other: "we need one place for tasks, meeting notes and shared calendar"
        // asks for a team tool. Not a word and its plural ("trains … freight train"), and not
        // words no cue is said of ("they dont speak much english so … korean staff").
        // (topic, word) pairs, each once, and the topics a cue is said of in a weak word.
        let mut weak_words: Vec<(Topic, &str)> = topics.iter().filter(|t| t.weak).map(|t| (t.topic, &text[t.start..t.end])).collect();
        weak_words.sort_unstable();
        weak_words.dedup_by(|a, b| a.0 == b.0 && (a.1 == b.1 || a.1.strip_suffix('s') == Some(b.1) || b.1.strip_suffix('s') == Some(a.1)));
        let mut weak_heads: Vec<Topic> = topics.iter().filter(|t| t.weak && t.head).map(|t| t.topic).collect();
        weak_heads.sort_unstable();
        let said_in_two_words = |topic: Topic| {
            let from = weak_words.partition_point(|&(t, _)| t < topic);
            weak_heads.binary_search(&topic).is_ok() && weak_words[from..].iter().take_while(|&&(t, _)| t == topic).nth(1).is_some()
        };
        // A weak word a cue is said of, said as a thing one gets ("looking for a tab for my
        // mom"), is confirmed by that too.
        // A weak word of a product that lies within a place ("which pass" of the Japan Rail
        // Pass) is confirmed by a place in that one alone: "which pass for Tokyo and Kyoto", not
        // "which pass for the Paris museums" nor "every freight train we pass".
        // The turn's places are listed once, on the first such word: other turns pay nothing,
        // and a turn of many such words does not walk its topics for each.
        let named_places: std::cell::OnceCell<Vec<u32>> = std::cell::OnceCell::new();
        let names_a_place_in = |w: u32| {
            let places = named_places.get_or_init(|| {
                let mut places: Vec<u32> = topics
                    .iter()
                    .filter_map(|t| match t.topic {
                        Topic::Entity(p) if self.entity_place[p as usize] => Some(p),
                        _ => None,
                    })
                    .collect();
                places.sort_unstable();
                places.dedup();
                places
            });
            places.iter().any(|&p| p == w || self.entity_within[p as usize].binary_search(&w).is_ok())
        };
        let in_its_place = |e: u32| {
            let mut places = self.entity_within[e as usize].iter().filter(|&&w| self.entity_place[w as usize]).peekable();
            places.peek().is_some().then(|| places.any(|&w| names_a_place_in(w)))
        };
        let confirmed_otherwise =
            |t: &TopicHit| confirmed_by_others(t.topic) || said_in_two_words(t.topic) || (t.head && reading::said_as_a_thing(text, t.start, t.end));
        let confirmed = |t: &TopicHit| match t.topic {
            Topic::Entity(e) if self.entity_product[e as usize] => in_its_place(e).unwrap_or_else(|| confirmed_otherwise(t)),
            _ => confirmed_otherwise(t),
        };
        // Where a trip starts is not where it goes: "jeju flights from seoul", "서울에서 도쿄 가는
        // 항공권". A place read as an origin does not count when its clause names another place
        // that is not one. The words around a place are read only when its clause names another.
        let place = |t: Topic| matches!(t, Topic::Entity(e) if self.entity_place[e as usize]);
        let clauses = topics.iter().map(|t| t.clause as usize + 1).max().unwrap_or(0);
        let mut places: Vec<TwoTopics> = vec![TwoTopics::default(); clauses];
        for t in topics.iter().filter(|t| place(t.topic)) {
            places[t.clause as usize].add(t.topic);
        }
        let origin: Vec<bool> =
            topics.iter().map(|t| place(t.topic) && places[t.clause as usize].other_than(t.topic) && reading::is_origin(text, t, topics)).collect();
        let mut going: Vec<TwoTopics> = vec![TwoTopics::default(); clauses];
        for (t, _) in topics.iter().zip(&origin).filter(|(t, &origin)| place(t.topic) && !origin) {
            going[t.clause as usize].add(t.topic);
        }
        let left_behind = |i: usize| origin[i] && going[topics[i].clause as usize].other_than(topics[i].topic);
        // A place named again more precisely as another place of that name ("Paris … Paris,
        // Texas lol, not France"): its bare name in the turn is that other place. Not a place
        // within it ("서울 … 서울역"). (name, place) for every word-boundary start of a longer
        // place name read in the turn ("paris" of "paris, texas"), each once and sorted: each
        // place read looks its own name up, so a turn of many places costs a search each.
        let mut longer_names: Vec<(&str, u32)> = Vec::new();
        for t in topics {
            if let Topic::Entity(e) = t.topic {
                if self.entity_place[e as usize] {
                    let span = &text[t.start..t.end];
                    steps.take(1);
                    longer_names.extend(span.match_indices([' ', ',']).map(|(at, _)| (&span[..at], e)));
                }
            }
        }
        longer_names.sort_unstable();
        longer_names.dedup();
        let renamed: Vec<bool> = topics
            .iter()
            .map(|t| match t.topic {
                Topic::Entity(e) if !longer_names.is_empty() && self.entity_place[e as usize] => {
                    let name = &text[t.start..t.end];
                    let from = longer_names.partition_point(|&(n, _)| n < name);
                    longer_names[from..].iter().take_while(|&&(n, _)| n == name).any(|&(_, other)| {
                        steps.take(1);
                        other != e && !self.nested(e, other)
                    })
                }
                _ => false,
            })
            .collect();
        // A weak word of a category that no cue is said of does not count beside another category
        // of its kind that its clause names: "5박6일 여행자보험", "3박4일 렌트카" (the nights are the trip's
        // length, not a stay), "i'm flying solo … need a hotel" (how they travel, not a flight).
        // (clause, root, category) of the strong categories, each once: a lookup walks at most
        // the categories under one root, which the taxonomy bounds, not the turn.
        // Built only when a weak word is there to ask it.
        let any_weak = topics.iter().any(|t| t.weak);
        // The fourth field is where the category is first named in the clause.
        let mut strong_by_clause: Vec<(u32, u32, u32, usize)> = topics
            .iter()
            .filter(|t| any_weak && !t.weak)
            .filter_map(|t| match t.topic {
                Topic::Category(c) => Some((t.clause, self.root(c), c, t.start)),
                Topic::Entity(_) => None,
            })
            .collect();
        strong_by_clause.sort_unstable();
        strong_by_clause.dedup_by_key(|&mut (cl, r, c, _)| (cl, r, c));
        let beside_another_of_its_kind = |t: &TopicHit, steps: &mut Steps| match t.topic {
            Topic::Category(c) => {
                let root = self.root(c);
                let from = strong_by_clause.partition_point(|&(cl, r, _, _)| (cl, r) < (t.clause, root));
                // The word a cue is said of is the ask ("루브르 투어 예약하고 싶어 숙소는 친구네서"),
                // unless a thing of its kind named before it is what it goes on about: "KTX
                // 서울-부산 왕복만 예매하면 됨" books the KTX both ways.
                strong_by_clause[from..].iter().take_while(|&&(cl, r, _, _)| (cl, r) == (t.clause, root)).any(|&(_, _, s, at)| {
                    steps.take(1);
                    (!t.head || at < t.start) && !self.related(s, c)
                })
            }
            Topic::Entity(_) => false,
        };
        // A weak word alone in its clause goes on about the thing of its kind named before it:
        // "서울역에서 몇 시 KTX 타야 할까요? 왕복으로 예매하려고요" books the KTX both ways, not a
        // flight. Places beside it say where, not what: "KTX 타야 돼요. 서울-부산 왕복 …" too.
        // (root, category, first clause) of the strong categories: at most one entry per
        // category of the taxonomy, however long the turn.
        // Both built only when a weak word is there to ask them (`strong_by_clause` is empty else).
        let mut first_of_kind: Vec<(u32, u32, u32)> = strong_by_clause.iter().map(|&(cl, r, c, _)| (r, c, cl)).collect();
        first_of_kind.sort_unstable();
        first_of_kind.dedup_by_key(|&mut (r, c, _)| (r, c));
        let mut topics_in_clause = vec![0u32; if any_weak { clauses } else { 0 }];
        if any_weak {
            for t in topics.iter().filter(|t| !place(t.topic)) {
                topics_in_clause[t.clause as usize] += 1;
            }
        }
        let after_another_of_its_kind = |t: &TopicHit, steps: &mut Steps| match t.topic {
            Topic::Category(c) if topics_in_clause[t.clause as usize] == 1 => {
                let root = self.root(c);
                let from = first_of_kind.partition_point(|&(r, _, _)| r < root);
                first_of_kind[from..].iter().take_while(|&&(r, _, _)| r == root).any(|&(_, s, first)| {
                    steps.take(1);
                    first < t.clause && !self.related(s, c)
                })
            }
            _ => false,
        };
        let kept: Vec<bool> = (0..topics.len())
            .map(|i| {
                (!topics[i].weak || (confirmed(&topics[i]) && !beside_another_of_its_kind(&topics[i], steps) && !after_another_of_its_kind(&topics[i], steps)))
                    && !left_behind(i)
                    && !renamed[i]
            })
            .collect();
        let kept_topics = || topics.iter().zip(&kept).filter(|(_, &k)| k).map(|(t, _)| t);
        let mut counted: Vec<(Topic, u32, bool)> = kept_topics().map(|t| (t.topic, t.clause, t.purpose)).collect();
        // A category said with 만 ("비행기는 친구가 해결해준대서 숙소만 구하면 됨") is the one thing of
        // its kind asked: other categories under its top-level one, and things of theirs, are not.
        let mut only: Vec<u32> = kept_topics()
            .filter(|t| t.only)
            .filter_map(|t| match t.topic {
                Topic::Category(c) => Some(c),
                Topic::Entity(_) => None,
            })
            .collect();
        if !only.is_empty() {
            only.sort_unstable();
            only.dedup();
            steps.take(counted.len() * only.len());
            let set_aside = |c: u32| only.iter().any(|&o| self.root(o) == self.root(c)) && !only.iter().any(|&o| self.related(o, c));
            counted.retain(|&(topic, _, _)| match topic {
                Topic::Category(c) => !set_aside(c),
                Topic::Entity(e) => {
                    let categories = &self.entity_categories[e as usize];
                    self.entity_broad[e as usize] || categories.is_empty() || !categories.iter().all(|&c| set_aside(c))
                }
            });
        }
        // A thing the user moves away from ("we've outgrown Trello, what should we switch to"):
        // offers for others of its kind are what is asked, not "another thing" (`names_another`),
        // and its kind is asked for (its categories, in its clause) when its clause names no
        // other thing. It still counts as named: an offer aimed at it is aimed at its users.
        // Only a thing counts (a product, a brand of a narrow category), not a place.
        let mut leaving_entities: Vec<u32> = Vec::new();
        if topics.iter().any(|t| t.left) {
            let thing = |t: &TopicHit| match t.topic {
                Topic::Category(_) => true,
                Topic::Entity(e) => !self.entity_broad[e as usize],
            };
            let leaving = |t: &TopicHit| t.left && thing(t);
            let mut other_thing = vec![false; clauses];
            let mut named_again: Vec<Topic> = Vec::new();
            for t in kept_topics().filter(|t| !leaving(t)) {
                other_thing[t.clause as usize] |= thing(t);
                named_again.push(t.topic);
            }
            named_again.sort_unstable();
            for t in kept_topics() {
                if let Topic::Entity(e) = t.topic {
                    if leaving(t) {
                        leaving_entities.push(e);
                        if !other_thing[t.clause as usize] {
                            counted.extend(self.entity_categories[e as usize].iter().map(|&c| (Topic::Category(c), t.clause, t.purpose)));
                        }
                    }
                }
            }
            // Named again, not left, it is the thing asked about.
            leaving_entities.retain(|&e| named_again.binary_search(&Topic::Entity(e)).is_err());
            leaving_entities.sort_unstable();
        }
        // What a thing is for is not what is asked: "a VPN for hotel wifi", "비행기에서 쓸 헤드폰".
        // A topic in a purpose phrase is dropped when its clause names, outside the phrase,
        // something under another top-level category; beside one of its own kind ("a hotel for
        // my trip to Tokyo") or alone it still counts.
        // (clause, top-level category); a negative context names something else, of no kind of
        // the catalog's: "a laptop bag for my MacBook" asks for the bag.
        let mut heads: Vec<(u32, u32)> = reading.other_heads.iter().map(|&c| (c, u32::MAX)).collect();
        for &(topic, clause, purpose) in &counted {
            match topic {
                _ if purpose => {}
                Topic::Category(c) => heads.push((clause, self.root(c))),
                Topic::Entity(e) => heads.extend(self.entity_categories[e as usize].iter().map(|&c| (clause, self.root(c)))),
            }
        }
        heads.sort_unstable();
        heads.dedup();
        // The host's digest names what the conversation is about ("ok between those two, which
        // would you pick for a 14 hour flight?" after headphones were compared): its categories
        // head every clause, so a purpose of another kind is what they are for.
        let mut digest_roots: Vec<u32> = asked.iter().map(|&c| self.root(c)).collect();
        digest_roots.sort_unstable();
        digest_roots.dedup();
        let clause_has_head = |clause: u32| !digest_roots.is_empty() || heads.binary_search_by_key(&clause, |&(c, _)| c).is_ok();
        // A clause naming nothing but what something is for goes on about the thing the nearest
        // clause before it names: "Sony WH-1000XM5, comfortable with glasses? Thinking of buying
        // a pair for the long flight to Tokyo" asks for the headphones, not a flight.
        // Only a thing heads it (`names_a_thing`), not a place: "I work from cafés in Lisbon …
        // should I be paying for a VPN?"
        let mut thing_clauses: Vec<u32> =
            counted.iter().filter(|&&(topic, _, purpose)| !purpose && self.names_a_thing(topic)).map(|&(_, clause, _)| clause).collect();
        thing_clauses.sort_unstable();
        let head_before = |clause: u32| thing_clauses[..thing_clauses.partition_point(|&c| c < clause)].last().copied();
        counted.retain(|&(topic, clause, purpose)| {
            if !purpose {
                return true;
            }
            let Some(head) = (if clause_has_head(clause) { Some(clause) } else { head_before(clause) }) else { return true };
            self.any_category_of(topic, |o| heads.binary_search(&(head, self.root(o))).is_ok() || digest_roots.binary_search(&self.root(o)).is_ok())
        });
        let counted: Vec<(Topic, u32)> = counted.into_iter().map(|(topic, clause, _)| (topic, clause)).collect();
        steps.take(counted.len() * 4);
        // The clauses that name what is asked (`names_a_thing`): "영어 회화 다시 해볼까 싶은데요, …
        // 할 수 있는 앱 구독하면" asks for the language course before the app.
        let names_thing: Vec<u32> = counted.iter().filter(|&&(t, _)| self.names_a_thing(t)).map(|&(_, c)| c).collect();
        let asking = asking_clauses(&names_thing, &reading.purchase_clauses, &reading.compare_clauses);
        let in_request = |clause: u32| asking.as_ref().is_none_or(|a| a.binary_search(&clause).is_ok());
        // The heads of the request: categories a counting cue is said of (`TopicHit::head`).
        // When the message asks for one, the other categories it asks for rank lower, beside
        // it: "호텔 와이파이 찜찜해서 VPN 하나 결제해둘까" asks for the VPN first. The digest's
        // categories are the host's typed claim and are never beside.
        let mut cue_heads: Vec<(Topic, u32)> = topics.iter().filter(|t| t.head).map(|t| (t.topic, t.clause)).collect();
        cue_heads.sort_unstable();
        let digest_asked = asked.len();
        let mut request_heads: Vec<u32> = Vec::new();
        let mut beside: Vec<u32> = Vec::new();
        for &(topic, clause) in &counted {
            match topic {
                Topic::Category(c) if in_request(clause) => {
                    asked.push(c);
                    if cue_heads.binary_search(&(topic, clause)).is_ok() {
                        request_heads.push(c);
                    } else {
                        beside.push(c);
                    }
                }
                Topic::Category(_) => {}
                Topic::Entity(e) => entities.push(e),
            }
        }
        // A cue said of a product with no category word in its clause ("is the 7 day JR Pass
        // still worth buying? … then fly out of Haneda") asks for the product's categories and
        // heads the request with them when the turn names the product before any other category
        // it asks for: what comes after without a cue of its own is beside it. A request read
        // by the classifier with no cue word heads with the product the same way when the only
        // other category it names is a top-level one, which says only what kind ("Galaxy Tab or
        // iPad Air? mostly for reading apps": a tablet, not an app).
        if request_heads.is_empty() && !asked.is_empty() {
            let first_other = counted.iter().filter(|(t, _)| matches!(t, Topic::Category(_))).map(|&(_, clause)| clause).min();
            let only_kinds_asked = asked.iter().all(|&c| self.ancestors[c as usize].is_empty());
            for &(topic, clause) in &counted {
                if let Topic::Entity(e) = topic {
                    let cued = (asking.is_none() && only_kinds_asked) || reading.asks_in(clause);
                    if self.entity_product[e as usize] && cued && first_other.is_none_or(|c| clause <= c) {
                        request_heads.extend_from_slice(&self.entity_categories[e as usize]);
                        asked.extend_from_slice(&self.entity_categories[e as usize]);
                    }
                }
            }
        }
        // Brands set against each other with nothing else asked ("Sony or Bose for a 13-hour
        // flight?", "bitwarden or 1password") ask for the kind a narrow one is of, so an offer
        // there that targets no brand the turn names still answers; so does a narrow brand
        // with a purchase cue of its own. One brand asked about ("is trello any good") asks
        // only about that brand, and a broad one (Sony: all electronics) says only whose.
        if asked.is_empty() {
            let mut named_things: Vec<u32> = counted
                .iter()
                .filter_map(|&(topic, clause)| match topic {
                    Topic::Entity(e) if !self.entity_place[e as usize] && in_request(clause) => Some(e),
                    _ => None,
                })
                .collect();
            named_things.sort_unstable();
            named_things.dedup();
            for &(topic, clause) in &counted {
                if let Topic::Entity(e) = topic {
                    let set_against = named_things.len() >= 2 || reading.purchase_clauses.binary_search(&clause).is_ok();
                    if !self.entity_broad[e as usize] && !self.entity_product[e as usize] && in_request(clause) && set_against {
                        asked.extend_from_slice(&self.entity_categories[e as usize]);
                    }
                }
            }
        }
        if request_heads.is_empty() {
            beside.clear();
        } else {
            request_heads.sort_unstable();
            let mut from_digest = asked[..digest_asked].to_vec();
            from_digest.sort_unstable();
            beside.retain(|c| request_heads.binary_search(c).is_err() && from_digest.binary_search(c).is_err());
            beside.sort_unstable();
            beside.dedup();
        }
        entities.sort_unstable();
        entities.dedup();
        asked.sort_unstable();
        asked.dedup();
        // A named entity also signals its categories, weakly.
        let mut implied: Vec<u32> =
            entities.iter().flat_map(|&e| self.entity_categories[e as usize].iter().copied()).filter(|c| asked.binary_search(c).is_err()).collect();
        implied.sort_unstable();
        implied.dedup();
        sensitive.sort_unstable();
        sensitive.dedup();
        // 4. Intent: a cue counts for the topics of its own clause or, in a clause naming none
        //    ("…16GB RAM minimum. What do you recommend?"), of the clauses before it; with no
        //    topic in the whole message (a follow-up: "그걸로 예약할게"), for the digest's. A cue
        //    before every topic, or in a voided clause, counts for nothing.
        let first_counted = counted.iter().map(|&(_, c)| c).min();
        let qualifies = |clause: &u32| first_counted.is_none_or(|first| first <= *clause);
        let (after, line_end) = reading.asks_after_task;
        let names_a_topic = |c: u32| {
            let first = reading.topics.partition_point(|t| t.clause < c);
            reading.topics.get(first).is_some_and(|t| t.clause == c)
        };
        // After the task, a purchase cue asks; a compare cue asks only for a topic of its own
        // clause ("…뉘앙스예요? 그리고 여행 일본어 앱도 하나 추천해줘요"), since a bare "which one"
        // after a question about a film set in a hotel is part of the question.
        let after_the_task = |c: &&u32| **c >= after && **c <= line_end && qualifies(c);
        let asked_after_the_task =
            reading.purchase_clauses.iter().any(|c| after_the_task(&c)) || reading.compare_clauses.iter().filter(after_the_task).any(|&c| names_a_topic(c));
        let cue_asks = reading.purchase_clauses.iter().chain(&reading.compare_clauses).any(qualifies);
        let message_intent = if reading.not_commercial && !asked_after_the_task {
            MessageIntent::Low
        } else if reading.refused && !cue_asks && counted.is_empty() {
            // A refusal that leaves nothing asked and names nothing else ("아 됐어 안 살래",
            // "already bought it yesterday") takes back what the digest said the user was after.
            MessageIntent::Low
        } else if model_not_commercial {
            MessageIntent::None
        } else if reading.purchase_clauses.iter().any(qualifies) {
            MessageIntent::Purchase
        } else if reading.compare_clauses.iter().any(qualifies) {
            MessageIntent::Compare
        } else if model_commercial && !counted.is_empty() {
            // A request with no cue word ("flights to Tokyo for next weekend"), read as one by
            // the classifier, about a topic the message names.
            MessageIntent::Purchase
        } else {
            MessageIntent::None
        };
        let effective_intent = effective_intent(message_intent, q.intent_type);
        if steps.spent() {
            return over_budget(sensitive, dropped);
        }

        // The things named that the turn does not move away from.
        let named: std::borrow::Cow<[u32]> = if leaving_entities.is_empty() {
            std::borrow::Cow::Borrowed(&entities)
        } else {
            std::borrow::Cow::Owned(entities.iter().copied().filter(|e| leaving_entities.binary_search(e).is_err()).collect())
        };
        let blocked = self.app_exclusions(q);
        let evidence =
            Evidence { entities: &entities, named: &named, asked: &asked, beside: &beside, implied: &implied, excluded: &excluded, blocked: &blocked };
        let (candidates, excluded_by_app) = if q.top_k == 0 { (Vec::new(), false) } else { self.rank(q, &evidence, effective_intent, steps) };
        if steps.spent() {
            return over_budget(sensitive, dropped);
        }

        let by_id = |ids: &[Box<str>], list: Vec<u32>| self.by_position(ids, list);
        let mut signal_categories = asked;
        signal_categories.extend_from_slice(&implied);
        IndexedMatch {
            sensitive_topics: by_id(&self.sensitive_ids, sensitive),
            sensitive_patterns,
            model_sensitive,
            message_intent,
            intent: effective_intent,
            commercial_intent: is_commercial(effective_intent),
            signal_categories: by_id(&self.category_ids, signal_categories),
            signal_entities: by_id(&self.entity_ids, entities),
            dropped_digest_ids: dropped,
            candidates,
            over_budget: false,
            excluded_by_app,
        }
    }

    /// The app's brand-safety exclusions by position: each blocked category with everything
    /// below it (blocking `travel` blocks hotels), and the blocked advertisers, both sorted.
    fn app_exclusions(&self, q: &MatchQuery) -> AppExclusions {
        let mut categories: Vec<u32> = Vec::new();
        for id in q.blocked_category_ids {
            if let Some(&c) = self.category_by_id.get(id.as_str()) {
                categories.push(c);
                categories.extend_from_slice(&self.descendants[c as usize]);
            }
        }
        categories.sort_unstable();
        categories.dedup();
        let mut advertisers: Vec<u32> = q.blocked_advertiser_ids.iter().filter_map(|id| self.advertiser_by_id.get(id.as_str()).copied()).collect();
        advertisers.sort_unstable();
        advertisers.dedup();
        AppExclusions { categories, advertisers }
    }

    /// Positions sorted by the ids they stand for.
    fn by_position(&self, ids: &[Box<str>], mut list: Vec<u32>) -> Vec<u32> {
        list.sort_unstable_by(|a, b| ids[*a as usize].cmp(&ids[*b as usize]));
        list
    }

    /// Category points of an offer: the best of its categories against the categories asked
    /// for and, weakly, those implied by named entities.
    fn category_points(&self, o: &Offer, ev: &Evidence) -> u64 {
        let mut best = 0;
        for &c in o.categories.iter() {
            for &s in ev.asked {
                let (exact, broader, narrower) = if ev.beside.binary_search(&s).is_ok() {
                    (POINTS_BESIDE_CATEGORY, POINTS_BESIDE_BROADER, POINTS_BESIDE_NARROWER)
                } else {
                    (POINTS_CATEGORY, POINTS_OFFER_BROADER, POINTS_OFFER_NARROWER)
                };
                best = best.max(if c == s {
                    exact
                } else if self.ancestors[s as usize].contains(&c) {
                    broader
                } else if self.ancestors[c as usize].contains(&s) {
                    narrower
                } else {
                    0
                });
            }
            for &s in ev.implied {
                best = best.max(if c == s {
                    POINTS_IMPLIED_CATEGORY
                } else if self.ancestors[s as usize].contains(&c) {
                    POINTS_IMPLIED_BROADER
                } else if self.ancestors[c as usize].contains(&s) {
                    POINTS_IMPLIED_NARROWER
                } else {
                    0
                });
            }
        }
        best
    }

    /// An offer aimed at another thing of a kind the turn names, in a related category: a Busan
    /// hotel when the turn asks about Tokyo, a Galaxy Book when it asks about a MacBook (not
    /// AirPods when it names an iPhone: earbuds to go with a phone are another category).
    fn names_another(&self, o: &Offer, entities: &[u32]) -> bool {
        if entities.is_empty() {
            return false;
        }
        let shares_category =
            |a: u32, b: u32| self.entity_categories[a as usize].iter().any(|&x| self.entity_categories[b as usize].iter().any(|&y| self.related(x, y)));
        // An offer for a product the turn names is that very thing, whatever places it also
        // targets: a Japan Rail Pass for "JR pass, Tokyo to Osaka".
        if o.entities.iter().any(|&e| self.entity_product[e as usize] && entities.binary_search(&e).is_ok()) {
            return false;
        }
        // Cheapest tests first: this runs for every posting entry a turn reads. An offer is
        // always about its advertiser's own brand too: Taskloom's offer aimed at Notion users is
        // no other thing when the turn names Taskloom. An offer aimed at a rival's users (an
        // advertiser with a narrow brand of its own, targeting another narrow one of its kind in
        // its category: Taskloom for Notion users) is aimed at any rival's users: a turn that
        // names Trello is no other thing to it. A shop selling a maker's goods (Sony, a brand of
        // all electronics) is no rival of the maker. Asked last, of an entity that would
        // otherwise be another thing.
        let rival = |e: u32| {
            o.advertiser_entity.is_some_and(|a| {
                a != e
                    && !self.entity_broad[a as usize]
                    && !self.entity_broad[e as usize]
                    && self.entity_kinds[a as usize] == self.entity_kinds[e as usize]
                    && shares_category(a, e)
            })
        };
        o.entities.iter().any(|&e| {
            let kind = self.entity_kinds[e as usize];
            !o.entities
                .iter()
                .chain(o.advertiser_entity.as_ref())
                .any(|&mine| self.entity_kinds[mine as usize] == kind && entities.binary_search(&mine).is_ok())
                && entities.iter().any(|&n| self.entity_kinds[n as usize] == kind && shares_category(e, n) && !self.nested(e, n))
                && !rival(e)
        })
    }

    /// Whether one entity lies within the other: Kyoto and Japan, either way round (an offer
    /// for Japan answers a turn about Kyoto; one for Tokyo, a turn about Japan).
    fn nested(&self, a: u32, b: u32) -> bool {
        self.entity_within[a as usize].binary_search(&b).is_ok() || self.entity_within[b as usize].binary_search(&a).is_ok()
    }

    /// Whether the turn said what it asks for about this offer: a category below the top level
    /// that the offer is in (or above or below), or an entity it targets that is not broad (a
    /// product, or a brand of a narrower category). An offer met only through a place, a broad
    /// brand, a top-level category ("trip", "electronics") or a category a named entity implies
    /// answers a question nobody asked: "an eSIM for Tokyo", "a Samsung fridge", "a trip planner
    /// app". A host's digest naming ids is its own typed claim, and is trusted. Naming the
    /// advertiser's own brand (not a broad one) asks about its offers: "is Codeforge any good".
    fn asked_for(&self, o: &Offer, ev: &Evidence) -> bool {
        o.entities.iter().chain(o.advertiser_entity.as_ref()).any(|&e| !self.entity_broad[e as usize] && ev.entities.binary_search(&e).is_ok())
            || o.categories.iter().any(|&c| ev.asked.iter().any(|&s| !self.ancestors[s as usize].is_empty() && self.related(c, s)))
    }

    /// When the turn asks for categories, an offer in none of them (nor above or below one)
    /// is not what was asked: "삼성 노트북" is not a Galaxy phone. An offer with no category
    /// makes no claim and stays.
    fn outside_asked(&self, o: &Offer, asked: &[u32]) -> bool {
        !asked.is_empty() && !o.categories.is_empty() && !o.categories.iter().any(|&c| asked.iter().any(|&s| self.related(c, s)))
    }

    /// The top-K eligible offers. Each posting entry read costs a step: a turn naming hundreds of
    /// things on a large catalog reads hundreds of lists, and the budget bounds that too.
    /// The top-K eligible offers, and whether the app's exclusions set aside one that was
    /// otherwise eligible.
    fn rank(&self, q: &MatchQuery, ev: &Evidence, effective_intent: &str, steps: &mut Steps) -> (Vec<RankedOffer>, bool) {
        let language = self.languages.iter().position(|l| **l == *q.language);
        let Some(language) = language else { return (Vec::new(), false) };
        let country = q.country.and_then(|c| self.country_by_code.get(c.to_ascii_uppercase().as_str()).copied());
        let bucket_bit = q.budget_bucket.and_then(|b| BUCKETS.iter().position(|x| *x == b)).filter(|&p| p != 0).map(|p| 1u8 << p);
        let excluded = ev.excluded;
        let host_named = !q.category_ids.is_empty() || !q.entity_ids.is_empty();
        let eligible = |o: &Offer| -> bool {
            o.active
                && o.language as usize == language
                && q.kind.is_none_or(|k| k == o.kind)
                && o.starts_at_ms.is_none_or(|s| s <= q.now_ms)
                && o.ends_at_ms.is_none_or(|e| q.now_ms < e)
                && (o.countries.is_empty() || country.is_some_and(|c| o.countries.contains(&c)))
                && (o.buckets == 0 || bucket_bit.is_none_or(|b| o.buckets & b != 0))
                && !o.entities.iter().any(|e| excluded.contains(e))
                && !o.advertiser_entity.is_some_and(|e| excluded.contains(&e))
                && !self.names_another(o, ev.named)
                && !self.outside_asked(o, ev.asked)
                && (host_named || self.asked_for(o, ev))
        };
        // Every offer is scored on all its evidence the first time it is seen. Lists are walked
        // from the strongest kind of evidence down, and each list is sorted by static score, so
        // once the best score the next entry could still reach cannot beat the current K-th
        // best, the rest of the list cannot either and the walk leaves it: the answer is exactly
        // that of a full walk of the bounded lists. An entry's best reachable score is the
        // list's own points, plus entity points if an entity list was cut at MAX_POSTING_SCAN
        // (an offer past the cut is met first here), and at least the points of any category
        // list cut before (the same).
        let category_max = if !ev.asked.is_empty() {
            POINTS_CATEGORY
        } else if !ev.implied.is_empty() {
            POINTS_IMPLIED_CATEGORY
        } else {
            0
        };
        let entity_boost = intent_boost(effective_intent, true);
        let mut seen: HashSet<u32, BuildU32Hasher> = HashSet::with_capacity_and_hasher(256, BuildU32Hasher);
        let mut top: BinaryHeap<Ranked<'_>> = BinaryHeap::with_capacity(q.top_k + 1);
        let mut entity_cut = false;
        let mut excluded_by_app = false;
        let blocked = ev.blocked;
        let mut category_cut_points = 0u64;
        let mut visit = |list: &[u32], limit: usize, bound_points: u64, bound_boost: u64| {
            for &oi in list.iter().take(limit) {
                if !steps.take(1) {
                    break;
                }
                let o = &self.offers[oi as usize];
                if top.len() == q.top_k {
                    let worst = top.peek().map(|w| (w.score, w.key));
                    let bound = bound_points * o.static_score * bound_boost;
                    if let Some((score, key)) = worst {
                        if bound < score || (bound == score && (&*o.offer_id, &*o.snapshot_id) > key) {
                            break;
                        }
                    }
                }
                if seen.contains(&oi) || !eligible(o) {
                    continue;
                }
                seen.insert(oi);
                if blocked.excludes(o) {
                    excluded_by_app = true;
                    continue;
                }
                let entity_matched = o.entities.iter().any(|e| ev.entities.binary_search(e).is_ok());
                let points = if entity_matched { POINTS_ENTITY } else { 0 } + self.category_points(o, ev);
                let boost = intent_boost(effective_intent, entity_matched);
                let ranked = Ranked { score: points * o.static_score * boost, key: (&o.offer_id, &o.snapshot_id), offer: oi };
                if top.len() < q.top_k {
                    top.push(ranked);
                } else if top.peek().is_some_and(|w| ranked < *w) {
                    top.pop();
                    top.push(ranked);
                }
            }
        };
        for &e in ev.entities {
            let list = &self.entity_postings[e as usize];
            visit(list, MAX_POSTING_SCAN, POINTS_ENTITY + category_max, entity_boost);
            entity_cut |= list.len() > MAX_POSTING_SCAN;
        }
        let category_lists = [
            (ev.asked, MAX_POSTING_SCAN, POINTS_CATEGORY, POINTS_OFFER_BROADER, POINTS_OFFER_NARROWER),
            (ev.implied, MAX_IMPLIED_SCAN, POINTS_IMPLIED_CATEGORY, POINTS_IMPLIED_BROADER, POINTS_IMPLIED_NARROWER),
        ];
        for (signals, limit, exact, broader, narrower) in category_lists {
            let mut walk = |c: u32, points: u64| {
                let list = &self.category_postings[c as usize];
                let (extra, boost) = if entity_cut { (POINTS_ENTITY, entity_boost) } else { (0, 1000) };
                visit(list, limit, points.max(category_cut_points) + extra, boost);
                if list.len() > limit {
                    category_cut_points = category_cut_points.max(points);
                }
            };
            for &c in signals {
                walk(c, exact);
            }
            for &c in signals {
                for &a in self.ancestors[c as usize].iter() {
                    walk(a, broader);
                }
            }
            for &c in signals {
                for &d in self.descendants[c as usize].iter() {
                    walk(d, narrower);
                }
            }
        }
        let scored: Vec<(u64, u32)> = top.into_sorted_vec().into_iter().map(|r| (r.score, r.offer)).collect();
        let sorted_ids = |mut list: Vec<u32>, ids: &[Box<str>]| {
            list.sort_unstable_by(|a, b| ids[*a as usize].cmp(&ids[*b as usize]));
            list
        };
        let ranked = scored
            .into_iter()
            .map(|(score, oi)| {
                let o = &self.offers[oi as usize];
                let meets = |signals: &[u32]| o.categories.iter().copied().filter(|&c| signals.iter().any(|&s| self.related(c, s))).collect::<Vec<u32>>();
                let matched_categories = sorted_ids(meets(ev.asked), &self.category_ids);
                let implied = sorted_ids(meets(ev.implied).into_iter().filter(|c| !matched_categories.contains(c)).collect(), &self.category_ids);
                let matched_entities = sorted_ids(o.entities.iter().copied().filter(|e| ev.entities.contains(e)).collect(), &self.entity_ids);
                (oi, score, matched_categories, matched_entities, implied)
            })
            .collect();
        (ranked, excluded_by_app)
    }
}

/// What a host app never wants beside its answers, by position (sorted).
struct AppExclusions {
    categories: Vec<u32>,
    advertisers: Vec<u32>,
}

impl AppExclusions {
    fn excludes(&self, o: &Offer) -> bool {
        (!self.advertisers.is_empty() && self.advertisers.binary_search(&o.advertiser).is_ok())
            || (!self.categories.is_empty() && o.categories.iter().any(|c| self.categories.binary_search(c).is_ok()))
    }
}

/// The last [`MODEL_MAX_CHARS`] characters of a turn longer than that, which the classifier's
/// reading of the turn's start did not reach.
fn past_the_window(text: &str) -> Option<&str> {
    text.char_indices().nth(MODEL_MAX_CHARS)?;
    text.char_indices().rev().nth(MODEL_MAX_CHARS - 1).map(|(start, _)| &text[start..])
}

/// The turn without the clauses it refuses (`spans`, in order), up to the classifier's
/// [`MODEL_MAX_CHARS`]: each refused clause is one space.
fn unrefused(text: &str, spans: &[(usize, usize)]) -> String {
    let mut rest = String::with_capacity(text.len().min(MODEL_MAX_CHARS * 4));
    let mut from = 0;
    for &(start, end) in spans {
        rest.push_str(&text[from..start.max(from)]);
        rest.push(' ');
        from = end.max(from);
    }
    rest.push_str(&text[from..]);
    match rest.char_indices().nth(MODEL_MAX_CHARS) {
        Some((end, _)) => rest[..end].to_string(),
        None => rest,
    }
}

/// The clauses whose categories the turn asks for, when it holds a cue: a cue's clause when it
/// names a thing (`named`: the clauses naming a category or a thing that is not broad), else
/// the nearest clause before it that does ("flights to Tokyo in December. what do you
/// recommend?", "the hotel was awful last time; this time somewhere good in Tokyo"), and every
/// later clause without a cue of its own, which goes on with the request ("need to book
/// travel. flights from Seoul, the 20th"). A category named before the request, in a clause of
/// its own, is what the turn is about, not what it asks for: "I fly to Tokyo on Friday. Which
/// VPN should I get?" asks for a VPN, not a flight. `None` (every clause) when no cue counts: a
/// request the classifier read without one.
fn asking_clauses(named: &[u32], purchase: &[u32], compare: &[u32]) -> Option<Vec<u32>> {
    let mut cues: Vec<u32> = purchase.iter().chain(compare).copied().collect();
    if cues.is_empty() {
        return None;
    }
    cues.sort_unstable();
    cues.dedup();
    let mut named = named.to_vec();
    named.sort_unstable();
    named.dedup();
    let mut asking = Vec::new();
    for &c in &cues {
        if named.binary_search(&c).is_ok() {
            asking.push(c);
        } else if let Some(before) = named.partition_point(|&n| n < c).checked_sub(1) {
            asking.push(named[before]);
        }
    }
    asking.extend(named.iter().copied().filter(|&n| n > cues[0] && cues.binary_search(&n).is_err()));
    if asking.is_empty() {
        return None;
    }
    asking.sort_unstable();
    asking.dedup();
    Some(asking)
}

/// Up to two distinct topics seen in a clause: enough to say whether it names one other than a
/// given one.
#[derive(Debug, Clone, Copy, Default)]
struct TwoTopics([Option<Topic>; 2]);

impl TwoTopics {
    fn add(&mut self, t: Topic) {
        match self.0 {
            [None, _] => self.0[0] = Some(t),
            [Some(a), None] if a != t => self.0[1] = Some(t),
            _ => {}
        }
    }

    fn other_than(&self, t: Topic) -> bool {
        self.0.iter().flatten().any(|&x| x != t)
    }
}

/// What a turn offers the ranking: entities named, categories asked for, categories only
/// implied by a named entity, and entities the digest excludes.
struct Evidence<'a> {
    entities: &'a [u32],
    /// The entities named that the turn does not move away from (sorted): an offer for another
    /// thing of their kind is not what was asked.
    named: &'a [u32],
    asked: &'a [u32],
    /// Asked categories beside the head of the request (sorted): they rank lower.
    beside: &'a [u32],
    implied: &'a [u32],
    excluded: &'a [u32],
    blocked: &'a AppExclusions,
}

/// Builds an index from a document that arrives in pieces: the taxonomy, then the offers in
/// document order, a chunk at a time (the binding's chunked transfer). Only the chunk being
/// added is ever held as an `OfferDoc`, so a million-offer catalog never sits in memory twice.
/// `OfferIndex::build` is this builder over a whole document: the same checks, the same index.
pub struct OfferIndexBuilder {
    index: OfferIndex,
    campaign_by_id: HashMap<Box<str>, u32>,
    advertiser_by_id: HashMap<Box<str>, u32>,
    /// Hash of each snapshot id → the first offer with that hash: duplicates are refused without
    /// keeping a second copy of every id.
    snapshot_hashes: HashMap<u64, u32>,
    hasher: std::collections::hash_map::RandomState,
}

impl OfferIndexBuilder {
    /// Checks and indexes the taxonomy; `offers` is how many offers will follow (a capacity hint).
    pub fn new(taxonomy: &TaxonomyDoc, offers: usize) -> Result<Self, IndexError> {
        Ok(OfferIndexBuilder {
            index: OfferIndex::with_taxonomy(taxonomy, offers)?,
            campaign_by_id: HashMap::new(),
            advertiser_by_id: HashMap::new(),
            snapshot_hashes: HashMap::with_capacity(offers),
            hasher: std::collections::hash_map::RandomState::new(),
        })
    }

    /// The taxonomy's ids by position (no offers yet before the first `add_offer`).
    pub fn id_tables(&self) -> IdTables<'_> {
        self.index.id_tables()
    }

    /// Adds the next offer of the document; errors name it by its position in the document.
    pub fn add_offer(&mut self, o: &OfferDoc) -> Result<(), IndexError> {
        let i = self.index.offers.len();
        let offers = &self.index.offers;
        let duplicate = match self.snapshot_hashes.entry(self.hasher.hash_one(o.snapshot_id.as_str())) {
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(i as u32);
                false
            }
            // Two different ids with one 64-bit hash are possible in principle: then look at all.
            std::collections::hash_map::Entry::Occupied(first) => {
                *offers[*first.get() as usize].snapshot_id == *o.snapshot_id || offers.iter().any(|x| *x.snapshot_id == *o.snapshot_id)
            }
        };
        if duplicate {
            return Err(IndexError::DuplicateId { field: format!("offers[{i}].snapshot_id"), id: o.snapshot_id.clone() });
        }
        let offer = self.index.offer_from_doc(i, o, &mut self.campaign_by_id, &mut self.advertiser_by_id)?;
        self.index.offers.push(offer);
        Ok(())
    }

    pub fn offers(&self) -> usize {
        self.index.offers.len()
    }

    /// The finished index: postings from categories and entities to their offers, best first.
    pub fn finish(self) -> OfferIndex {
        let mut index = self.index;
        index.advertiser_by_id = self.advertiser_by_id;
        let mut category_postings: Vec<Vec<u32>> = vec![Vec::new(); index.category_ids.len()];
        let mut entity_postings: Vec<Vec<u32>> = vec![Vec::new(); index.entity_ids.len()];
        for (oi, o) in index.offers.iter().enumerate() {
            for &c in o.categories.iter() {
                category_postings[c as usize].push(oi as u32);
            }
            for &e in o.entities.iter() {
                entity_postings[e as usize].push(oi as u32);
            }
        }
        let offers = &index.offers;
        let order = |a: &u32, b: &u32| {
            let (x, y) = (&offers[*a as usize], &offers[*b as usize]);
            y.static_score.cmp(&x.static_score).then_with(|| (&*x.offer_id, &*x.snapshot_id).cmp(&(&*y.offer_id, &*y.snapshot_id)))
        };
        for p in category_postings.iter_mut().chain(entity_postings.iter_mut()) {
            p.sort_by(order);
        }
        index.category_postings = category_postings.into_iter().map(Vec::into_boxed_slice).collect();
        index.entity_postings = entity_postings.into_iter().map(Vec::into_boxed_slice).collect();
        index
    }
}

#[cfg(test)]
mod tests {
    use super::asking_clauses;

    #[test]
    fn a_request_asks_for_what_its_clause_names() {
        // No cue: every clause.
        assert_eq!(asking_clauses(&[0, 1], &[], &[]), None);
        // "I fly to Tokyo on Friday. Which VPN should I get?": the VPN's clause only.
        assert_eq!(asking_clauses(&[0, 1], &[1], &[]), Some(vec![1]));
        // "Flights to Tokyo in December. What do you recommend?": the nearest clause before.
        assert_eq!(asking_clauses(&[0], &[], &[1]), Some(vec![0]));
        assert_eq!(asking_clauses(&[0, 2], &[], &[3]), Some(vec![2]));
        // "Need to book travel. Flights from Seoul, the 20th": later clauses go on with it.
        assert_eq!(asking_clauses(&[0, 1, 2], &[0], &[]), Some(vec![0, 1, 2]));
        assert_eq!(asking_clauses(&[0, 1, 2], &[1], &[]), Some(vec![1, 2]));
        // A cue before every thing asks for what follows.
        assert_eq!(asking_clauses(&[1], &[0], &[]), Some(vec![1]));
        // A cue in a clause naming nothing, with nothing before or after: every clause.
        assert_eq!(asking_clauses(&[], &[0], &[]), None);
    }
}
