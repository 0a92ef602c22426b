// The catalog file: the one document operators edit to describe what may be served.
// It is the single source for import validation, for the TypeScript types and for the
// published JSON Schema (catalog.schema.json, written by `npm run catalog:schema`).
import { z } from 'zod';
import { pathsWithNul } from '../http/text.js';
import { destinationHostProblem, isRewrittenByUrlParser } from './destinations.js';
import { aliasProblem } from './alias-rules.js';

/** Ids are short machine identifiers, never free text. */
export const CatalogId = z.string().regex(/^[a-z0-9][a-z0-9._:-]{0,63}$/, 'must match ^[a-z0-9][a-z0-9._:-]{0,63}$ (lowercase id, max 64)');

/** One alias; rules that keep it from matching every message in alias-rules.ts. A category's or
 *  entity's own alias (`wordOfItsOwn`) may also be one Hangul syllable (폰, 괌). */
const aliasOf = (wordOfItsOwn: boolean) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty after trimming spaces')
    .max(100)
    .superRefine((alias, ctx) => {
      const problem = alias.length > 0 ? aliasProblem(alias, wordOfItsOwn) : null;
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .describe(
      wordOfItsOwn
        ? 'An alias: 1–100 characters after trimming, with at least 2 letters or digits (a number alone: at least 3 digits), or one Hangul syllable, matched as a word of its own.'
        : 'An alias: 1–100 characters after trimming, with at least 2 letters or digits (a number alone: at least 3 digits).',
    );
// A sensitive topic's words run long (the packs' health topic holds over 200 English ones: the
// slang of drugs and symptoms as well as the clinical words); the bound only keeps one list sane.
const MAX_ALIASES = 500;
const aliasesOf = (wordOfItsOwn: boolean) =>
  z
    .strictObject({
      ko: z.array(aliasOf(wordOfItsOwn)).max(MAX_ALIASES).default([]).describe('Korean aliases.'),
      en: z.array(aliasOf(wordOfItsOwn)).max(MAX_ALIASES).default([]).describe('English aliases.'),
    })
    .describe('Words that name it, per language; a message in either language may use either.');
/** Aliases per language; matching is language-independent (a Korean message may name "iPhone"). */
export const Aliases = aliasesOf(false);
/** A category's or entity's own aliases. */
const ThingAliases = aliasesOf(true);
const LocalizedName = z
  .strictObject({
    ko: z.string().min(1).max(120).describe('Korean display name.'),
    en: z.string().min(1).max(120).describe('English display name.'),
  })
  .describe('Display name in Korean and English (shown in "why this offer").');

const WeakAliases = Aliases.default({ ko: [], en: [] }).describe(
  'Aliases with another common sense ("train" a model, 파리 the insect): they count only when the same turn also names a related category or entity by a strong alias, or the digest does.',
);
const NegativeContexts = Aliases.default({ ko: [], en: [] }).describe(
  'Phrases in which its aliases mean something else ("model train", "파인애플", "인생은 여행"): in the same clause they void its hits.',
);

/** Where a category or a sensitive topic sits in the ad industry's own vocabulary, so that a
 *  host can state its brand-safety policy in it (docs/taxonomy.md). Ids only: the names are the
 *  taxonomy's, which the reference docs print beside them. */
const IabContent = z
  .array(z.string().regex(/^[A-Za-z0-9]{1,8}$/, 'an IAB Content Taxonomy unique id'))
  .max(10)
  .default([])
  .describe(
    'IAB Tech Lab Content Taxonomy 3.1 unique ids it corresponds to (e.g. `668` Hotels and Motels, `Rm3SiT` Adult & Explicit Sexual Content under Sensitive Topics), most specific first; empty when the taxonomy has no node for it.',
  );

export const Category = z.strictObject({
  id: CatalogId.describe('Category id, e.g. `travel.hotels`.'),
  parent_id: CatalogId.nullable().default(null).describe("Parent category; a parent in the digest or message matches its children's offers."),
  name: LocalizedName,
  aliases: ThingAliases.default({ ko: [], en: [] }),
  weak_aliases: WeakAliases,
  negative_contexts: NegativeContexts,
  iab_content: IabContent,
});

export const Entity = z.strictObject({
  id: CatalogId.describe('Entity id, e.g. `place.jeju`.'),
  kind: z.enum(['brand', 'product', 'place']).describe('What the entity is.'),
  name: LocalizedName,
  aliases: ThingAliases.default({ ko: [], en: [] }),
  category_ids: z.array(CatalogId).max(20).default([]).describe('Categories the entity belongs to; naming the entity is also a (weak) signal for these.'),
  weak_aliases: WeakAliases,
  negative_contexts: NegativeContexts,
  within: z
    .array(CatalogId)
    .max(10)
    .default([])
    .describe(
      'Entities of the same kind this one lies within: a city\'s country (`place.kyoto` within `place.japan`). An offer aimed at Japan then answers a turn about Kyoto, and one aimed at Kyoto a turn about Japan, instead of being "another place". A product may also lie within the place it belongs to (`product.jr-pass` within `place.japan`): its weak aliases ("which pass") then count only in a turn that names that place or one within it. Up to 10; followed through up to 32 levels.',
    ),
});

export const SensitiveTopic = z.strictObject({
  id: CatalogId.describe('Topic id, e.g. `health.mental`.'),
  aliases: Aliases,
  negative_contexts: Aliases.default({ ko: [], en: [] }).describe(
    'Phrases in which one of its aliases is said of a thing, not of the person ("와이파이가 불안"): a phrase hides the alias inside it (overlapping hits resolve leftmost-longest); any other alias of the turn still counts.',
  ),
  context_aliases: Aliases.default({ ko: [], en: [] }).describe(
    'Words that say the topic only beside other evidence: where care happens or what was done (`병원`, `hospital`, `surgery`) and a common worry (`불안해`), said of a workplace, a visit or someone else as often as of the user. One blocks when the turn names something sensitive otherwise, or when the learned classifier leans sensitive at all (p ≥ 0.05); where the classifier cannot vouch (a turn under three words, a word past the first 256 characters) it blocks as any alias does.',
  ),
  said_of_the_user: z
    .boolean()
    .default(false)
    .describe(
      "Its aliases say something of the user (a minor's school year: `중학생`, `high schooler`): in a turn that names the user's own child, grandchild, nephew or niece, or pupils (`my son`, `our kids`, 딸, 손주, 제자, 우리 애) and says no age or school year of the user themselves, they are read as said of that child, a grown-up speaking, and do not block.",
    ),
  iab_content: IabContent,
});

/** A kind of intent cue: a key of `intent_cues`. */
export type CueKind = keyof z.infer<typeof Taxonomy>['intent_cues'];

export const Taxonomy = z
  .strictObject({
    categories: z.array(Category.describe('A category.')).default([]).describe('Allowlisted categories.'),
    entities: z.array(Entity.describe('An entity.')).default([]).describe('Allowlisted entities (brands, products, places).'),
    sensitive_topics: z
      .array(SensitiveTopic.describe('A sensitive topic.'))
      .default([])
      .describe('A hit of any of these aliases in the message is POLICY_BLOCK.'),
    intent_cues: z
      .strictObject({
        purchase: Aliases.default({ ko: [], en: [] }).describe('Buying or booking: buy, price, 최저가, 예매, 사려고 …'),
        compare: Aliases.default({ ko: [], en: [] }).describe('Choosing: vs, which is better, 비교, 뭐가 나아 …'),
        negation: Aliases.default({ ko: [], en: [] }).describe("Not buying: already have, don't need, 이미 있, 필요 없 … (voids its clause)."),
        negation_before: Aliases.default({ ko: [], en: [] }).describe(
          'The thing before is done, had or someone else\'s: 예약했고, 끊어놨는데, are booked … (voids that thing and ends its clause: "KTX는 예매했고 숙소 추천"; a place before it describes the thing before that place, which goes with it: "KTX 부산행 예매 끝냈어요").',
        ),
        instead: Aliases.default({ ko: [], en: [] }).describe(
          'Not this but something else: 말고, 대신 … (voids what is right before it, a place too, and ends its clause: "비행기 말고 숙소", "부산 말고 제주 호텔").',
        ),
        after_sales: Aliases.default({ ko: [], en: [] }).describe('About something already bought: refund, complain, 환불, 해지 … (voids its clause).'),
        selling: Aliases.default({ ko: [], en: [] }).describe(
          "Selling what the user has: selling my, marketplace listing, 팔려고, 판매글 … (voids its clause, and a price asked after it is the sale's: its things never count again).",
        ),
        not_commercial: Aliases.default({ ko: [], en: [] }).describe(
          'Not a shopping turn at all: translate, write a poem, stack trace, 번역 … (the turn is LOW_INTENT).',
        ),
        clause_break: Aliases.default({ ko: [], en: [] }).describe('Words that end a clause like a full stop: but, however, 하지만, 근데 …'),
        purpose: Aliases.default({ ko: [], en: [] }).describe(
          'What follows in the clause is what the thing is for, not the thing: for, during … ("a VPN for hotel wifi": the hotel is dropped when the clause names something of another top-level category).',
        ),
        purpose_before: Aliases.default({ ko: [], en: [] }).describe(
          'What comes before in the clause is what the thing is for: 에서 쓸, 가서 쓸 … ("비행기에서 쓸 헤드폰": the flight is dropped when the clause names something of another top-level category).',
        ),
        alternative: Aliases.default({ ko: [], en: [] }).describe(
          'Moving away from a thing: outgrown, alternatives to, 에서 갈아타, 대안 … (said of the nearest brand or product of its clause, after an English cue and before a Korean one: another thing of its kind is asked for, "we\'ve outgrown Trello").',
        ),
        accessory: Aliases.default({ ko: [], en: [] }).describe(
          'A thing bought for another thing: case, charger, dock, 케이스, 충전기 … (right after a thing, "아이폰16 케이스", that thing is whose accessory is asked for, not what is asked; anywhere in a clause, the clause names something else, so a thing it is for is dropped: "a case for my iPad").',
        ),
      })
      // Parsed from nothing, each kind takes its own default: one list of kinds, the fields above.
      .prefault({})
      .describe(
        "How the message is worded: cues of commercial intent, and of contexts in which a topic is not being shopped for. Cues count per clause (docs/matching.md). The core's language packs (Korean and English, with examples) already hold the common ones; a catalog's cues are added to them, for its own users' wording, and cannot take a pack's away.",
      ),
  })
  .describe('What may be matched: categories, entities, sensitive topics and intent cues.');

/** Refuses a URL whose host is not a public domain name on the default port (destinations.ts). */
function publicHost(url: string, ctx: z.RefinementCtx) {
  const problem = destinationHostProblem(url);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
}

/** An allowlist entry: an https origin with an optional path prefix, no query or fragment. */
export const DestinationPrefix = z
  .string()
  .max(2048)
  .refine((s) => isHttpsPrefix(s), 'must be an https URL prefix without userinfo, query or fragment')
  .superRefine(publicHost);

export const Advertiser = z.strictObject({
  id: CatalogId.describe('Advertiser id.'),
  name: z.string().min(1).max(120).describe('Advertiser identity shown beside every offer.'),
  status: z.enum(['active', 'suspended']).default('active').describe('A suspended advertiser serves nothing and its links stop redirecting.'),
  entity_id: CatalogId.nullable().default(null).describe("The advertiser's own brand entity: a digest excluding it excludes all of its offers."),
  destinations: z
    .array(DestinationPrefix.describe('An https URL prefix without userinfo, query or fragment.'))
    .min(1)
    .max(100)
    .describe('Where its tracked links may send a browser; re-checked at click time.'),
});

const IsoTime = z.iso.datetime({ offset: true });

export const Campaign = z.strictObject({
  id: CatalogId.describe('Campaign id.'),
  name: z.string().trim().min(1).max(120).nullable().default(null).describe('Name operators see in reports and on the dashboard; the id stands in when null.'),
  advertiser_id: CatalogId.describe('The advertiser running it.'),
  status: z.enum(['active', 'paused', 'ended']).default('active').describe('Only active campaigns serve.'),
  starts_at: IsoTime.nullable().default(null).describe('ISO time it starts serving; null for now.'),
  ends_at: IsoTime.nullable().default(null).describe('ISO time it stops serving; null for never.'),
  countries: z
    .array(z.string().regex(/^[A-Z]{2}$/, 'must be an uppercase ISO 3166-1 alpha-2 code'))
    .max(250)
    .default([])
    .describe('ISO 3166-1 alpha-2 codes; empty means every country.'),
  bid_micros: z.int().min(0).max(1_000_000_000).describe('Price of one served offer, in micro-units of the account currency.'),
  priority: z.int().min(1).max(10).default(5).describe('1 (lowest) to 10 (highest); part of the documented score.'),
  budget: z
    .strictObject({
      total_micros: z.int().min(0).max(Number.MAX_SAFE_INTEGER).describe('Lifetime budget in micro-units.'),
      daily_micros: z.int().min(0).max(Number.MAX_SAFE_INTEGER).describe('Daily budget in micro-units.'),
    })
    .describe('Spend limits; a spent budget gives BUDGET_EXHAUSTED.'),
  frequency_cap: z
    .strictObject({
      count: z.int().min(1).max(1000).describe('Serves allowed per session token in the window.'),
      window_seconds: z
        .int()
        .min(60)
        .max(30 * 86400)
        .describe('Window length in seconds.'),
    })
    .default({ count: 3, window_seconds: 3600 })
    .describe('Serves of this campaign per host session token within the window.'),
  offer_ttl_seconds: z.int().min(60).max(86400).default(900).describe('How long a served offer stays valid (`expires_at`).'),
});

/** What a catalog offer is: `sponsored` (a tracked /r/ link) or `affiliate` (a network deep link). */
export const OfferKind = z.enum(['sponsored', 'affiliate']);
export type OfferKind = z.infer<typeof OfferKind>;

export const Offer = z.strictObject({
  id: CatalogId.describe('Offer id; a changed offer gets a new snapshot on import.'),
  campaign_id: CatalogId.describe('The campaign it belongs to.'),
  kind: OfferKind.default('sponsored').describe('`sponsored` offers get a tracked /r/ link; `affiliate` offers a network deep link.'),
  network_id: CatalogId.nullable().default(null).describe('Affiliate network of an `affiliate` offer.'),
  locale: z.enum(['ko', 'en']).describe('Language of the creative; it serves to requests whose locale has this primary subtag.'),
  title: z.string().min(1).max(120).describe('Title hint.'),
  description: z.string().max(300).nullable().default(null).describe('Description hint.'),
  // The host's client fetches it: the same host rules as a destination.
  image_url: z
    .url({ protocol: /^https$/ })
    .max(2048)
    .superRefine(publicHost)
    .nullable()
    .default(null)
    .describe('Image hint, https, on a public domain name.'),
  cta: z.string().max(40).nullable().default(null).describe('Call-to-action hint.'),
  disclosure: z.string().min(1).max(40).nullable().default(null).describe('Sponsorship label shown to the user; defaults to 광고 / Sponsored by locale.'),
  destination_url: z
    .url({ protocol: /^https$/ })
    .max(2048)
    .superRefine(publicHost)
    .describe("Where the click lands: https on a public domain name, default port; must be on the advertiser's (or network's) allowlist."),
  targeting: z
    .strictObject({
      category_ids: z.array(CatalogId).max(50).default([]).describe('Categories it serves for.'),
      entity_ids: z.array(CatalogId).max(50).default([]).describe('Entities it serves for.'),
      budget_buckets: z
        .array(z.enum(['unknown', 'low', 'mid', 'high']))
        .max(4)
        .default([])
        .describe('Digest budget buckets it fits; empty means any.'),
    })
    .describe('What it matches.'),
});

export const AffiliateNetwork = z.strictObject({
  id: CatalogId.describe('Network id.'),
  name: z.string().min(1).max(120).describe('Network name, answered as `network`.'),
  adapter: z
    .string()
    .regex(/^[a-z0-9-]{1,40}$/)
    .describe('Which adapter builds its deep links (src/affiliate/networks/): `tripnet`, `staylink`, or `template`.'),
  partner_marker: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1 to 64 letters, digits, _ . -')
    .describe('The partner id the network pays out to.'),
  link_template: z
    .string()
    .max(2048)
    // Its host is where every click goes first. Placeholders are for the template adapter to
    // check (they may not appear in the host); here they stand in as plain text.
    .superRefine((template, ctx) => publicHost(template.replaceAll(/\{(marker|sub_id|destination)\}/g, 'x'), ctx))
    .nullable()
    .default(null)
    .describe('For the `template` adapter: an https URL with {marker}, {sub_id} and {destination} placeholders.'),
  destinations: z
    .array(DestinationPrefix.describe('An https URL prefix without userinfo, query or fragment.'))
    .min(1)
    .max(100)
    .describe('Destinations its deep links may wrap.'),
});

// Postgres cannot store a NUL character; one anywhere is a problem of the file, not a failed write.
function noNul(value: unknown, ctx: z.RefinementCtx) {
  for (const path of pathsWithNul(value)) ctx.addIssue({ code: 'custom', path, message: 'must not contain NUL characters' });
}

const CATALOG_FIELDS = {
  $schema: z.string().optional().describe('Path or URL of catalog.schema.json, for editors.'),
  version: z.literal(1).describe('Catalog format version.'),
  taxonomy: Taxonomy,
  advertisers: z.array(Advertiser.describe('An advertiser.')).default([]).describe('Advertisers and their destination allowlists.'),
  campaigns: z.array(Campaign.describe('A campaign.')).default([]).describe('Campaigns: budgets, caps, bids, schedule.'),
  offers: z.array(Offer.describe('An offer.')).default([]).describe('Offers (creatives) of the campaigns.'),
  affiliate_networks: z
    .array(AffiliateNetwork.describe('An affiliate network.'))
    .default([])
    .describe('Travel affiliate networks and how their deep links are built.'),
};

export const Catalog = z.strictObject(CATALOG_FIELDS).superRefine(noNul).describe('The catalog: what may be served.');

/** The top-level fields in document order: a problem list of a file is sorted by them. */
export const CATALOG_SECTIONS = Object.keys(CATALOG_FIELDS);

/** The catalog with its offers left out (an import checks them one at a time, CatalogOffer):
 *  the same fields, and `offers`, when present, must be an array. */
export const CatalogHead = z.strictObject({ ...CATALOG_FIELDS, offers: z.array(z.unknown()).default([]) }).superRefine(noNul);

/** One offer as an import checks it, alone: its schema and no NUL characters. */
export const CatalogOffer = Offer.superRefine(noNul);

export type Catalog = z.infer<typeof Catalog>;
export type CatalogHead = Omit<Catalog, 'offers'>;
export type CatalogInput = z.input<typeof Catalog>;
export type Category = z.infer<typeof Category>;
export type Entity = z.infer<typeof Entity>;
export type Advertiser = z.infer<typeof Advertiser>;
export type Campaign = z.infer<typeof Campaign>;
export type Offer = z.infer<typeof Offer>;
export type AffiliateNetwork = z.infer<typeof AffiliateNetwork>;

export function isHttpsPrefix(s: string): boolean {
  // `https://evil.example\@shop.example/` reads as shop.example but parses as evil.example.
  if (isRewrittenByUrlParser(s)) return false;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return false;
  }
  return u.protocol === 'https:' && !u.username && !u.password && !u.search && !u.hash && s.startsWith(u.origin);
}
