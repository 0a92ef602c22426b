// Catalogs the benchmarks run against, imported through the admin API like any operator's:
//
// - the demo catalog (catalog/demo.json) with budgets raised, so a benchmark of a few minutes
//   measures serving rather than BUDGET_EXHAUSTED after the first thousand serves of a day;
// - a generated catalog of any size (100,000 offers by default) with Korean and English
//   aliases drawn from the whole Hangul syllable block and a Latin syllable set, so the text
//   matcher sees a realistic density of aliases rather than a tiny alphabet that hits
//   everywhere.
import { createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

type Json = Record<string, any>;

export function demoCatalogWithLargeBudgets(): Json {
  const catalog = JSON.parse(readFileSync(path.join(ROOT, 'catalog/demo.json'), 'utf8'));
  delete catalog.$schema;
  for (const c of catalog.campaigns) {
    c.budget = { total_micros: 1e15, daily_micros: 1e14 };
  }
  return catalog;
}

/** Deterministic PRNG (mulberry32): the same seed gives the same catalog and messages. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LATIN = [
  'ka',
  'lo',
  'mi',
  'ne',
  'ru',
  'sa',
  'ti',
  'vo',
  'ze',
  'bra',
  'cor',
  'dan',
  'fel',
  'gor',
  'hal',
  'jin',
  'kel',
  'lum',
  'mar',
  'nor',
  'pel',
  'quin',
  'ros',
  'sel',
  'tor',
  'val',
  'wen',
  'xan',
  'yor',
  'zul',
];

function latinWord(next: () => number, syllables: number): string {
  let w = '';
  for (let i = 0; i < syllables; i++) w += LATIN[Math.floor(next() * LATIN.length)];
  return w;
}

function hangulWord(next: () => number, syllables: number): string {
  let w = '';
  // The whole block of 11,172 precomposed syllables.
  for (let i = 0; i < syllables; i++) w += String.fromCharCode(0xac00 + Math.floor(next() * 11172));
  return w;
}

export interface GeneratedCatalog {
  catalog: Json;
  /** Per entity: one Korean and one English alias, to write messages that name it. */
  entityAliases: { ko: string; en: string }[];
}

/** A catalog of `offers` offers over `entities` entities (5 aliases each) in 200 categories. */
export function generatedCatalog(offers = 100_000, entities = 10_000, seed = 7): GeneratedCatalog {
  const { head, entityAliases, offerList } = generatedParts(offers, entities, seed);
  return { catalog: { ...head, offers: [...offerList], affiliate_networks: [] }, entityAliases };
}

/** The same catalog as generatedCatalog, written to `file` as it is generated: a million offers
 *  never sit in memory (or in one string). Returns the file's size in bytes. */
export async function writeGeneratedCatalog(file: string, offers: number, entities = Math.round(offers / 10), seed = 7): Promise<number> {
  const { head, offerList } = generatedParts(offers, entities, seed);
  const out = createWriteStream(file);
  let bytes = 0;
  const write = async (text: string) => {
    bytes += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(`${JSON.stringify(head).slice(0, -1)},"offers":[`);
  let chunk: string[] = [];
  let first = true;
  for (const offer of offerList) {
    chunk.push(JSON.stringify(offer));
    if (chunk.length === 10_000) {
      await write((first ? '' : ',') + chunk.join(','));
      first = false;
      chunk = [];
    }
  }
  if (chunk.length > 0) await write((first ? '' : ',') + chunk.join(','));
  await write('],"affiliate_networks":[]}');
  out.end();
  await once(out, 'finish');
  return bytes;
}

/** The catalog's head and a generator of its offers, drawn from one PRNG in a fixed order. */
function generatedParts(offers: number, entities: number, seed: number) {
  const next = rng(seed);
  const categories = Array.from({ length: 200 }, (_, i) => ({
    id: `gen.cat-${i}`,
    parent_id: i < 20 ? null : `gen.cat-${i % 20}`,
    name: { ko: `분류 ${i}`, en: `Category ${i}` },
    aliases: { ko: [hangulWord(next, 3)], en: [`${latinWord(next, 3)} goods`] },
  }));
  const entityAliases: { ko: string; en: string }[] = [];
  const entityList = Array.from({ length: entities }, (_, i) => {
    const ko = [hangulWord(next, 3), hangulWord(next, 4), `${hangulWord(next, 2)} ${hangulWord(next, 2)}`];
    const en = [latinWord(next, 3), `${latinWord(next, 2)} ${latinWord(next, 2)}`];
    entityAliases.push({ ko: ko[0], en: en[0] });
    return {
      id: `gen.ent-${i}`,
      kind: (['brand', 'product', 'place'] as const)[i % 3],
      name: { ko: ko[0], en: en[0] },
      aliases: { ko, en },
      category_ids: [`gen.cat-${20 + (i % 180)}`],
    };
  });
  const advertiserCount = Math.max(1, Math.round(offers / 100));
  const advertisers = Array.from({ length: advertiserCount }, (_, i) => ({
    id: `gen.adv-${i}`,
    name: `Advertiser ${i}`,
    destinations: [`https://adv-${i}.example/`],
  }));
  const campaignCount = Math.max(1, Math.round(offers / 20));
  const campaigns = Array.from({ length: campaignCount }, (_, i) => ({
    id: `gen.cmp-${i}`,
    advertiser_id: `gen.adv-${i % advertiserCount}`,
    countries: i % 4 === 0 ? [] : ['KR', 'US'],
    bid_micros: 50_000 + Math.floor(next() * 400_000),
    priority: 1 + Math.floor(next() * 10),
    budget: { total_micros: 1e15, daily_micros: 1e14 },
    frequency_cap: { count: 3, window_seconds: 3600 },
  }));
  function* offerList() {
    for (let i = 0; i < offers; i++) {
      const campaign = i % campaignCount;
      const advertiser = campaign % advertiserCount;
      const entity = Math.floor(next() * entities);
      const locale = i % 2 === 0 ? 'ko' : 'en';
      yield {
        id: `gen.off-${i}`,
        campaign_id: `gen.cmp-${campaign}`,
        locale,
        title: locale === 'ko' ? `${entityList[entity].name.ko} 특가 ${i}` : `${entityList[entity].name.en} deal ${i}`,
        destination_url: `https://adv-${advertiser}.example/offers/${i}`,
        targeting: {
          category_ids: next() < 0.5 ? [`gen.cat-${20 + Math.floor(next() * 180)}`] : [],
          entity_ids: [`gen.ent-${entity}`],
          budget_buckets: [],
        },
      };
    }
  }
  const demo = JSON.parse(readFileSync(path.join(ROOT, 'catalog/demo.json'), 'utf8'));
  const head = {
    version: 1,
    taxonomy: {
      categories,
      entities: entityList,
      // The policy words and the intent cues are the core's packs: real words in both languages.
    },
    advertisers,
    campaigns,
  };
  return { head, entityAliases, offerList: offerList() };
}

const KO_FILLER = '이번 주말에 가족이랑 어디 갈지 고민 중인데 날씨도 좋고 맛있는 것도 먹고 싶어. ';
const EN_FILLER = 'We are planning a long weekend and want something relaxing with good food nearby. ';

function pad(message: string, filler: string, length: number): string {
  let out = message;
  while (out.length < length) out += ` ${filler}`;
  return out.slice(0, length);
}

/** Decide bodies naming random entities of a generated catalog, with a purchase cue, at the
 *  benchmark's message lengths in both languages. */
export function bodiesForGenerated(generated: GeneratedCatalog, count = 64, seed = 11): object[] {
  const next = rng(seed);
  const adult = { age_band: '18_plus', contextual_offer_consent: true };
  const surface = { clickable: true, disclosure_capable: true };
  const bodies: object[] = [];
  const lengths = [50, 500, 4000];
  for (let i = 0; i < count; i++) {
    const alias = generated.entityAliases[Math.floor(next() * generated.entityAliases.length)];
    const length = lengths[i % lengths.length];
    if (i % 2 === 0) {
      bodies.push({ message: pad(`${alias.ko} 최저가 알려줘`, KO_FILLER, length), locale: 'ko-KR', country: 'KR', audience: adult, native_surface: surface });
    } else {
      bodies.push({ message: pad(`cheapest ${alias.en} price?`, EN_FILLER, length), locale: 'en-US', country: 'US', audience: adult, native_surface: surface });
    }
  }
  return bodies;
}
