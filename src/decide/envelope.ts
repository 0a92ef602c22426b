// The context envelope and its strict validation. Strict everywhere: an unknown key at
// any level is INVALID_ENVELOPE, nothing is coerced, nothing silently dropped.
import { z } from 'zod';
import { chars, storedText } from '../http/text.js';

const maxChars = (max: number) => chars(0, max);

export const DIGEST_ID_PATTERN = /^[a-z0-9][a-z0-9._:-]{0,63}$/;
const DigestId = z.string().max(64).regex(DIGEST_ID_PATTERN, 'must be an allowlisted id (^[a-z0-9][a-z0-9._:-]{0,63}$)');
const DigestIds = z.array(DigestId).max(20);

export const IntentType = z.enum(['purchase', 'compare', 'browse', 'low', 'unknown']);
export const BudgetBucket = z.enum(['unknown', 'low', 'mid', 'high']);

export const Digest = z
  .strictObject({
    intent_type: IntentType.optional().describe('What the conversation is after; `low` or `unknown` with no allowlisted signal gives LOW_INTENT.'),
    category_ids: DigestIds.optional().describe('Allowlisted category identifiers only.'),
    entity_ids: DigestIds.optional().describe('Allowlisted entity identifiers only.'),
    excluded_entity_ids: DigestIds.optional().describe('Allowlisted exclusions; unknown ids are dropped.'),
    budget_bucket: BudgetBucket.optional().describe('Coarse budget; no currency or amounts.'),
    safety: z.enum(['clear', 'unknown', 'blocked']).optional().describe('`unknown` or `blocked` gives a safe no-fill.'),
    generated_at: z.iso
      .datetime({ offset: true })
      .max(40)
      .optional()
      .describe('ISO-8601 timestamp with offset. A digest older than 30 minutes (or over 5 minutes ahead) is ignored.'),
  })
  .describe('Typed summary of the conversation; contains no free text.');

export const Envelope = z
  .strictObject({
    message: maxChars(4000).optional().describe('Current user turn only. Not a transcript. Processed transiently, never stored.'),
    session: z
      .strictObject({
        token: maxChars(128).optional().describe('Ephemeral host session token used for frequency capping. Not a user id.'),
        digest: Digest.optional(),
      })
      .optional()
      .describe('Holds `token` and `digest`; no other keys.'),
    locale: storedText(2, 16).optional().describe('Serving is live only for locales beginning `ko` or `en`.'),
    country: storedText(2, 8).optional().describe('ISO-style country hint, not a precise location.'),
    audience: z
      .strictObject({
        age_band: z.enum(['under_13', '13_17', '18_plus', 'unknown']).optional().describe('Never inferred. Serving requires `18_plus`.'),
        contextual_offer_consent: z.boolean().optional().describe('Serving requires `true`; omitted or false gives a no-fill.'),
      })
      .optional()
      .describe('Holds `age_band` and `contextual_offer_consent`; no other keys.'),
    native_surface: z
      .strictObject({
        clickable: z.boolean().describe('Self-attestation that an existing separate clickable surface is available.'),
        disclosure_capable: z.boolean().describe('Self-attestation that disclosure and advertiser identity can be shown.'),
      })
      .describe('The existing surface the host would show an offer on; either flag false gives CAPABILITY_UNMET.'),
  })
  .describe('Context envelope.');

export type Envelope = z.infer<typeof Envelope>;

/** Keys rejected anywhere in the body, matched exactly. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set([
  'email',
  'phone',
  'tel',
  'user_id',
  'userid',
  'userId',
  'name',
  'full_name',
  'fullname',
  'lat',
  'lng',
  'latitude',
  'longitude',
  'address',
  'ip',
  'conversation',
  'conversation_history',
  'messages',
  'raw_message',
  'app_id',
  'placement',
  'display_style',
  'surface_id',
  'capabilities',
]);

/** Nesting deeper than this is refused; the envelope itself is four levels deep. */
export const MAX_BODY_DEPTH = 32;

export interface ForbiddenScan {
  /** JSON paths of forbidden keys, e.g. `$.session.digest.email`, `$.extra[2].phone`. */
  paths: string[];
  tooDeep: boolean;
}

// Path segments echo keys the client sent; anything that is not a plain identifier is shown as
// `*`, so a message smuggled in as a key name never comes back in an error body.
const SAFE_SEGMENT = /^[A-Za-z_][A-Za-z0-9_]{0,39}$/;

/** Finds forbidden keys at any depth, arrays included. Iterative with a depth cap, so a deeply
 *  nested body cannot overflow the stack. */
export function scanForbiddenKeys(body: unknown, maxPaths = 20): ForbiddenScan {
  const paths: string[] = [];
  let tooDeep = false;
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: body, path: '$', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_BODY_DEPTH) {
      tooDeep = true;
      continue;
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: `${path}[${i}]`, depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i];
      const childPath = `${path}.${SAFE_SEGMENT.test(key) ? key : '*'}`;
      if (FORBIDDEN_KEYS.has(key) && paths.length < maxPaths) paths.push(childPath);
      stack.push({ value: (value as Record<string, unknown>)[key], path: childPath, depth: depth + 1 });
    }
  }
  paths.sort();
  return { paths, tooDeep };
}

/** Where validation failed, as field paths and rule names — never the offending values. */
export function describeIssues(error: z.ZodError, max = 10): string[] {
  return error.issues.slice(0, max).map((i) => {
    const path = ['$', ...i.path.map((p) => (typeof p === 'number' ? `[${p}]` : SAFE_SEGMENT.test(String(p)) ? String(p) : '*'))]
      .join('.')
      .replace(/\.\[/g, '[');
    if (i.code === 'unrecognized_keys') {
      const keys = i.keys.map((k) => (SAFE_SEGMENT.test(k) ? k : '*'));
      return `${path}: unknown key(s) ${keys.join(', ')}`;
    }
    return `${path}: ${issueText(i)}`;
  });
}

function issueText(i: z.core.$ZodIssue): string {
  switch (i.code) {
    case 'invalid_type':
      return `expected ${i.expected}`;
    case 'too_big':
      return `too long or too many (max ${String(i.maximum)})`;
    case 'too_small':
      return `too short (min ${String(i.minimum)})`;
    case 'invalid_value':
      return 'not one of the allowed values';
    case 'invalid_format':
      return `invalid format (${i.format})`;
    default:
      // Custom refinements carry our own fixed messages, never input.
      return i.message;
  }
}
