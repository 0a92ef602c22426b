// The labelled relevance set: its types, the fixed dev / held-out split rule, loading and the
// well-formedness checks (README.md in this folder explains the labels and the families).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const LANGS = ['ko', 'en'] as const;
export type Lang = (typeof LANGS)[number];

export const FAMILIES = ['clear_intent', 'topic_no_intent', 'context', 'ambiguous', 'ranking', 'korean_morphology', 'sensitive'] as const;
export type Family = (typeof FAMILIES)[number];

export const EXPECTS = ['serve', 'silent', 'block'] as const;
export type Expect = (typeof EXPECTS)[number];

export const SPLITS = ['dev', 'held-out'] as const;
export type Split = (typeof SPLITS)[number];

/** What a case may carry as `session.digest` (the runner adds `generated_at`). */
export interface CaseDigest {
  intent_type?: 'purchase' | 'compare' | 'browse' | 'low' | 'unknown';
  category_ids?: string[];
  entity_ids?: string[];
}

export interface RelevanceCase {
  id: string;
  lang: Lang;
  family: Family;
  message: string;
  expect: Expect;
  /** `serve` only: acceptable category ids, most specific first. A served offer targeting one of
   *  them, or a descendant of one, is the right category. */
  categories?: string[];
  digest?: CaseDigest;
  /** The labeller's reason, where the label depends on what the demo catalog can serve. */
  note?: string;
}

const HERE = fileURLToPath(new URL('.', import.meta.url));
export const CASE_FILES: Record<Split, string> = {
  dev: `${HERE}dev.jsonl`,
  'held-out': `${HERE}held-out.jsonl`,
};

/** The split rule, fixed once and computed from the id alone, so it is stratified and adding
 *  cases never moves an existing one. Ids are `<family>-<lang>-<nnn>`, numbered in order within
 *  each family × language stratum. Each run of five consecutive numbers (001–005, 006–010, …) is
 *  one block; a sha256 of the salted block name shuffles its five positions, and the first three
 *  of that order are dev, the other two held-out. Every stratum is therefore 60/40 to within one
 *  block's remainder, and a new case appended to a stratum lands where its number says. */
export const SPLIT_SALT = 'sidenote-relevance-split-v1:';
/** Held-out cases read while a matching change was designed and changed by it: dev from then on
 *  (README, The rule). tn-ko-195: listed with the other `minors` blocks in session 23 before the
 *  catalog's `minors` words were read as a child's when a grown-up speaks of their own child.
 *  ci-en-042 and rk-ko-124 (session 26): a round trip from Incheon, for which Incheon was taken
 *  out of the place pack, and a hotel booked after a flight asked for, for which the completed-
 *  booking stems were reverted (docs/relevance.md). se-en-413 and se-ko-581 (session 29): a
 *  sensitive turn seen in a failure listing before the round of young people's phrasings that
 *  blocked it, and a widow's turn of the session-29b batch read before the regional-Korean round
 *  that blocked it was chosen (docs/relevance.md, "Session 29 in order"). cx-en-506 (session
 *  30) and ci-en-618 (session 31): README, The rule. cx-ko-530, cx-en-064 and cx-en-545 (session
 *  32): code turns read while the code rows that replaced the bare language names were chosen;
 *  ci-ko-667 (session 32): a phone case seen before the accessory words were chosen; ci-en-677
 *  (session 32): a team's task tool seen before the productivity words were chosen; cx-en-533
 *  (session 32): a price asked to sell, seen before the seller's-price rows were chosen; se-en-616
 *  (session 32): a massage with 'extras', seen before the scare-quote pattern was written;
 *  km-en-294 (session 32): a password manager lost to 'wifi' read as an accessory, and read while
 *  that was undone; cx-en-563 (session 32): a pasted trip to 'turn into' a doc, read in the
 *  batch's label review before the 'turn this into' row was chosen. cx-en-575 and cx-en-582
 *  (session 33): a recommendation refused ('no need to recommend', 'not looking for … recs'),
 *  shown in the batch's first run before the refusal rows were written; am-ko-402 (session 33):
 *  a band's 'Asia tour', read in a diff while the catalog's concert-tour contexts were chosen;
 *  am-ko-068, ci-ko-392 and ci-ko-599 (session 33): a phone said as where an app goes or what a
 *  schedule or an alert is seen on ('개인 폰에도', '폰으로'), read in a diff while the negative
 *  contexts of 폰 were chosen; km-ko-089 (session 33): '이어 폰' spaced, read as a phone by the new
 *  alias, seen in the floor check before the spaced audio aliases were added; cx-ko-596 (session
 *  33): a sale listing to polish ('다듬어줘'), shown in the session-33b batch's first run before the
 *  writing-task rows were chosen from a dev turn; cx-ko-592 (session-33 batch): a friend's
 *  tablet question relayed ('물어보길래'), printed among the held-out failures at session 34's
 *  start before the relayed-question rows were chosen from dev turns; ci-en-681 and ci-ko-711
 *  (session-32 and session-32b batches): a family password manager and a VPN asked beside a phone, printed
 *  among the held-out failures at session 34's start, answered right once a VPN and a password
 *  manager became kinds of security software with their own offers; cx-ko-606 (session-33b
 *  batch): a Galaxy Book to sell and what it would fetch, printed among the held-out failures at
 *  session 34's start, answered right once selling became a cue kind of its own. se-ko-248
 *  (session 36): a casino spelled '카.지.노' after a word of one syllable ('꼭'), read in a diff of
 *  the classifier's held-out answers, then read as gambling once a letter that masking marks join
 *  to the next was no longer taken for a spaced-out one. ci-en-1490 (session-40c batch): a youth
 *  group's KTX day, '18 people, 13 of them teenagers', printed among the batch's held-out failures
 *  before English head counts ('15 teenagers') became a grown-up's (policy_patterns.rs,
 *  EN_COUNTED), whose 'N of them' form it suggested. rk-en-549 (session-41 batch): 'Need hotel in
 *  Shinjuku area only, not flight', printed among the batch's held-out failures before a 'not'
 *  right before a topic refused it (reading.rs, said_not_before). ci-ko-183, ci-en-735, ci-en-1272
 *  and ci-en-1450 (sessions 20 to 40b): team-tool asks beside Google Docs, listed with their
 *  answers in a search of the whole set before the demo's Taskloom offers came to target Google
 *  Docs users. am-en-613 (session-41 batch): 'Is the 7-day pass worth it if I go Tokyo to Kyoto',
 *  printed among the batch's held-out failures before '7 day pass' became a weak name of the
 *  Japan Rail Pass. */
export const MOVED_TO_DEV: ReadonlySet<string> = new Set([
  'tn-ko-195',
  'ci-en-042',
  'rk-ko-124',
  'se-en-413',
  'se-ko-581',
  'cx-en-506',
  'ci-en-618',
  'cx-ko-530',
  'cx-en-064',
  'cx-en-545',
  'ci-ko-667',
  'ci-en-677',
  'cx-en-533',
  'se-en-616',
  'km-en-294',
  'cx-en-563',
  'cx-en-575',
  'cx-en-582',
  'am-ko-402',
  'am-ko-068',
  'ci-ko-392',
  'ci-ko-599',
  'km-ko-089',
  'cx-ko-596',
  'cx-ko-592',
  'ci-en-681',
  'ci-ko-711',
  'cx-ko-606',
  'se-ko-248',
  'ci-en-1490',
  'rk-en-549',
  'ci-ko-183',
  'ci-en-735',
  'ci-en-1272',
  'ci-en-1450',
  'am-en-613',
  'ci-ko-523',
  'ci-ko-1197',
  'ci-ko-1201',
  'cx-ko-795',
  'cx-ko-895',
  'am-en-625',
  'se-ko-1144',
  'cx-ko-692',
  'cx-ko-976',
  'ci-en-1459',
  'ci-en-1606',
  'am-en-608',
  'am-en-639',
  'ci-en-280',
  'ci-en-1594',
  'ci-ko-1652',
  'am-ko-699',
  'km-ko-790',
  'am-en-810',
  'rk-ko-727',
]);
/** Sensitive cases labelled block only because a parent buys for a child, relabelled by what
 *  they ask in session 14 (README, Labels: "a minor" means the user is one). They keep their ids.
 *  se-en-335 is one its session-17 author filed under sensitive with that label already. */
export const RELABELLED_SENSITIVE: ReadonlySet<string> = new Set([
  'se-ko-066',
  'se-ko-165',
  'se-ko-189',
  'se-ko-204',
  'se-en-065',
  'se-en-185',
  'se-en-193',
  'se-en-208',
  'se-en-214',
  'se-en-335',
]);

export function splitOf(id: string): Split {
  const m = /^([a-z]{2}-(?:ko|en))-(\d{3,})$/.exec(id);
  if (!m) throw new Error(`case id ${id} does not look like ci-ko-001`);
  if (MOVED_TO_DEV.has(id)) return 'dev';
  const n = Number(m[2]) - 1;
  const block = Math.floor(n / 5);
  const h = createHash('sha256').update(`${SPLIT_SALT}${m[1]}:${block}`).digest();
  const order = [0, 1, 2, 3, 4];
  for (let i = order.length - 1; i > 0; i--) {
    const j = h[i] % (i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order.slice(0, 3).includes(n % 5) ? 'dev' : 'held-out';
}

/** The batches the cases were written in (README, "Batches"): the first id number of each batch
 *  per family × language. A batch runs up to the next batch's first number; ids were appended
 *  batch by batch, so a case's number says which batch wrote it. */
export const BATCH_STARTS = {
  'session-5': {
    'ci-ko': 79,
    'ci-en': 75,
    'tn-ko': 53,
    'tn-en': 53,
    'cx-ko': 57,
    'cx-en': 57,
    'am-ko': 52,
    'am-en': 51,
    'rk-ko': 36,
    'rk-en': 37,
    'km-ko': 52,
    'km-en': 23,
    'se-ko': 63,
    'se-en': 62,
  },
  'session-6': {
    'ci-ko': 99,
    'ci-en': 95,
    'tn-ko': 73,
    'tn-en': 73,
    'cx-ko': 77,
    'cx-en': 77,
    'am-ko': 72,
    'am-en': 71,
    'rk-ko': 56,
    'rk-en': 57,
    'km-ko': 72,
    'km-en': 43,
    'se-ko': 83,
    'se-en': 82,
  },
  'session-7': {
    'ci-ko': 124,
    'ci-en': 119,
    'tn-ko': 99,
    'tn-en': 101,
    'cx-ko': 103,
    'cx-en': 106,
    'am-ko': 99,
    'am-en': 97,
    'rk-ko': 83,
    'rk-en': 86,
    'km-ko': 100,
    'km-en': 70,
    'se-ko': 111,
    'se-en': 108,
  },
  'session-9': {
    'ci-ko': 143,
    'ci-en': 140,
    'tn-ko': 113,
    'tn-en': 114,
    'cx-ko': 119,
    'cx-en': 121,
    'am-ko': 112,
    'am-en': 110,
    'rk-ko': 95,
    'rk-en': 98,
    'km-ko': 119,
    'km-en': 82,
    'se-ko': 145,
    'se-en': 141,
  },
  'session-10': {
    'ci-ko': 160,
    'ci-en': 158,
    'tn-ko': 127,
    'tn-en': 128,
    'cx-ko': 134,
    'cx-en': 136,
    'am-ko': 123,
    'am-en': 121,
    'rk-ko': 108,
    'rk-en': 111,
    'km-ko': 134,
    'km-en': 95,
    'se-ko': 172,
    'se-en': 166,
  },
  'session-11': {
    'ci-ko': 176,
    'ci-en': 174,
    'tn-ko': 140,
    'tn-en': 141,
    'cx-ko': 148,
    'cx-en': 149,
    'am-ko': 134,
    'am-en': 132,
    'rk-ko': 120,
    'rk-en': 122,
    'km-ko': 151,
    'km-en': 105,
    'se-ko': 199,
    'se-en': 192,
  },
  'session-12': {
    'ci-ko': 197,
    'ci-en': 193,
    'tn-ko': 153,
    'tn-en': 154,
    'cx-ko': 162,
    'cx-en': 163,
    'am-ko': 146,
    'am-en': 144,
    'rk-ko': 131,
    'rk-en': 133,
    'km-ko': 164,
    'km-en': 112,
    'se-ko': 220,
    'se-en': 211,
  },
  'session-14': {
    'ci-ko': 229,
    'ci-en': 228,
    'tn-ko': 170,
    'tn-en': 170,
    'cx-ko': 181,
    'cx-en': 185,
    'am-ko': 154,
    'am-en': 151,
    'rk-ko': 143,
    'rk-en': 149,
    'km-ko': 175,
    'km-en': 115,
    'se-ko': 249,
    'se-en': 237,
  },
  'session-15': {
    'ci-ko': 251,
    'ci-en': 252,
    'tn-ko': 186,
    'tn-en': 187,
    'cx-ko': 200,
    'cx-en': 205,
    'am-ko': 168,
    'am-en': 166,
    'rk-ko': 156,
    'rk-en': 165,
    'km-ko': 192,
    'km-en': 123,
    'se-ko': 273,
    'se-en': 261,
  },
  'session-16': {
    'ci-ko': 272,
    'ci-en': 273,
    'tn-ko': 203,
    'tn-en': 205,
    'cx-ko': 220,
    'cx-en': 225,
    'am-ko': 184,
    'am-en': 182,
    'rk-ko': 172,
    'rk-en': 180,
    'km-ko': 204,
    'km-en': 135,
    'se-ko': 296,
    'se-en': 284,
  },
  'session-16b': {
    'ci-ko': 292,
    'ci-en': 292,
    'tn-ko': 217,
    'tn-en': 220,
    'cx-ko': 237,
    'cx-en': 241,
    'am-ko': 196,
    'am-en': 199,
    'rk-ko': 186,
    'rk-en': 195,
    'km-ko': 215,
    'km-en': 144,
    'se-ko': 319,
    'se-en': 309,
  },
  'session-17': {
    'ci-ko': 312,
    'ci-en': 315,
    'tn-ko': 230,
    'tn-en': 230,
    'cx-ko': 254,
    'cx-en': 259,
    'am-ko': 211,
    'am-en': 211,
    'rk-ko': 200,
    'rk-en': 208,
    'km-ko': 227,
    'km-en': 153,
    'se-ko': 343,
    'se-en': 333,
  },
  'session-17b': {
    'ci-ko': 332,
    'ci-en': 335,
    'tn-ko': 243,
    'tn-en': 242,
    'cx-ko': 270,
    'cx-en': 276,
    'am-ko': 225,
    'am-en': 223,
    'rk-ko': 214,
    'rk-en': 221,
    'km-ko': 239,
    'km-en': 165,
    'se-ko': 366,
    'se-en': 358,
  },
  'session-19': {
    'ci-ko': 342,
    'ci-en': 346,
    'tn-ko': 250,
    'tn-en': 249,
    'cx-ko': 278,
    'cx-en': 284,
    'am-ko': 232,
    'am-en': 230,
    'rk-ko': 221,
    'rk-en': 227,
    'km-ko': 244,
    'km-en': 171,
    'se-ko': 377,
    'se-en': 369,
  },
  'session-20': {
    'ci-ko': 362,
    'ci-en': 366,
    'tn-ko': 263,
    'tn-en': 263,
    'cx-ko': 294,
    'cx-en': 300,
    'am-ko': 246,
    'am-en': 244,
    'rk-ko': 235,
    'rk-en': 241,
    'km-ko': 254,
    'km-en': 180,
    'se-ko': 399,
    'se-en': 391,
  },
  'session-21': {
    'ci-ko': 386,
    'ci-en': 388,
    'tn-ko': 279,
    'tn-en': 278,
    'cx-ko': 313,
    'cx-en': 316,
    'am-ko': 259,
    'am-en': 257,
    'rk-ko': 247,
    'rk-en': 249,
    'km-ko': 262,
    'km-en': 185,
    'se-ko': 421,
    'se-en': 414,
  },
  'session-22': {
    'ci-ko': 408,
    'ci-en': 412,
    'tn-ko': 296,
    'tn-en': 294,
    'cx-ko': 331,
    'cx-en': 331,
    'am-ko': 273,
    'am-en': 271,
    'rk-ko': 261,
    'rk-en': 262,
    'km-ko': 269,
    'km-en': 192,
    'se-ko': 442,
    'se-en': 435,
  },
  'session-23': {
    'ci-ko': 430,
    'ci-en': 436,
    'tn-ko': 312,
    'tn-en': 307,
    'cx-ko': 347,
    'cx-en': 348,
    'am-ko': 286,
    'am-en': 282,
    'rk-ko': 271,
    'rk-en': 275,
    'km-ko': 277,
    'km-en': 200,
    'se-ko': 462,
    'se-en': 452,
  },
  'session-24': {
    'ci-ko': 441,
    'ci-en': 447,
    'tn-ko': 319,
    'tn-en': 313,
    'cx-ko': 354,
    'cx-en': 355,
    'am-ko': 293,
    'am-en': 286,
    'rk-ko': 276,
    'rk-en': 282,
    'km-ko': 281,
    'km-en': 205,
    'se-ko': 474,
    'se-en': 463,
  },
  'session-25': {
    'ci-ko': 461,
    'ci-en': 466,
    'tn-ko': 339,
    'tn-en': 333,
    'cx-ko': 373,
    'cx-en': 375,
    'am-ko': 303,
    'am-en': 298,
    'rk-ko': 286,
    'rk-en': 292,
    'km-ko': 290,
    'km-en': 212,
    'se-ko': 488,
    'se-en': 477,
  },
  'session-26': {
    'ci-ko': 481,
    'ci-en': 486,
    'tn-ko': 357,
    'tn-en': 352,
    'cx-ko': 392,
    'cx-en': 393,
    'am-ko': 313,
    'am-en': 309,
    'rk-ko': 295,
    'rk-en': 302,
    'km-ko': 298,
    'km-en': 219,
    'se-ko': 502,
    'se-en': 492,
  },
  'session-27': {
    'ci-ko': 501,
    'ci-en': 505,
    'tn-ko': 378,
    'tn-en': 372,
    'cx-ko': 410,
    'cx-en': 412,
    'am-ko': 325,
    'am-en': 321,
    'rk-ko': 306,
    'rk-en': 312,
    'km-ko': 306,
    'km-en': 229,
    'se-ko': 516,
    'se-en': 506,
  },
  'session-28': {
    'ci-ko': 521,
    'ci-en': 526,
    'tn-ko': 399,
    'tn-en': 392,
    'cx-ko': 430,
    'cx-en': 428,
    'am-ko': 336,
    'am-en': 333,
    'rk-ko': 315,
    'rk-en': 322,
    'km-ko': 314,
    'km-en': 237,
    'se-ko': 531,
    'se-en': 520,
  },
  'session-28b': {
    'ci-ko': 540,
    'ci-en': 544,
    'tn-ko': 420,
    'tn-en': 413,
    'cx-ko': 449,
    'cx-en': 448,
    'am-ko': 346,
    'am-en': 345,
    'rk-ko': 327,
    'rk-en': 333,
    'km-ko': 324,
    'km-en': 247,
    'se-ko': 545,
    'se-en': 535,
  },
  'session-29': {
    'ci-ko': 561,
    'ci-en': 563,
    'tn-ko': 441,
    'tn-en': 433,
    'cx-ko': 469,
    'cx-en': 467,
    'am-ko': 357,
    'am-en': 357,
    'rk-ko': 340,
    'rk-en': 340,
    'km-ko': 332,
    'km-en': 254,
    'se-ko': 559,
    'se-en': 548,
  },
  'session-29b': {
    'ci-ko': 581,
    'ci-en': 580,
    'tn-ko': 462,
    'tn-en': 453,
    'cx-ko': 489,
    'cx-en': 485,
    'am-ko': 368,
    'am-en': 367,
    'rk-ko': 347,
    'rk-en': 350,
    'km-ko': 340,
    'km-en': 261,
    'se-ko': 573,
    'se-en': 562,
  },
  'session-30': {
    'ci-ko': 600,
    'ci-en': 598,
    'tn-ko': 483,
    'tn-en': 471,
    'cx-ko': 509,
    'cx-en': 504,
    'am-ko': 379,
    'am-en': 377,
    'rk-ko': 358,
    'rk-en': 364,
    'km-ko': 348,
    'km-en': 267,
    'se-ko': 587,
    'se-en': 577,
  },
  'session-31': {
    'ci-ko': 633,
    'ci-en': 637,
    'tn-ko': 492,
    'tn-en': 477,
    'cx-ko': 526,
    'cx-en': 521,
    'am-ko': 383,
    'am-en': 383,
    'rk-ko': 363,
    'rk-en': 370,
    'km-ko': 357,
    'km-en': 272,
    'se-ko': 608,
    'se-en': 598,
  },
  'session-32': {
    'ci-ko': 668,
    'ci-en': 677,
    'tn-ko': 498,
    'tn-en': 481,
    'cx-ko': 541,
    'cx-en': 538,
    'am-ko': 390,
    'am-en': 389,
    'rk-ko': 370,
    'rk-en': 375,
    'km-ko': 363,
    'km-en': 279,
    'se-ko': 629,
    'se-en': 618,
  },
  'session-32b': {
    'ci-ko': 702,
    'ci-en': 712,
    'tn-ko': 502,
    'tn-en': 486,
    'cx-ko': 560,
    'cx-en': 556,
    'am-ko': 395,
    'am-en': 395,
    'rk-ko': 374,
    'rk-en': 381,
    'km-ko': 374,
    'km-en': 289,
    'se-ko': 649,
    'se-en': 638,
  },
  'session-33': {
    'ci-ko': 739,
    'ci-en': 748,
    'tn-ko': 509,
    'tn-en': 491,
    'cx-ko': 577,
    'cx-en': 570,
    'am-ko': 399,
    'am-en': 403,
    'rk-ko': 379,
    'rk-en': 386,
    'km-ko': 383,
    'km-en': 296,
    'se-ko': 669,
    'se-en': 658,
  },
  'session-33b': {
    'ci-ko': 772,
    'ci-en': 790,
    'tn-ko': 515,
    'tn-en': 496,
    'cx-ko': 595,
    'cx-en': 586,
    'am-ko': 404,
    'am-en': 409,
    'rk-ko': 387,
    'rk-en': 390,
    'km-ko': 392,
    'km-en': 301,
    'se-ko': 689,
    'se-en': 678,
  },
  'session-33c': {
    'ci-ko': 808,
    'ci-en': 826,
    'tn-ko': 521,
    'tn-en': 502,
    'cx-ko': 609,
    'cx-en': 603,
    'am-ko': 414,
    'am-en': 415,
    'rk-ko': 391,
    'rk-en': 395,
    'km-ko': 400,
    'km-en': 307,
    'se-ko': 709,
    'se-en': 697,
  },
  'session-34': {
    'ci-ko': 842,
    'ci-en': 863,
    'tn-ko': 529,
    'tn-en': 506,
    'cx-ko': 627,
    'cx-en': 621,
    'am-ko': 420,
    'am-en': 424,
    'rk-ko': 395,
    'rk-en': 400,
    'km-ko': 409,
    'km-en': 314,
    'se-ko': 729,
    'se-en': 717,
  },
  'session-34b': {
    'ci-ko': 879,
    'ci-en': 901,
    'tn-ko': 536,
    'tn-en': 515,
    'cx-ko': 646,
    'cx-en': 636,
    'am-ko': 424,
    'am-en': 430,
    'rk-ko': 398,
    'rk-en': 404,
    'km-ko': 417,
    'km-en': 321,
    'se-ko': 749,
    'se-en': 737,
  },
  'session-34c': {
    'ci-ko': 914,
    'ci-en': 937,
    'tn-ko': 543,
    'tn-en': 521,
    'cx-ko': 660,
    'cx-en': 653,
    'am-ko': 431,
    'am-en': 439,
    'rk-ko': 404,
    'rk-en': 409,
    'km-ko': 426,
    'km-en': 326,
    'se-ko': 770,
    'se-en': 757,
  },
  'session-34d': {
    'ci-ko': 949,
    'ci-en': 975,
    'tn-ko': 551,
    'tn-en': 530,
    'cx-ko': 677,
    'cx-en': 671,
    'am-ko': 436,
    'am-en': 445,
    'rk-ko': 408,
    'rk-en': 414,
    'km-ko': 435,
    'km-en': 330,
    'se-ko': 790,
    'se-en': 777,
  },
  'session-35': {
    'ci-ko': 982,
    'ci-en': 1010,
    'tn-ko': 561,
    'tn-en': 534,
    'cx-ko': 696,
    'cx-en': 692,
    'am-ko': 439,
    'am-en': 452,
    'rk-ko': 412,
    'rk-en': 417,
    'km-ko': 445,
    'km-en': 337,
    'se-ko': 810,
    'se-en': 798,
  },
  'session-35b': {
    'ci-ko': 1020,
    'ci-en': 1043,
    'tn-ko': 568,
    'tn-en': 541,
    'cx-ko': 711,
    'cx-en': 706,
    'am-ko': 444,
    'am-en': 465,
    'rk-ko': 416,
    'rk-en': 426,
    'km-ko': 453,
    'km-en': 340,
    'se-ko': 830,
    'se-en': 817,
  },
  'session-35c': {
    'ci-ko': 1057,
    'ci-en': 1083,
    'tn-ko': 575,
    'tn-en': 547,
    'cx-ko': 726,
    'cx-en': 724,
    'am-ko': 449,
    'am-en': 473,
    'rk-ko': 422,
    'rk-en': 429,
    'km-ko': 460,
    'km-en': 344,
    'se-ko': 850,
    'se-en': 837,
  },
  'session-35d': {
    'ci-ko': 1090,
    'ci-en': 1116,
    'tn-ko': 584,
    'tn-en': 557,
    'cx-ko': 743,
    'cx-en': 737,
    'am-ko': 454,
    'am-en': 480,
    'rk-ko': 426,
    'rk-en': 434,
    'km-ko': 470,
    'km-en': 350,
    'se-ko': 870,
    'se-en': 856,
  },
  'session-35e': {
    'ci-ko': 1124,
    'ci-en': 1149,
    'tn-ko': 592,
    'tn-en': 565,
    'cx-ko': 759,
    'cx-en': 755,
    'am-ko': 460,
    'am-en': 486,
    'rk-ko': 432,
    'rk-en': 441,
    'km-ko': 478,
    'km-en': 356,
    'se-ko': 890,
    'se-en': 876,
  },
  'session-36': {
    'ci-ko': 1162,
    'ci-en': 1182,
    'tn-ko': 600,
    'tn-en': 571,
    'cx-ko': 777,
    'cx-en': 770,
    'am-ko': 465,
    'am-en': 494,
    'rk-ko': 435,
    'rk-en': 448,
    'km-ko': 485,
    'km-en': 362,
    'se-ko': 910,
    'se-en': 897,
  },
  'session-36b': {
    'ci-ko': 1195,
    'ci-en': 1221,
    'tn-ko': 610,
    'tn-en': 581,
    'cx-ko': 795,
    'cx-en': 785,
    'am-ko': 469,
    'am-en': 499,
    'rk-ko': 440,
    'rk-en': 453,
    'km-ko': 494,
    'km-en': 368,
    'se-ko': 929,
    'se-en': 917,
  },
  'session-37': {
    'ci-ko': 1228,
    'ci-en': 1262,
    'tn-ko': 620,
    'tn-en': 586,
    'cx-ko': 810,
    'cx-en': 801,
    'am-ko': 474,
    'am-en': 508,
    'rk-ko': 446,
    'rk-en': 457,
    'km-ko': 503,
    'km-en': 371,
    'se-ko': 949,
    'se-en': 938,
  },
  'session-37b': {
    'ci-ko': 1260,
    'ci-en': 1302,
    'tn-ko': 630,
    'tn-en': 594,
    'cx-ko': 824,
    'cx-en': 819,
    'am-ko': 478,
    'am-en': 513,
    'rk-ko': 453,
    'rk-en': 462,
    'km-ko': 509,
    'km-en': 375,
    'se-ko': 969,
    'se-en': 958,
  },
  'session-38': {
    'ci-ko': 1292,
    'ci-en': 1341,
    'tn-ko': 638,
    'tn-en': 597,
    'cx-ko': 842,
    'cx-en': 837,
    'am-ko': 482,
    'am-en': 522,
    'rk-ko': 459,
    'rk-en': 469,
    'km-ko': 520,
    'km-en': 379,
    'se-ko': 989,
    'se-en': 978,
  },
  'session-38b': {
    'ci-ko': 1327,
    'ci-en': 1379,
    'tn-ko': 648,
    'tn-en': 604,
    'cx-ko': 859,
    'cx-en': 856,
    'am-ko': 488,
    'am-en': 530,
    'rk-ko': 462,
    'rk-en': 472,
    'km-ko': 526,
    'km-en': 383,
    'se-ko': 1009,
    'se-en': 998,
  },
  'session-39': {
    'ci-ko': 1360,
    'ci-en': 1416,
    'tn-ko': 654,
    'tn-en': 608,
    'cx-ko': 876,
    'cx-en': 873,
    'am-ko': 495,
    'am-en': 539,
    'rk-ko': 467,
    'rk-en': 478,
    'km-ko': 537,
    'km-en': 390,
    'se-ko': 1029,
    'se-en': 1017,
  },
  'session-39b': {
    'ci-ko': 1376,
    'ci-en': 1431,
    'tn-ko': 668,
    'tn-en': 622,
    'cx-ko': 890,
    'cx-en': 887,
    'am-ko': 509,
    'am-en': 553,
    'rk-ko': 481,
    'rk-en': 492,
    'km-ko': 551,
    'km-en': 404,
    'se-ko': 1043,
    'se-en': 1032,
  },
  'session-40': {
    'ci-ko': 1391,
    'ci-en': 1446,
    'tn-ko': 682,
    'tn-en': 636,
    'cx-ko': 905,
    'cx-en': 900,
    'am-ko': 523,
    'am-en': 567,
    'rk-ko': 495,
    'rk-en': 506,
    'km-ko': 565,
    'km-en': 419,
    'se-ko': 1057,
    'se-en': 1046,
  },
  'session-40b': {
    'ci-ko': 1411,
    'ci-en': 1466,
    'tn-ko': 696,
    'tn-en': 650,
    'cx-ko': 921,
    'cx-en': 916,
    'am-ko': 535,
    'am-en': 579,
    'rk-ko': 507,
    'rk-en': 518,
    'km-ko': 577,
    'km-en': 431,
    'se-ko': 1071,
    'se-en': 1060,
  },
  'session-40c': {
    'ci-ko': 1431,
    'ci-en': 1486,
    'tn-ko': 710,
    'tn-en': 663,
    'cx-ko': 937,
    'cx-en': 932,
    'am-ko': 547,
    'am-en': 591,
    'rk-ko': 519,
    'rk-en': 530,
    'km-ko': 589,
    'km-en': 443,
    'se-ko': 1085,
    'se-en': 1074,
  },
  'session-41': {
    'ci-ko': 1451,
    'ci-en': 1506,
    'tn-ko': 724,
    'tn-en': 677,
    'cx-ko': 953,
    'cx-en': 948,
    'am-ko': 559,
    'am-en': 603,
    'rk-ko': 531,
    'rk-en': 542,
    'km-ko': 601,
    'km-en': 455,
    'se-ko': 1099,
    'se-en': 1088,
  },
  'session-41b': {
    'ci-ko': 1471,
    'ci-en': 1526,
    'tn-ko': 737,
    'tn-en': 691,
    'cx-ko': 969,
    'cx-en': 964,
    'am-ko': 571,
    'am-en': 615,
    'rk-ko': 543,
    'rk-en': 554,
    'km-ko': 613,
    'km-en': 467,
    'se-ko': 1113,
    'se-en': 1102,
  },
  'session-42': {
    'ci-ko': 1491,
    'ci-en': 1546,
    'tn-ko': 751,
    'tn-en': 703,
    'cx-ko': 985,
    'cx-en': 980,
    'am-ko': 583,
    'am-en': 627,
    'rk-ko': 555,
    'rk-en': 566,
    'km-ko': 625,
    'km-en': 478,
    'se-ko': 1127,
    'se-en': 1115,
  },
  'session-42b': {
    'ci-ko': 1511,
    'ci-en': 1566,
    'tn-ko': 765,
    'tn-en': 717,
    'cx-ko': 1001,
    'cx-en': 996,
    'am-ko': 595,
    'am-en': 639,
    'rk-ko': 567,
    'rk-en': 578,
    'km-ko': 637,
    'km-en': 490,
    'se-ko': 1141,
    'se-en': 1129,
  },
  'session-43': {
    'ci-ko': 1531,
    'ci-en': 1586,
    'tn-ko': 779,
    'tn-en': 731,
    'cx-ko': 1017,
    'cx-en': 1012,
    'am-ko': 607,
    'am-en': 651,
    'rk-ko': 579,
    'rk-en': 590,
    'km-ko': 649,
    'km-en': 502,
    'se-ko': 1155,
    'se-en': 1143,
  },
  'session-43b': {
    'ci-ko': 1551,
    'ci-en': 1606,
    'tn-ko': 793,
    'tn-en': 744,
    'cx-ko': 1033,
    'cx-en': 1028,
    'am-ko': 619,
    'am-en': 663,
    'rk-ko': 591,
    'rk-en': 602,
    'km-ko': 661,
    'km-en': 514,
    'se-ko': 1169,
    'se-en': 1157,
  },
  'session-44': {
    'ci-ko': 1571,
    'ci-en': 1626,
    'tn-ko': 807,
    'tn-en': 758,
    'cx-ko': 1049,
    'cx-en': 1043,
    'am-ko': 631,
    'am-en': 675,
    'rk-ko': 603,
    'rk-en': 614,
    'km-ko': 673,
    'km-en': 526,
    'se-ko': 1183,
    'se-en': 1171,
  },
  'session-44b': {
    'ci-ko': 1591,
    'ci-en': 1646,
    'tn-ko': 821,
    'tn-en': 772,
    'cx-ko': 1065,
    'cx-en': 1059,
    'am-ko': 643,
    'am-en': 687,
    'rk-ko': 615,
    'rk-en': 626,
    'km-ko': 685,
    'km-en': 538,
    'se-ko': 1197,
    'se-en': 1185,
  },
  'session-45': {
    'ci-ko': 1611,
    'ci-en': 1666,
    'tn-ko': 835,
    'tn-en': 785,
    'cx-ko': 1081,
    'cx-en': 1075,
    'am-ko': 655,
    'am-en': 698,
    'rk-ko': 627,
    'rk-en': 638,
    'km-ko': 696,
    'km-en': 550,
    'se-ko': 1211,
    'se-en': 1199,
  },
  'session-45b': {
    'ci-ko': 1631,
    'ci-en': 1686,
    'tn-ko': 848,
    'tn-en': 799,
    'cx-ko': 1097,
    'cx-en': 1091,
    'am-ko': 667,
    'am-en': 710,
    'rk-ko': 639,
    'rk-en': 650,
    'km-ko': 708,
    'km-en': 562,
    'se-ko': 1225,
    'se-en': 1212,
  },
  'session-46': {
    'ci-ko': 1651,
    'ci-en': 1706,
    'tn-ko': 862,
    'tn-en': 813,
    'cx-ko': 1113,
    'cx-en': 1107,
    'am-ko': 679,
    'am-en': 722,
    'rk-ko': 651,
    'rk-en': 661,
    'km-ko': 720,
    'km-en': 574,
    'se-ko': 1239,
    'se-en': 1226,
  },
  'session-47': {
    'ci-ko': 1671,
    'ci-en': 1726,
    'tn-ko': 876,
    'tn-en': 827,
    'cx-ko': 1129,
    'cx-en': 1123,
    'am-ko': 690,
    'am-en': 734,
    'rk-ko': 663,
    'rk-en': 673,
    'km-ko': 732,
    'km-en': 586,
    'se-ko': 1253,
    'se-en': 1239,
  },
  'session-48': {
    'ci-ko': 1691,
    'ci-en': 1746,
    'tn-ko': 889,
    'tn-en': 839,
    'cx-ko': 1145,
    'cx-en': 1139,
    'am-ko': 702,
    'am-en': 746,
    'rk-ko': 675,
    'rk-en': 685,
    'km-ko': 744,
    'km-en': 596,
    'se-ko': 1267,
    'se-en': 1253,
  },
  'session-48b': {
    'ci-ko': 1711,
    'ci-en': 1766,
    'tn-ko': 903,
    'tn-en': 853,
    'cx-ko': 1161,
    'cx-en': 1155,
    'am-ko': 714,
    'am-en': 758,
    'rk-ko': 687,
    'rk-en': 697,
    'km-ko': 755,
    'km-en': 608,
    'se-ko': 1281,
    'se-en': 1267,
  },
  'session-49': {
    'ci-ko': 1731,
    'ci-en': 1786,
    'tn-ko': 917,
    'tn-en': 867,
    'cx-ko': 1177,
    'cx-en': 1170,
    'am-ko': 726,
    'am-en': 770,
    'rk-ko': 699,
    'rk-en': 709,
    'km-ko': 767,
    'km-en': 620,
    'se-ko': 1295,
    'se-en': 1281,
  },
  'session-49b': {
    'ci-ko': 1751,
    'ci-en': 1806,
    'tn-ko': 931,
    'tn-en': 881,
    'cx-ko': 1193,
    'cx-en': 1186,
    'am-ko': 738,
    'am-en': 782,
    'rk-ko': 711,
    'rk-en': 721,
    'km-ko': 779,
    'km-en': 632,
    'se-ko': 1309,
    'se-en': 1295,
  },
  'session-50': {
    'ci-ko': 1771,
    'ci-en': 1826,
    'tn-ko': 945,
    'tn-en': 895,
    'cx-ko': 1209,
    'cx-en': 1202,
    'am-ko': 750,
    'am-en': 794,
    'rk-ko': 723,
    'rk-en': 733,
    'km-ko': 791,
    'km-en': 644,
    'se-ko': 1323,
    'se-en': 1308,
  },
  'session-50b': {
    'ci-ko': 1791,
    'ci-en': 1846,
    'tn-ko': 959,
    'tn-en': 908,
    'cx-ko': 1225,
    'cx-en': 1218,
    'am-ko': 762,
    'am-en': 806,
    'rk-ko': 735,
    'rk-en': 745,
    'km-ko': 803,
    'km-en': 656,
    'se-ko': 1337,
    'se-en': 1322,
  },
  'session-51': {
    'ci-ko': 1811,
    'ci-en': 1866,
    'tn-ko': 973,
    'tn-en': 921,
    'cx-ko': 1241,
    'cx-en': 1232,
    'am-ko': 774,
    'am-en': 818,
    'rk-ko': 747,
    'rk-en': 757,
    'km-ko': 815,
    'km-en': 668,
    'se-ko': 1351,
    'se-en': 1336,
  },
  'session-51b': {
    'ci-ko': 1831,
    'ci-en': 1886,
    'tn-ko': 987,
    'tn-en': 935,
    'cx-ko': 1257,
    'cx-en': 1248,
    'am-ko': 786,
    'am-en': 830,
    'rk-ko': 759,
    'rk-en': 769,
    'km-ko': 827,
    'km-en': 680,
    'se-ko': 1365,
    'se-en': 1349,
  },
} as const satisfies Record<string, Record<string, number>>;
export const BATCHES = ['earlier', ...(Object.keys(BATCH_STARTS) as (keyof typeof BATCH_STARTS)[])] as const;
export type Batch = (typeof BATCHES)[number];

/** The batch a case id belongs to: the latest batch whose first number it has reached. */
export function batchOf(id: string): Batch {
  const m = /^([a-z]{2}-(?:ko|en))-(\d{3,})$/.exec(id);
  if (!m) throw new Error(`case id ${id} does not look like ci-ko-001`);
  const n = Number(m[2]);
  let batch: Batch = 'earlier';
  for (const [name, starts] of Object.entries(BATCH_STARTS) as [Batch, Record<string, number>][]) {
    const first = starts[m[1]];
    if (first !== undefined && n >= first) batch = name;
  }
  return batch;
}

export function parseCases(text: string, source = 'cases'): RelevanceCase[] {
  const out: RelevanceCase[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      out.push(JSON.parse(line) as RelevanceCase);
    } catch (err) {
      throw new Error(`${source}:${i + 1}: not JSON (${(err as Error).message})`);
    }
  });
  return out;
}

export function loadSplit(split: Split): RelevanceCase[] {
  return parseCases(readFileSync(CASE_FILES[split], 'utf8'), CASE_FILES[split]);
}

export interface LabelledCase extends RelevanceCase {
  split: Split;
}

export function loadCases(which: Split | 'all' = 'all', batch?: Batch): LabelledCase[] {
  const splits = which === 'all' ? SPLITS : [which];
  return splits.flatMap((split) => loadSplit(split).map((c) => ({ ...c, split }))).filter((c) => batch === undefined || batchOf(c.id) === batch);
}

/** The taxonomy facts the checks and the scoring need. */
export interface Taxonomy {
  /** category id → parent id (null for a root). */
  parents: Map<string, string | null>;
  entityIds: Set<string>;
}

export function taxonomyOf(catalog: { taxonomy: { categories: { id: string; parent_id: string | null }[]; entities: { id: string }[] } }): Taxonomy {
  return {
    parents: new Map(catalog.taxonomy.categories.map((c) => [c.id, c.parent_id])),
    entityIds: new Set(catalog.taxonomy.entities.map((e) => e.id)),
  };
}

/** `id` is `ancestor` or lies below it. */
export function isSameOrDescendant(tax: Taxonomy, id: string, ancestor: string): boolean {
  for (let at: string | null | undefined = id, hops = 0; at && hops < 64; at = tax.parents.get(at), hops++) {
    if (at === ancestor) return true;
  }
  return false;
}

const CASE_KEYS = new Set(['id', 'lang', 'family', 'message', 'expect', 'categories', 'digest', 'note']);
const DIGEST_KEYS = new Set(['intent_type', 'category_ids', 'entity_ids']);
const INTENTS = new Set(['purchase', 'compare', 'browse', 'low', 'unknown']);
// Three digits at least: a family × language past 999 cases goes on to four.
const ID_PATTERN = /^[a-z]{2}-(ko|en)-\d{3,}$/;

/** Every problem with one case, as readable lines (empty when the case is well-formed). */
export function caseProblems(c: RelevanceCase, tax: Taxonomy): string[] {
  const p: string[] = [];
  const where = typeof c?.id === 'string' ? c.id : JSON.stringify(c).slice(0, 60);
  const bad = (msg: string) => p.push(`${where}: ${msg}`);
  if (!c || typeof c !== 'object') return [`${where}: not an object`];
  for (const k of Object.keys(c)) if (!CASE_KEYS.has(k)) bad(`unknown key ${k}`);
  if (typeof c.id !== 'string' || !ID_PATTERN.test(c.id)) bad('id must look like ci-ko-001');
  if (!(LANGS as readonly string[]).includes(c.lang)) bad(`lang ${String(c.lang)}`);
  else if (typeof c.id === 'string' && c.id.split('-')[1] !== c.lang) bad('id and lang disagree');
  if (!(FAMILIES as readonly string[]).includes(c.family)) bad(`family ${String(c.family)}`);
  if (typeof c.message !== 'string' || c.message.trim() === '' || c.message.length > 4000) bad('message must be 1..4000 characters');
  if (!(EXPECTS as readonly string[]).includes(c.expect)) bad(`expect ${String(c.expect)}`);
  if (c.expect === 'serve') {
    if (!Array.isArray(c.categories) || c.categories.length === 0) bad('serve needs categories');
    else for (const id of c.categories) if (!tax.parents.has(id)) bad(`unknown category ${id}`);
  } else if (c.categories !== undefined) {
    bad(`${c.expect} takes no categories`);
  }
  if (c.family === 'sensitive' && c.expect !== 'block' && !RELABELLED_SENSITIVE.has(c.id)) bad('every sensitive case is block');
  if (c.digest !== undefined) {
    if (typeof c.digest !== 'object' || c.digest === null) bad('digest must be an object');
    else {
      for (const k of Object.keys(c.digest)) if (!DIGEST_KEYS.has(k)) bad(`digest key ${k}`);
      if (c.digest.intent_type !== undefined && !INTENTS.has(c.digest.intent_type)) bad(`digest intent ${c.digest.intent_type}`);
      for (const id of c.digest.category_ids ?? []) if (!tax.parents.has(id)) bad(`unknown digest category ${id}`);
      for (const id of c.digest.entity_ids ?? []) if (!tax.entityIds.has(id)) bad(`unknown digest entity ${id}`);
    }
  }
  if (c.note !== undefined && (typeof c.note !== 'string' || c.note.trim() === '')) bad('note must be text');
  return p;
}
