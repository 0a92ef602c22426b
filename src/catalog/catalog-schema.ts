// The catalog file: the one document operators edit to describe what may be served.
// It is the single source for import validation, for the TypeScript types and for the
// published JSON Schema (catalog.schema.json, written by `npm run catalog:schema`).
import { z } from 'zod';
import { isRewrittenByUrlParser } from './destinations.js';

/** Ids are short machine identifiers, never free text (DESIGN.md §2, digest ids). */
export const CatalogId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._:-]{0,63}$/, 'must match ^[a-z0-9][a-z0-9._:-]{0,63}$ (lowercase id, max 64)');

const Alias = z.string().trim().min(1).max(100);
/** Aliases per language; matching is language-independent (a Korean message may name "iPhone"). */
export const Aliases = z.strictObject({
  ko: z.array(Alias).max(200).default([]),
  en: z.array(Alias).max(200).default([]),
});
const LocalizedName = z.strictObject({ ko: z.string().min(1).max(120), en: z.string().min(1).max(120) });

export const Category = z.strictObject({
  id: CatalogId,
  /** Parent category; a parent in the digest or message matches its children's offers. */
  parent_id: CatalogId.nullable().default(null),
  name: LocalizedName,
  aliases: Aliases.default({ ko: [], en: [] }),
});

export const Entity = z.strictObject({
  id: CatalogId,
  kind: z.enum(['brand', 'product', 'place']),
  name: LocalizedName,
  aliases: Aliases.default({ ko: [], en: [] }),
  /** Categories the entity belongs to; naming the entity is also a signal for these. */
  category_ids: z.array(CatalogId).max(20).default([]),
});

export const SensitiveTopic = z.strictObject({
  id: CatalogId,
  aliases: Aliases,
});

export const Taxonomy = z.strictObject({
  categories: z.array(Category).default([]),
  entities: z.array(Entity).default([]),
  /** A hit of any of these aliases in the message is POLICY_BLOCK. */
  sensitive_topics: z.array(SensitiveTopic).default([]),
  /** Words that signal commercial intent in the message (buy, price, 최저가, 비교 …). */
  intent_cues: z
    .strictObject({
      purchase: Aliases.default({ ko: [], en: [] }),
      compare: Aliases.default({ ko: [], en: [] }),
    })
    .default({ purchase: { ko: [], en: [] }, compare: { ko: [], en: [] } }),
});

/** An allowlist entry: an https origin with an optional path prefix, no query or fragment. */
export const DestinationPrefix = z
  .string()
  .max(2048)
  .refine((s) => isHttpsPrefix(s), 'must be an https URL prefix without userinfo, query or fragment');

export const Advertiser = z.strictObject({
  id: CatalogId,
  name: z.string().min(1).max(120),
  status: z.enum(['active', 'suspended']).default('active'),
  /** The advertiser's own brand entity: a digest excluding it excludes all of its offers. */
  entity_id: CatalogId.nullable().default(null),
  /** Where its tracked links may send a browser; re-checked at click time. */
  destinations: z.array(DestinationPrefix).min(1).max(100),
});

const IsoTime = z.iso.datetime({ offset: true });

export const Campaign = z.strictObject({
  id: CatalogId,
  advertiser_id: CatalogId,
  status: z.enum(['active', 'paused', 'ended']).default('active'),
  starts_at: IsoTime.nullable().default(null),
  ends_at: IsoTime.nullable().default(null),
  /** ISO 3166-1 alpha-2 codes; empty means every country. */
  countries: z.array(z.string().regex(/^[A-Z]{2}$/, 'must be an uppercase ISO 3166-1 alpha-2 code')).max(250).default([]),
  /** Price of one served offer, in micro-units of the account currency. */
  bid_micros: z.int().min(0).max(1_000_000_000),
  /** 1 (lowest) to 10 (highest); part of the documented score. */
  priority: z.int().min(1).max(10).default(5),
  budget: z.strictObject({
    total_micros: z.int().min(0).max(Number.MAX_SAFE_INTEGER),
    daily_micros: z.int().min(0).max(Number.MAX_SAFE_INTEGER),
  }),
  /** Serves of this campaign per host session token within the window. */
  frequency_cap: z
    .strictObject({ count: z.int().min(1).max(1000), window_seconds: z.int().min(60).max(30 * 86400) })
    .default({ count: 3, window_seconds: 3600 }),
  offer_ttl_seconds: z.int().min(60).max(86400).default(900),
});

export const Offer = z.strictObject({
  id: CatalogId,
  campaign_id: CatalogId,
  /** `sponsored` offers get a tracked /r/ link; `affiliate` offers a network deep link. */
  kind: z.enum(['sponsored', 'affiliate']).default('sponsored'),
  network_id: CatalogId.nullable().default(null),
  /** Language of the creative; it serves to requests whose locale has this primary subtag. */
  locale: z.enum(['ko', 'en']),
  title: z.string().min(1).max(120),
  description: z.string().max(300).nullable().default(null),
  image_url: z.url({ protocol: /^https$/ }).max(2048).nullable().default(null),
  cta: z.string().max(40).nullable().default(null),
  /** Sponsorship label shown to the user; defaults to 광고 / Sponsored by locale. */
  disclosure: z.string().min(1).max(40).nullable().default(null),
  destination_url: z.url({ protocol: /^https$/ }).max(2048),
  targeting: z.strictObject({
    category_ids: z.array(CatalogId).max(50).default([]),
    entity_ids: z.array(CatalogId).max(50).default([]),
    /** Digest budget buckets it fits; empty means any. */
    budget_buckets: z.array(z.enum(['unknown', 'low', 'mid', 'high'])).max(4).default([]),
  }),
});

export const AffiliateNetwork = z.strictObject({
  id: CatalogId,
  name: z.string().min(1).max(120),
  /** Which adapter builds its deep links (src/affiliate/networks/): `tripnet`, `staylink`, or
   *  `template` for a network described entirely by `link_template`. */
  adapter: z.string().regex(/^[a-z0-9-]{1,40}$/),
  /** The partner id the network pays out to. */
  partner_marker: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1 to 64 letters, digits, _ . -'),
  /** For the `template` adapter: an https URL with {marker}, {sub_id} and {destination} placeholders. */
  link_template: z.string().max(2048).nullable().default(null),
  /** Destinations its deep links may wrap. */
  destinations: z.array(DestinationPrefix).min(1).max(100),
});

export const Catalog = z.strictObject({
  $schema: z.string().optional(),
  version: z.literal(1),
  taxonomy: Taxonomy,
  advertisers: z.array(Advertiser).default([]),
  campaigns: z.array(Campaign).default([]),
  offers: z.array(Offer).default([]),
  affiliate_networks: z.array(AffiliateNetwork).default([]),
});

export type Catalog = z.infer<typeof Catalog>;
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
