// A seeded generator of index documents and queries for the differential and boundary tests,
// and the demo catalog as an index document.
import { readFileSync } from 'node:fs';
import type { IndexAliases, IndexDocument, IndexOffer, MatchQuery } from '../src/native/offer-index.js';
import { buildIndexDocument } from '../src/catalog/index-document.js';
import { Catalog, type CueKind } from '../src/catalog/catalog-schema.js';
import { DEMO_CATALOG_PATH } from '../src/catalog/demo-catalog.js';
import { intentCuesWith } from '../src/reference/packs.js';

/** catalog/demo.json as the index document the service would build from it (every offer live,
 *  snapshot ids `snp_demo<i>`), without a database. */
export function demoIndexDocument(): IndexDocument {
  const catalog = Catalog.parse(JSON.parse(readFileSync(DEMO_CATALOG_PATH, 'utf8')));
  return buildIndexDocument({
    version: 1,
    taxonomy: catalog.taxonomy,
    offers: catalog.offers.map((o, i) => ({
      snapshot_id: `snp_demo${i}`,
      campaign_id: o.campaign_id,
      content: { offer: o, advertiser_id: catalog.campaigns.find((c) => c.id === o.campaign_id)!.advertiser_id, advertiser_name: 'x' },
    })),
    campaigns: catalog.campaigns,
    advertisers: catalog.advertisers.map((a) => ({ ...a, status: a.status })),
    networks: [],
  });
}

export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 1;
  }
  next(): number {
    // xorshift32
    let x = this.s;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.s = x >>> 0;
    return this.s / 0x1_0000_0000;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

const SYL = ['가', '나', '도', '라', '마', '부', '서', '아', '제', '주', '카', '타', '폰', '하', '호', '텔'];
// Category names one typo from common words, their common-word typos, and a cue that is one
// typo from a common phrase ("already looked" is not "already booked").
const THING_NAMES = ['password manager', 'water bottle', 'music player'];
const COMMON_TYPOS = ['password manger', 'water battle', 'music plater', 'passwords manager', 'already looked', 'already booked'];
const LAT = ['ka', 'lo', 'mi', 'ne', 'po', 'ri', 'sa', 'tu', 'va', 'ze', 'bo', 'du', 'phone', 'jet', 'air'];
// Particles, and words that continue an alias (망고, 채) rather than end it.
const PARTICLES = ['', '', '을', '를', '에서', '이', '가', '은', '는', '으로', '도', '하려고', '망고', '채', '추천', 'ㅋㅋ', 'ㄱㄱ', '있는데', '앱', '툴'];
// Sentence ends, clause breaks, code and quotation marks, identifiers: what reading.rs reads.
const STRUCTURE = ['. ', '? ', '\n', ' but ', ' 근데 ', ' 있는데 ', '`', '```', "'", ' "', '" ', '“', '”', '.', '(', '_', '$', '...', ' — ', ' - ', '–'];

export function generateDocument(seed: number, offers = 2000, entities = 300): IndexDocument {
  const parts = generateDocumentParts(seed, offers, entities);
  return { taxonomy: parts.taxonomy, offers: [...parts.offers] };
}

/** generateDocument's taxonomy, and its offers one at a time (the same draws in the same order,
 *  so the same document): a benchmark builds a million offers' index without holding them. */
export function generateDocumentParts(seed: number, offers = 2000, entities = 300): { taxonomy: IndexDocument['taxonomy']; offers: Iterable<IndexOffer> } {
  const rng = new Rng(seed);
  const word = (parts: string[], n: number) => Array.from({ length: n }, () => rng.pick(parts)).join('');
  const categories: IndexDocument['taxonomy']['categories'] = [];
  for (let r = 0; r < 5; r++) {
    categories.push({ id: `c${r}`, parent_id: null, aliases: { ko: [word(SYL, 2)], en: [`topic${r}`] } });
    for (let k = 0; k < 3; k++) {
      const ko = word(SYL, 3);
      // Two-word English names whose words are one typo from common words ("password manger"),
      // and Korean names of several words, written with some spaces left out in messages.
      const named = k === 1 ? [THING_NAMES[r % THING_NAMES.length]] : [];
      categories.push({
        id: `c${r}.${k}`,
        parent_id: `c${r}`,
        aliases: { ko: [ko, `${word(SYL, 2)} ${word(SYL, 1)} ${word(SYL, 2)}`], en: [`${word(LAT, 2)} ${k}`, ...named] },
        weak_aliases: { ko: [word(SYL, 2)], en: [word(LAT, 2)] },
        negative_contexts: { ko: [`${ko} ${word(SYL, 2)}`], en: [word(LAT, 3)] },
      });
      if (k === 0) categories.push({ id: `c${r}.${k}.x`, parent_id: `c${r}.${k}`, aliases: { ko: [word(SYL, 2)], en: [word(LAT, 3)] } });
    }
  }
  const ents: IndexDocument['taxonomy']['entities'] = [];
  for (let e = 0; e < entities; e++) {
    const en = [`${word(LAT, 2)}${e}`, `${word(LAT, 1)} ${word(LAT, 2)}`, word(LAT, 3)];
    if (rng.chance(0.2)) en.push(word(LAT, 1)); // short, often shared
    const ko = [`${word(SYL, 2)}${rng.chance(0.5) ? '' : e}`, word(SYL, 3)];
    if (rng.chance(0.1)) ko.push(word(SYL, 1)); // one syllable: a word of its own (text_match.rs)
    const weak = rng.chance(0.2) ? { ko: [word(SYL, 2)], en: [word(LAT, 2)] } : undefined;
    const negative = rng.chance(0.2) ? { ko: [`${word(SYL, 1)}${ko[1]}`], en: [`${en[1]} ${word(LAT, 1)}`] } : undefined;
    ents.push({
      id: `e${e}`,
      kind: rng.pick(['brand', 'product', 'place']),
      aliases: { ko, en: rng.chance(0.1) ? en.map((a) => a.toUpperCase()) : en },
      category_ids: [rng.pick(categories).id],
      ...(weak ? { weak_aliases: weak } : {}),
      ...(negative ? { negative_contexts: negative } : {}),
    });
  }
  function* docOffers(): Generator<IndexOffer> {
    for (let o = 0; o < offers; o++) {
      const now = 1_790_000_000_000;
      yield {
        snapshot_id: `snp_${(o * 7919) % 100000}x${o}`,
        offer_id: `off.${o}`,
        campaign_id: `cmp.${o % 97}`,
        advertiser_id: `adv.${o % 31}`,
        advertiser_entity_id: rng.chance(0.1) ? rng.pick(ents).id : null,
        kind: rng.chance(0.2) ? 'affiliate' : 'sponsored',
        locale: rng.chance(0.5) ? 'ko' : 'en',
        category_ids: rng.chance(0.8) ? [rng.pick(categories).id] : [],
        entity_ids: rng.chance(0.7) ? [rng.pick(ents).id, ...(rng.chance(0.2) ? [rng.pick(ents).id] : [])] : [rng.pick(ents).id],
        budget_buckets: rng.chance(0.2) ? [rng.pick(['low', 'mid', 'high'])] : [],
        countries: rng.chance(0.3) ? [rng.pick(['KR', 'US', 'JP'])] : [],
        campaign_status: rng.chance(0.05) ? 'paused' : 'active',
        starts_at_ms: rng.chance(0.1) ? now + rng.int(2) * 86_400_000 - 43_200_000 : null,
        ends_at_ms: rng.chance(0.1) ? now + rng.int(2) * 86_400_000 - 43_200_000 : null,
        priority: 1 + rng.int(10),
        bid_micros: rng.int(40) * 25_000,
      };
    }
  }
  return {
    taxonomy: {
      categories,
      entities: ents,
      sensitive_topics: [
        // A negative context: the word said of a thing, which hides the alias inside it.
        { id: 'health', aliases: { ko: ['우울증'], en: ['depression'] }, negative_contexts: { ko: ['경제 우울증'], en: ['great depression'] } },
        { id: 'gambling', aliases: { ko: ['도박'], en: ['casino', 'bet'] }, negative_contexts: { ko: [], en: ['casino royale'] } },
      ],
      intent_cues: {
        purchase: { ko: ['최저가', '구매'], en: ['buy', 'cheapest', 'price'] },
        compare: { ko: ['비교', '추천'], en: ['vs', 'compare'] },
        negation: { ko: ['이미 있'], en: ['already have', 'already booked'] },
        instead: { ko: ['말고'], en: ['rather than'] },
        after_sales: { ko: ['환불'], en: ['refund'] },
        not_commercial: { ko: ['번역'], en: ['translate'] },
        clause_break: { ko: ['하지만', '는데'], en: ['however'] },
        purpose: { ko: [], en: ['for', 'during'] },
        purpose_before: { ko: ['에서 쓸', '가서 쓸'], en: [] },
        alternative: { ko: ['에서 갈아타', '대안'], en: ['outgrown', 'alternatives to', 'switch from'] },
      },
    },
    offers: docOffers(),
  };
}

const NOISE = [
  ' ',
  '  ',
  '\t',
  '\n',
  ',',
  '.',
  '!',
  '?',
  '(',
  ')',
  '-',
  '"',
  '\u3000',
  '\u00a0',
  '😀',
  'é',
  'Σ',
  'ﾊﾟ',
  'x',
  '1',
  'a',
  '\u200b',
  '\u00ad',
  '\u2060',
  '\ufe0f',
];

/** One edit: a letter dropped, doubled, swapped with the next, or a space put in. */
function typo(word: string, rng: Rng): string {
  const i = 1 + rng.int(word.length - 2);
  switch (rng.int(4)) {
    case 0:
      return word.slice(0, i) + word.slice(i + 1);
    case 1:
      return word.slice(0, i) + word[i] + word.slice(i);
    case 2:
      return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
    default:
      return `${word.slice(0, i)} ${word.slice(i)}`;
  }
}

/** One jamo of one syllable changed: often a sound-alike one (ㅐ/ㅔ, ㅂ/ㅃ), else any, or a
 *  final consonant added or dropped (hangul_typo.rs). */
function hangulTypo(word: string, rng: Rng): string {
  const chars = Array.from(word);
  const i = rng.int(chars.length);
  const x = chars[i].charCodeAt(0) - 0xac00;
  let [initial, vowel, final] = [Math.floor(x / 588), Math.floor((x % 588) / 28), x % 28];
  switch (rng.int(4)) {
    case 0:
      vowel = ({ 1: 5, 5: 1, 3: 7, 7: 3, 10: 15, 15: 11, 11: 10 } as Record<number, number>)[vowel] ?? 1;
      break;
    case 1:
      initial = ({ 0: 1, 1: 0, 3: 4, 4: 3, 7: 8, 8: 7, 9: 10, 10: 9, 12: 13, 13: 12 } as Record<number, number>)[initial] ?? 8;
      break;
    case 2:
      vowel = rng.int(21);
      break;
    default:
      final = final === 0 ? 1 + rng.int(27) : 0;
  }
  chars[i] = String.fromCharCode(0xac00 + initial * 588 + vowel * 28 + final);
  return chars.join('');
}

/** A taxonomy with the cues the core reads in it, every kind: the language packs' and the catalog's. */
type ReadTaxonomy = Omit<IndexDocument['taxonomy'], 'intent_cues'> & { intent_cues: Record<CueKind, IndexAliases> };
const withPackCues = new WeakMap<IndexDocument['taxonomy'], ReadTaxonomy>();
function readTaxonomy(doc: IndexDocument): ReadTaxonomy {
  let t = withPackCues.get(doc.taxonomy);
  if (!t) {
    t = { ...doc.taxonomy, intent_cues: intentCuesWith(doc.taxonomy.intent_cues) as Record<CueKind, IndexAliases> };
    withPackCues.set(doc.taxonomy, t);
  }
  return t;
}

/** A message stitched from aliases (with case, width and particle variations) and noise. */
export function generateMessage(doc: IndexDocument, rng: Rng): string {
  const t = readTaxonomy(doc);
  const pieces: string[] = [];
  const n = 1 + rng.int(8);
  for (let i = 0; i < n; i++) {
    const r = rng.next();
    let alias: string;
    if (r < 0.4) {
      const e = rng.pick(t.entities);
      alias = rng.pick([...e.aliases.ko, ...e.aliases.en]);
    } else if (r < 0.55) {
      const c = rng.pick(t.categories);
      alias = rng.pick([...c.aliases.ko, ...c.aliases.en]);
    } else if (r < 0.65) {
      alias = rng.pick([...t.intent_cues.purchase.ko, ...t.intent_cues.purchase.en, ...t.intent_cues.compare.ko, ...t.intent_cues.compare.en]);
    } else if (r < 0.7) {
      const cues = Object.values(t.intent_cues).flatMap((a) => [...a.ko, ...a.en]);
      // Purpose phrases often, so clauses with a head and a purpose are common.
      // A purchase cue among them, so that a purpose phrase sometimes follows one in its clause.
      if (rng.chance(0.4))
        cues.splice(
          0,
          cues.length,
          ...[t.intent_cues.purpose, t.intent_cues.purpose_before, t.intent_cues.purchase].flatMap((a) => [...(a?.ko ?? []), ...(a?.en ?? [])]),
        );
      const tamed = [...t.categories, ...t.entities].flatMap((x) => [
        ...(x.weak_aliases?.ko ?? []),
        ...(x.weak_aliases?.en ?? []),
        ...(x.negative_contexts?.ko ?? []),
        ...(x.negative_contexts?.en ?? []),
      ]);
      alias = rng.pick([...cues, ...tamed]);
    } else if (r < 0.75) {
      alias = rng.pick(STRUCTURE);
    } else if (r < 0.78) {
      const said = t.sensitive_topics.flatMap((s) => [...(s.negative_contexts?.ko ?? []), ...(s.negative_contexts?.en ?? [])]);
      alias = said.length > 0 && rng.chance(0.3) ? rng.pick(said) : rng.pick(['우울증', 'casino', 'bet', 'betting', 'alphabet']);
    } else if (r < 0.8) {
      alias = rng.pick(COMMON_TYPOS);
    } else {
      alias = Array.from({ length: 1 + rng.int(4) }, () => rng.pick([...SYL, ...LAT])).join('');
    }
    if (/^[a-z ]{5,}$/.test(alias) && rng.chance(0.3)) alias = typo(alias, rng); // for the typo matcher
    if (/^[\uac00-\ud7a3]{2,}$/.test(alias) && rng.chance(0.3)) alias = hangulTypo(alias, rng); // and the Hangul one
    if (/[a-z0-9]$/.test(alias) && rng.chance(0.15)) alias += rng.pick(['s', 'es']); // an English plural
    if (/^[a-z0-9]+ [a-z0-9]/.test(alias) && rng.chance(0.1)) alias = `${rng.int(10)}-${alias}`; // "3-day trip"
    if (/^[\uac00-\ud7a3]+( [\uac00-\ud7a3]+)+$/.test(alias)) alias = alias.replace(/ /g, () => (rng.chance(0.5) ? '' : ' ')); // loose spacing
    if (rng.chance(0.2)) alias = alias.toUpperCase();
    if (rng.chance(0.05)) alias = alias.replace(/[a-z]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0x61 + 0xff41)); // full-width
    if (/[\uac00-\ud7a3]$/.test(alias)) alias += rng.pick(PARTICLES);
    if (/^[\uac00-\ud7a3]/.test(alias) && rng.chance(0.1)) alias = rng.pick(SYL) + alias; // a compound
    pieces.push(alias);
    pieces.push(rng.chance(0.15) ? '' : rng.pick(NOISE));
  }
  // Now and then a purpose phrase after a purchase cue in one clause ("A 최저가 B에서 쓸 C"): what
  // the thing is for reaches back to the cue, not past it.
  if (t.intent_cues.purpose_before && rng.chance(0.1)) {
    const any = () => rng.pick([...rng.pick(t.entities).aliases.ko, ...rng.pick(t.categories).aliases.ko]);
    pieces.push(` ${any()} ${rng.pick(t.intent_cues.purchase.ko)} ${any()}${rng.pick(t.intent_cues.purpose_before.ko)} ${any()}`);
  }
  // Now and then a trip's origin and where it goes: "from X to Y", "X to Y", "X에서 Y 가는",
  // "X 출발" (reading.rs is_origin), with places or any other entity.
  if (rng.chance(0.12)) {
    const places = t.entities.filter((e) => e.kind === 'place');
    const entity = () => (rng.chance(0.8) && places.length > 0 ? rng.pick(places) : rng.pick(t.entities));
    const en = () => rng.pick(entity().aliases.en);
    const ko = () => rng.pick(entity().aliases.ko);
    pieces.push(
      rng.pick([
        ` ${rng.pick(['from', 'out of', 'leaving', 'departing', 'wherefrom'])} ${en()} ${rng.pick(['to ', 'and ', ''])}${en()}`,
        ` ${en()} to ${rng.chance(0.8) ? en() : 'see'}`,
        ` ${ko()}에서${rng.pick([' ', ''])}${rng.chance(0.8) ? ko() : '쓸'} 가는`,
        ` ${ko()}${rng.pick(['', '에서', ' '])}${rng.pick(['출발', ' 출발'])} ${ko()}`,
      ]),
    );
  }
  // Now and then moving away from a thing: an alternative cue beside an entity, sometimes with
  // another thing, an ask, a sentence end or a quotation around it (reading.rs `left`).
  const alternative = t.intent_cues.alternative;
  if (alternative && rng.chance(0.15)) {
    const en = () => rng.pick(rng.pick(t.entities).aliases.en);
    const ko = () => rng.pick(rng.pick(t.entities).aliases.ko);
    const other = () => rng.pick(['', '', ` ${en()}`, ` ${rng.pick(rng.pick(t.categories).aliases.en)}`, ` ${rng.pick(rng.pick(t.categories).aliases.ko)}`]);
    const ask = () => rng.pick([...t.intent_cues.purchase.en, ...t.intent_cues.compare.ko, ...t.intent_cues.compare.en]);
    pieces.push(
      rng.pick([
        ` ${rng.pick(alternative.en)} ${en()}${other()} ${ask()}`,
        ` ${en()} ${rng.pick(alternative.en)}${other()}${rng.pick(['. ', ' ', ', '])}${ask()}`,
        ` ${ko()}${rng.pick(alternative.ko)}${rng.pick(['려고', '는데 ', ' '])}${other()} ${ask()}`,
        ` "${rng.pick(alternative.en)} ${en()}"${other()} ${ask()}`,
        ` ${rng.pick(alternative.ko)} ${ko()}${other()}`,
        // The same thing left and then named again as what is asked about.
        (() => {
          const e = rng.pick(rng.pick(t.entities).aliases.en);
          return ` ${rng.pick(alternative.en)} ${e}${rng.pick(['. ', ', ', ' '])}${ask()} ${e}`;
        })(),
      ]),
    );
  }
  // A negation or after-sales cue, a comma, and more ("already have X, just Y"); an after-sales
  // clause and a later ask that names nothing ("X broke. what's good?").
  if (rng.chance(0.15)) {
    const any = () => rng.pick([...rng.pick(t.entities).aliases.en, ...rng.pick(t.categories).aliases.en, ...rng.pick(t.categories).aliases.ko]);
    const cues = t.intent_cues;
    const voiding = rng.pick([
      ...(cues.negation?.en ?? []),
      ...(cues.after_sales?.en ?? []),
      ...(cues.after_sales?.ko ?? []),
      ...(cues.negation?.ko ?? []),
      'refund',
    ]);
    const ask = () => rng.pick([...t.intent_cues.purchase.en, ...t.intent_cues.compare.ko]);
    const r = rng.next();
    pieces.push(
      r < 0.4
        ? ` ${voiding} ${any()}, ${rng.chance(0.5) ? any() : ''} ${ask()}`
        : r < 0.7
          ? ` ${any()} ${voiding}. ${ask()}${rng.pick(['?', '. ', ` ${any()}`])}`
          : r < 0.85
            ? // A negation said from the comma before it: "a hotel in X, don't need Y".
              ` ${any()} ${ask()}, ${rng.chance(0.5) ? any() : ''}${rng.pick([',', ''])} ${voiding} ${any()}`
            : // A Korean connective ending on the cue's word: "X는 이미 있어서 Y 살까" (reading.rs).
              ` ${any()} ${voiding}${rng.pick(['고', '어서', '으니까', '는', '음', ''])} ${any()} ${ask()}`,
    );
  }
  // And a purpose beside something the catalog names as another thing (a negative context: "a
  // laptop bag for my MacBook").
  const negatives = t.categories.flatMap((c) => c.negative_contexts?.en ?? []);
  if (t.intent_cues.purpose?.en.length && negatives.length > 0 && rng.chance(0.1)) {
    const any = () => rng.pick([...rng.pick(t.entities).aliases.en, ...rng.pick(t.categories).aliases.en]);
    pieces.push(` ${rng.pick(t.intent_cues.purchase.en)} ${rng.pick(negatives)} ${rng.pick(t.intent_cues.purpose.en)} ${any()} ${any()}`);
  }
  return pieces.join('');
}

export function generateQuery(doc: IndexDocument, rng: Rng): MatchQuery {
  const t = doc.taxonomy;
  const ids = (list: { id: string }[], max: number) =>
    Array.from({ length: rng.int(max + 1) }, () => (rng.chance(0.85) ? rng.pick(list).id : `unknown.${rng.int(1000)}`));
  return {
    // Now and then a long paste, past the classifier's 512 characters.
    message: rng.chance(0.9) ? (rng.chance(0.02) ? generateMessage(doc, rng).repeat(60) : generateMessage(doc, rng)) : undefined,
    language: rng.chance(0.5) ? 'ko' : 'en',
    country: rng.chance(0.8) ? rng.pick(['KR', 'US', 'jp', 'DE']) : undefined,
    categoryIds: rng.chance(0.4) ? ids(t.categories, 3) : undefined,
    entityIds: rng.chance(0.4) ? ids(t.entities, 3) : undefined,
    excludedEntityIds: rng.chance(0.2) ? ids(t.entities, 4) : undefined,
    budgetBucket: rng.chance(0.5) ? rng.pick(['unknown', 'low', 'mid', 'high']) : undefined,
    intentType: rng.chance(0.6) ? rng.pick(['purchase', 'compare', 'browse', 'low', 'unknown']) : undefined,
    kind: rng.chance(0.8) ? 'sponsored' : 'affiliate',
    nowMs: 1_790_000_000_000 + (rng.int(3) - 1) * 40_000_000,
    topK: rng.pick([1, 3, 8, 8, 8, 20]),
  };
}
