// The demo catalog (catalog/demo.json) is what a fresh `npm start` serves, so it must be a
// catalog an operator would be proud of: every reference resolves, every link stays on its
// allowlist, sensitive-topic words never collide with commercial words, and the published
// JSON Schema matches the zod schema it is generated from.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalog, type Catalog as CatalogT } from '../../src/catalog/catalog-schema.js';
import { validateCatalog } from '../../src/catalog/catalog-validation.js';
import { isUnderPrefix } from '../../src/catalog/destinations.js';
import { CatalogRepository } from '../../src/catalog/catalog-repository.js';
import { readDemoCatalog } from '../../src/catalog/demo-catalog.js';
import { createTestDatabase, usingRealPostgres, type TestDatabase } from '../helpers/test-db.js';
import { CATALOG_SCHEMA_PATH, catalogJsonSchema } from '../../scripts/write-catalog-schema.js';
import { LiveOfferIndex } from '../../src/native/offer-index.js';
import { demoIndexDocument } from '../../testkit/generated-catalog.js';
import { intentCuesWith, sensitiveTopicsWith } from '../../src/reference/packs.js';

const DEMO_PATH = new URL('../../catalog/demo.json', import.meta.url);
const raw: unknown = JSON.parse(readFileSync(DEMO_PATH, 'utf8'));
const parsed = Catalog.safeParse(raw);
const demo = parsed.data as CatalogT;

/** Aliases compare case-insensitively with whitespace collapsed. */
const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ');
const byId = <T extends { id: string }>(list: T[]) => new Map(list.map((x) => [x.id, x]));

function commercialAliases(c: CatalogT): { owner: string; alias: string }[] {
  const out: { owner: string; alias: string }[] = [];
  for (const cat of c.taxonomy.categories) for (const a of [...cat.aliases.ko, ...cat.aliases.en]) out.push({ owner: cat.id, alias: a });
  for (const e of c.taxonomy.entities) for (const a of [...e.aliases.ko, ...e.aliases.en]) out.push({ owner: e.id, alias: a });
  for (const [kind, cue] of Object.entries(intentCuesWith(c.taxonomy.intent_cues))) {
    for (const a of [...cue.ko, ...cue.en]) out.push({ owner: `intent_cues.${kind}`, alias: a });
  }
  return out;
}

function sensitiveAliases(c: CatalogT): { topic: string; alias: string }[] {
  return sensitiveTopicsWith(c.taxonomy.sensitive_topics).flatMap((t) => [...t.aliases.ko, ...t.aliases.en].map((alias) => ({ topic: t.id, alias })));
}

/** The top-level category (domain) of a category id. */
function rootOf(c: CatalogT, id: string): string {
  const parent = new Map(c.taxonomy.categories.map((x) => [x.id, x.parent_id]));
  let cur = id;
  for (let p = parent.get(cur); p; p = parent.get(cur)) cur = p;
  return cur;
}

describe('catalog/demo.json', () => {
  it('parses with the zod Catalog schema and passes import validation', () => {
    expect(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 5), null, 2)).toBe(true);
    expect(() => validateCatalog(raw)).not.toThrow();
    expect((raw as { $schema?: string }).$schema).toBe('./catalog.schema.json');
  });

  it('has unique ids in every section and no id shared by a category and an entity', () => {
    const sections = {
      categories: demo.taxonomy.categories,
      entities: demo.taxonomy.entities,
      sensitive_topics: sensitiveTopicsWith(demo.taxonomy.sensitive_topics),
      advertisers: demo.advertisers,
      campaigns: demo.campaigns,
      offers: demo.offers,
      affiliate_networks: demo.affiliate_networks,
    };
    for (const [name, list] of Object.entries(sections)) {
      const ids = list.map((x) => x.id);
      expect(new Set(ids).size, `duplicate id in ${name}`).toBe(ids.length);
    }
    const categoryIds = new Set(demo.taxonomy.categories.map((x) => x.id));
    expect(demo.taxonomy.entities.filter((e) => categoryIds.has(e.id)).map((e) => e.id)).toEqual([]);
  });

  it('resolves every reference', () => {
    const categories = byId(demo.taxonomy.categories);
    const entities = byId(demo.taxonomy.entities);
    const advertisers = byId(demo.advertisers);
    const campaigns = byId(demo.campaigns);
    const networks = byId(demo.affiliate_networks);
    const missing: string[] = [];
    const need = (ok: boolean, what: string) => {
      if (!ok) missing.push(what);
    };
    for (const c of demo.taxonomy.categories) need(c.parent_id === null || categories.has(c.parent_id), `${c.id}.parent_id`);
    for (const e of demo.taxonomy.entities) {
      expect(e.category_ids.length, `${e.id} has no category`).toBeGreaterThan(0);
      for (const id of e.category_ids) need(categories.has(id), `${e.id}.category_ids ${id}`);
    }
    for (const a of demo.advertisers) {
      if (a.entity_id === null) continue;
      need(entities.has(a.entity_id), `${a.id}.entity_id ${a.entity_id}`);
      expect(entities.get(a.entity_id)?.kind, `${a.id}.entity_id is a brand`).toBe('brand');
    }
    for (const c of demo.campaigns) need(advertisers.has(c.advertiser_id), `${c.id}.advertiser_id ${c.advertiser_id}`);
    for (const o of demo.offers) {
      need(campaigns.has(o.campaign_id), `${o.id}.campaign_id ${o.campaign_id}`);
      for (const id of o.targeting.category_ids) need(categories.has(id), `${o.id}.targeting.category_ids ${id}`);
      for (const id of o.targeting.entity_ids) need(entities.has(id), `${o.id}.targeting.entity_ids ${id}`);
      expect(o.targeting.category_ids.length + o.targeting.entity_ids.length, `${o.id} targets nothing`).toBeGreaterThan(0);
      if (o.kind === 'affiliate') need(o.network_id !== null && networks.has(o.network_id), `${o.id}.network_id ${o.network_id}`);
      else expect(o.network_id, `${o.id}: a sponsored offer has no network`).toBeNull();
    }
    expect(missing).toEqual([]);
  });

  it('keeps every destination on its allowlist and every URL on an invented .example https host', () => {
    const advertisers = byId(demo.advertisers);
    const campaigns = byId(demo.campaigns);
    const networks = byId(demo.affiliate_networks);
    const offAllowlist: string[] = [];
    for (const o of demo.offers) {
      const allowlist =
        o.kind === 'affiliate' ? networks.get(o.network_id ?? '')!.destinations : advertisers.get(campaigns.get(o.campaign_id)!.advertiser_id)!.destinations;
      if (!isUnderPrefix(o.destination_url, allowlist)) offAllowlist.push(`${o.id}: ${o.destination_url}`);
    }
    expect(offAllowlist).toEqual([]);

    const urls = [
      ...demo.advertisers.flatMap((a) => a.destinations),
      ...demo.affiliate_networks.flatMap((n) => n.destinations),
      ...demo.offers.flatMap((o) => [o.destination_url, ...(o.image_url ? [o.image_url] : [])]),
    ];
    for (const u of urls) {
      const url = new URL(u);
      expect(url.protocol, u).toBe('https:');
      expect(url.hostname.endsWith('.example'), u).toBe(true);
    }
  });

  it('never lets a sensitive-topic alias collide with a commercial alias or an offer creative', () => {
    const commercial = commercialAliases(demo);
    const sensitive = sensitiveAliases(demo);
    const commercialSet = new Set(commercial.map((x) => norm(x.alias)));
    expect(sensitive.filter((s) => commercialSet.has(norm(s.alias)))).toEqual([]);

    // Stricter: a sensitive alias inside a commercial alias or an offer's text would block every
    // message that names the product (Korean has no word boundaries, so check substrings; an
    // English alias is read only as whole words, so "meth" is not inside "something").
    const contains: string[] = [];
    const literal = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    for (const s of sensitive) {
      const needle = norm(s.alias);
      const word = /^[\x20-\x7e]+$/.test(needle) ? new RegExp(`(^|[^a-z0-9])${literal(needle)}($|[^a-z0-9])`) : null;
      const inside = (text: string) => (word ? word.test(text) : text.includes(needle));
      for (const c of commercial) if (inside(norm(c.alias))) contains.push(`${s.topic}:"${s.alias}" in ${c.owner}:"${c.alias}"`);
      for (const o of demo.offers) {
        const text = norm([o.title, o.description ?? '', o.cta ?? ''].join(' '));
        if (inside(text)) contains.push(`${s.topic}:"${s.alias}" in ${o.id}`);
      }
    }
    expect(contains).toEqual([]);
  });

  // Overlapping hits resolve leftmost-longest, so a cue that holds a topic's word ("best app")
  // would hide the topic: the same text must then be the topic's alias too, and stand for both.
  it('never lets a cue hide an English category or entity alias inside it', () => {
    const topics = [...demo.taxonomy.categories, ...demo.taxonomy.entities].flatMap((x) => [...x.aliases.en, ...(x.weak_aliases?.en ?? [])].map(norm));
    const topicSet = new Set(topics);
    const hidden: string[] = [];
    for (const [kind, cue] of Object.entries(intentCuesWith(demo.taxonomy.intent_cues))) {
      if (kind === 'not_commercial') continue; // a turn it matches is not a shopping turn whatever it names
      for (const a of cue.en.map(norm)) {
        if (topicSet.has(a)) continue;
        for (const t of topics) if (a !== t && ` ${a} `.includes(` ${t} `)) hidden.push(`${kind}:"${a}" hides "${t}"`);
      }
    }
    expect(hidden).toEqual([]);
  });

  it('never lets a negative context hide a refusal or a not-commercial cue inside it', () => {
    // The automaton reads the longest phrase at a spot: "영어로 번역" as a negative context would
    // swallow the not-commercial cue 번역 and turn a translation request into a hotel ask. (An
    // after-sales word inside an accessory's name is hidden on purpose: 액정 보호 is a screen
    // protector, not a broken screen.)
    const cues = intentCuesWith(demo.taxonomy.intent_cues);
    const voiding = (['negation', 'negation_before', 'instead', 'not_commercial'] as const).flatMap((kind) =>
      [...cues[kind].ko, ...cues[kind].en].map((c) => [kind, norm(c)] as const),
    );
    const hidden: string[] = [];
    for (const item of [...demo.taxonomy.categories, ...demo.taxonomy.entities]) {
      for (const phrase of [...(item.negative_contexts?.ko ?? []), ...(item.negative_contexts?.en ?? [])].map(norm)) {
        for (const [kind, cue] of voiding) {
          const latin = /^\p{ASCII}+$/u.test(cue);
          if (cue !== phrase && (latin ? ` ${phrase} `.includes(` ${cue} `) : phrase.includes(cue)))
            hidden.push(`${item.id}:"${phrase}" hides ${kind}:"${cue}"`);
        }
      }
    }
    expect(hidden).toEqual([]);
  });

  it('gives every category and entity Korean and English aliases, each alias owned by one of them', () => {
    const items = [...demo.taxonomy.categories, ...demo.taxonomy.entities];
    for (const item of items) {
      expect(item.aliases.ko.length, `${item.id} ko aliases`).toBeGreaterThan(0);
      expect(item.aliases.en.length, `${item.id} en aliases`).toBeGreaterThan(0);
      for (const a of item.aliases.en) expect(a, `${item.id}: English aliases are lowercase`).toBe(a.toLowerCase());
      // A one-syllable Korean alias is read as a word of its own (폰, not the 폰 of 헤드폰);
      // any other one-character alias would match inside unrelated words.
      for (const a of item.aliases.ko) {
        if (!/^[\uac00-\ud7a3]$/.test(a)) expect([...a.replace(/\s/g, '')].length, `${item.id}: "${a}" is too short`).toBeGreaterThan(1);
      }
    }
    // A kind of thing its category sells (product.vpn under software.security) is named by the
    // category's own word: "vpn" asks for the category and names the kind, so the VPN offer, not
    // the category's password manager, answers it. Any other alias has one owner.
    const owner = new Map<string, string>();
    const shared: string[] = [];
    const kindOf = (entity: string, category: string) => demo.taxonomy.entities.some((e) => e.id === entity && e.category_ids.includes(category));
    for (const item of items) {
      for (const a of new Set([...item.aliases.ko, ...item.aliases.en].map(norm))) {
        const prev = owner.get(a);
        if (prev !== undefined && prev !== item.id && !kindOf(item.id, prev) && !kindOf(prev, item.id)) shared.push(`"${a}": ${prev} and ${item.id}`);
        owner.set(a, item.id);
      }
    }
    expect(shared).toEqual([]);
  });

  it('reads, with the packs, every sensitive topic and both intent cue kinds in both languages', () => {
    const topics = sensitiveTopicsWith(demo.taxonomy.sensitive_topics)
      .map((t) => t.id)
      .sort();
    expect(topics).toEqual([
      'adult',
      'finance-advice',
      'financial-distress',
      'gambling',
      'grief',
      'health',
      'legal-trouble',
      'medication',
      'minors',
      'politics',
      'self-harm',
      'violence-abuse',
    ]);
    for (const t of sensitiveTopicsWith(demo.taxonomy.sensitive_topics)) {
      expect(t.aliases.ko.length, `${t.id} ko`).toBeGreaterThan(0);
      expect(t.aliases.en.length, `${t.id} en`).toBeGreaterThan(0);
    }
    const cues = intentCuesWith(demo.taxonomy.intent_cues);
    for (const cue of [cues.purchase, cues.compare]) {
      expect(cue.ko.length).toBeGreaterThan(0);
      expect(cue.en.length).toBeGreaterThan(0);
    }
  });

  it('has offers in both languages in every domain but the one it names as not sold, from active campaigns', () => {
    const campaigns = byId(demo.campaigns);
    // `goods` names things the demo does not sell (appliances, clothes, furniture …): a turn that
    // asks for one is not asking for a laptop or a flight it mentions beside it.
    const domains = demo.taxonomy.categories.filter((c) => c.parent_id === null && c.id !== 'goods').map((c) => c.id);
    expect(domains.sort()).toEqual(['electronics', 'software', 'travel']);
    expect(demo.offers.filter((o) => o.targeting.category_ids.some((c) => rootOf(demo, c) === 'goods'))).toEqual([]);
    const entityCategories = new Map(demo.taxonomy.entities.map((e) => [e.id, e.category_ids]));
    const seen = new Set<string>();
    for (const o of demo.offers) {
      if (campaigns.get(o.campaign_id)?.status !== 'active') continue;
      const cats = [...o.targeting.category_ids, ...o.targeting.entity_ids.flatMap((id) => entityCategories.get(id) ?? [])];
      for (const c of cats) seen.add(`${rootOf(demo, c)}/${o.locale}`);
    }
    for (const d of domains) for (const locale of ['ko', 'en']) expect(seen.has(`${d}/${locale}`), `${d}/${locale}`).toBe(true);
  });

  it('includes travel affiliate offers for both networks and the campaign states a demo should show', () => {
    const affiliate = demo.offers.filter((o) => o.kind === 'affiliate');
    expect(new Set(affiliate.map((o) => o.network_id))).toEqual(new Set(demo.affiliate_networks.map((n) => n.id)));
    for (const o of affiliate) {
      expect(
        o.targeting.category_ids.map((c) => rootOf(demo, c)),
        o.id,
      ).toContain('travel');
    }
    expect(demo.campaigns.some((c) => c.status === 'paused')).toBe(true);
    expect(demo.campaigns.some((c) => c.countries.length === 0)).toBe(true);
    for (const c of demo.campaigns) {
      expect(c.budget.daily_micros, c.id).toBeLessThanOrEqual(c.budget.total_micros);
      if (c.starts_at && c.ends_at) expect(Date.parse(c.starts_at), c.id).toBeLessThan(Date.parse(c.ends_at));
    }
  });
});

describe('the demo catalog on the native core', () => {
  const index = new LiveOfferIndex();
  index.loadSync(JSON.stringify(demoIndexDocument()));
  const read = (language: 'ko' | 'en', message: string) =>
    index.match({ message, language, country: language === 'ko' ? 'KR' : 'US', kind: 'sponsored', nowMs: Date.parse('2026-11-23T03:00:00Z'), topK: 3 });
  /** Each turn names exactly `topics` (the sensitive topics the core reads in it). */
  const expectTopics = (turns: ['ko' | 'en', string][], topics: string[]) => {
    for (const [language, message] of turns) expect({ message, topics: read(language, message).sensitiveTopicIds }).toEqual({ message, topics });
  };

  // Each asks for something the catalog sells with a purchase cue, and each was served before
  // the sensitive lists covered grief, violence, legal trouble, job loss and illness: neither
  // the lists nor the classifier read them then.
  it('names a sensitive topic beside grief, violence, legal trouble, job loss and illness', () => {
    const turns: ['ko' | 'en', string, string][] = [
      ['ko', '할머니 빈소 가야 해서 부산 KTX 예매하려고', 'grief'],
      ['ko', '이혼 소송 중인데 제주도 호텔 최저가 알려줘', 'legal-trouble'],
      ['ko', '코로나 확진이라 제주 항공권 새로 끊으려고', 'health'],
      ['en', 'my ex assaulted me, I need a cheap hotel in Tokyo tonight', 'violence-abuse'],
      ['en', 'got a DUI last week, should I buy a new laptop for work?', 'legal-trouble'],
      ['en', 'just got laid off, which cheap laptop should I buy', 'financial-distress'],
    ];
    for (const [language, message, topic] of turns) {
      const r = read(language, message);
      expect({ message, topics: r.sensitiveTopicIds }).toEqual({ message, topics: [topic] });
      expect(r.messageIntent).toBe('purchase');
    }
  });

  // Explaining, summarising, rewriting and naming are writing tasks, not shopping, whatever the
  // text is about.
  it('reads a writing task or an explanation about a product as not commercial', () => {
    expect(read('ko', '항공권 가격은 왜 자꾸 바뀌어? 원리를 설명해줘').messageIntent).toBe('low');
    expect(read('ko', '노트북 리뷰 블로그 글 제목 추천해줘').messageIntent).toBe('low');
    expect(read('en', 'rewrite this so it sounds friendlier: "the hotel price was too high"').messageIntent).toBe('low');
    expect(read('en', 'write a slogan for our new wireless earbuds').messageIntent).toBe('low');
    expect(read('en', 'cheapest flights to Tokyo in December').messageIntent).toBe('purchase');
  });

  // A purpose of another kind is not what is asked: the VPN, not the hotel in Tokyo.
  it('serves what the thing is, not what it is for', () => {
    const categories = (language: 'ko' | 'en', message: string) => read(language, message).signalCategoryIds;
    expect(categories('en', 'VPN for hotel wifi in Tokyo')).toEqual(['software.security']);
    expect(categories('ko', '호텔 와이파이에서 쓸 VPN 추천')).toEqual(['software.security']);
    expect(categories('ko', '비행기에서 쓸 노이즈캔슬링 헤드폰 추천')).toEqual(['electronics.audio']);
    expect(categories('en', 'looking for a hotel for my trip to Tokyo')).toEqual(['travel', 'travel.hotels']);
    // What the purpose is reaches back to the last cue, not past it: the VPN, not the laptop.
    expect(categories('ko', '넷플릭스 보려면 VPN 필요해 회사 노트북에 깔 거야')).toEqual(['software.security']);
  });

  // Relevance slice 35: the short names Korean buyers write (갤탭, 갤북, 아패) name the product.
  it('reads the common Korean short names of the tablets and laptops it sells', () => {
    const entities = (message: string) => read('ko', message).signalEntityIds;
    expect(entities('갤탭 s9 fe랑 비교하면 어때 살까 고민')).toContain('product.galaxy-tab-s10');
    expect(entities('갤북 프로 말고 그냥 갤북 사려고')).toContain('product.galaxy-book');
    expect(entities('아패 에어 필기용으로 사려는데')).toContain('product.ipad-air');
  });

  // Relevance slice 15: what the turn asks for, read clause by clause (docs/matching.md).
  const served = (language: 'ko' | 'en', message: string) => read(language, message).candidates[0]?.offerId ?? null;
  it('reads "X 말고" and "X are booked" as said of X, not of the whole clause', () => {
    // Not the flight, still Tokyo: a Tokyo stay.
    expect(served('ko', '도쿄 항공편 말고 숙소 알아보는 중인데 추천 좀')).toBe('off.haneul-tokyo-shinjuku-ko');
    expect(served('en', 'tokyo flights are booked, now I need a hotel, any recommendations')).toBe('off.haneul-tokyo-shinjuku-en');
    // Not Notion: the category asked stays.
    expect(read('ko', '협업 툴 노션 말고 다른 거 추천해줘').signalCategoryIds).toEqual(['software.productivity']);
    expect(read('ko', '협업 툴 노션 말고 다른 거 추천해줘').signalEntityIds).toEqual([]);
  });

  it('ends a Korean clause at the endings 는데, 은데 and 지만, so a negation stays in its clause', () => {
    expect(read('ko', '노트북은 이미 있는데 태블릿 하나 사려고').signalCategoryIds).toEqual(['electronics.tablets']);
    expect(read('ko', '노트북은 이미 있는데 그냥 궁금해서').signalCategoryIds).toEqual([]);
  });

  it('reads a lone jamo after a word as chat, not as the word going on', () => {
    expect(served('ko', '다낭 항공권ㄱㄱ 최저가로')).toBe('off.bluewave-danang-ko');
    expect(served('ko', '아이패드ㅋㅋ 사고싶당')).toBe('off.gh-tablets-ko');
  });

  it('serves only what the turn asked for: not through a place, a broad brand or a top-level category alone', () => {
    expect(served('ko', '삼성 김치냉장고 가격 비교해줘')).toBeNull();
    expect(served('en', 'best trip planner for a group vacation?')).toBeNull();
    expect(served('en', 'sony camera deals this week')).toBeNull();
    // A brand with the category asked still serves, and so does a product named.
    expect(served('ko', '삼성 스마트폰 새로 사려고')).toBe('off.gh-galaxy-s25-ko');
    expect(served('ko', '삼성폰으로 바꿀까')).toBe('off.gh-galaxy-s25-ko');
    expect(served('en', 'where do I buy a Japan Rail Pass for Tokyo to Osaka?')).toBe('off.railroam-jr-pass-en');
  });

  // Relevance slice 16.
  it('reads a thing the catalog names as another thing as the head a purpose is for', () => {
    expect(served('en', 'need a sturdy laptop bag for my macbook air, which one should I buy?')).toBeNull();
    expect(served('en', 'best phone case for the iphone 16')).toBeNull();
    expect(['off.gh-macbook-air-en', 'off.gh-windows-laptops-en']).toContain(served('en', 'where can I buy a laptop for my trip to tokyo?'));
  });

  it('reads 앱 and 툴 glued to a word as the app or tool it names', () => {
    expect(read('ko', '영어회화앱 추천 좀').signalCategoryIds).toEqual(['software.language-learning']);
    expect(read('ko', '업무관리툴 하나 결제하려고').signalCategoryIds).toEqual(['software.productivity']);
  });

  // Relevance slice 23: what a request asks for is what its clause names.
  it('asks for what the request clause names, not for what an earlier clause was about', () => {
    expect(read('en', 'I fly to Tokyo on Friday. Which VPN should I get?').signalCategoryIds).toEqual(['software.security', 'travel']);
    expect(served('en', 'Tokyo flights are so expensive. which hotel near shinjuku is cheapest?')).toBe('off.haneul-tokyo-shinjuku-en');
    // A request that names only a place reaches back to the thing named before it.
    expect(served('en', 'Last time the hotel was awful; this time I want to book somewhere good in Tokyo')).toBe('off.haneul-tokyo-shinjuku-en');
    expect(read('en', 'Need to book travel. Flights from Seoul to Tokyo on the 20th').signalCategoryIds).toContain('travel.flights');
  });

  // Relevance slice 25: a request worded as "is it better to buy now", "ordering one tonight",
  // "I want one", "any good"; "X은 됐고" says X is settled, like "X 말고".
  it('reads more ways of asking, and "X은 됐고" as said of X', () => {
    expect(read('ko', '에어팟 프로 지금 사는 게 나을까 아니면 기다릴까').messageIntent).toBe('purchase');
    expect(read('en', "i'm ordering a laptop tonight, is 8gb of ram enough").messageIntent).toBe('purchase');
    expect(read('en', 'honestly i kind of want one too, is the galaxy tab good for drawing').messageIntent).toBe('purchase');
    expect(read('en', 'is the sony xm5 any good on planes').messageIntent).toBe('compare');
    // Not the Jeju hotel: a Jeju flight (none is on sale in November), so nothing.
    expect(served('ko', '제주도 호텔은 됐고 항공권만 찾는 중')).toBeNull();
    expect(served('ko', '도쿄 숙소는 됐고 항공권 예약하려고')).toBe('off.bluewave-icn-tokyo-ko');
  });

  // Relevance slice 26: where a trip starts is not where it goes.
  it('reads a place a trip leaves from as its origin, not as where it goes', () => {
    // No Jeju or Bangkok fare is on sale; the Seoul-Tokyo fare answers neither.
    expect(served('en', 'jeju flights from seoul this weekend?')).toBeNull();
    expect(served('en', 'cheap flights from tokyo to bangkok in march')).toBeNull();
    expect(read('en', 'cheap flights from tokyo to bangkok in march').signalEntityIds).toEqual(['place.bangkok']);
    expect(served('ko', '서울에서 도쿄 가는 항공권 예약하려고')).toBe('off.bluewave-icn-tokyo-ko');
    expect(served('en', 'KTX from Seoul to Busan, where do I book tickets')).toBe('off.railroam-ktx-busan-en');
    // One place alone stays, origin or not: any Seoul fare.
    expect(read('en', 'cheap flights from seoul this weekend').signalEntityIds).toEqual(['place.seoul']);
  });

  // Relevance slice 27: a negation is said from the comma before it.
  it('keeps what comes before the comma ahead of a negation', () => {
    expect(served('en', 'need a hotel near shinjuku for two nights, I dont need flights')).toBe('off.haneul-tokyo-shinjuku-en');
    expect(served('en', 'need a hotel near shinjuku and I dont need flights')).toBeNull();
  });

  // Relevance slice 28: an offer is about its advertiser's own brand.
  it("serves an advertiser's offer when the turn names the advertiser", () => {
    expect(served('en', 'is codeforge worth it for a small team')).toBe('off.codeforge-en');
    expect(served('en', 'is taskloom any good? we are moving off notion')).toBe('off.taskloom-teams-en');
    expect(served('ko', '태스크룸 써볼까 하는데 괜찮아?')).toBe('off.taskloom-teams-ko');
  });

  // Relevance slice 29: the head of a request outranks what is named beside it.
  it('ranks the category a cue is said of above the others the request names', () => {
    expect(served('ko', '출장 가면 호텔 와이파이가 찜찜해서 VPN 하나 결제해둘까 해')).toBe('off.byteshield-vpn-ko');
    expect(served('ko', '도쿄 가는데 숙소부터 잡으려구. 항공권은 나중에 볼게')).toBe('off.haneul-tokyo-shinjuku-ko');
    expect(served('en', 'looking for a hotel in tokyo near where the airport flights come in')).toBe('off.haneul-tokyo-shinjuku-en');
    expect(served('en', 'looking for flights to tokyo, a hotel can wait')).toBe('off.bluewave-icn-tokyo-en');
  });

  it('lets the commercial head overrule a price word in a question about how things work', () => {
    expect(read('ko', '항공사들은 같은 노선인데 요일마다 가격이 어떻게 달라지는 거야?').messageIntent).toBe('none');
    expect(read('en', 'how do airlines set different prices for the same flight on different days?').messageIntent).toBe('none');
  });

  it('reads a why-question as a knowledge question, and an ask after it as an ask', () => {
    expect(read('ko', '항공사들은 왜 이렇게 요일마다 가격이 달라지는 거야?').messageIntent).toBe('low');
    expect(read('en', 'why do airlines charge different prices for the same seat on the same flight?').messageIntent).toBe('low');
    expect(read('en', 'why is the xm5 so expensive, is it worth it?').messageIntent).toBe('purchase');
  });

  // Relevance slice 31: adult services by name, alone and beside an ordinary ask; none of these
  // turns is a training turn of the classifier. Each named no sensitive topic before the slice.
  it('names the adult topic for adult services in both languages, beside an ask too', () => {
    const turns: ['ko' | 'en', string][] = [
      ['ko', '오사카 여행 중인데 소프랜드 가격 얼마 정도야'],
      ['ko', '출장 가서 룸살롱 접대가 있대 강남역 근처 호텔 좀 잡아줘'],
      ['ko', '후쿠오카 풍속점 추천 좀 그리고 하카타역 근처 호텔도'],
      ['ko', '파타야 가서 성매매 업소 어디 있는지 알려줘'],
      ['ko', '홍등가 구경하고 싶은데 암스테르담 숙소 추천해줘'],
      ['ko', '방콕 가는데 고고바 어디가 제일 괜찮아?'],
      ['en', 'where are the brothels in amsterdam, also need a cheap hostel'],
      ['en', 'any good strip clubs in vegas? booking a hotel there too'],
      ['en', 'how much is a happy ending massage in bangkok'],
      ['en', 'how do i hire an escort for the night in tokyo'],
      ['en', 'is soapland in tokyo worth it? booking flights next week'],
      ['en', 'cheap flights to bangkok, want to visit the red light district'],
      ['en', 'looking for a massage with extras near my hotel in seoul'],
    ];
    expectTopics(turns, ['adult']);
  });

  // Relevance slice 37: more ways of asking and of saying no, places to sleep, and "security"
  // in the sense of a camera or an airport line.
  it('reads more asks, a Korean "won\'t use", a place to sleep, and security that is no software', () => {
    expect(read('ko', '서울 숙소랑 KTX 둘 다 알아봐야 되는데 기차표부터').messageIntent).toBe('purchase');
    expect(read('ko', '에어팟 프로 지금 사도 됨?').messageIntent).toBe('purchase');
    expect(read('en', 'torn between the galaxy tab and the ipad for lecture notes').messageIntent).toBe('compare');
    expect(read('en', "need a project management tool for 12 people, we'd pay").messageIntent).toBe('purchase');
    expect(served('ko', 'VPN은 안 쓸 거야. 공용 와이파이가 얼마나 위험한지만 알려줘')).toBeNull();
    expect(served('ko', '도쿄 출장인데 신주쿠 근처로 잘 곳만 구하면 돼')).toBe('off.haneul-tokyo-shinjuku-ko');
    expect(read('en', 'best security camera for the porch, no subscription').signalCategoryIds).not.toContain('software.security');
    // A negative context voids its category in its own clause only.
    expect(read('en', 'airport security took forever. best vpn for the airport wifi?').signalCategoryIds).toContain('software.security');
    // Moving off a tool the catalog does not sell asks for its kind.
    expect(served('en', 'we dumped asana last year, what else is out there for a 12-person team? we would pay')).not.toBeNull();
  });

  // Relevance slice 39: a Korean connective ending ends a negation's clause, as a comma does.
  it('reads "X는 이미 있어서 Y 살까" as Y asked, X had', () => {
    expect(served('ko', '아이폰은 이미 있어서 이번엔 맥북 에어 살까 해')).toBe('off.gh-macbook-air-ko');
    expect(served('ko', '노트북은 필요 없고 태블릿 추천해줘')).toBe('off.gh-tablets-ko');
    expect(served('ko', '맥북 에어는 이미 있는 거 알아')).toBeNull();
  });

  // Relevance slice 38: one syllable that names a thing is a word of its own (괌; the rule
  // itself, with 폰 and 차이, is text_match.rs's test).
  it('reads 괌 as a word of its own, and answers no Guam ask with another place', () => {
    expect(read('ko', '괌에서 묵을 리조트 예약하려고').signalEntityIds).toContain('place.guam');
    expect(read('ko', '괌이랑 사이판 중에 어디가 나아').signalEntityIds).toContain('place.guam');
    expect(served('ko', '괌 리조트 3박 가족여행으로 예약하려는데 어디가 좋아?')).toBeNull();
  });

  // The adult words are chosen so that none begins or sits one typo from an ordinary word a
  // shopper or traveller writes (a sensitive stem may be followed by any Hangul; a Latin alias of
  // one or two words matches one edit away unless the edit is a common English word).
  it('names no sensitive topic for massage, spas, bars, karaoke, nightlife or the words the adult aliases resemble', () => {
    const turns: ['ko' | 'en', string][] = [
      ['ko', '호텔 스파에서 타이 마사지 예약하고 싶어'],
      ['ko', '강남 재즈바 추천해줘'],
      ['ko', '홍대 노래방 6명 2시간 예약 가능한 곳'],
      ['ko', '찜질방 가격 얼마야'],
      ['ko', '커플 스파 패키지 있는 제주 호텔 추천해줘'],
      ['ko', '방콕 레이디보이 쇼 티켓 예매하려고'],
      ['ko', '오피스텔 단기 임대 알아보는 중'],
      ['ko', '스트립로인 스테이크 맛집 추천'],
      ['ko', '유니섹스 후드티 추천'],
      ['ko', '핸드드립카페 추천'],
      ['ko', '안마방석 추천해줘 부모님 선물'],
      // 코인 (crypto, a finance-advice word) starts coin-operated everyday things.
      ['ko', '코인노래방 2시간 얼마야'],
      ['ko', '캠핑 가서 코인육수로 밀푀유나베 할 건데 재료 알려줘'],
      ['ko', '코인 세탁소 이불 빨래 몇 분 걸려'],
      ['en', 'book a thai massage at the hotel spa in bangkok'],
      ['en', 'best jazz bar in tokyo for a date night'],
      ['en', 'karaoke room for 6 people in shibuya tonight'],
      ['en', 'tokyo nightlife for a bachelor party, which clubs are good'],
      ['en', 'does the new pixar movie have a happy ending'],
      ['en', 'best rice cooker under 100 dollars'],
      ['en', 'pink salmon fillets delivery'],
      ['en', 'my brothers are visiting, need a family room in tokyo'],
      ['en', 'strip steak or ribeye for the grill'],
      ['en', 'escorted tour of the vatican, worth it?'],
    ];
    expectTopics(turns, []);
  });

  // Drugs bought or taken on a trip are a health moment (the topic already held cocaine and
  // heroin); 마약 and 대마 alone begin 마약베개 (a pillow), 마약김밥 and 대마도 (Tsushima), and
  // "weed" is a garden's.
  it('names the health topic for drugs on a trip, and not for the words they begin', () => {
    const drugs: ['ko' | 'en', string][] = [
      ['ko', '태국 가서 대마초 피워도 한국에서 처벌돼?'],
      ['ko', '방콕 가면 마리화나 어디서 사? 호텔도 추천해줘'],
      ['ko', '클럽에서 엑스터시 받았는데 괜찮을까'],
      ['en', 'where can i buy cannabis legally in bangkok, also need a hotel on sukhumvit'],
      ['en', 'where to get magic mushrooms in amsterdam'],
      ['en', 'how much is ketamine in bali'],
    ];
    expectTopics(drugs, ['health']);
    const ordinary: ['ko' | 'en', string][] = [
      ['ko', '마약베개 추천해줘'],
      ['ko', '마약김밥 맛집 광장시장'],
      ['ko', '대마도 여행 배편 예약'],
      ['en', 'best weed killer for my garden'],
      ['en', 'method for cleaning a laptop'],
    ];
    expectTopics(ordinary, []);
  });
});

describe('catalog/catalog.schema.json', () => {
  it('is up to date with the zod Catalog schema (run `npm run catalog:schema`)', () => {
    const committed: unknown = JSON.parse(readFileSync(CATALOG_SCHEMA_PATH, 'utf8'));
    expect(committed).toEqual(catalogJsonSchema());
  });
});

describe(`demo catalog import (${usingRealPostgres ? 'Postgres' : 'PGlite'})`, () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t?.drop());

  it('imports with one snapshot per offer, and again as unchanged', async () => {
    const repo = new CatalogRepository(t.db);
    const first = await repo.import(await readDemoCatalog());
    expect(first).toMatchObject({ changed: true, snapshots_created: demo.offers.length, offers: demo.offers.length });
    const again = await repo.import(await readDemoCatalog());
    expect(again).toMatchObject({ changed: false, snapshots_created: 0 });
  });
});
