// Bearer serving-key authentication.
// Lookups are cached for `cacheMs` (≤ 1 s), which bounds how long a revoked key keeps working
// on any instance. While the database is unreachable, the last known answer for a key is used,
// so decide can fail open for hosts that were already talking to us.
import { hashKey, SERVING_KEY_PATTERN, SETUP_TOKEN_PATTERN, type KeyMode } from '../apps/keys.js';
import type { KeyLookup } from '../apps/app-repository.js';
import { StoreUnavailable } from '../errors/error-registry.js';

export type AuthError = 'missing_api_key' | 'invalid_api_key' | 'revoked_api_key' | 'setup_token_not_allowed';

export interface Principal {
  appId: string;
  keyId: string;
  mode: KeyMode;
  /** The app's brand-safety exclusions, applied in the core's eligibility. */
  exclusions: { categoryIds: string[]; advertiserIds: string[] };
}

export type AuthOutcome =
  | { ok: true; principal: Principal }
  | { ok: false; error: AuthError }
  /** The key store could not be reached and nothing is known about this key. */
  | { ok: false; unavailable: true };

interface CacheEntry {
  lookup: KeyLookup | null;
  at: number;
}

const MAX_CACHE_ENTRIES = 50_000;
/** How long a known answer may stand in while the database is down. */
const STALE_FALLBACK_MS = 10 * 60_000;

export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly findKeyByHash: (hash: Buffer) => Promise<KeyLookup | null>,
    private readonly cacheMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async authenticate(authorization: string | undefined): Promise<AuthOutcome> {
    if (authorization === undefined || authorization.trim() === '') return { ok: false, error: 'missing_api_key' };
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
    if (!match) return { ok: false, error: 'invalid_api_key' };
    const token = match[1];
    if (SETUP_TOKEN_PATTERN.test(token) || token.startsWith('st_')) return { ok: false, error: 'setup_token_not_allowed' };
    if (!SERVING_KEY_PATTERN.test(token)) return { ok: false, error: 'invalid_api_key' };

    const lookup = await this.lookup(token);
    if (lookup === 'unavailable') return { ok: false, unavailable: true };
    if (!lookup) return { ok: false, error: 'invalid_api_key' };
    if (lookup.kind === 'setup') return { ok: false, error: 'setup_token_not_allowed' };
    if (lookup.revoked) return { ok: false, error: 'revoked_api_key' };
    return {
      ok: true,
      principal: {
        appId: lookup.app_id,
        keyId: lookup.key_id,
        mode: lookup.mode,
        exclusions: { categoryIds: lookup.blocked_category_ids, advertiserIds: lookup.blocked_advertiser_ids },
      },
    };
  }

  private async lookup(token: string): Promise<KeyLookup | null | 'unavailable'> {
    const now = this.now();
    const cached = this.cache.get(token);
    if (cached && now - cached.at < this.cacheMs) return cached.lookup;
    try {
      const lookup = await this.findKeyByHash(hashKey(token));
      if (this.cache.size >= MAX_CACHE_ENTRIES) this.cache.clear();
      this.cache.set(token, { lookup, at: now });
      return lookup;
    } catch (err) {
      // Only an outage falls back: a bug in the lookup is a bug (500), not a missing store.
      if (!(err instanceof StoreUnavailable)) throw err;
      if (cached && now - cached.at < STALE_FALLBACK_MS) return cached.lookup;
      return 'unavailable';
    }
  }
}
