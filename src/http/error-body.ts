// The error body every error answer has: a schema on its own, with nothing of the
// server in its imports, so the typed client (clients/typescript) can validate with it too.
import { z } from 'zod';

export const ErrorBodySchema = z
  .looseObject({
    ok: z.literal(false).describe('Always false on an error.'),
    error: z.string().describe('Stable error name, e.g. `invalid_event`; see GET /v1/reference/reason-codes.'),
    reason_codes: z.array(z.string()).optional().describe('On a 400 of decide or affiliate: `INVALID_ENVELOPE` or `FORBIDDEN_IDENTITY_FIELD`.'),
    message: z.string().optional().describe('Fixed, human-readable detail in English. Never quotes the request.'),
    issues: z.array(z.string()).optional().describe('INVALID_ENVELOPE: the failing field paths and rules, never their values.'),
    paths: z.array(z.string()).optional().describe('FORBIDDEN_IDENTITY_FIELD: JSON paths of the forbidden keys, never their values.'),
    problems: z.array(z.string()).optional().describe('invalid_catalog: what is wrong with the catalog, one line each.'),
  })
  .describe('Error body.');
