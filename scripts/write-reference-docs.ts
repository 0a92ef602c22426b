// Writes the generated reference docs: docs/reason-codes.md from src/reference/reason-codes.ts,
// and docs/taxonomy.md from the demo catalog's categories and sensitive topics.
import { readFileSync, writeFileSync } from 'node:fs';
import { renderReferenceMarkdown } from '../src/reference/reason-codes.js';
import { renderTaxonomyMarkdown } from '../src/reference/taxonomy-reference.js';

writeFileSync(new URL('../docs/reason-codes.md', import.meta.url), renderReferenceMarkdown());
const demo = JSON.parse(readFileSync(new URL('../catalog/demo.json', import.meta.url), 'utf8'));
writeFileSync(new URL('../docs/taxonomy.md', import.meta.url), renderTaxonomyMarkdown(demo));
