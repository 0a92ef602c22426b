// Length rules as SPEC and JSON Schema count them: Unicode code points, not UTF-16 units. With
// zod's own .min/.max a string of 16 emoji is "32 long" to the code but 16 to the document, and
// a schema-valid request would be refused.
import { z } from 'zod';

/** Code points in `s`: its UTF-16 units less one for each surrogate pair. A loop over char codes
 *  allocates nothing, where `for (const c of s)` makes a string of each character (on a
 *  4,000-character message, a seventh of what a whole decide allocated). A lone surrogate counts
 *  as one, as the string iterator counts it. */
export function codePoints(s: string): number {
  let pairs = 0;
  for (let i = 0; i < s.length - 1; i++) {
    const unit = s.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return s.length - pairs;
}

/** A string of `min` to `max` characters (code points), documented as minLength/maxLength. A
 *  string's UTF-16 length bounds its code points from above (and at most twice them), so most
 *  strings are judged by their length alone. */
export function chars(min: number, max: number) {
  const within = (s: string) => {
    if (s.length < min || s.length > 2 * max) return false;
    if (s.length <= max && s.length >= 2 * min) return true;
    const n = codePoints(s);
    return n >= min && n <= max;
  };
  return z
    .string()
    .refine(within, {
      message: min > 0 ? `must be ${min} to ${max} characters` : `must be at most ${max} characters`,
    })
    .meta(min > 0 ? { minLength: min, maxLength: max } : { maxLength: max });
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what it refuses
const NO_NUL = /^[^\u0000]*$/;

/** Text that is stored in Postgres, which cannot hold a NUL character in `text` or `jsonb`. Refused
 *  up front as bad input rather than failing the write (a 503, or a decide that fails open). */
export function storedText(min: number, max: number) {
  return chars(min, max).regex(NO_NUL, 'must not contain NUL characters');
}

/** Paths of the strings (and keys) in a parsed JSON value that hold a NUL character, at most
 *  `max` of them. Iterative: bodies can nest deep. */
export function pathsWithNul(value: unknown, max = 20): Array<Array<string | number>> {
  const found: Array<Array<string | number>> = [];
  const stack: Array<{ v: unknown; path: Array<string | number> }> = [{ v: value, path: [] }];
  while (stack.length > 0 && found.length < max) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) found.push(path);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: [...path, i] });
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v).reverse()) {
        if (k.includes('\u0000')) found.push(path);
        stack.push({ v: x, path: [...path, k] });
      }
    }
  }
  return found;
}
