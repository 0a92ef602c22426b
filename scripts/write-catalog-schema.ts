// Writes catalog/catalog.schema.json from the zod `Catalog` schema, the single source of truth.
// Run with `npm run catalog:schema` (tsx) after any change to src/catalog/catalog-schema.ts;
// test/catalog/demo-catalog.test.ts fails when the committed file is out of date.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { Catalog } from '../src/catalog/catalog-schema.js';

export const CATALOG_SCHEMA_PATH = fileURLToPath(new URL('../catalog/catalog.schema.json', import.meta.url));

/** The JSON Schema of the catalog file as operators write it (zod input side: defaults optional). */
export function catalogJsonSchema(): Record<string, unknown> {
  // io: 'input' so fields with defaults are optional, as they are in the file an operator edits.
  const generated = z.toJSONSchema(Catalog, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return {
    $schema,
    title: 'Sidenote catalog',
    description:
      'The catalog file operators edit to describe what Sidenote may serve: taxonomy (categories, entities, ' +
      'sensitive topics, intent cues), advertisers, campaigns, offers and affiliate networks. Generated from ' +
      'src/catalog/catalog-schema.ts by scripts/write-catalog-schema.ts; do not edit by hand. Import also checks ' +
      'what a schema cannot: unique ids, resolvable references and destinations on their allowlists.',
    ...rest,
  };
}

export function catalogJsonSchemaText(): string {
  return `${JSON.stringify(catalogJsonSchema(), null, 2)}\n`;
}

async function main(): Promise<void> {
  await writeFile(CATALOG_SCHEMA_PATH, catalogJsonSchemaText(), 'utf8');
  console.log(`wrote ${CATALOG_SCHEMA_PATH}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
