// Key formats: serving keys `sk_live_<base62>` / `sk_test_<base62>`, setup tokens
// `st_<base62>`. Only the SHA-256 of a key is stored; the plain key exists once, at creation.
import { randomBytes } from 'node:crypto';
import { base62, sha256 } from '../util/ids.js';

export type KeyKind = 'serving' | 'setup';
export type KeyMode = 'live' | 'test';

export const SERVING_KEY_PATTERN = /^sk_(live|test)_[0-9A-Za-z]{32,64}$/;
export const SETUP_TOKEN_PATTERN = /^st_[0-9A-Za-z]{16,64}$/;

export function generateKey(kind: KeyKind, mode: KeyMode = 'live'): string {
  // 24 random bytes = 192 bits, 33 base62 characters.
  const body = base62(randomBytes(24));
  return kind === 'setup' ? `st_${body}` : `sk_${mode}_${body}`;
}

export function hashKey(key: string): Buffer {
  return sha256(key);
}

/** What operators see of a key in listings: enough to tell keys apart, useless to an attacker. */
export function keyHint(key: string): string {
  return `${key.slice(0, key.indexOf('_', 3) + 5)}…`;
}

export function generateConversionSecret(): string {
  return `whsec_${base62(randomBytes(32))}`;
}
