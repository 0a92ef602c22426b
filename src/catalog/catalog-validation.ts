// Import-time checks that a schema alone cannot express: every reference resolves, ids are
// unique, the hierarchy has no cycle, and every destination sits on its allowlist.
// Each problem names the field by its path, e.g. `offers[3].campaign_id`.
import { Catalog, type Catalog as CatalogT } from './catalog-schema.js';
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

function capped(problems: string[]): string[] {
  if (problems.length <= MAX_LISTED_PROBLEMS) return problems;
  return [...problems.slice(0, MAX_LISTED_PROBLEMS), `… and ${problems.length - MAX_LISTED_PROBLEMS} more problems not listed`];
}

export function validateCatalog(input: unknown): CatalogT {
  const parsed = Catalog.safeParse(input);
  if (!parsed.success) {
    throw new CatalogValidationError(capped(parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`)));
  }
  const c = parsed.data;
  const problems: string[] = [];
  const ids = (section: string, list: { id: string }[]) => {
    const seen = new Map<string, number>();
    list.forEach((x, i) => {
      if (seen.has(x.id)) problems.push(`${section}[${i}].id: duplicate id "${x.id}" (first at ${section}[${seen.get(x.id)}])`);
      else seen.set(x.id, i);
    });
    return seen;
  };
  const categories = ids('taxonomy.categories', c.taxonomy.categories);
  const entities = ids('taxonomy.entities', c.taxonomy.entities);
  ids('taxonomy.sensitive_topics', c.taxonomy.sensitive_topics);
  const advertisers = ids('advertisers', c.advertisers);
  const campaigns = ids('campaigns', c.campaigns);
  ids('offers', c.offers);
  const networks = ids('affiliate_networks', c.affiliate_networks);
  for (const id of categories.keys()) {
    if (entities.has(id)) problems.push(`taxonomy.entities[${entities.get(id)}].id: "${id}" is also a category id`);
  }

  c.taxonomy.categories.forEach((cat, i) => {
    if (cat.parent_id !== null && !categories.has(cat.parent_id)) {
      problems.push(`taxonomy.categories[${i}].parent_id: unknown category "${cat.parent_id}"`);
    }
  });
  // A parent chain longer than the number of categories is a cycle.
  const parentOf = new Map(c.taxonomy.categories.map((x) => [x.id, x.parent_id]));
  c.taxonomy.categories.forEach((cat, i) => {
    let cur: string | null | undefined = cat.parent_id;
    for (let steps = 0; cur; steps++) {
      if (cur === cat.id || steps > parentOf.size) {
        problems.push(`taxonomy.categories[${i}].parent_id: cycle in the category hierarchy through "${cat.id}"`);
        break;
      }
      cur = parentOf.get(cur);
    }
  });
  c.taxonomy.entities.forEach((e, i) =>
    e.category_ids.forEach((id, j) => {
      if (!categories.has(id)) problems.push(`taxonomy.entities[${i}].category_ids[${j}]: unknown category "${id}"`);
    }),
  );
  c.affiliate_networks.forEach((n, i) => {
    const adapter = NETWORK_ADAPTERS.get(n.adapter);
    if (!adapter) {
      problems.push(`affiliate_networks[${i}].adapter: unknown adapter "${n.adapter}" (known: ${[...NETWORK_ADAPTERS.keys()].join(', ')})`);
    } else {
      for (const p of adapter.validate(n)) problems.push(`affiliate_networks[${i}].${p}`);
    }
  });
  c.advertisers.forEach((a, i) => {
    if (a.entity_id !== null && !entities.has(a.entity_id)) {
      problems.push(`advertisers[${i}].entity_id: unknown entity "${a.entity_id}"`);
    }
  });
  c.campaigns.forEach((cmp, i) => {
    if (!advertisers.has(cmp.advertiser_id)) problems.push(`campaigns[${i}].advertiser_id: unknown advertiser "${cmp.advertiser_id}"`);
    if (cmp.starts_at && cmp.ends_at && Date.parse(cmp.starts_at) >= Date.parse(cmp.ends_at)) {
      problems.push(`campaigns[${i}].ends_at: must be after starts_at`);
    }
    if (cmp.budget.daily_micros > cmp.budget.total_micros) {
      problems.push(`campaigns[${i}].budget.daily_micros: must not exceed total_micros`);
    }
  });
  c.offers.forEach((o, i) => {
    const at = `offers[${i}]`;
    const cmpIndex = campaigns.get(o.campaign_id);
    if (cmpIndex === undefined) problems.push(`${at}.campaign_id: unknown campaign "${o.campaign_id}"`);
    o.targeting.category_ids.forEach((id, j) => {
      if (!categories.has(id)) problems.push(`${at}.targeting.category_ids[${j}]: unknown category "${id}"`);
    });
    o.targeting.entity_ids.forEach((id, j) => {
      if (!entities.has(id)) problems.push(`${at}.targeting.entity_ids[${j}]: unknown entity "${id}"`);
    });
    if (o.targeting.category_ids.length + o.targeting.entity_ids.length === 0) {
      problems.push(`${at}.targeting: an offer must target at least one category or entity`);
    }
    if (o.kind === 'affiliate') {
      const n = o.network_id === null ? undefined : networks.get(o.network_id);
      if (o.network_id === null) problems.push(`${at}.network_id: required for an affiliate offer`);
      else if (n === undefined) problems.push(`${at}.network_id: unknown affiliate network "${o.network_id}"`);
      else if (!isUnderPrefix(o.destination_url, c.affiliate_networks[n].destinations)) {
        problems.push(`${at}.destination_url: not on the allowlist of network "${o.network_id}"`);
      }
    } else if (o.network_id !== null) {
      problems.push(`${at}.network_id: only affiliate offers have a network`);
    }
    if (cmpIndex !== undefined && o.kind === 'sponsored') {
      const adv = advertisers.get(c.campaigns[cmpIndex].advertiser_id);
      if (adv !== undefined && !isUnderPrefix(o.destination_url, c.advertisers[adv].destinations)) {
        problems.push(`${at}.destination_url: not on the allowlist of advertiser "${c.advertisers[adv].id}"`);
      }
    }
  });
  if (problems.length > 0) throw new CatalogValidationError(capped(problems));
  return c;
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
}

