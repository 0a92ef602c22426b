// Tracked-link tokens (DESIGN.md §2): `{base_url}/r/<token>`. The token carries the decision,
// snapshot, app, destination and expiry, signed with HMAC-SHA256, so the redirect needs no
// database read: the signature proves we issued it, the in-memory allowlist proves the
// destination is still allowed. Format: `v1.<base64url(JSON payload)>.<base64url(mac[0..16])>`;
// a 128-bit truncated MAC is unforgeable for this purpose and keeps links shorter.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database } from '../db/database.js';

export interface TrackedLinkClaims {
  decisionId: string;
  snapshotId: string;
  appId: string;
  /** Whose allowlist the destination is re-checked against at click time. */
  advertiserId: string;
  destination: string;
  /** Unix seconds after which the link no longer redirects. */
  expiresAt: number;
  test: boolean;
}

const MAC_BYTES = 16;
const MAX_TOKEN_LENGTH = 4096;

export class TrackedLinkSigner {
  constructor(private readonly secret: Buffer) {}

  sign(claims: TrackedLinkClaims): string {
    const payload = Buffer.from(
      JSON.stringify({
        d: claims.decisionId,
        s: claims.snapshotId,
        a: claims.appId,
        v: claims.advertiserId,
        u: claims.destination,
        x: claims.expiresAt,
        t: claims.test ? 1 : 0,
      }),
    ).toString('base64url');
    return `v1.${payload}.${this.mac(payload).toString('base64url')}`;
  }

  /** Returns the claims of an authentic token, or null for anything tampered, truncated or malformed. */
  verify(token: string): TrackedLinkClaims | null {
    if (token.length > MAX_TOKEN_LENGTH) return null;
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== 'v1') return null;
    const [, payload, sig] = parts;
    const given = Buffer.from(sig, 'base64url');
    if (given.length !== MAC_BYTES || given.toString('base64url') !== sig) return null;
    if (!timingSafeEqual(given, this.mac(payload))) return null;
    try {
      const p = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
      const strings = [p.d, p.s, p.a, p.v, p.u];
      if (strings.some((x) => typeof x !== 'string') || typeof p.x !== 'number') return null;
      return {
        decisionId: p.d as string,
        snapshotId: p.s as string,
        appId: p.a as string,
        advertiserId: p.v as string,
        destination: p.u as string,
        expiresAt: p.x,
        test: p.t === 1,
      };
    } catch {
      return null;
    }
  }

  /** A key for another purpose (hashing client IPs), derived so instances agree on it. */
  deriveKey(purpose: string): Buffer {
    return createHmac('sha256', this.secret).update(`derive:${purpose}`).digest();
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.secret).update(payload).digest().subarray(0, MAC_BYTES);
  }
}

/** The configured secret, or one generated once and kept in the database so that every
 *  instance sharing it signs and verifies the same links. */
export async function loadLinkSigningSecret(db: Database, configured?: string): Promise<Buffer> {
  if (configured) return Buffer.from(configured, 'utf8');
  await db.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [
    'link_signing_secret',
    randomBytes(32).toString('base64url'),
  ]);
  const r = await db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', ['link_signing_secret']);
  return Buffer.from(r.rows[0].value, 'utf8');
}
