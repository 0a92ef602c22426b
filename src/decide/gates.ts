// The gates that run before any offer is considered, in DESIGN.md's order. Every failing
// gate's code is listed, so a host can see all that stood in the way at once.
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

export function evaluateGates(envelope: Envelope, digest: ReturnType<typeof effectiveDigest>, sensitiveTopicHit: boolean): GateCode[] {
  const codes: GateCode[] = [];
  const surface = envelope.native_surface;
  if (!surface.clickable || !surface.disclosure_capable) codes.push('CAPABILITY_UNMET');
  const audience = envelope.audience;
  const policyBlocked =
    audience?.age_band !== '18_plus' ||
    audience.contextual_offer_consent !== true ||
    digest?.safety === 'unknown' ||
    digest?.safety === 'blocked' ||
    sensitiveTopicHit;
  if (policyBlocked) codes.push('POLICY_BLOCK');
  if (!liveLanguage(envelope.locale)) codes.push('LOCALE_NOT_LIVE');
  return codes;
}
