//! Sidenote's matching core.
//!
//! Given a catalog's taxonomy and live offer snapshots ([`IndexDocument`]), [`OfferIndex`]
//! answers one question per chat turn: which allowlisted categories and entities does this turn
//! name, does it touch a sensitive topic, how strong is its commercial intent, and which
//! eligible offers fit it best. Pure and deterministic: the clock (`now_ms`) is an input;
//! nothing here does I/O. See `docs/matching.md` for the rules.

mod classifier;
mod document;
mod error;
mod fuzzy;
mod hangul_typo;
mod index;
mod korean_words;
mod normalize;
pub mod packs;
pub mod policy_patterns;
mod policy_text;
mod reading;
mod steps;
mod text_match;

pub use classifier::{TurnClassifier, TurnScores};
pub use document::{Aliases, CategoryDoc, EntityDoc, IndexDocument, IntentCues, OfferDoc, SensitiveTopicDoc, TaxonomyDoc};
pub use error::IndexError;
pub use fuzzy::FuzzyMatcher;
pub use hangul_typo::HangulTypoMatcher;
pub use index::{
    effective_intent, is_commercial, Candidate, IdTables, IndexStats, IndexedMatch, MatchQuery, MatchResult, MessageIntent, OfferIndex, OfferIndexBuilder,
    OfferKind, COMMERCIAL_VETO_LOGIT, CONTEXT_SENSITIVE_LOGIT, MODEL_MAX_CHARS,
};
pub use normalize::{is_default_ignorable, normalize};
pub use steps::{Steps, READING_STEPS};
pub use text_match::{Span, TextHit, TextMatcher, HANGUL_CONTINUATIONS};
