//! The offer snapshot index: taxonomy, text matcher, offers, and postings from category and
//! entity ids to offers. Matching is a read-only walk over it; see docs/matching.md.
use crate::document::{IndexDocument, OfferDoc};
use crate::normalize::normalize;
use crate::text_match::{TextHit, TextMatcher};
use crate::IndexError;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};

/// A ranked candidate. "Less" is better (higher score, then lower snapshot id), so a max-heap
/// keeps the worst of the current top K on top, ready to be replaced.
#[derive(PartialEq, Eq)]
struct Ranked<'a> {
    score: u64,
    snapshot: &'a str,
    offer: u32,
}

impl Ord for Ranked<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        other.score.cmp(&self.score).then_with(|| self.snapshot.cmp(other.snapshot))
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

/// Match points by how an offer's targeting met the turn's signals.
pub const POINTS_ENTITY: u64 = 100;
pub const POINTS_CATEGORY: u64 = 60;
pub const POINTS_OFFER_BROADER: u64 = 40;
pub const POINTS_OFFER_NARROWER: u64 = 30;

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
}

impl MessageIntent {
    pub fn as_str(self) -> &'static str {
        match self {
            MessageIntent::Purchase => "purchase",
            MessageIntent::Compare => "compare",
            MessageIntent::None => "none",
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
    pub matched_category_ids: Vec<String>,
    pub matched_entity_ids: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MatchResult {
    pub sensitive_topic_ids: Vec<String>,
    pub message_intent: MessageIntent,
    pub signal_category_ids: Vec<String>,
    pub signal_entity_ids: Vec<String>,
    pub dropped_digest_ids: u32,
    pub candidates: Vec<Candidate>,
}

impl MatchResult {
    /// The answer of an index that has not been loaded yet.
    pub fn empty() -> Self {
        MatchResult {
            sensitive_topic_ids: Vec::new(),
            message_intent: MessageIntent::None,
            signal_category_ids: Vec::new(),
            signal_entity_ids: Vec::new(),
            dropped_digest_ids: 0,
            candidates: Vec::new(),
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
    #[serde(rename = "i")]
    pub message_intent: MessageIntent,
    #[serde(rename = "c")]
    pub signal_categories: Vec<u32>,
    #[serde(rename = "e")]
    pub signal_entities: Vec<u32>,
    #[serde(rename = "d")]
    pub dropped_digest_ids: u32,
    /// Per candidate, best first: (offer, score, matched categories, matched entities).
    #[serde(rename = "k")]
    pub candidates: Vec<(u32, u64, Vec<u32>, Vec<u32>)>,
}

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
    sensitive_ids: Vec<Box<str>>,
    matcher: TextMatcher,
    campaign_ids: Vec<Box<str>>,
    advertiser_ids: Vec<Box<str>>,
    country_by_code: HashMap<Box<str>, u16>,
    languages: Vec<Box<str>>,
    offers: Vec<Offer>,
    /// Offers targeting each category / entity, by static score desc then snapshot id asc.
    category_postings: Vec<Box<[u32]>>,
    entity_postings: Vec<Box<[u32]>>,
    alias_count: usize,
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

impl OfferIndex {
    pub fn build(doc: &IndexDocument) -> Result<OfferIndex, IndexError> {
        let t = &doc.taxonomy;
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

        let mut entity_ids = Vec::with_capacity(t.entities.len());
        let mut entity_by_id = HashMap::with_capacity(t.entities.len());
        let mut entity_categories = Vec::with_capacity(t.entities.len());
        for (i, e) in t.entities.iter().enumerate() {
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
            entity_categories.push(cats.into_boxed_slice());
        }
        let sensitive_ids: Vec<Box<str>> = t.sensitive_topics.iter().map(|s| s.id.as_str().into()).collect();

        let mut aliases: Vec<(&str, TextHit)> = Vec::new();
        for (i, c) in t.categories.iter().enumerate() {
            aliases.extend(c.aliases.iter().map(|a| (a.as_str(), TextHit::Category(i as u32))));
        }
        for (i, e) in t.entities.iter().enumerate() {
            aliases.extend(e.aliases.iter().map(|a| (a.as_str(), TextHit::Entity(i as u32))));
        }
        for (i, s) in t.sensitive_topics.iter().enumerate() {
            aliases.extend(s.aliases.iter().map(|a| (a.as_str(), TextHit::Sensitive(i as u32))));
        }
        aliases.extend(t.intent_cues.purchase.iter().map(|a| (a.as_str(), TextHit::PurchaseCue)));
        aliases.extend(t.intent_cues.compare.iter().map(|a| (a.as_str(), TextHit::CompareCue)));
        let alias_count = aliases.len();
        let matcher = TextMatcher::build(aliases.into_iter())?;

        let mut index = OfferIndex {
            category_ids,
            category_by_id,
            ancestors,
            descendants,
            entity_ids,
            entity_by_id,
            entity_categories,
            sensitive_ids,
            matcher,
            campaign_ids: Vec::new(),
            advertiser_ids: Vec::new(),
            country_by_code: HashMap::new(),
            languages: Vec::new(),
            offers: Vec::with_capacity(doc.offers.len()),
            category_postings: Vec::new(),
            entity_postings: Vec::new(),
            alias_count,
        };
        let mut campaign_by_id = HashMap::new();
        let mut advertiser_by_id = HashMap::new();
        let mut seen_snapshots: HashSet<&str> = HashSet::with_capacity(doc.offers.len());
        for (i, o) in doc.offers.iter().enumerate() {
            if !seen_snapshots.insert(o.snapshot_id.as_str()) {
                return Err(IndexError::DuplicateId { field: format!("offers[{i}].snapshot_id"), id: o.snapshot_id.clone() });
            }
            let offer = index.offer_from_doc(i, o, &mut campaign_by_id, &mut advertiser_by_id)?;
            index.offers.push(offer);
        }
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
            y.static_score.cmp(&x.static_score).then_with(|| x.snapshot_id.cmp(&y.snapshot_id))
        };
        for p in category_postings.iter_mut().chain(entity_postings.iter_mut()) {
            p.sort_by(order);
        }
        index.category_postings = category_postings.into_iter().map(Vec::into_boxed_slice).collect();
        index.entity_postings = entity_postings.into_iter().map(Vec::into_boxed_slice).collect();
        Ok(index)
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
            .map(|o| std::mem::size_of::<Offer>() + o.snapshot_id.len() + o.offer_id.len() + 4 * (o.categories.len() + o.entities.len()) + 2 * o.countries.len())
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

    /// Campaign id of an interned campaign index (for pacing lookups by the caller).
    pub fn campaign_id(&self, i: u32) -> &str {
        &self.campaign_ids[i as usize]
    }

    /// Matches one turn. `pacing_per_mille(campaign_id)` gives each campaign's pacing factor
    /// (0..=1000; 1000 when the caller has none).
    /// Matches one turn: the ids of [`find_indexed`](Self::find_indexed) as strings.
    pub fn find(&self, q: &MatchQuery, pacing_per_mille: &dyn Fn(&str) -> u32) -> MatchResult {
        let m = self.find_indexed(q, pacing_per_mille);
        let names = |ids: &[Box<str>], list: &[u32]| -> Vec<String> { list.iter().map(|&i| ids[i as usize].to_string()).collect() };
        MatchResult {
            sensitive_topic_ids: names(&self.sensitive_ids, &m.sensitive_topics),
            message_intent: m.message_intent,
            signal_category_ids: names(&self.category_ids, &m.signal_categories),
            signal_entity_ids: names(&self.entity_ids, &m.signal_entities),
            dropped_digest_ids: m.dropped_digest_ids,
            candidates: m
                .candidates
                .iter()
                .map(|(oi, score, cats, ents)| {
                    let o = &self.offers[*oi as usize];
                    Candidate {
                        snapshot_id: o.snapshot_id.to_string(),
                        offer_id: o.offer_id.to_string(),
                        campaign_id: self.campaign_ids[o.campaign as usize].to_string(),
                        advertiser_id: self.advertiser_ids[o.advertiser as usize].to_string(),
                        score: *score,
                        matched_category_ids: names(&self.category_ids, cats),
                        matched_entity_ids: names(&self.entity_ids, ents),
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

    /// Matches one turn: text signals, digest ids, intent, then the top-K eligible offers.
    pub fn find_indexed(&self, q: &MatchQuery, pacing_per_mille: &dyn Fn(&str) -> u32) -> IndexedMatch {
        // 1. Text signals from the message.
        let mut sensitive: Vec<u32> = Vec::new();
        let mut purchase_cue = false;
        let mut compare_cue = false;
        let mut categories: Vec<u32> = Vec::new();
        let mut entities: Vec<u32> = Vec::new();
        if let Some(message) = q.message {
            for hit in self.matcher.find(&normalize(message)) {
                match hit {
                    TextHit::Category(c) => categories.push(c),
                    TextHit::Entity(e) => entities.push(e),
                    TextHit::Sensitive(s) => sensitive.push(s),
                    TextHit::PurchaseCue => purchase_cue = true,
                    TextHit::CompareCue => compare_cue = true,
                }
            }
        }
        // 2. Digest ids: allowlisted ones count, the rest are dropped and counted.
        let mut dropped = 0u32;
        for id in q.category_ids {
            match self.category_by_id.get(id.as_str()) {
                Some(&c) => categories.push(c),
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
        entities.sort_unstable();
        entities.dedup();
        // A named entity also signals its categories.
        for &e in &entities {
            categories.extend_from_slice(&self.entity_categories[e as usize]);
        }
        categories.sort_unstable();
        categories.dedup();
        sensitive.sort_unstable();
        sensitive.dedup();
        let message_intent = if purchase_cue {
            MessageIntent::Purchase
        } else if compare_cue {
            MessageIntent::Compare
        } else {
            MessageIntent::None
        };
        let digest_intent = q.intent_type.unwrap_or("unknown");
        let effective_intent = if intent_strength(message_intent.as_str()) > intent_strength(digest_intent) { message_intent.as_str() } else { digest_intent };

        let candidates = if q.top_k == 0 { Vec::new() } else { self.rank(q, &entities, &categories, &excluded, effective_intent, pacing_per_mille) };

        let by_id = |ids: &[Box<str>], mut list: Vec<u32>| {
            list.sort_unstable_by(|a, b| ids[*a as usize].cmp(&ids[*b as usize]));
            list
        };
        IndexedMatch {
            sensitive_topics: by_id(&self.sensitive_ids, sensitive),
            message_intent,
            signal_categories: by_id(&self.category_ids, categories),
            signal_entities: by_id(&self.entity_ids, entities),
            dropped_digest_ids: dropped,
            candidates,
        }
    }

    fn rank(
        &self,
        q: &MatchQuery,
        entities: &[u32],
        categories: &[u32],
        excluded: &[u32],
        effective_intent: &str,
        pacing_per_mille: &dyn Fn(&str) -> u32,
    ) -> Vec<(u32, u64, Vec<u32>, Vec<u32>)> {
        let language = self.languages.iter().position(|l| **l == *q.language);
        let Some(language) = language else { return Vec::new() };
        let country = q.country.and_then(|c| self.country_by_code.get(c.to_ascii_uppercase().as_str()).copied());
        let bucket_bit = q.budget_bucket.and_then(|b| BUCKETS.iter().position(|x| *x == b)).filter(|&p| p != 0).map(|p| 1u8 << p);
        let eligible = |o: &Offer| -> bool {
            o.active
                && o.language as usize == language
                && q.kind.map_or(true, |k| k == o.kind)
                && o.starts_at_ms.map_or(true, |s| s <= q.now_ms)
                && o.ends_at_ms.map_or(true, |e| q.now_ms < e)
                && (o.countries.is_empty() || country.is_some_and(|c| o.countries.contains(&c)))
                && (o.buckets == 0 || bucket_bit.map_or(true, |b| o.buckets & b != 0))
                && !o.entities.iter().any(|e| excluded.contains(e))
                && !o.advertiser_entity.is_some_and(|e| excluded.contains(&e))
        };
        // Lists are walked from the strongest kind of match down (entity, category, broader,
        // narrower), so the first time an offer is seen is with its best match points. Within a
        // list, entries are sorted by static score, so once even a full-pacing score of the next
        // entry cannot beat the current K-th best, the rest of the list cannot either: the walk
        // stops early with exactly the answer a full walk of the bounded lists would give.
        let mut seen: HashSet<u32, BuildU32Hasher> = HashSet::with_capacity_and_hasher(256, BuildU32Hasher);
        let mut top: BinaryHeap<Ranked<'_>> = BinaryHeap::with_capacity(q.top_k + 1);
        let mut visit = |list: &[u32], p: u64| {
            let boost = intent_boost(effective_intent, p == POINTS_ENTITY);
            for &oi in list.iter().take(MAX_POSTING_SCAN) {
                let o = &self.offers[oi as usize];
                if top.len() == q.top_k {
                    let worst = top.peek().map(|w| (w.score, w.snapshot));
                    let bound = p * o.static_score * boost;
                    if let Some((score, snapshot)) = worst {
                        if bound < score || (bound == score && &*o.snapshot_id > snapshot) {
                            break;
                        }
                    }
                }
                if seen.contains(&oi) || !eligible(o) {
                    continue;
                }
                seen.insert(oi);
                let pacing = u64::from(pacing_per_mille(&self.campaign_ids[o.campaign as usize]).min(1000));
                let ranked = Ranked { score: p * o.static_score * boost * pacing / 1000, snapshot: &o.snapshot_id, offer: oi };
                if top.len() < q.top_k {
                    top.push(ranked);
                } else if top.peek().is_some_and(|w| ranked < *w) {
                    top.pop();
                    top.push(ranked);
                }
            }
        };
        for &e in entities {
            visit(&self.entity_postings[e as usize], POINTS_ENTITY);
        }
        for &c in categories {
            visit(&self.category_postings[c as usize], POINTS_CATEGORY);
        }
        for &c in categories {
            for &a in self.ancestors[c as usize].iter() {
                visit(&self.category_postings[a as usize], POINTS_OFFER_BROADER);
            }
        }
        for &c in categories {
            for &d in self.descendants[c as usize].iter() {
                visit(&self.category_postings[d as usize], POINTS_OFFER_NARROWER);
            }
        }
        let scored: Vec<(u64, u32)> = top.into_sorted_vec().into_iter().map(|r| (r.score, r.offer)).collect();
        scored
            .into_iter()
            .map(|(score, oi)| {
                let o = &self.offers[oi as usize];
                let mut matched_categories: Vec<u32> = o
                    .categories
                    .iter()
                    .copied()
                    .filter(|&c| categories.iter().any(|&s| s == c || self.ancestors[s as usize].contains(&c) || self.ancestors[c as usize].contains(&s)))
                    .collect();
                matched_categories.sort_unstable_by(|a, b| self.category_ids[*a as usize].cmp(&self.category_ids[*b as usize]));
                let mut matched_entities: Vec<u32> = o.entities.iter().copied().filter(|e| entities.contains(e)).collect();
                matched_entities.sort_unstable_by(|a, b| self.entity_ids[*a as usize].cmp(&self.entity_ids[*b as usize]));
                (oi, score, matched_categories, matched_entities)
            })
            .collect()
    }
}
