//! Messages built to cost the reader as much as possible: the demo catalog's own words (every
//! alias, weak alias, negative context and cue of every kind) mixed with the characters the
//! reading acts on (clause ends, commas, quotation marks, code fences, the words around a place),
//! tiled to the envelope's 4,000 characters. Used by `tests/bounded_reading.rs` (a property over
//! random ones, the corpus of the worst found) and by `examples/slow_inputs.rs` (the search).
use sidenote_core::IndexDocument;

/// The envelope's limit on a message, in characters (the decide schema's `message.max`).
pub const MAX_CHARS: usize = 4000;

/// Pieces that are not the catalog's words but change how the words around them are read.
const STRUCTURE: &[&str] = &[
    " ",
    " ",
    " ",
    ", ",
    ". ",
    "? ",
    "! ",
    "; ",
    "\n",
    " - ",
    " — ",
    "'",
    "\"",
    "“",
    "”",
    "「",
    "」",
    "`",
    "```",
    "(",
    ")",
    ".",
    "$",
    "#",
    "/",
    " to ",
    " from ",
    "에서 ",
    "에서",
    "출발 ",
    " 말고 ",
    "이랑 ",
    "에 ",
    "은 ",
    "는 ",
    "이 ",
    "가 ",
    "고 ",
    "어서 ",
    "으니까 ",
    "니 ",
    " for ",
    " during ",
    "3-",
    "2",
    "ｔｏｋｙｏ",
    "\u{200b}",
    "\u{301}",
    "가",
    "나",
    "a",
    "x",
    "😀",
];

/// Every word the catalog reads a turn with, and the pieces above.
pub fn vocabulary(doc: &IndexDocument) -> Vec<String> {
    let t = &doc.taxonomy;
    let mut words: Vec<String> = Vec::new();
    for c in &t.categories {
        words.extend(c.aliases.iter().chain(c.weak_aliases.iter()).chain(c.negative_contexts.iter()).cloned());
    }
    for e in &t.entities {
        words.extend(e.aliases.iter().chain(e.weak_aliases.iter()).chain(e.negative_contexts.iter()).cloned());
    }
    for s in &t.sensitive_topics {
        words.extend(s.aliases.iter().chain(s.negative_contexts.iter()).cloned());
    }
    let cues = &t.intent_cues;
    for list in [
        &cues.purchase,
        &cues.compare,
        &cues.negation,
        &cues.after_sales,
        &cues.not_commercial,
        &cues.negation_before,
        &cues.clause_break,
        &cues.purpose,
        &cues.purpose_before,
        &cues.alternative,
    ] {
        words.extend(list.iter().cloned());
    }
    words.sort();
    words.dedup();
    words.extend(STRUCTURE.iter().map(|s| s.to_string()));
    words
}

/// A small deterministic generator (xorshift64*), so a search or a failure replays from its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A motif: a few pieces, each a word or a piece of structure, often with a separator.
pub fn motif(rng: &mut Rng, vocabulary: &[String]) -> Vec<usize> {
    let len = 1 + rng.below(8);
    (0..len).map(|_| rng.below(vocabulary.len())).collect()
}

/// The motif written out again and again up to `MAX_CHARS` characters (cut at a character).
pub fn tile(motif: &[usize], vocabulary: &[String], chars: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    'fill: loop {
        for &w in motif {
            for c in vocabulary[w].chars() {
                if count == chars {
                    break 'fill;
                }
                out.push(c);
                count += 1;
            }
        }
        if motif.iter().all(|&w| vocabulary[w].is_empty()) {
            break;
        }
    }
    out
}
