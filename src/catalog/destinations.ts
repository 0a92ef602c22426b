// Destination allowlists: an entry is an https origin with an optional path prefix. A URL is
// allowed when it has the same origin and its path starts at a segment boundary of the prefix,
// so `https://shop.example/deals` allows `/deals/tv` but not `/dealsfake`, and never another host.
// Its host must also be a public domain name (destinationHostProblem), at import and at click.
import { domainToUnicode } from 'node:url';
export function isUnderPrefix(url: string, prefixes: readonly string[]): boolean {
  return allowedDestination(url, prefixes) !== null;
}

// The URL parser silently drops tabs, newlines and surrounding control characters, and reads a
// backslash as a slash, so the string a human reviewed is not the URL a browser would follow
// (and raw, such a string breaks the Location header). Such destinations are refused outright.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
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
  // Import refuses such hosts; checked again so a catalog imported before that rule, still
  // live, cannot send a browser to one either.
  if (destinationHostProblem(u) !== null) return null;
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

// Hosts a browser must never be sent to from a sponsored link, and URL forms that hide one:
//
// - IP literals, IPv4 or IPv6. The WHATWG parser (what browsers use) turns `https://2130706433/`,
//   `https://0x7f.1/`, `https://127.1/` and `https://%31%32%37.0.0.1/` into 127.0.0.1, so the
//   parsed host is judged, never the text. An IP skips DNS and is how a link reaches a user's
//   router, a LAN device or a cloud metadata address.
// - localhost, `*.localhost` and the private-use names `*.local` (mDNS), `*.internal` and
//   `*.home.arpa`: they name the user's own machine or network.
// - single-label hosts (`https://intranet/`): resolved against the user's local search domain.
//   Empty labels and a trailing dot (`shop.example.`) are refused too: they spell a host that
//   does not look like the one reviewed.
// - a non-default port (`https://shop.example:8443/`): public sites serve https on 443.
// - an IDN label that mixes scripts (UTS #39 "highly restrictive"): its letters, decoded with
//   domainToUnicode, must be of one script, except that Han may combine with Hiragana and
//   Katakana (Japanese), Hangul (Korean) or Bopomofo (Chinese), each also with Latin. So
//   `xn--pple-43d` ("аpple", Cyrillic а + Latin) is refused, while `제주`, `東京`, `ドメイン` are
//   fine. A label wholly in another script that looks Latin (all-Cyrillic "аррӏе") passes this
//   rule; the exact-origin allowlist, reviewed by a person, is what stands against that.
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;
const PRIVATE_NAME = /(?:^|\.)(?:localhost|local|internal|home\.arpa)$/;
const SCRIPTS = [
  'Latin',
  'Cyrillic',
  'Greek',
  'Armenian',
  'Georgian',
  'Hebrew',
  'Arabic',
  'Syriac',
  'Thaana',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
  'Oriya',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Sinhala',
  'Thai',
  'Lao',
  'Tibetan',
  'Myanmar',
  'Khmer',
  'Mongolian',
  'Ethiopic',
  'Cherokee',
  'Hangul',
  'Han',
  'Hiragana',
  'Katakana',
  'Bopomofo',
  'Yi',
].map((name) => ({ name, re: new RegExp(`\\p{Script=${name}}`, 'u') }));
const NEUTRAL = /[\p{Script=Common}\p{Script=Inherited}]/u;
const LETTER = /\p{L}/u;
const CJK_COMBINATIONS = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Bopomofo'],
  ['Latin', 'Han', 'Hangul'],
].map((set) => new Set(set));

/** The scripts of a label's letters (characters shared by all scripts aside). */
function scriptsOf(label: string): Set<string> {
  const found = new Set<string>();
  for (const ch of label) {
    if (!LETTER.test(ch) || NEUTRAL.test(ch)) continue;
    found.add(SCRIPTS.find((s) => s.re.test(ch))?.name ?? 'other');
  }
  return found;
}

function mixesScripts(scripts: Set<string>): boolean {
  if (scripts.size <= 1) return false;
  if (scripts.has('other')) return true;
  return !CJK_COMBINATIONS.some((allowed) => [...scripts].every((s) => allowed.has(s)));
}

/** Why a destination's host is unsafe to send a browser to, as a short rule, or null when it
 *  is a public domain name on the default port. Used for every destination, allowlist entry
 *  and link template at import, and for the destination again at click time. A string that is
 *  not a URL is null here: the URL checks report it. */
export function destinationHostProblem(url: string | URL): string | null {
  let u: URL;
  try {
    u = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return null;
  }
  const host = u.hostname;
  if (host.startsWith('[') || IPV4.test(host)) return `host is an IP address (${host}); use a domain name`;
  if (u.port !== '') return `port ${u.port} is not allowed; use the default https port`;
  if (host.endsWith('.')) return 'host must not end with a dot';
  const labels = host.split('.');
  if (labels.some((l) => l === '')) return 'host has an empty label';
  if (PRIVATE_NAME.test(host)) return `host ${host} names a local or private network`;
  if (labels.length < 2) return `host ${host} is a single label; use a public domain name`;
  for (const label of labels) {
    if (!label.startsWith('xn--')) continue;
    const decoded = domainToUnicode(label);
    if (decoded === '' || decoded === label) return `host label ${label} is not valid punycode`;
    const scripts = scriptsOf(decoded);
    if (mixesScripts(scripts)) return `host label ${label} ("${decoded}") mixes scripts (${[...scripts].sort().join(', ')})`;
  }
  return null;
}
