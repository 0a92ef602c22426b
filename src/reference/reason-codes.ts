// Every reason code and error string the service can answer with, what it means, and whether
// and when a host should try again. Served as JSON at /v1/reference/reason-codes and rendered
// into docs/reason-codes.md. The no-fill reason codes (SPEC 7.2) are listed here; the error
// strings come from the error registry (src/errors/), which the error handler answers from.
import { ERRORS } from '../errors/error-registry.js';

export interface ReferenceEntry {
  code: string;
  kind: 'reason_code' | 'error';
  /** HTTP status it comes with. */
  status: number;
  endpoints: string[];
  meaning: string;
  /** Whether the same request may succeed later. */
  retry: boolean;
  /** How long to wait first, when there is a fixed answer; responses may carry a precise value. */
  retry_after_seconds: number | null;
}

const DECIDE = ['POST /v1/offers/decide', 'POST /v1/offers/affiliate'];

const NO_FILL_REASONS: ReferenceEntry[] = [
  { code: 'MATCHED', kind: 'reason_code', status: 200, endpoints: DECIDE, meaning: 'An eligible offer was returned.', retry: false, retry_after_seconds: null },
  { code: 'POLICY_BLOCK', kind: 'reason_code', status: 200, endpoints: DECIDE, meaning: 'Audience (age band not 18_plus, consent not true), digest safety (unknown or blocked) or a sensitive topic in the message did not allow a serve.', retry: false, retry_after_seconds: null },
  { code: 'CAPABILITY_UNMET', kind: 'reason_code', status: 200, endpoints: DECIDE, meaning: 'native_surface.clickable or native_surface.disclosure_capable was false.', retry: false, retry_after_seconds: null },
  { code: 'LOCALE_NOT_LIVE', kind: 'reason_code', status: 200, endpoints: DECIDE, meaning: "The locale's primary language is not ko or en, or no locale was sent.", retry: false, retry_after_seconds: null },
  { code: 'LOW_INTENT', kind: 'reason_code', status: 200, endpoints: DECIDE, meaning: 'No evidence of commercial intent: no purchase or compare cue in the message and no fresh digest saying purchase or compare (or the digest says low), whatever topics the turn names.', retry: false, retry_after_seconds: null },
  { code: 'NO_ELIGIBLE_OFFER', kind: 'reason_code', status: 200, endpoints: DECIDE, meaning: 'No live offer matches the signals, locale, country, budget bucket and exclusions.', retry: false, retry_after_seconds: null },
  { code: 'FREQUENCY_CAPPED', kind: 'reason_code', status: 200, endpoints: DECIDE, meaning: "This session token has seen the matching campaigns' offers as often as their caps allow.", retry: true, retry_after_seconds: null },
  { code: 'BUDGET_EXHAUSTED', kind: 'reason_code', status: 200, endpoints: DECIDE, meaning: "The matching campaigns' daily or total budget is spent. retry_after_seconds is the time to the daily reset, or 3600 for a lifetime budget.", retry: true, retry_after_seconds: null },
  { code: 'TIMEOUT', kind: 'reason_code', status: 200, endpoints: DECIDE, meaning: 'The handler time budget was exceeded or a dependency failed; the answer fails open.', retry: true, retry_after_seconds: 2 },
];

export const REFERENCE: ReferenceEntry[] = [
  ...NO_FILL_REASONS,
  ...Object.entries(ERRORS).map(([code, e]) => ({
    code,
    kind: 'error' as const,
    status: e.status,
    endpoints: [...e.endpoints],
    meaning: e.meaning,
    retry: e.retry,
    retry_after_seconds: e.retry_after_seconds,
  })),
];

export function renderReferenceMarkdown(): string {
  const rows = REFERENCE.map(
    (e) =>
      `| \`${e.code}\` | ${e.kind === 'reason_code' ? 'reason code' : 'error'} | ${e.status} | ${e.meaning.replaceAll('|', '\\|')} | ${e.retry ? `yes${e.retry_after_seconds ? `, after ${e.retry_after_seconds} s` : ', after `retry_after_seconds`'}` : 'no'} | ${e.endpoints.join('<br>')} |`,
  );
  return [
    '# Reason codes and errors',
    '',
    'Generated from `src/reference/reason-codes.ts` (`npm run docs:reference`); also served as JSON at `GET /v1/reference/reason-codes`.',
    'A no-fill is a normal 200 answer: show nothing. Retry guidance is for the same request; a new user turn is always a new request.',
    '',
    '| Code | Kind | HTTP | Meaning | Retry | Endpoints |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
