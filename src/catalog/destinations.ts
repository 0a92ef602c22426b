// Destination allowlists: an entry is an https origin with an optional path prefix. A URL is
// allowed when it has the same origin and its path starts at a segment boundary of the prefix,
// so `https://shop.example/deals` allows `/deals/tv` but not `/dealsfake`, and never another host.
export function isUnderPrefix(url: string, prefixes: readonly string[]): boolean {
  return allowedDestination(url, prefixes) !== null;
}

// The URL parser silently drops tabs, newlines and surrounding control characters, and reads a
// backslash as a slash, so the string a human reviewed is not the URL a browser would follow
// (and raw, such a string breaks the Location header). Such destinations are refused outright.
const SILENTLY_REWRITTEN = /[\u0000-\u0020\u007f\\]/;
export const isRewrittenByUrlParser = (s: string) => SILENTLY_REWRITTEN.test(s);

/** The canonical URL to send a browser to (what was checked), or null if it is not allowed. */
export function allowedDestination(url: string, prefixes: readonly string[]): string | null {
  if (SILENTLY_REWRITTEN.test(url)) return null;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' || u.username || u.password) return null;
  const allowed = prefixes.some((prefix) => {
    let p: URL;
    try {
      p = new URL(prefix);
    } catch {
      return false;
    }
    if (p.origin !== u.origin) return false;
    const base = p.pathname;
    if (base === '/' || base === '') return true;
    const path = u.pathname;
    return path === base || path.startsWith(base.endsWith('/') ? base : `${base}/`);
  });
  return allowed ? u.href : null;
}
