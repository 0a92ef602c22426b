// What of an envelope's `locale` and `country` a decision record keeps: the canonical form of a
// real language tag and of a real region code, or nothing. The envelope accepts any text of the
// lengths SPEC gives (a host's "ko_KR" or "EN" still decides as before), but free text in these
// fields would otherwise land verbatim in the database (a canary sent as `locale` was found
// there), so only what the platform's Unicode data (Intl, ICU) recognises is stored, written as
// BCP 47 and ISO 3166 write it: "ko_kr" is kept as "ko-KR", "kr" as "KR", anything else as null.
import { boundedMemo } from '../util/bounded-memo.js';

const languages = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });
const regions = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
const scripts = new Intl.DisplayNames(['en'], { type: 'script', fallback: 'none' });

/** The canonical BCP 47 language, script and region of `locale` when it is a tag with a known
 *  language (and, if it has one, a known region), else null. Variants, unknown scripts, extensions
 *  and private-use parts are dropped: they can spell anything ("ko-KR-x-anything"). */
export function canonicalLocale(locale: string | undefined): string | null {
  return locale ? canonicalLocaleOf(locale) : null;
}

// Hosts send a handful of tags, and ICU takes ~8 µs to read one: each is read once.
const canonicalLocaleOf = boundedMemo(1024, readLocale);

function readLocale(locale: string): string | null {
  try {
    const [tag] = Intl.getCanonicalLocales(locale.replaceAll('_', '-'));
    const { language, script, region } = new Intl.Locale(tag);
    if (languages.of(language) === undefined) return null;
    if (region !== undefined && regions.of(region) === undefined) return null;
    // ICU reads some made-up variants as a script ("ko-qedd5e" → "ko-Qedd"): a script is kept
    // only when it is a known one, else dropped like a variant.
    const knownScript = script !== undefined && scripts.of(script) !== undefined ? script : undefined;
    return [language, knownScript, region].filter(Boolean).join('-');
  } catch {
    return null;
  }
}

// At most 26 × 26 codes: each is asked of ICU once.
const knownRegion = boundedMemo(26 * 26, (code: string) => regions.of(code) !== undefined);

/** The ISO 3166-1 alpha-2 code of `country` (any case) when it names a known region, else null. */
export function canonicalCountry(country: string | undefined): string | null {
  if (!country || !/^[A-Za-z]{2}$/.test(country)) return null;
  const code = country.toUpperCase();
  return knownRegion(code) ? code : null;
}
