//! The packs: the core's own knowledge of how Korean and English users ask and of the moments
//! where no ad may be shown. `packs/ko.json` and `packs/en.json` hold the wording cues, each row a
//! phrase with the turns it is read in (`reads`) and, where its letters also spell something
//! else, a turn where it is not (`not`); `tests/packs.rs` reads every example as the service
//! would. `packs/sensitive-topics.json` holds the sensitive topics, in the catalog's shape, and
//! `packs/places.json` cities travellers name, as the catalog's place entities: a turn about a
//! hotel in Chicago names a place, so a catalog without Chicago does not answer it with Paris.
//! Compiled in, parsed once. A catalog may add cues and topics (or words to a pack's topic) of its
//! own, never take the packs' away: no catalog has to restate the language, and none can leave a
//! sensitive moment unread by forgetting a list.
use serde::Deserialize;
use std::sync::LazyLock;

pub use crate::document::CUE_KINDS;
use crate::document::{Aliases, CueKinds, EntityDoc, IntentCues, SensitiveTopicDoc, TaxonomyDoc};
use crate::normalize::normalize;

/// One cue phrase and its examples.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CueRow {
    pub phrase: String,
    /// Turns in which the phrase is read as its kind of cue.
    #[serde(default)]
    pub reads: Vec<String>,
    /// Turns holding the phrase's letters as part of something else: not read as the cue.
    #[serde(default)]
    pub not: Vec<String>,
}

/// A language's cues by kind, each row a phrase with its examples.
pub type PackCues = CueKinds<Vec<CueRow>>;

/// One language's pack.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LanguagePack {
    /// `ko` or `en`.
    pub language: String,
    pub intent_cues: PackCues,
    /// Adverbs that may stand inside a negation right before its negated predicate without
    /// changing it ("살 생각은 **전혀** 없", "바꿀 생각은 **딱히** 없"): each negation of several
    /// words whose last word is negated (`NEGATED_PREDICATES`) is also read with one of them
    /// there. One row per adverb, not one per negation and adverb.
    #[serde(default)]
    pub negation_adverbs: Vec<CueRow>,
}

/// How a negated predicate begins (없다, 아니다, 않다): the words an adverb of
/// `negation_adverbs` may stand before.
const NEGATED_PREDICATES: [&str; 3] = ["없", "아니", "않"];

/// A pack's negations with its adverbs: each phrase of several words whose last word is a
/// negated predicate, once per adverb, with the adverb before that word.
pub fn negations_with_adverbs(pack: &LanguagePack) -> Vec<String> {
    let mut out = Vec::new();
    for row in &pack.intent_cues.negation {
        let Some((head, last)) = row.phrase.rsplit_once(' ') else { continue };
        if !NEGATED_PREDICATES.iter().any(|p| last.starts_with(p)) {
            continue;
        }
        out.extend(pack.negation_adverbs.iter().map(|a| format!("{head} {} {last}", a.phrase)));
    }
    out
}

static PACKS: LazyLock<[LanguagePack; 2]> = LazyLock::new(|| {
    let parse = |json: &str| serde_json::from_str::<LanguagePack>(json).expect("a language pack parses (tests/packs.rs)");
    [parse(include_str!("../packs/ko.json")), parse(include_str!("../packs/en.json"))]
});

/// The packs, Korean then English.
pub fn packs() -> &'static [LanguagePack] {
    &*PACKS
}

/// The packs' cues with `extra` (a catalog's) added, each phrase once.
pub fn intent_cues_with(extra: &IntentCues) -> IntentCues {
    let mut out = IntentCues::default();
    for pack in packs() {
        for (aliases, rows) in out.kinds_mut().into_iter().zip(pack.intent_cues.kinds()) {
            let list = if pack.language == "ko" { &mut aliases.ko } else { &mut aliases.en };
            list.extend(rows.iter().map(|r| r.phrase.clone()));
        }
        let with_adverbs = negations_with_adverbs(pack);
        let with_adverbs = if pack.language == "ko" { Aliases { ko: with_adverbs, en: Vec::new() } } else { Aliases { ko: Vec::new(), en: with_adverbs } };
        add_missing(&mut out.negation, &with_adverbs);
    }
    for (aliases, more) in out.kinds_mut().into_iter().zip(extra.kinds()) {
        add_missing(aliases, more);
    }
    out
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyPack {
    sensitive_topics: Vec<PackTopic>,
}

/// A pack topic: a catalog's sensitive topic, with the IAB ids the reference docs print and the
/// examples of its words.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackTopic {
    pub id: String,
    /// Printed by the reference docs (`docs/taxonomy.md`); the core does not read it.
    #[serde(default, rename = "iab_content")]
    _iab_content: Vec<String>,
    #[serde(default)]
    pub aliases: Aliases,
    #[serde(default)]
    pub context_aliases: Aliases,
    #[serde(default)]
    pub negative_contexts: Aliases,
    #[serde(default)]
    pub said_of_the_user: bool,
    #[serde(default)]
    pub said_of_pets: bool,
    #[serde(default)]
    pub mentioned_in_quotes: bool,
    #[serde(default)]
    pub asked_aliases: Aliases,
    /// Per word of `aliases`, `context_aliases` and `asked_aliases`: a turn it is read in and, where its letters
    /// sit inside a longer word, one where it is not (`tests/packs.rs`).
    #[serde(default)]
    pub examples: std::collections::BTreeMap<String, WordExamples>,
}

/// The examples of one word.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WordExamples {
    #[serde(default)]
    pub reads: Vec<String>,
    #[serde(default)]
    pub not: Vec<String>,
}

static TOPIC_PACK: LazyLock<Vec<PackTopic>> = LazyLock::new(|| {
    let pack: PolicyPack = serde_json::from_str(include_str!("../packs/sensitive-topics.json")).expect("the sensitive-topic pack parses (tests/packs.rs)");
    pack.sensitive_topics
});

/// The sensitive-topic pack as written, examples included.
pub fn sensitive_topic_pack() -> &'static [PackTopic] {
    &TOPIC_PACK
}

/// The pack's sensitive topics with a catalog's added: a topic of the pack's id gains the
/// catalog's words (its `said_of_the_user`, `said_of_pets`, `mentioned_in_quotes` and `asked_aliases` stay the pack's), any other topic joins after them.
pub fn sensitive_topics_with(extra: &[SensitiveTopicDoc]) -> Vec<SensitiveTopicDoc> {
    let mut out: Vec<SensitiveTopicDoc> = TOPIC_PACK
        .iter()
        .map(|t| SensitiveTopicDoc {
            id: t.id.clone(),
            aliases: t.aliases.clone(),
            context_aliases: t.context_aliases.clone(),
            negative_contexts: t.negative_contexts.clone(),
            said_of_the_user: t.said_of_the_user,
            said_of_pets: t.said_of_pets,
            mentioned_in_quotes: t.mentioned_in_quotes,
            asked_aliases: t.asked_aliases.clone(),
        })
        .collect();
    for topic in extra {
        match out.iter_mut().find(|t| t.id == topic.id) {
            Some(t) => {
                for (into, more) in
                    [(&mut t.aliases, &topic.aliases), (&mut t.context_aliases, &topic.context_aliases), (&mut t.negative_contexts, &topic.negative_contexts)]
                {
                    add_missing(into, more);
                }
            }
            None => out.push(topic.clone()),
        }
    }
    out
}

fn add_missing(into: &mut Aliases, more: &Aliases) {
    for (list, extra) in [(&mut into.ko, &more.ko), (&mut into.en, &more.en)] {
        for phrase in extra {
            if !list.contains(phrase) {
                list.push(phrase.clone());
            }
        }
    }
}

/// A city of the place pack: a catalog place entity's shape, with the examples of its aliases.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackPlace {
    pub id: String,
    /// Its name in each language, for people reading the pack; the core does not read it.
    #[serde(default, rename = "name")]
    _name: PlaceName,
    pub aliases: Aliases,
    #[serde(default)]
    pub negative_contexts: Aliases,
    /// The country it lies within, by the convention `place.<english name>` (`place.japan`):
    /// kept where the catalog (or the pack) has that place, so an offer for Japan still answers a
    /// turn about Nagoya.
    #[serde(default)]
    pub within: Vec<String>,
    /// Per alias: a turn it is read in and, where its letters also spell something else, one
    /// where it is not (`tests/packs.rs`).
    #[serde(default)]
    pub examples: std::collections::BTreeMap<String, WordExamples>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlaceName {
    #[serde(default, rename = "ko")]
    _ko: String,
    #[serde(default, rename = "en")]
    _en: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlacePack {
    places: Vec<PackPlace>,
}

static PLACE_PACK: LazyLock<Vec<PackPlace>> = LazyLock::new(|| {
    let pack: PlacePack = serde_json::from_str(include_str!("../packs/places.json")).expect("the place pack parses (tests/packs.rs)");
    pack.places
});

/// The place pack as written, examples included.
pub fn place_pack() -> &'static [PackPlace] {
    &PLACE_PACK
}

/// The category a pack place is in, where the catalog has it: a place says where a trip goes.
const PLACE_CATEGORY: &str = "travel";

/// A catalog's entities, then the pack's places it does not already have: a place whose id the
/// catalog uses (as an entity or a category) is the catalog's; an alias any catalog entity or
/// category already has stays the catalog's alone. A pack place is in `travel` where the catalog
/// has that category, and within its country where the catalog or the pack has that place.
pub fn entities_with(t: &TaxonomyDoc) -> Vec<EntityDoc> {
    let mut out = t.entities.clone();
    let mut taken: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut ids: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for e in &t.entities {
        ids.insert(&e.id);
        taken.extend(e.aliases.iter().chain(e.weak_aliases.iter()).map(|a| normalize(a)));
    }
    for c in &t.categories {
        ids.insert(&c.id);
        taken.extend(c.aliases.iter().chain(c.weak_aliases.iter()).map(|a| normalize(a)));
    }
    let travel = t.categories.iter().any(|c| c.id == PLACE_CATEGORY);
    let joining: Vec<&PackPlace> = PLACE_PACK.iter().filter(|p| !ids.contains(p.id.as_str())).collect();
    let known = |id: &str| ids.contains(id) || joining.iter().any(|p| p.id == id);
    for p in &joining {
        let keep = |list: &[String]| list.iter().filter(|a| !taken.contains(&normalize(a))).cloned().collect::<Vec<_>>();
        let aliases = Aliases { ko: keep(&p.aliases.ko), en: keep(&p.aliases.en) };
        if aliases.ko.is_empty() && aliases.en.is_empty() {
            continue;
        }
        out.push(EntityDoc {
            id: p.id.clone(),
            kind: Some("place".into()),
            aliases,
            category_ids: if travel { vec![PLACE_CATEGORY.into()] } else { Vec::new() },
            weak_aliases: Aliases::default(),
            negative_contexts: p.negative_contexts.clone(),
            within: p.within.iter().filter(|w| known(w)).cloned().collect(),
        });
    }
    out
}
