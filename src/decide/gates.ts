// The gates that run before any offer is considered, in this order: capability, policy, locale.
// Every failing gate's code is listed, so a host can see all that stood in the way at once.
import type { Envelope } from './envelope.js';

export type GateCode = 'CAPABILITY_UNMET' | 'POLICY_BLOCK' | 'LOCALE_NOT_LIVE';

export const LIVE_LANGUAGES = ['ko', 'en'] as const;
export type LiveLanguage = (typeof LIVE_LANGUAGES)[number];

const DIGEST_MAX_AGE_MS = 30 * 60_000;
const DIGEST_MAX_SKEW_MS = 5 * 60_000;

/** Primary language subtag, lower-cased: `ko-KR` → `ko`, `EN_us` → `en`. */
export function primaryLanguage(locale: string | undefined): string | null {
  if (!locale) return null;
  return locale.split(/[-_]/)[0].toLowerCase();
}

export function liveLanguage(locale: string | undefined): LiveLanguage | null {
  const lang = primaryLanguage(locale);
  return (LIVE_LANGUAGES as readonly string[]).includes(lang ?? '') ? (lang as LiveLanguage) : null;
}

/** The digest as it counts: absent when stale (older than 30 min) or from the future (over 5 min). */
export function effectiveDigest(envelope: Envelope, nowMs: number) {
  const digest = envelope.session?.digest;
  if (!digest?.generated_at) return digest;
  const age = nowMs - Date.parse(digest.generated_at);
  return age > DIGEST_MAX_AGE_MS || age < -DIGEST_MAX_SKEW_MS ? undefined : digest;
}

/** What a POLICY_BLOCK stood on, as the decision record keeps it and the explanation names it:
 *  the envelope's audience (`audience`: not 18_plus; `consent`: no contextual-offer consent),
 *  the host's own digest (`host_safety`: safety unknown or blocked), or a sensitive moment the
 *  core read in the message, by family (`sensitive:<family>`; `sensitive` alone when only the
 *  learned classifier read it, which names no family). Never the words that fired. */
export type PolicyReason = 'audience' | 'consent' | 'host_safety' | 'sensitive' | `sensitive:${string}`;

/** The families of the core's policy patterns (policy_patterns.rs), in the catalog's words. */
export const PATTERN_FAMILY: Record<string, string> = { minor_age: 'minors', medicine_name: 'medication', adult_venue: 'adult' };

/** What the core read in the message that counts for policy. */
export interface SensitiveReading {
  sensitiveTopicIds: readonly string[];
  sensitivePatterns: readonly string[];
  modelSensitive: boolean;
}

export const NOTHING_SENSITIVE: SensitiveReading = { sensitiveTopicIds: [], sensitivePatterns: [], modelSensitive: false };

/** Every reason POLICY_BLOCK has for this turn, in a fixed order (none: no POLICY_BLOCK). */
export function policyReasons(envelope: Envelope, digest: ReturnType<typeof effectiveDigest>, read: SensitiveReading): PolicyReason[] {
  const reasons: PolicyReason[] = [];
  const audience = envelope.audience;
  if (audience?.age_band !== '18_plus') reasons.push('audience');
  if (audience?.contextual_offer_consent !== true) reasons.push('consent');
  if (digest?.safety === 'unknown' || digest?.safety === 'blocked') reasons.push('host_safety');
  const families = new Set([...read.sensitiveTopicIds, ...read.sensitivePatterns.map((p) => PATTERN_FAMILY[p] ?? p)]);
  for (const family of families) reasons.push(`sensitive:${family}`);
  if (families.size === 0 && read.modelSensitive) reasons.push('sensitive');
  return reasons;
}

export function evaluateGates(envelope: Envelope, policy: readonly PolicyReason[]): GateCode[] {
  const codes: GateCode[] = [];
  const surface = envelope.native_surface;
  if (!surface.clickable || !surface.disclosure_capable) codes.push('CAPABILITY_UNMET');
  if (policy.length > 0) codes.push('POLICY_BLOCK');
  if (!liveLanguage(envelope.locale)) codes.push('LOCALE_NOT_LIVE');
  return codes;
}
