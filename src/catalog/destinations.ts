// Destination allowlists: an entry is an https origin with an optional path prefix. A URL is
// allowed when it has the same origin and its path starts at a segment boundary of the prefix,
// so `https://shop.example/deals` allows `/deals/tv` but not `/dealsfake`, and never another host.
export function isUnderPrefix(url: string, prefixes: readonly string[]): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol !== 'https:' || u.username || u.password) return false;
  return prefixes.some((prefix) => {
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
}
