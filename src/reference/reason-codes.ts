// Every reason code and error string the service can answer with, what it means, and whether
// and when a host should try again. Served as JSON at /v1/reference/reason-codes and rendered
// into docs/reason-codes.md. The reason codes and the error strings both come from
// src/errors/: the decide answers and the error handler use the same tables.
import { ERRORS } from '../errors/error-registry.js';
import { REASON_CODES } from '../errors/reason-codes.js';

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

const NO_FILL_REASONS: ReferenceEntry[] = Object.entries(REASON_CODES).map(([code, r]) => ({
  code,
  kind: 'reason_code' as const,
  status: 200,
  endpoints: DECIDE,
  meaning: r.meaning,
  retry: r.retry,
  retry_after_seconds: r.retry_after_seconds,
}));

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
