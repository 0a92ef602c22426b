// Tracked-link tokens: `{base_url}/r/<token>`. The token carries the decision,
// snapshot, app, advertiser, destination and expiry, so the redirect needs no database read:
// the token proves we issued it, the in-memory allowlist proves the destination is still allowed.
//
// v2 (issued): `v2.<base64url(nonce ‖ ciphertext ‖ tag)>`, AES-256-GCM under a key derived from
// the link secret with HKDF for this one purpose, a random 96-bit nonce per token and the version
// prefix as associated data. The token is opaque: a browser, a chat log or an advertiser's
// referrer logs learn nothing about the app, advertiser, decision or destination from it, and
// the GCM tag makes it unforgeable (a tampered byte fails authentication, checked in constant
// time by OpenSSL). The plaintext is a compact binary record, not JSON:
//
//   u8 flags (bit 0: test link; other bits zero) · u32 expires_at (Unix seconds, big-endian) ·
//   u8 length + decision id · u8 length + snapshot id · u8 length + app id ·
//   u8 length + advertiser id · u16 length + destination (UTF-8; lengths in bytes)
//
// v1 (read only): `v1.<base64url(JSON)>.<base64url(HMAC-SHA256[0..16])>`, signed but readable.
// Links handed out before the v2 deploy live up to LINK_TTL_SECONDS; they keep redirecting until
// their own expiry, then are refused like any bad token, so that after one TTL (30 days at most)
// no valid v1 token exists and this reader can be deleted. v1 is never issued again.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SettingsRepository } from '../settings/settings-repository.js';

export interface TrackedLinkClaims {
  decisionId: string;
  snapshotId: string;
  appId: string;
  /** Whose allowlist the destination is re-checked against at click time. */
  advertiserId: string;
  destination: string;
  /** Unix seconds after which the link's click no longer counts. */
  expiresAt: number;
  test: boolean;
}

const MAX_TOKEN_LENGTH = 4096;

const V2_PREFIX = 'v2.';
const V2_AAD = Buffer.from('sidenote tracked link v2');
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const FLAG_TEST = 1;
/** Flags, expiry, four empty ids and an empty destination: nothing authentic is shorter. */
const MIN_PLAINTEXT = 1 + 4 + 4 * 1 + 2;
const MAX_ID_BYTES = 255;
const MAX_DESTINATION_BYTES = 65_535;

const V1_MAC_BYTES = 16;

const utf8 = new TextDecoder('utf-8', { fatal: true });

export class TrackedLinkSigner {
  private readonly v2Key: Buffer;

  constructor(private readonly secret: Buffer) {
    // A key of its own for link encryption: the secret itself also keys v1 MACs and deriveKey.
    this.v2Key = Buffer.from(hkdfSync('sha256', secret, 'sidenote', 'tracked-link v2 aes-256-gcm', 32));
  }

  /** A v2 token for these claims. Throws only for claims no catalog can produce (an id over
   *  255 bytes, an expiry outside u32): a programming error, never input. */
  sign(claims: TrackedLinkClaims): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.v2Key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(V2_AAD);
    const body = Buffer.concat([nonce, cipher.update(encodeClaims(claims)), cipher.final(), cipher.getAuthTag()]);
    return V2_PREFIX + body.toString('base64url');
  }

  /** The claims of an authentic token, or null for anything tampered, truncated, malformed,
   *  of an unknown version or made with another key. Never throws. `nowMs` ends v1's grace. */
  verify(token: string, nowMs: number = Date.now()): TrackedLinkClaims | null {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return null;
    if (token.startsWith(V2_PREFIX)) return this.verifyV2(token.slice(V2_PREFIX.length));
    if (token.startsWith('v1.')) {
      const claims = this.verifyV1(token);
      return claims && claims.expiresAt * 1000 >= nowMs ? claims : null;
    }
    return null;
  }

  /** A key for another purpose (hashing client IPs), derived so instances agree on it.
   *  Unchanged by v2: stored address hashes stay comparable across the deploy. */
  deriveKey(purpose: string): Buffer {
    return createHmac('sha256', this.secret).update(`derive:${purpose}`).digest();
  }

  private verifyV2(text: string): TrackedLinkClaims | null {
    const raw = canonicalBase64url(text);
    if (!raw || raw.length < NONCE_BYTES + MIN_PLAINTEXT + TAG_BYTES) return null;
    const nonce = raw.subarray(0, NONCE_BYTES);
    const tag = raw.subarray(raw.length - TAG_BYTES);
    let plain: Buffer;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.v2Key, nonce, { authTagLength: TAG_BYTES });
      decipher.setAAD(V2_AAD);
      decipher.setAuthTag(tag);
      plain = Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
    } catch {
      return null; // authentication failed: tampered, truncated or another key
    }
    return decodeClaims(plain);
  }

  /** Legacy reader, see the header. Kept byte-for-byte as v1 shipped. */
  private verifyV1(token: string): TrackedLinkClaims | null {
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== 'v1') return null;
    const [, payload, sig] = parts;
    const given = Buffer.from(sig, 'base64url');
    if (given.length !== V1_MAC_BYTES || given.toString('base64url') !== sig) return null;
    const expected = createHmac('sha256', this.secret).update(payload).digest().subarray(0, V1_MAC_BYTES);
    if (!timingSafeEqual(given, expected)) return null;
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
}

function encodeClaims(c: TrackedLinkClaims): Buffer {
  if (!Number.isInteger(c.expiresAt) || c.expiresAt < 0 || c.expiresAt > 0xffff_ffff) {
    throw new RangeError('tracked link expiry must be Unix seconds within u32');
  }
  const ids = [c.decisionId, c.snapshotId, c.appId, c.advertiserId].map((s) => Buffer.from(s, 'utf8'));
  const destination = Buffer.from(c.destination, 'utf8');
  if (ids.some((b) => b.length > MAX_ID_BYTES) || destination.length > MAX_DESTINATION_BYTES) {
    throw new RangeError('tracked link field too long');
  }
  const out = Buffer.alloc(1 + 4 + ids.reduce((n, b) => n + 1 + b.length, 0) + 2 + destination.length);
  let at = out.writeUInt8(c.test ? FLAG_TEST : 0, 0);
  at = out.writeUInt32BE(c.expiresAt, at);
  for (const b of ids) {
    at = out.writeUInt8(b.length, at);
    at += b.copy(out, at);
  }
  at = out.writeUInt16BE(destination.length, at);
  destination.copy(out, at);
  return out;
}

/** The reverse of encodeClaims, strict: every length in bounds, no trailing bytes, valid UTF-8,
 *  no unknown flag. The input is authenticated, so a failure here means a bug or a future
 *  writer, and is a refusal all the same. */
function decodeClaims(b: Buffer): TrackedLinkClaims | null {
  let at = 0;
  const take = (n: number): Buffer | null => {
    if (at + n > b.length) return null;
    const part = b.subarray(at, at + n);
    at += n;
    return part;
  };
  const str = (lengthBytes: 1 | 2): string | null => {
    const len = take(lengthBytes);
    if (!len) return null;
    const bytes = take(lengthBytes === 1 ? len.readUInt8(0) : len.readUInt16BE(0));
    if (!bytes) return null;
    try {
      return utf8.decode(bytes);
    } catch {
      return null;
    }
  };
  const head = take(5);
  if (!head) return null;
  const flags = head.readUInt8(0);
  if ((flags & ~FLAG_TEST) !== 0) return null;
  const decisionId = str(1);
  const snapshotId = str(1);
  const appId = str(1);
  const advertiserId = str(1);
  const destination = str(2);
  if (decisionId === null || snapshotId === null || appId === null || advertiserId === null || destination === null) return null;
  if (at !== b.length) return null;
  return { decisionId, snapshotId, appId, advertiserId, destination, expiresAt: head.readUInt32BE(1), test: (flags & FLAG_TEST) !== 0 };
}

/** Bytes of `text` if it is base64url in its one canonical spelling (no padding, no stray or
 *  unused bits): Node's decoder skips characters it does not know, so check by re-encoding. */
function canonicalBase64url(text: string): Buffer | null {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return null;
  const raw = Buffer.from(text, 'base64url');
  return raw.toString('base64url') === text ? raw : null;
}

/** The configured secret, or one generated once and kept in the database so that every
 *  instance sharing it signs and verifies the same links. */
export async function loadLinkSigningSecret(settings: SettingsRepository, configured?: string): Promise<Buffer> {
  if (configured) return Buffer.from(configured, 'utf8');
  return Buffer.from(await settings.linkSigningSecret(randomBytes(32).toString('base64url')), 'utf8');
}
