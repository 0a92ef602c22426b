// docs/taxonomy.md: the demo catalog's categories and the sensitive-moment families (the core's
// pack and any the catalog adds) beside the IAB Content Taxonomy 3.1 nodes they correspond to, so
// a host can say in the industry's words what it lets beside its answers. Generated (`npm run
// docs:reference`) from the catalog and the pack themselves.
import type { CatalogInput } from '../catalog/catalog-schema.js';
import { PATTERN_FAMILY } from '../decide/gates.js';
import { IAB_CONTENT_3_1 } from './iab-content-taxonomy.js';
import { sensitiveTopicsWith } from './packs.js';

function iab(ids: readonly string[] | undefined): string {
  if (!ids || ids.length === 0) return '– (no node: see below)';
  return ids.map((id) => `\`${id}\` ${IAB_CONTENT_3_1[id] ?? ''}`.trim()).join('<br>');
}

export function renderTaxonomyMarkdown(catalog: CatalogInput): string {
  const taxonomy = catalog.taxonomy ?? {};
  const categories = (taxonomy.categories ?? []).map((c) => `| \`${c.id}\` | ${c.name.en} · ${c.name.ko} | ${iab(c.iab_content)} |`);
  const topics = sensitiveTopicsWith(taxonomy.sensitive_topics ?? []).map((t) => {
    const patterns = Object.entries(PATTERN_FAMILY)
      .filter(([, topic]) => topic === t.id)
      .map(([pattern]) => `\`${pattern}\``);
    return `| \`sensitive:${t.id}\` | ${patterns.length ? patterns.join(', ') : ''} | ${iab(t.iab_content)} |`;
  });
  return [
    '# Categories and sensitive moments in the IAB Content Taxonomy',
    '',
    "Generated from `catalog/demo.json` and the core's sensitive-topic pack, `crates/sidenote-core/packs/sensitive-topics.json` (`npm run docs:reference`). Each category and sensitive topic may name the [IAB Tech Lab Content Taxonomy 3.1](https://iabtechlab.com/standards/content-taxonomy/) nodes it corresponds to (`iab_content`, catalog/README.md), most specific first. A host can then state what it lets beside its answers in the industry's words: an offer's category is one of the first table's rows, and a `POLICY_BLOCK` names its family (`sensitive:<topic>` in the decision's explanation) from the second.",
    '',
    '## Categories (what an offer can be)',
    '',
    '| Category | Name | IAB Content Taxonomy 3.1 |',
    '|---|---|---|',
    ...categories,
    '',
    '## Sensitive moments (what blocks every offer)',
    '',
    "A turn that reads as one of these is answered `POLICY_BLOCK`, whatever it asks for. The patterns column names the core's pattern families that report as that topic (ages and school years, medicine names, adult venues).",
    '',
    '| Family in the explanation | Patterns | IAB Content Taxonomy 3.1 |',
    '|---|---|---|',
    ...topics,
    '',
    "`minors` has no node: it is about who the user is (their own age or school year), not about what the content is, so it matches no content category; every turn it fires on is refused. Where the taxonomy puts a topic under its Sensitive Topics node (`Rm3SiT`, `I4GWl6`, `XtODT3`), that id is given; others sit in the taxonomy's ordinary tiers (Medical Health, Personal Finance, Politics), which its own brand-safety guidance also treats as sensitive.",
    '',
  ].join('\n');
}
