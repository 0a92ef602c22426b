// The core's language packs (crates/sidenote-core/packs/*.json) in the shape of a catalog's
// `taxonomy.intent_cues`, with a catalog's own cues added as the core adds them: for tests that
// check the cues against a catalog's words.
import { readFileSync } from 'node:fs';

type Cues = Record<string, { ko: string[]; en: string[] }>;

interface Pack {
  language: 'ko' | 'en';
  intent_cues: Record<string, { phrase: string }[]>;
}

const PACKS = ['ko', 'en'].map((l) => JSON.parse(readFileSync(new URL(`../crates/sidenote-core/packs/${l}.json`, import.meta.url), 'utf8')) as Pack);

export function intentCuesWith(catalogCues: Partial<Record<string, { ko?: string[]; en?: string[] }>> = {}): Cues {
  const out: Cues = {};
  const add = (kind: string, lang: 'ko' | 'en', phrase: string) => {
    out[kind] ??= { ko: [], en: [] };
    if (!out[kind][lang].includes(phrase)) out[kind][lang].push(phrase);
  };
  for (const pack of PACKS) for (const [kind, rows] of Object.entries(pack.intent_cues)) for (const r of rows) add(kind, pack.language, r.phrase);
  for (const [kind, cue] of Object.entries(catalogCues)) for (const lang of ['ko', 'en'] as const) for (const p of cue?.[lang] ?? []) add(kind, lang, p);
  return out;
}
