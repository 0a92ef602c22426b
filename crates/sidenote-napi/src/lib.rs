//! The N-API binding of sidenote-core. It converts types and owns the live index: builds run on
//! a worker thread and the finished index is swapped in atomically, so matching never waits for
//! a rebuild. No algorithms live here.
//!
//! Two ways in. `load` takes a whole index document (JSON) and builds it on the libuv pool.
//! `IndexBuilder` takes the document in pieces (the taxonomy, then chunks of offers) on whichever
//! thread holds it, normally the service's catalog loader worker, and leaves the finished index
//! staged under a token; the serving thread then `install`s it in one synchronous step, together
//! with its own view of the same catalog.
#![deny(clippy::unwrap_used)]

use arc_swap::ArcSwapOption;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use sidenote_core::{IndexDocument, IndexError, IndexStats, IndexedMatch, MatchQuery, MatchResult, OfferDoc, OfferIndex, OfferKind, TaxonomyDoc};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
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
    /// The host app's brand-safety exclusions (its settings, not the envelope's).
    pub blocked_category_ids: Option<Vec<String>>,
    pub blocked_advertiser_ids: Option<Vec<String>>,
    pub budget_bucket: Option<String>,
    pub intent_type: Option<String>,
    /// Which offers may answer: a string enum, so anything else is refused at the boundary
    /// (it once meant "any kind").
    pub kind: BindingOfferKind,
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

/// The kind of offer a query asks for.
#[napi(string_enum = "lowercase")]
pub enum BindingOfferKind {
    Sponsored,
    Affiliate,
}

impl From<&BindingOfferKind> for OfferKind {
    fn from(kind: &BindingOfferKind) -> Self {
        match kind {
            BindingOfferKind::Sponsored => OfferKind::Sponsored,
            BindingOfferKind::Affiliate => OfferKind::Affiliate,
        }
    }
}

/// A finished index and what is known about it, not yet live.
pub struct Built {
    index: OfferIndex,
    build_millis: f64,
    /// Computed once off the serving thread: `OfferIndex::stats` walks every offer.
    stats: IndexStats,
}

impl Built {
    fn new(index: OfferIndex, started: Instant) -> Self {
        let stats = index.stats();
        Built { index, build_millis: started.elapsed().as_secs_f64() * 1000.0, stats }
    }
}

struct Loaded {
    built: Built,
    /// Which load this is; compact match results carry it so the caller decodes their
    /// positions with the id tables of the same index.
    generation: u32,
}

struct Shared {
    current: ArcSwapOption<Loaded>,
    version: AtomicU32,
}

#[napi]
pub struct LiveOfferIndex {
    shared: Arc<Shared>,
}

/// A failure the caller tells apart by the `code` of the JS error itself (`INDEX_INVALID_DOCUMENT`,
/// `INDEX_NOT_STAGED`, …), with the reason alone as its message: nothing to parse back.
fn coded(env: &Env, code: &str, reason: String) -> Error {
    let made = (|| -> Result<Error> {
        let mut error = env.create_error(Error::new(Status::GenericFailure, reason.clone()))?;
        error.set_named_property("code", code)?;
        Ok(Error::from(error.to_unknown()))
    })();
    // Only when the environment cannot make an object (it is shutting down): the code is lost.
    made.unwrap_or_else(|_| Error::new(Status::GenericFailure, reason))
}

fn index_error(env: &Env, err: IndexError) -> Error {
    coded(env, err.code(), err.to_string())
}

fn build(bytes: &[u8]) -> std::result::Result<Built, IndexError> {
    let started = Instant::now();
    let doc = IndexDocument::from_json(bytes)?;
    let index = OfferIndex::build(&doc)?;
    Ok(Built::new(index, started))
}

/// Makes a built index the live one. Called on the JS thread only (never from the build
/// worker), so between two JS calls the live index cannot change under the caller.
fn install(shared: &Shared, built: Built) {
    let generation = shared.version.fetch_add(1, Ordering::SeqCst) + 1;
    let previous = shared.current.swap(Some(Arc::new(Loaded { built, generation })));
    drop_elsewhere(previous);
}

/// Freeing an index is a deallocation per offer and more (about 100 ms for a million offers):
/// done on a thread of its own, never on the serving thread. Matching holds no reference across
/// calls, so the previous index is unreferenced once swapped out.
fn drop_elsewhere<T: Send + 'static>(value: T) {
    // If no thread can be started, the closure and the value are dropped here instead.
    let _ = std::thread::Builder::new().name("sidenote-index-drop".into()).spawn(move || {
        drop(value);
        release_freed_memory();
    });
}

/// Hands memory the allocator holds free back to the system. glibc keeps what a freed index
/// (millions of small blocks) or a finished build used, in the arena of the thread that made it:
/// measured on a million offers, a reload left the process 400 MB larger than before it.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn release_freed_memory() {
    // SAFETY: malloc_trim takes no pointer and only walks the allocator's own free lists, under
    // its locks; glibc documents it as thread-safe.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn release_freed_memory() {}

/// Indexes built by an `IndexBuilder` and not yet installed or discarded, by token. Process-wide:
/// the loader worker's JS environment and the serving thread's share only this library.
static STAGED: Mutex<Vec<(u32, Built)>> = Mutex::new(Vec::new());
static NEXT_TOKEN: AtomicU32 = AtomicU32::new(1);

fn take_staged(token: u32) -> Option<Built> {
    // A panic while the lock was held cannot leave the list half-changed: use it as it is.
    let mut staged = STAGED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let at = staged.iter().position(|(t, _)| *t == token)?;
    Some(staged.swap_remove(at).1)
}

pub struct BuildTask {
    document: Vec<u8>,
    shared: Arc<Shared>,
}

impl Task for BuildTask {
    // A failed build is an answer too, rejected on the JS thread where its coded error can be made.
    type Output = std::result::Result<Built, IndexError>;
    type JsValue = BindingIndexStats;

    fn compute(&mut self) -> Result<Self::Output> {
        Ok(build(&self.document))
    }

    fn resolve(&mut self, env: Env, built: Self::Output) -> Result<Self::JsValue> {
        install(&self.shared, built.map_err(|err| index_error(&env, err))?);
        Ok(stats_of(&self.shared))
    }
}

fn stats_of(shared: &Shared) -> BindingIndexStats {
    let current = shared.current.load();
    let version = shared.version.load(Ordering::SeqCst);
    match current.as_ref() {
        Some(loaded) => {
            let s = loaded.built.stats;
            BindingIndexStats {
                ready: true,
                offers: s.offers as u32,
                categories: s.categories as u32,
                entities: s.entities as u32,
                aliases: s.aliases as u32,
                version,
                build_millis: loaded.built.build_millis,
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
        LiveOfferIndex { shared: Arc::new(Shared { current: ArcSwapOption::empty(), version: AtomicU32::new(0) }) }
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
    pub fn load_sync(&self, env: Env, document: String) -> Result<BindingIndexStats> {
        install(&self.shared, build(document.as_bytes()).map_err(|err| index_error(&env, err))?);
        Ok(stats_of(&self.shared))
    }

    /// Makes the index an `IndexBuilder` staged under `token` the live one, at once. Fails with
    /// `INDEX_NOT_STAGED` when there is none under it (already installed or discarded).
    #[napi]
    pub fn install(&self, env: Env, token: u32) -> Result<BindingIndexStats> {
        let built = take_staged(token).ok_or_else(|| coded(&env, "INDEX_NOT_STAGED", format!("no staged index under token {token}")))?;
        install(&self.shared, built);
        Ok(stats_of(&self.shared))
    }

    /// Matches one turn against the index in use and returns the result as JSON (a
    /// `MatchResult`). Kept for tests and tools; the service uses `matchCompact`.
    #[napi]
    pub fn match_json(&self, query: BindingMatchQuery) -> String {
        let current = self.shared.current.load();
        let result = match current.as_ref() {
            Some(loaded) => with_query(&query, |q| loaded.built.index.find(q)),
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
        match current.as_ref() {
            Some(loaded) => tagged(loaded.generation, &with_query(&query, |q| loaded.built.index.find_indexed(q))),
            None => tagged(0, &IndexedMatch::empty(query.intent_type.as_deref())),
        }
    }

    /// `{"g": generation, "categories": [...], "entities": [...], "sensitive_topics": [...],
    /// "offers": [[snapshot, offer, campaign, advertiser], ...]}` of the index in use.
    #[napi]
    pub fn id_tables_json(&self) -> String {
        let current = self.shared.current.load();
        match current.as_ref() {
            Some(loaded) => tagged(loaded.generation, &loaded.built.index.id_tables()),
            None => String::from(r#"{"g":0,"categories":[],"entities":[],"sensitive_topics":[],"offers":[]}"#),
        }
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

/// What `IndexBuilder.finish` staged.
#[napi(object)]
pub struct BindingStagedIndex {
    /// For `LiveOfferIndex.install` (or `discardStagedIndex`).
    pub token: u32,
    pub offers: u32,
    pub build_millis: f64,
    pub memory_bytes: f64,
}

/// The categories', entities' and sensitive topics' ids by their position in an index.
#[derive(serde::Serialize)]
struct TaxonomyIds<'a> {
    categories: &'a [Box<str>],
    entities: &'a [Box<str>],
    sensitive_topics: &'a [Box<str>],
}

/// Builds an index from an index document in pieces, on the calling thread: the taxonomy (one
/// JSON object), then the offers in chunks (JSON arrays of offers, in document order). No piece
/// is ever the whole document, and each chunk is freed once its offers are indexed. `finish`
/// stages the result for `LiveOfferIndex.install`. Errors carry the same `INDEX_…` codes and
/// name offers by their position in the whole document, as `load` does.
#[napi]
pub struct IndexBuilder {
    inner: Option<sidenote_core::OfferIndexBuilder>,
    taxonomy_ids: String,
    started: Instant,
}

#[napi]
impl IndexBuilder {
    /// `offers`: how many offers will follow (room is made for them at once).
    #[napi(constructor)]
    pub fn new(env: Env, taxonomy: Either<String, Buffer>, offers: u32) -> Result<Self> {
        let started = Instant::now();
        let taxonomy = TaxonomyDoc::from_json(bytes_of(&taxonomy)).map_err(|err| index_error(&env, err))?;
        let inner = sidenote_core::OfferIndexBuilder::new(&taxonomy, offers as usize).map_err(|err| index_error(&env, err))?;
        let ids = inner.id_tables();
        let taxonomy_ids = serde_json::to_string(&TaxonomyIds { categories: ids.categories, entities: ids.entities, sensitive_topics: ids.sensitive_topics })
            .map_err(|e| Error::from_reason(e.to_string()))?;
        Ok(IndexBuilder { inner: Some(inner), taxonomy_ids, started })
    }

    /// `{"categories": [...], "entities": [...], "sensitive_topics": [...]}`: what the positions
    /// in a compact match result of this index name.
    #[napi]
    pub fn taxonomy_ids_json(&self) -> String {
        self.taxonomy_ids.clone()
    }

    /// Adds the next chunk of offers; returns how many offers the builder holds now. After an
    /// error the builder is spent.
    #[napi]
    pub fn add_offers(&mut self, env: Env, chunk: Either<String, Buffer>) -> Result<u32> {
        let builder = self.inner.as_mut().ok_or_else(|| spent(&env))?;
        let added = OfferDoc::list_from_json(bytes_of(&chunk)).and_then(|offers| offers.iter().try_for_each(|o| builder.add_offer(o)));
        match added {
            Ok(()) => Ok(builder.offers() as u32),
            Err(err) => {
                self.inner = None;
                Err(index_error(&env, err))
            }
        }
    }

    /// Finishes the index and stages it; the builder is spent.
    #[napi]
    pub fn finish(&mut self, env: Env) -> Result<BindingStagedIndex> {
        let built = Built::new(self.inner.take().ok_or_else(|| spent(&env))?.finish(), self.started);
        // What the build used and let go (the matcher's construction, the chunks' documents).
        release_freed_memory();
        let token = NEXT_TOKEN.fetch_add(1, Ordering::SeqCst);
        let staged =
            BindingStagedIndex { token, offers: built.stats.offers as u32, build_millis: built.build_millis, memory_bytes: built.stats.memory_bytes as f64 };
        STAGED.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push((token, built));
        Ok(staged)
    }
}

/// Frees a staged index that will not be installed (the reload that built it failed or stopped).
#[napi]
pub fn discard_staged_index(token: u32) {
    // Nothing under the token (already installed or discarded): no thread to start, no trim.
    if let Some(built) = take_staged(token) {
        drop_elsewhere(built);
    }
}

fn spent(env: &Env) -> Error {
    coded(env, "INDEX_BUILDER_SPENT", "this builder finished or failed; start another".to_string())
}

fn bytes_of(value: &Either<String, Buffer>) -> &[u8] {
    match value {
        Either::A(s) => s.as_bytes(),
        Either::B(b) => b.as_ref(),
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
    f(&MatchQuery {
        message: query.message.as_deref(),
        language: &query.language,
        country: query.country.as_deref(),
        category_ids: query.category_ids.as_ref().unwrap_or(&empty),
        entity_ids: query.entity_ids.as_ref().unwrap_or(&empty),
        excluded_entity_ids: query.excluded_entity_ids.as_ref().unwrap_or(&empty),
        blocked_category_ids: query.blocked_category_ids.as_ref().unwrap_or(&empty),
        blocked_advertiser_ids: query.blocked_advertiser_ids.as_ref().unwrap_or(&empty),
        budget_bucket: query.budget_bucket.as_deref(),
        intent_type: query.intent_type.as_deref(),
        kind: Some(OfferKind::from(&query.kind)),
        now_ms: query.now_ms as i64,
        top_k: query.top_k as usize,
    })
}
