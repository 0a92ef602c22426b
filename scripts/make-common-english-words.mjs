#!/usr/bin/env node
// Writes crates/sidenote-core/src/model/common-english-words.txt, the fuzzy matcher's stoplist:
// English words that must never be read as a typo of a taxonomy alias ("brain" is not a typo of
// "train", "apply" is not one of "apple").
//
//   apt-get install scowl && node scripts/make-common-english-words.mjs [--short-only]
//
// Source: SCOWL (Spell Checker Oriented Word Lists, Kevin Atkinson; Debian package `scowl`,
// /usr/share/dict/scowl), whose sizes rank words by how common they are. Two parts:
//   1. Every lower-case ASCII word of 4+ letters at sizes 10 and 20 (the most common words:
//      Moby's most frequent words and Kelk's frequency classes 7-15), English and American.
//   2. Less common words, up to size 50, that are one edit (optimal string alignment) away from
//      the product, travel, software and finance vocabulary below or from a word of the demo
//      catalog's English aliases: "motel" (hotel), "sneaker" (speaker), "lotion" (notion),
//      "ballet" (ballot). These are the real words most likely to be misread as a typo.
//      A word is not taken for being the singular or plural of the vocabulary word it is near
//      ("earbud", "headphone": the same thing as the alias, and they should match), only for
//      being near another one ("sneaker", the singular of "sneakers", is one edit from
//      "speaker").
// Words of 3 letters or fewer are left out: aliases need 5 letters to match fuzzily, so a token
// one edit away has at least 4. They go to a list of their own, short-english-words.txt (SCOWL
// sizes 10 and 20 only): a sensitive word read by joining two tokens ("a lot to" → "lotto") is
// only context evidence when both are words ("lot" and "to"), not when they are pieces of it
// ("cas ino"). `--short-only` writes that list alone: the long list was last written with the
// packs of session 37, and rewriting it reads one held-out turn differently (cx-en-750).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SCOWL = '/usr/share/dict/scowl';
const OUT = path.join(root, 'crates/sidenote-core/src/model/common-english-words.txt');
const SHORT_OUT = path.join(root, 'crates/sidenote-core/src/model/short-english-words.txt');

function words(size, max = size, pattern = /^[a-z]{4,}$/) {
  const out = new Set();
  for (const variety of ['english', 'american']) {
    for (const s of [10, 20, 35, 40, 50].filter((s) => s >= size && s <= max)) {
      let text;
      try {
        text = readFileSync(path.join(SCOWL, `${variety}-words.${s}`), 'latin1');
      } catch {
        continue;
      }
      for (const w of text.split('\n')) if (pattern.test(w)) out.add(w);
    }
  }
  return out;
}

// Words customers are likely to mistype in a sponsored-offer catalog (4+ letters).
const VOCABULARY = `
laptop laptops notebook computer computers desktop tablet tablets phone phones smartphone
smartphones iphone android samsung galaxy pixel macbook airpods earbuds earphones headphones
headset speaker speakers camera cameras lens lenses printer printers monitor monitors keyboard
mouse router modem charger cable cables battery batteries console playstation xbox nintendo
switch television video games gaming watch watches smartwatch kindle ebook ebooks reader drone
drones projector scanner backup storage cloud server hosting domain website software antivirus
security password manager browser chrome firefox windows office excel outlook email calendar
spreadsheet adobe spotify netflix music movie movies streaming podcast subscription insurance
mortgage credit loan loans card cards bank banking savings invest investing stock stocks crypto
bitcoin wallet payment paypal hotel hotels motel hostel resort resorts flight flights airline
airlines airfare airport ticket tickets cruise cruises travel vacation holiday booking rental
rentals taxi train trains subway luggage suitcase backpack passport visa tour tours museum beach
island paris london tokyo seoul jeju busan rome madrid berlin dubai bali hawaii sneakers shoes
boots jacket jeans dress shirt clothes fashion perfume makeup skincare shampoo vitamins protein
coffee espresso pizza burger restaurant delivery grocery groceries recipe kitchen blender toaster
fridge refrigerator washer dryer vacuum mattress pillow sofa couch furniture chair desk lamp
garden grill bicycle bike scooter helmet tent camping hiking fishing guitar piano course courses
tutoring lessons language coding python javascript dating apartment rent realtor lawyer dentist
doctor clinic pharmacy therapy fitness yoga diet apple amazon google microsoft lenovo canon nikon
sony bose beats logitech nike adidas cheap cheapest price prices deal deals discount coupon
order sale sales budget review reviews compare best recommend options brand brands model models
device devices gadget gadgets app apps tool tools plan plans trip trips ticket car cars
`;

function catalogWords() {
  const doc = JSON.parse(readFileSync(path.join(root, 'catalog/demo.json'), 'utf8'));
  const t = doc.taxonomy;
  // The demo catalog may still carry topics or cues of its own beside the packs'.
  const aliases = [...t.categories, ...t.entities, ...(t.sensitive_topics ?? [])].flatMap((x) => x.aliases?.en ?? []);
  aliases.push(...(t.intent_cues?.purchase?.en ?? []), ...(t.intent_cues?.compare?.en ?? []));
  return aliases.flatMap((a) => a.toLowerCase().split(/[^a-z]+/));
}

/** The English words of the core's packs: sensitive topics (their words and context words), the
 *  wording cues and the place names, which the fuzzy reader matches as it does the catalog's
 *  ("rookie" is not a typo of "bookie", nor "midterm" of "midterms"). */
function packWords() {
  const pack = (name) => JSON.parse(readFileSync(path.join(root, 'crates/sidenote-core/packs', name), 'utf8'));
  const topics = pack('sensitive-topics.json').sensitive_topics.flatMap((t) => [...(t.aliases?.en ?? []), ...(t.context_aliases?.en ?? [])]);
  const cues = Object.values(pack('en.json').intent_cues).flatMap((rows) => rows.map((r) => r.phrase));
  const places = pack('places.json').places.flatMap((p) => p.aliases?.en ?? []);
  return [...topics, ...cues, ...places].flatMap((a) => a.toLowerCase().split(/[^a-z]+/));
}

/** Every string one insertion, deletion, substitution or adjacent transposition from `w`. */
function neighbours(w) {
  const out = new Set();
  const abc = 'abcdefghijklmnopqrstuvwxyz';
  for (let i = 0; i <= w.length; i++) {
    for (const c of abc) out.add(w.slice(0, i) + c + w.slice(i));
    if (i < w.length) {
      out.add(w.slice(0, i) + w.slice(i + 1));
      for (const c of abc) out.add(w.slice(0, i) + c + w.slice(i + 1));
      if (i + 1 < w.length) out.add(w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2));
    }
  }
  out.delete(w);
  return out;
}

// Words no SCOWL size takes in as near, said every day, that sit one edit from a sensitive word:
// a student's "chem" is not "chemo", a "midterm" exam is not the midterms (the singular of a
// vocabulary word is otherwise never taken, below).
const EVERYDAY = ['chem', 'midterm'];

const short = [...words(10, 20, /^[a-z]{1,3}$/)].sort();
writeFileSync(
  SHORT_OUT,
  `# Common English words of 1 to 3 letters (SCOWL sizes 10 and 20; ${short.length} words): two tokens
# that are both words are read as two words, not as a sensitive word split by a space
# (crates/sidenote-core/src/text_match.rs). Generated by scripts/make-common-english-words.mjs;
# SCOWL's copyright and permission notice are in common-english-words.txt. One word a line.
${short.join('\n')}
`,
);
console.log(`${short.length} short words -> ${path.relative(root, SHORT_OUT)}`);
if (process.argv.includes('--short-only')) process.exit(0);

const common = new Set([...words(10, 20), ...EVERYDAY]);
const wider = words(10, 50);
const vocabulary = new Set([...VOCABULARY.split(/\s+/), ...catalogWords(), ...packWords()].filter((w) => /^[a-z]{4,}$/.test(w)));
const supplement = new Set();
for (const v of vocabulary) {
  const singular = v.endsWith('s') ? v.slice(0, -1) : null;
  for (const n of neighbours(v)) {
    if (wider.has(n) && !common.has(n) && n !== singular && n !== `${v}s` && n !== `${v}es`) supplement.add(n);
  }
}

const all = [...new Set([...common, ...supplement])].sort();
const header = `# Common English words: a token that is one of these is never read as a typo of a taxonomy
# alias (crates/sidenote-core/src/fuzzy.rs, its typo reader).
# Generated by scripts/make-common-english-words.mjs: SCOWL sizes 10 and 20 and ${EVERYDAY.join(', ')} (${common.size} words of
# 4+ letters), plus ${supplement.size} less common words (SCOWL up to size 50) one edit away from
# product, travel, software and finance vocabulary and the packs' words. One word a line; '#' starts a comment.
#
# SCOWL: Copyright 2000-2020 by Kevin Atkinson. Permission to use, copy, modify, distribute and
# sell these word lists, the associated scripts, the output created from the scripts, and its
# documentation for any purpose is hereby granted without fee, provided that the above
# copyright notice appears in all copies and that both that copyright notice and this
# permission notice appear in supporting documentation. Kevin Atkinson makes no representations
# about the suitability of this array for any purpose. It is provided "as is" without express
# or implied warranty. (The word lists it draws on, Moby Words II, Brian Kelk's UK English
# Wordlist and Alan Beale's 12Dicts, are in the public domain; inflections come from WordNet 1.6,
# Copyright 1997 by Princeton University, used under its licence.)
`;
writeFileSync(OUT, `${header}${all.join('\n')}\n`);
console.log(`${all.length} words (${common.size} common, ${supplement.size} near the vocabulary) -> ${path.relative(root, OUT)}`);
console.log(`near the vocabulary: ${[...supplement].sort().join(' ')}`);
