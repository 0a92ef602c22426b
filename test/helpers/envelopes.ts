// The decide envelope as a host sends it for a consenting adult on a clickable, labelled surface:
// one definition for every test, each adding only what it varies (a session, a digest, a locale).
const ADULT_ON_SURFACE = {
  audience: { age_band: '18_plus', contextual_offer_consent: true },
  native_surface: { clickable: true, disclosure_capable: true },
} as const;

/** A Korean turn (`ko-KR`, `KR`); `rest` adds or replaces any field. */
export function koreanTurn<R extends object = Record<never, never>>(message: string, rest?: R) {
  return { message, locale: 'ko-KR', country: 'KR', ...ADULT_ON_SURFACE, ...rest };
}

/** An English turn (`en-US`, `US`); `rest` adds or replaces any field. */
export function englishTurn<R extends object = Record<never, never>>(message: string, rest?: R) {
  return { message, locale: 'en-US', country: 'US', ...ADULT_ON_SURFACE, ...rest };
}

/** The envelope without a message, locale or country: for tests that set all three themselves. */
export function adultOnSurface<R extends object = Record<never, never>>(rest?: R) {
  return { ...ADULT_ON_SURFACE, ...rest };
}
