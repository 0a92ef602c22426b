// Length rules as SPEC and JSON Schema count them: Unicode code points, not UTF-16 units. With
// zod's own .min/.max a string of 16 emoji is "32 long" to the code but 16 to the document, and
// a schema-valid request would be refused.
import { z } from 'zod';

function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** A string of `min` to `max` characters (code points), documented as minLength/maxLength. */
export function chars(min: number, max: number) {
  return z
    .string()
    .refine((s) => codePoints(s) >= min && (s.length <= max || codePoints(s) <= max), {
      message: min > 0 ? `must be ${min} to ${max} characters` : `must be at most ${max} characters`,
    })
    .meta(min > 0 ? { minLength: min, maxLength: max } : { maxLength: max });
}

const NO_NUL = /^[^\u0000]*$/;

/** Text that is stored in Postgres, which cannot hold a NUL character in `text` or `jsonb`. Refused
 *  up front as bad input rather than failing the write (a 503, or a decide that fails open). */
export function storedText(min: number, max: number) {
  return chars(min, max).regex(NO_NUL, 'must not contain NUL characters');
}

/** Whether any string in a parsed JSON value holds a NUL character (iterative: bodies can nest deep). */
export function containsNul(value: unknown): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return true;
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k.includes('\u0000')) return true;
        stack.push(x);
      }
    }
  }
  return false;
}
