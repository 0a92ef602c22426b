// The catalog's categories and sensitive topics name their IAB Content Taxonomy 3.1 nodes
// (`iab_content`), and docs/taxonomy.md publishes them with the taxonomy's own names.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Catalog, type CatalogInput } from '../../src/catalog/catalog-schema.js';
import { IAB_CONTENT_3_1 } from '../../src/reference/iab-content-taxonomy.js';
import { renderTaxonomyMarkdown } from '../../src/reference/taxonomy-reference.js';
import { sensitiveTopicsWith } from '../../src/reference/packs.js';

const demo = JSON.parse(readFileSync(path.resolve('catalog/demo.json'), 'utf8')) as CatalogInput;

describe('IAB Content Taxonomy mapping', () => {
  it('is rendered into docs/taxonomy.md', () => {
    expect(readFileSync(path.resolve('docs/taxonomy.md'), 'utf8')).toBe(renderTaxonomyMarkdown(demo));
  });

  it('maps every demo category and every sensitive topic but minors to a named 3.1 node', () => {
    const taxonomy = Catalog.parse(demo).taxonomy;
    const topics = sensitiveTopicsWith(taxonomy.sensitive_topics);
    const rows = [...taxonomy.categories, ...topics];
    const unmapped = rows.filter((r) => r.iab_content.length === 0).map((r) => r.id);
    expect(unmapped).toEqual(['minors']);
    const unnamed = rows.flatMap((r) => r.iab_content).filter((id) => !IAB_CONTENT_3_1[id]);
    expect(unnamed).toEqual([]);
    // The sensitive families that the taxonomy files under its Sensitive Topics node say so.
    const adult = topics.find((t) => t.id === 'adult')!;
    expect(IAB_CONTENT_3_1[adult.iab_content[0]!]).toMatch(/^Sensitive Topics > /);
  });

  it('refuses an id that is not a taxonomy id, naming the field', () => {
    const bad = structuredClone(demo);
    bad.taxonomy!.categories![0]!.iab_content = ['IAB20-3'];
    const parsed = Catalog.safeParse(bad);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path.join('.')).toBe('taxonomy.categories.0.iab_content.0');
  });
});
