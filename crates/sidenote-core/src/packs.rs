//! The language packs (`packs/ko.json`, `packs/en.json`): the core's own knowledge of how Korean
//! and English users ask. Each row is a cue phrase with the turns it is read in (`reads`) and,
//! where its letters also spell something else, a turn where it is not (`not`);
//! `tests/packs.rs` reads every example as the service would. Compiled in, parsed once. A
//! catalog may add cues of its own (`taxonomy.intent_cues`), never take the packs' away: the
//! language a catalog's users write is not the catalog's to restate.
use serde::Deserialize;
use std::sync::LazyLock;

use crate::document::{Aliases, IntentCues};

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

/// A language's cues by kind; the kinds are [`IntentCues`]' fields (what each does is there).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackCues {
    #[serde(default)]
    pub purchase: Vec<CueRow>,
    #[serde(default)]
    pub compare: Vec<CueRow>,
    #[serde(default)]
    pub negation: Vec<CueRow>,
    #[serde(default)]
    pub negation_before: Vec<CueRow>,
    #[serde(default)]
    pub after_sales: Vec<CueRow>,
    #[serde(default)]
    pub not_commercial: Vec<CueRow>,
    #[serde(default)]
    pub clause_break: Vec<CueRow>,
    #[serde(default)]
    pub purpose: Vec<CueRow>,
    #[serde(default)]
    pub purpose_before: Vec<CueRow>,
    #[serde(default)]
    pub alternative: Vec<CueRow>,
}

impl PackCues {
    /// Every kind with its rows, by the name its JSON and [`IntentCues`] give it.
    pub fn kinds(&self) -> [(&'static str, &[CueRow]); 10] {
        [
            ("purchase", &self.purchase),
            ("compare", &self.compare),
            ("negation", &self.negation),
            ("negation_before", &self.negation_before),
            ("after_sales", &self.after_sales),
            ("not_commercial", &self.not_commercial),
            ("clause_break", &self.clause_break),
            ("purpose", &self.purpose),
            ("purpose_before", &self.purpose_before),
            ("alternative", &self.alternative),
        ]
    }
}

/// One language's pack.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LanguagePack {
    /// `ko` or `en`.
    pub language: String,
    pub intent_cues: PackCues,
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
        let c = &pack.intent_cues;
        let into: [(&mut Aliases, &[CueRow]); 10] = [
            (&mut out.purchase, &c.purchase),
            (&mut out.compare, &c.compare),
            (&mut out.negation, &c.negation),
            (&mut out.negation_before, &c.negation_before),
            (&mut out.after_sales, &c.after_sales),
            (&mut out.not_commercial, &c.not_commercial),
            (&mut out.clause_break, &c.clause_break),
            (&mut out.purpose, &c.purpose),
            (&mut out.purpose_before, &c.purpose_before),
            (&mut out.alternative, &c.alternative),
        ];
        for (aliases, rows) in into {
            let list = if pack.language == "ko" { &mut aliases.ko } else { &mut aliases.en };
            list.extend(rows.iter().map(|r| r.phrase.clone()));
        }
    }
    let add: [(&mut Aliases, &Aliases); 10] = [
        (&mut out.purchase, &extra.purchase),
        (&mut out.compare, &extra.compare),
        (&mut out.negation, &extra.negation),
        (&mut out.negation_before, &extra.negation_before),
        (&mut out.after_sales, &extra.after_sales),
        (&mut out.not_commercial, &extra.not_commercial),
        (&mut out.clause_break, &extra.clause_break),
        (&mut out.purpose, &extra.purpose),
        (&mut out.purpose_before, &extra.purpose_before),
        (&mut out.alternative, &extra.alternative),
    ];
    for (aliases, more) in add {
        for (list, extra) in [(&mut aliases.ko, &more.ko), (&mut aliases.en, &more.en)] {
            for phrase in extra {
                if !list.contains(phrase) {
                    list.push(phrase.clone());
                }
            }
        }
    }
    out
}
