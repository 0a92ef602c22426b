// Where a webhook may be delivered. A URL an operator registers is fetched by the server, so it
// must not reach what only the server can reach: loopback, private, link-local (cloud metadata at
// 169.254.169.254), unique-local, carrier-grade NAT, multicast and reserved addresses are refused,
// unless configuration allows private targets (WEBHOOK_ALLOW_PRIVATE_TARGETS, for a receiver on
// the same network). The check runs when the URL is registered and again on every connection,
// on the address actually connected to, so a name that later resolves elsewhere (DNS rebinding)
// is refused too. ipaddr.js classifies the addresses: a maintained table of the IANA ranges.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export class UnsafeTarget extends Error {
  override name = 'UnsafeTarget';
}

/** Whether `address` (an IP literal) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

/** The URL as a delivery target, or why it is not one (a message that never quotes it). */
export function parseTarget(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UnsafeTarget('url is not an absolute URL');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new UnsafeTarget('url must be http or https');
  if (u.username || u.password) throw new UnsafeTarget('url must not carry credentials');
  if (!u.hostname) throw new UnsafeTarget('url has no host');
  return u;
}

const hostOf = (u: URL) => (u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname);

/** Resolves the target's host and refuses it when any address is not public (unless allowed). */
export async function checkTarget(url: string, allowPrivate: boolean): Promise<URL> {
  const u = parseTarget(url);
  if (allowPrivate) return u;
  const host = hostOf(u);
  const addresses = isIP(host) ? [host] : await resolveAll(host);
  if (addresses.length === 0 || !addresses.every(isPublicAddress))
    throw new UnsafeTarget('url resolves to a loopback, private, link-local or reserved address');
  return u;
}

/** The URL a delivery connects to. An IP literal is never looked up, so it is checked here;
 *  a name is checked on connect, against the address it resolves to (`safeLookup`). */
export function deliveryTarget(url: string, allowPrivate: boolean): URL {
  const u = parseTarget(url);
  const host = hostOf(u);
  if (!allowPrivate && isIP(host) && !isPublicAddress(host)) throw new UnsafeTarget('url is a loopback, private, link-local or reserved address');
  return u;
}

function resolveAll(host: string): Promise<string[]> {
  return new Promise((resolve) => {
    dnsLookup(host, { all: true }, (err, addresses) => resolve(err ? [] : (addresses as LookupAddress[]).map((a) => a.address)));
  });
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for http.request that connects only to public addresses (unless allowed). */
export function safeLookup(allowPrivate: boolean) {
  return (hostname: string, options: object, callback: LookupCallback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      const usable = allowPrivate ? list : list.filter((a) => isPublicAddress(a.address));
      if (usable.length === 0) return callback(Object.assign(new UnsafeTarget('target resolves to a non-public address'), { code: 'EUNSAFE' }), []);
      if ((options as { all?: boolean }).all) return callback(null, usable);
      callback(null, usable[0].address, usable[0].family);
    });
  };
}
