// Every counter key, its prefix and the TTLs of the fast-path entries, in one place.
//
// Keys never carry user-controlled free text. Redis keeps command arguments in SLOWLOG and
// MONITOR output, so a host's message, a session token or a client-chosen string
// must not reach a key. Callers pass ids (catalog ids, generated ids, UTC days) and hashes only;
// as a second line of defence every part that is not a plain id is replaced by its SHA-256 here,
// and the client-chosen parts (idempotency keys, nonces, rate-limit client keys) are always hashed.
//
// The store adds the prefix (default `sn:`), so these helpers return unprefixed keys.
//
// Layout: `<namespace>:<parts…>`. Namespaces differ in their first segment, and within one
// namespace every part but the last has a fixed shape (hash, day, scope without `:`), so two
// different key requests never produce the same key.
import { createHash } from 'node:crypto';

export const DEFAULT_KEY_PREFIX = 'sn:';

/** How long fast-path entries live. The database stays the durable truth for all of them. */
export const COUNTER_TTLS = {
  /** Idempotency fast path of events: longer than any sane client retry loop. */
  idempotencyMs: 24 * 60 * 60_000,
  /** Conversion nonces: the ±300 s timestamp window on both sides, plus slack. */
  nonceMs: 15 * 60_000,
  /** Click dedup per decision. */
  clickDedupMs: 60 * 60_000,
} as const;

// Catalog ids (^[a-z0-9][a-z0-9._:-]{0,63}$), generated ids (dec_…), base64url hashes, UTC days.
const ID_PART = /^[A-Za-z0-9_-][A-Za-z0-9._:-]{0,127}$/;
// A part that is later followed by another part must not contain the separator.
const FIXED_PART = /^[A-Za-z0-9_-][A-Za-z0-9._,/-]{0,127}$/;

/** A short, key-safe digest (128 bits, base64url). */
export function keyHash(value: string): string {
  return createHash('sha256').update(value).digest('base64url').slice(0, 22);
}

/** An id as it is when it looks like one; anything else only as its hash (`h.` marks it). */
function id(part: string): string {
  return ID_PART.test(part) ? part : `h.${keyHash(part)}`;
}

function fixed(part: string): string {
  return FIXED_PART.test(part) ? part : `h.${keyHash(part)}`;
}

export const counterKeys = {
  /** Fixed-window rate limit of one client in one scope (route). The client key is always hashed. */
  rateLimit: (scope: string, clientKey: string) => `rl:${fixed(scope)}:${keyHash(clientKey)}`,
  /** Serves of one campaign to one session. `sessionHash` is a hash of the session token, never the token. */
  frequency: (sessionHash: string, campaignId: string) => `fq:${fixed(sessionHash)}:${id(campaignId)}`,
  /** Serves to one session across all campaigns. */
  globalFrequency: (sessionHash: string) => `fs:${id(sessionHash)}`,
  /** A campaign's spend record (a Redis hash: generation, lifetime micros, UTC day, day micros),
   *  a cache of the Postgres ledger. No expiry: it goes only with the whole store's data, and
   *  then the ledger rebuilds it. */
  spend: (campaignId: string) => `sp:${id(campaignId)}`,
  /** First click of a decision (dedup). */
  clickDedup: (decisionId: string) => `cd:${id(decisionId)}`,
  /** Clicks from one (hashed) address in one window label. */
  clickRate: (ipHash: string, window: string) => `cr:${fixed(window)}:${id(ipHash)}`,
  /** Event idempotency fast path, scoped to the app. The client's key is always hashed. */
  idempotency: (appId: string, key: string) => `ik:${fixed(appId)}:${keyHash(key)}`,
  /** Conversion nonce, single use per app. The nonce is always hashed. */
  nonce: (appId: string, nonce: string) => `nc:${fixed(appId)}:${keyHash(nonce)}`,
};
