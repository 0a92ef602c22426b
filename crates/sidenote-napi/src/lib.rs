//! The N-API binding of sidenote-core. It converts types and owns the live index: builds run on
//! a worker thread and the finished index is swapped in atomically, so matching never waits for
//! a rebuild. No algorithms live here.
#![deny(clippy::unwrap_used)]

use arc_swap::{ArcSwap, ArcSwapOption};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use sidenote_core::{IndexDocument, IndexError, IndexedMatch, MatchQuery, MatchResult, OfferIndex, OfferKind};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// A query for one chat turn.
#[napi(object)]
pub struct BindingMatchQuery {
    /// The current user message; read, never kept.
    pub message: Option<String>,
    /// Primary language of the request: `ko` or `en`.
    pub language: String,
    pub country: Option<String>,
    pub category_ids: Option<Vec<String>>,
    pub entity_ids: Option<Vec<String>>,
    pub excluded_entity_ids: Option<Vec<String>>,
    pub budget_bucket: Option<String>,
    pub intent_type: Option<String>,
    /// `sponsored` or `affiliate`.
    pub kind: String,
    /// Milliseconds since the epoch: the core has no clock of its own.
    pub now_ms: f64,
    pub top_k: u32,
}

#[napi(object)]
pub struct BindingIndexStats {
    pub ready: bool,
    pub offers: u32,
    pub categories: u32,
    pub entities: u32,
    pub aliases: u32,
    /// Incremented by every successful load.
    pub version: u32,
    pub build_millis: f64,
    pub memory_bytes: f64,
}

#[napi(object)]
pub struct BindingPacing {
    pub campaign_id: String,
    /// 0..=1000; 1000 serves at full score.
    pub per_mille: u32,
}

struct Loaded {
    index: OfferIndex,
    build_millis: f64,
    /// Which load this is; compact match results carry it so the caller decodes their
    /// positions with the id tables of the same index.
    generation: u32,
}

struct Shared {
    current: ArcSwapOption<Loaded>,
    pacing: ArcSwap<HashMap<String, u32>>,
    version: AtomicU32,
}

#[napi]
pub struct LiveOfferIndex {
    shared: Arc<Shared>,
}

fn to_napi(err: IndexError) -> Error {
    Error::new(Status::InvalidArg, format!("{}: {}", err.code(), err))
}

fn build(bytes: &[u8]) -> std::result::Result<(OfferIndex, f64), IndexError> {
    let started = Instant::now();
    let doc = IndexDocument::from_json(bytes)?;
    let index = OfferIndex::build(&doc)?;
    Ok((index, started.elapsed().as_secs_f64() * 1000.0))
}

/// Makes a built index the live one. Called on the JS thread only (never from the build
/// worker), so between two JS calls the live index cannot change under the caller.
fn install(shared: &Shared, (index, build_millis): (OfferIndex, f64)) {
    let generation = shared.version.fetch_add(1, Ordering::SeqCst) + 1;
    shared.current.store(Some(Arc::new(Loaded { index, build_millis, generation })));
}

pub struct BuildTask {
    document: Vec<u8>,
    shared: Arc<Shared>,
}

impl Task for BuildTask {
    type Output = (OfferIndex, f64);
    type JsValue = BindingIndexStats;

    fn compute(&mut self) -> Result<Self::Output> {
        build(&self.document).map_err(to_napi)
    }

    fn resolve(&mut self, _env: Env, built: Self::Output) -> Result<Self::JsValue> {
        install(&self.shared, built);
        Ok(stats_of(&self.shared))
    }
}

fn stats_of(shared: &Shared) -> BindingIndexStats {
    let current = shared.current.load();
    let version = shared.version.load(Ordering::SeqCst);
    match current.as_ref() {
        Some(loaded) => {
            let s = loaded.index.stats();
            BindingIndexStats {
                ready: true,
                offers: s.offers as u32,
                categories: s.categories as u32,
                entities: s.entities as u32,
                aliases: s.aliases as u32,
                version,
                build_millis: loaded.build_millis,
                memory_bytes: s.memory_bytes as f64,
            }
        }
        None => BindingIndexStats { ready: false, offers: 0, categories: 0, entities: 0, aliases: 0, version, build_millis: 0.0, memory_bytes: 0.0 },
    }
}

#[napi]
impl LiveOfferIndex {
    #[napi(constructor)]
    pub fn new() -> Self {
        LiveOfferIndex {
            shared: Arc::new(Shared { current: ArcSwapOption::empty(), pacing: ArcSwap::from_pointee(HashMap::new()), version: AtomicU32::new(0) }),
        }
    }

    /// Builds an index from an index document (JSON) on a worker thread and swaps it in.
    /// Rejects with `INDEX_…` codes in the message when the document is invalid; the index in
    /// use stays as it was.
    #[napi(ts_return_type = "Promise<BindingIndexStats>")]
    pub fn load(&self, document: Either<String, Buffer>) -> AsyncTask<BuildTask> {
        let document = match document {
            Either::A(s) => s.into_bytes(),
            Either::B(b) => b.to_vec(),
        };
        AsyncTask::new(BuildTask { document, shared: self.shared.clone() })
    }

    /// The same, on the calling thread (CLI and tests).
    #[napi]
    pub fn load_sync(&self, document: String) -> Result<BindingIndexStats> {
        install(&self.shared, build(document.as_bytes()).map_err(to_napi)?);
        Ok(stats_of(&self.shared))
    }

    /// Matches one turn against the index in use and returns the result as JSON (a
    /// `MatchResult`). Kept for tests and tools; the service uses `matchCompact`.
    #[napi]
    pub fn match_json(&self, query: BindingMatchQuery) -> String {
        let current = self.shared.current.load();
        let pacing = self.shared.pacing.load();
        let result = match current.as_ref() {
            Some(loaded) => with_query(&query, |q| loaded.index.find(q, &|campaign| pacing.get(campaign).copied().unwrap_or(1000))),
            None => MatchResult::empty(query.intent_type.as_deref()),
        };
        // Serialising plain strings and integers cannot fail.
        serde_json::to_string(&result).unwrap_or_else(|_| String::from("{}"))
    }

    /// Matches one turn and returns `{"g": generation, ...IndexedMatch}` as JSON: ids as positions
    /// in the index document, decoded by the caller with `idTablesJson` of the same generation.
    /// Creating JS strings and objects through N-API cost more than the matching itself; a
    /// ~100-byte string of integers costs almost nothing to cross and parse.
    #[napi]
    pub fn match_compact(&self, query: BindingMatchQuery) -> String {
        let current = self.shared.current.load();
        let pacing = self.shared.pacing.load();
        match current.as_ref() {
            Some(loaded) => {
                tagged(loaded.generation, &with_query(&query, |q| loaded.index.find_indexed(q, &|campaign| pacing.get(campaign).copied().unwrap_or(1000))))
            }
            None => tagged(0, &IndexedMatch::empty(query.intent_type.as_deref())),
        }
    }

    /// `{"g": generation, "categories": [...], "entities": [...], "sensitive_topics": [...],
    /// "offers": [[snapshot, offer, campaign, advertiser], ...]}` of the index in use.
    #[napi]
    pub fn id_tables_json(&self) -> String {
        let current = self.shared.current.load();
        match current.as_ref() {
            Some(loaded) => tagged(loaded.generation, &loaded.index.id_tables()),
            None => String::from(r#"{"g":0,"categories":[],"entities":[],"sensitive_topics":[],"offers":[]}"#),
        }
    }

    /// Replaces every campaign's pacing factor at once; campaigns not listed pace at 1000.
    #[napi]
    pub fn set_pacing(&self, entries: Vec<BindingPacing>) {
        let map = entries.into_iter().map(|e| (e.campaign_id, e.per_mille.min(1000))).collect();
        self.shared.pacing.store(Arc::new(map));
    }

    #[napi]
    pub fn stats(&self) -> BindingIndexStats {
        stats_of(&self.shared)
    }
}

impl Default for LiveOfferIndex {
    fn default() -> Self {
        Self::new()
    }
}

/// `value` as a JSON object with the generation `g` as its first field.
fn tagged(generation: u32, value: &impl serde::Serialize) -> String {
    // Serialising plain strings and integers cannot fail; every value here is a non-empty object.
    let body = serde_json::to_string(value).unwrap_or_else(|_| String::from("{}"));
    format!("{{\"g\":{generation},{}", body.strip_prefix('{').unwrap_or("}"))
}

/// Runs `f` with the core's view of a binding query.
fn with_query<T>(query: &BindingMatchQuery, f: impl FnOnce(&MatchQuery) -> T) -> T {
    let empty: Vec<String> = Vec::new();
    let kind = match query.kind.as_str() {
        "affiliate" => Some(OfferKind::Affiliate),
        "sponsored" => Some(OfferKind::Sponsored),
        _ => None,
    };
    f(&MatchQuery {
        message: query.message.as_deref(),
        language: &query.language,
        country: query.country.as_deref(),
        category_ids: query.category_ids.as_ref().unwrap_or(&empty),
        entity_ids: query.entity_ids.as_ref().unwrap_or(&empty),
        excluded_entity_ids: query.excluded_entity_ids.as_ref().unwrap_or(&empty),
        budget_bucket: query.budget_bucket.as_deref(),
        intent_type: query.intent_type.as_deref(),
        kind,
        now_ms: query.now_ms as i64,
        top_k: query.top_k as usize,
    })
}
