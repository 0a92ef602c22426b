// The core's sensitive-topic pack (crates/sidenote-core/packs/sensitive-topics.json), read with
// the catalog's own schema, and a catalog's topics added as the core adds them (packs.rs): a
// topic of a pack id gains the catalog's words, any other joins after the pack's. What the
// reference docs print, and what tests compare a catalog's words with.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { SensitiveTopic } from '../catalog/catalog-schema.js';

export type PackTopic = z.output<typeof SensitiveTopic>;
type Words = { ko: string[]; en: string[] };

const PACK = new URL('../../crates/sidenote-core/packs/sensitive-topics.json', import.meta.url);
let pack: PackTopic[] | undefined;

/** The pack's topics, in its order. */
export function packSensitiveTopics(): PackTopic[] {
  // The pack's topics are a catalog's, and their words' examples (read by the core's tests).
  const raw = JSON.parse(readFileSync(PACK, 'utf8')) as { sensitive_topics: Array<Record<string, unknown>> };
  pack ??= raw.sensitive_topics.map(({ examples: _examples, ...topic }) => SensitiveTopic.parse(topic));
  return pack;
}

/** The pack's topics with a catalog's (as written in a catalog file) added. */
export function sensitiveTopicsWith(catalogTopics: readonly z.input<typeof SensitiveTopic>[] = []): PackTopic[] {
  const out = packSensitiveTopics().map((t) => structuredClone(t));
  for (const topic of catalogTopics.map((t) => SensitiveTopic.parse(t))) {
    const same = out.find((t) => t.id === topic.id);
    if (!same) {
      out.push(topic);
      continue;
    }
    const add = (into: Words, more: Words) => {
      for (const lang of ['ko', 'en'] as const) for (const w of more[lang]) if (!into[lang].includes(w)) into[lang].push(w);
    };
    add(same.aliases, topic.aliases);
    add(same.context_aliases, topic.context_aliases);
    add(same.negative_contexts, topic.negative_contexts);
  }
  return out;
}
