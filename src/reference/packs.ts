// The core's packs (crates/sidenote-core/packs/*.json) as a catalog's shapes, with a catalog's own
// words added as the core adds them (packs.rs): the wording cues as `taxonomy.intent_cues`, the
// sensitive topics (read with the catalog's own schema) as `taxonomy.sensitive_topics`, a topic of
// a pack id gaining the catalog's words and any other joining after the pack's. What the reference
// docs print, and what tests compare a catalog's words with.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { SensitiveTopic } from '../catalog/catalog-schema.js';

export type PackTopic = z.output<typeof SensitiveTopic>;
type Words = { ko: string[]; en: string[] };
type Cues = Record<string, Words>;

const packFile = (name: string) => JSON.parse(readFileSync(new URL(`../../crates/sidenote-core/packs/${name}.json`, import.meta.url), 'utf8'));

/** Adds to `into` the words of `more` it does not hold yet, in order. */
function addMissing(into: Words, more: Partial<Words>): void {
  for (const lang of ['ko', 'en'] as const) for (const w of more[lang] ?? []) if (!into[lang].includes(w)) into[lang].push(w);
}

type CuePack = { language: 'ko' | 'en'; intent_cues: Record<string, { phrase: string }[]> };
let cuePacks: CuePack[] | undefined;

/** The language packs' cues by kind, with a catalog's added. */
export function intentCuesWith(catalogCues: Partial<Record<string, Partial<Words>>> = {}): Cues {
  cuePacks ??= ['ko', 'en'].map((language) => packFile(language) as CuePack);
  const out: Cues = {};
  const kind = (k: string) => (out[k] ??= { ko: [], en: [] });
  for (const pack of cuePacks) for (const [k, rows] of Object.entries(pack.intent_cues)) addMissing(kind(k), { [pack.language]: rows.map((r) => r.phrase) });
  for (const [k, more] of Object.entries(catalogCues)) addMissing(kind(k), more ?? {});
  return out;
}

let topics: PackTopic[] | undefined;

/** The sensitive-topic pack's topics, in its order (their words' examples are the core tests';
 *  `said_of_pets`, `mentioned_in_quotes` and `asked_aliases` are the pack's alone: a catalog's topics cannot set them). */
export function packSensitiveTopics(): PackTopic[] {
  topics ??= (packFile('sensitive-topics') as { sensitive_topics: Array<Record<string, unknown>> }).sensitive_topics.map(
    ({ examples: _examples, said_of_pets: _saidOfPets, mentioned_in_quotes: _mentionedInQuotes, asked_aliases: _askedAliases, ...topic }) =>
      SensitiveTopic.parse(topic),
  );
  return topics;
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
    addMissing(same.aliases, topic.aliases);
    addMissing(same.context_aliases, topic.context_aliases);
    addMissing(same.negative_contexts, topic.negative_contexts);
  }
  return out;
}
