// The reason codes of a decide answer: what each means and whether asking again may
// fill. The answer schemas, the ReasonCode type and the reference (/v1/reference/reason-codes,
// docs/reason-codes.md) are derived from this table, so a new reason code is an entry here
// and the code that gives it.

interface ReasonCodeEntry {
  meaning: string;
  /** Whether the same request may fill later. */
  retry: boolean;
  /** How long to wait first, when there is a fixed answer; answers may carry a precise value. */
  retry_after_seconds: number | null;
}

export const REASON_CODES = {
  MATCHED: { meaning: 'An eligible offer was returned.', retry: false, retry_after_seconds: null },
  POLICY_BLOCK: {
    meaning: 'Audience (age band not 18_plus, consent not true), digest safety (unknown or blocked) or a sensitive topic in the message did not allow a serve.',
    retry: false,
    retry_after_seconds: null,
  },
  CAPABILITY_UNMET: { meaning: 'native_surface.clickable or native_surface.disclosure_capable was false.', retry: false, retry_after_seconds: null },
  LOCALE_NOT_LIVE: { meaning: "The locale's primary language is not ko or en, or no locale was sent.", retry: false, retry_after_seconds: null },
  LOW_INTENT: {
    meaning:
      'No evidence of commercial intent: no purchase or compare cue in the message and no fresh digest saying purchase or compare (or the digest says low), whatever topics the turn names.',
    retry: false,
    retry_after_seconds: null,
  },
  NO_ELIGIBLE_OFFER: { meaning: 'No live offer matches the signals, locale, country, budget bucket and exclusions.', retry: false, retry_after_seconds: null },
  FREQUENCY_CAPPED: {
    meaning: "This session token has seen the matching campaigns' offers as often as their caps allow.",
    retry: true,
    retry_after_seconds: null,
  },
  BUDGET_EXHAUSTED: {
    meaning: "The matching campaigns' daily or total budget is spent. retry_after_seconds is the time to the daily reset, or 3600 for a lifetime budget.",
    retry: true,
    retry_after_seconds: null,
  },
  TIMEOUT: { meaning: 'The handler time budget was exceeded or a dependency failed; the answer fails open.', retry: true, retry_after_seconds: 2 },
} as const satisfies Record<string, ReasonCodeEntry>;

export type NoFillReason = keyof typeof REASON_CODES;

/** The two 400 errors of decide that also name themselves in `reason_codes`. */
const ERROR_REASON_CODES = ['INVALID_ENVELOPE', 'FORBIDDEN_IDENTITY_FIELD'] as const;

export type ReasonCode = NoFillReason | (typeof ERROR_REASON_CODES)[number];

export const REASON_CODE_NAMES: [ReasonCode, ...ReasonCode[]] = [...ERROR_REASON_CODES, ...(Object.keys(REASON_CODES) as NoFillReason[])];
