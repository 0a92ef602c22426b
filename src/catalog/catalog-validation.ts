// Import-time checks of a catalog, in two stages: the schema of every part of the file, then what
// a schema alone cannot express: every reference resolves, ids are unique, the hierarchy has no
// cycle, and every destination sits on its allowlist. Each problem names the field by its path,
// e.g. `offers[3].campaign_id`.
//
// The checks take the offers one at a time (CatalogChecker), so a file of a million offers is
// checked without holding it whole: the streaming import (catalog-import-worker.ts) feeds them as
// it reads them, and validateCatalog feeds an in-memory document through the same checker.
import type { z } from 'zod';
import { CATALOG_SECTIONS, CatalogHead as CatalogHeadSchema, CatalogOffer, type Catalog as CatalogT, type CatalogHead, type Offer } from './catalog-schema.js';
import { isUnderPrefix } from './destinations.js';
import { NETWORK_ADAPTERS } from '../affiliate/networks/index.js';
import { Refusal } from '../errors/error-registry.js';

/** Answered 400 invalid_catalog, with every problem listed (each names a path, never a value). */
export class CatalogValidationError extends Refusal {
  constructor(readonly problems: string[]) {
    super('invalid_catalog', { problems }, `invalid catalog:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/** Problems listed in one answer. The schema stage collects every issue of the file (zod does
 *  not stop at the first), and the reference stage every problem it finds; a file with more
 *  than this is listed up to it, with a count of the rest, so the answer stays readable. */
export const MAX_LISTED_PROBLEMS = 200;

/** Problems as found: the first MAX_LISTED_PROBLEMS kept, the rest only counted, so a file with
 *  a problem in each of a million offers costs no memory for them. */
class Problems {
  readonly listed: string[] = [];
  count = 0;
  add(problem: string) {
    if (this.listed.length < MAX_LISTED_PROBLEMS) this.listed.push(problem);
    this.count++;
  }
  /** The answer: the listed problems, and how many more there were. */
  answer(): string[] {
    if (this.count <= MAX_LISTED_PROBLEMS) return this.listed;
    return [...this.listed, `… and ${this.count - MAX_LISTED_PROBLEMS} more problems not listed`];
  }
}

/** Checks one catalog, its offers fed one at a time in file order. Stage 1: `offerSchema` for
 *  each offer, then `headSchema` for the rest of the file (throws the schema problems of the
 *  whole file). Stage 2: `references(head)`, then its `check` for each offer in the same order,
 *  then its `finish` (throws the reference problems). Nothing is kept per offer but its id. */
export class CatalogChecker {
  private readonly offerIssues = new Problems();
  /** Offer id → index of its first appearance (duplicates are a reference-stage problem). */
  private readonly offerIds = new Map<string, number>();
  private readonly duplicateOffers: string[] = [];
  private duplicateOfferCount = 0;
  /** Offers fed to `offerSchema` so far. */
  offers = 0;

  /** Stage 1, one offer: its schema. Returns it with its defaults filled in, or null. */
  offerSchema(raw: unknown): Offer | null {
    const index = this.offers++;
    const parsed = CatalogOffer.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) this.offerIssues.add(`${formatPath(['offers', index, ...issue.path])}: ${issue.message}`);
      return null;
    }
    const first = this.offerIds.get(parsed.data.id);
    if (first === undefined) this.offerIds.set(parsed.data.id, index);
    else if (this.duplicateOfferCount++ < MAX_LISTED_PROBLEMS) {
      this.duplicateOffers.push(`offers[${index}].id: duplicate id "${parsed.data.id}" (first at offers[${first}])`);
    }
    return parsed.data;
  }

  /** Stage 1, the rest of the document (its `offers` an empty array, or whatever stood there if
   *  it was not an array). Throws every schema problem of the file, in document order. */
  headSchema(raw: unknown): CatalogHead {
    const parsed = CatalogHeadSchema.safeParse(raw);
    const headIssues = parsed.success ? [] : parsed.error.issues;
    if (headIssues.length === 0 && this.offerIssues.count === 0) {
      const { offers: _offers, ...head } = parsed.data as z.infer<typeof CatalogHeadSchema>;
      return head;
    }
    // zod lists issues in field order and the root's own (unknown keys) last; the offers' issues
    // go where the `offers` field stands.
    const rank = (path: readonly PropertyKey[]) => (path.length === 0 ? CATALOG_SECTIONS.length : CATALOG_SECTIONS.indexOf(String(path[0])));
    const offersRank = CATALOG_SECTIONS.indexOf('offers');
    const ranked = headIssues.map((i) => ({ rank: rank(i.path), text: `${formatPath(i.path)}: ${i.message}` }));
    const problems = new Problems();
    for (const p of ranked.filter((x) => x.rank <= offersRank)) problems.add(p.text);
    for (const p of this.offerIssues.listed) problems.add(p);
    problems.count += this.offerIssues.count - this.offerIssues.listed.length;
    for (const p of ranked.filter((x) => x.rank > offersRank)) problems.add(p.text);
    throw new CatalogValidationError(problems.answer());
  }

  /** Stage 2: the head's own references now, and each offer's through `check`. */
  references(c: CatalogHead): OfferReferences {
    const problems = new Problems();
    const ids = (section: string, list: { id: string }[]) => {
      const seen = new Map<string, number>();
      list.forEach((x, i) => {
        if (seen.has(x.id)) problems.add(`${section}[${i}].id: duplicate id "${x.id}" (first at ${section}[${seen.get(x.id)}])`);
        else seen.set(x.id, i);
      });
      return seen;
    };
    const categories = ids('taxonomy.categories', c.taxonomy.categories);
    const entities = ids('taxonomy.entities', c.taxonomy.entities);
    ids('taxonomy.sensitive_topics', c.taxonomy.sensitive_topics);
    const advertisers = ids('advertisers', c.advertisers);
    const campaigns = ids('campaigns', c.campaigns);
    for (const p of this.duplicateOffers) problems.add(p);
    problems.count += this.duplicateOfferCount - this.duplicateOffers.length;
    const networks = ids('affiliate_networks', c.affiliate_networks);
    for (const id of categories.keys()) {
      if (entities.has(id)) problems.add(`taxonomy.entities[${entities.get(id)}].id: "${id}" is also a category id`);
    }

    c.taxonomy.categories.forEach((cat, i) => {
      if (cat.parent_id !== null && !categories.has(cat.parent_id)) {
        problems.add(`taxonomy.categories[${i}].parent_id: unknown category "${cat.parent_id}"`);
      }
    });
    // A parent chain longer than the number of categories is a cycle.
    const parentOf = new Map(c.taxonomy.categories.map((x) => [x.id, x.parent_id]));
    c.taxonomy.categories.forEach((cat, i) => {
      let cur: string | null | undefined = cat.parent_id;
      for (let steps = 0; cur; steps++) {
        if (cur === cat.id || steps > parentOf.size) {
          problems.add(`taxonomy.categories[${i}].parent_id: cycle in the category hierarchy through "${cat.id}"`);
          break;
        }
        cur = parentOf.get(cur);
      }
    });
    c.taxonomy.entities.forEach((e, i) =>
      e.category_ids.forEach((id, j) => {
        if (!categories.has(id)) problems.add(`taxonomy.entities[${i}].category_ids[${j}]: unknown category "${id}"`);
      }),
    );
    const kindOf = new Map(c.taxonomy.entities.map((e) => [e.id, e.kind]));
    c.taxonomy.entities.forEach((e, i) =>
      e.within.forEach((id, j) => {
        const kind = kindOf.get(id);
        if (kind === undefined) problems.add(`taxonomy.entities[${i}].within[${j}]: unknown entity "${id}"`);
        // A place a product belongs to is the one other kind it may lie within (the Japan Rail
        // Pass is Japan's): its weak words then need a turn about that place.
        else if (kind !== e.kind && !(e.kind === 'product' && kind === 'place'))
          problems.add(`taxonomy.entities[${i}].within[${j}]: "${id}" is a ${kind}, not a ${e.kind}`);
        else if (id === e.id) problems.add(`taxonomy.entities[${i}].within[${j}]: an entity does not lie within itself`);
      }),
    );
    c.affiliate_networks.forEach((n, i) => {
      const adapter = NETWORK_ADAPTERS.get(n.adapter);
      if (!adapter) {
        problems.add(`affiliate_networks[${i}].adapter: unknown adapter "${n.adapter}" (known: ${[...NETWORK_ADAPTERS.keys()].join(', ')})`);
      } else {
        for (const p of adapter.validate(n)) problems.add(`affiliate_networks[${i}].${p}`);
      }
    });
    c.advertisers.forEach((a, i) => {
      if (a.entity_id !== null && !entities.has(a.entity_id)) {
        problems.add(`advertisers[${i}].entity_id: unknown entity "${a.entity_id}"`);
      }
    });
    c.campaigns.forEach((cmp, i) => {
      if (!advertisers.has(cmp.advertiser_id)) problems.add(`campaigns[${i}].advertiser_id: unknown advertiser "${cmp.advertiser_id}"`);
      if (cmp.starts_at && cmp.ends_at && Date.parse(cmp.starts_at) >= Date.parse(cmp.ends_at)) {
        problems.add(`campaigns[${i}].ends_at: must be after starts_at`);
      }
      if (cmp.budget.daily_micros > cmp.budget.total_micros) {
        problems.add(`campaigns[${i}].budget.daily_micros: must not exceed total_micros`);
      }
    });

    return {
      check(o: Offer, index: number) {
        const at = `offers[${index}]`;
        const cmpIndex = campaigns.get(o.campaign_id);
        if (cmpIndex === undefined) problems.add(`${at}.campaign_id: unknown campaign "${o.campaign_id}"`);
        o.targeting.category_ids.forEach((id, j) => {
          if (!categories.has(id)) problems.add(`${at}.targeting.category_ids[${j}]: unknown category "${id}"`);
        });
        o.targeting.entity_ids.forEach((id, j) => {
          if (!entities.has(id)) problems.add(`${at}.targeting.entity_ids[${j}]: unknown entity "${id}"`);
        });
        if (o.targeting.category_ids.length + o.targeting.entity_ids.length === 0) {
          problems.add(`${at}.targeting: an offer must target at least one category or entity`);
        }
        if (o.kind === 'affiliate') {
          const n = o.network_id === null ? undefined : networks.get(o.network_id);
          if (o.network_id === null) problems.add(`${at}.network_id: required for an affiliate offer`);
          else if (n === undefined) problems.add(`${at}.network_id: unknown affiliate network "${o.network_id}"`);
          else if (!isUnderPrefix(o.destination_url, c.affiliate_networks[n].destinations)) {
            problems.add(`${at}.destination_url: not on the allowlist of network "${o.network_id}"`);
          }
        } else if (o.network_id !== null) {
          problems.add(`${at}.network_id: only affiliate offers have a network`);
        }
        if (cmpIndex !== undefined && o.kind === 'sponsored') {
          const adv = advertisers.get(c.campaigns[cmpIndex].advertiser_id);
          if (adv !== undefined && !isUnderPrefix(o.destination_url, c.advertisers[adv].destinations)) {
            problems.add(`${at}.destination_url: not on the allowlist of advertiser "${c.advertisers[adv].id}"`);
          }
        }
      },
      finish() {
        if (problems.count > 0) throw new CatalogValidationError(problems.answer());
      },
    };
  }
}

/** The reference stage for the offers, fed in the order of stage 1. */
export interface OfferReferences {
  check(offer: Offer, index: number): void;
  /** Throws every reference problem found (the head's and the offers'). */
  finish(): void;
}

/** A whole document in memory, checked through the same stages as a streamed file. Returns the
 *  catalog with every default filled in. */
export function validateCatalog(input: unknown): CatalogT {
  const checker = new CatalogChecker();
  const { head, offers } = splitOffers(input);
  const checked = offers.map((o) => checker.offerSchema(o));
  const parsedHead = checker.headSchema(head);
  const references = checker.references(parsedHead);
  const valid = checked as Offer[]; // every one passed: headSchema throws otherwise
  valid.forEach((o, i) => references.check(o, i));
  references.finish();
  return { ...parsedHead, offers: valid };
}

/** A document's offers apart from the rest, which keeps an empty `offers` (or the non-array that
 *  stood there, for the schema to refuse). */
function splitOffers(input: unknown): { head: unknown; offers: unknown[] } {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return { head: input, offers: [] };
  const offers = (input as { offers?: unknown }).offers;
  if (!Array.isArray(offers)) return { head: input, offers: [] };
  return { head: { ...input, offers: [] }, offers };
}

export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}
