// The v1 tracked-link format as it was issued before v2 (signed, readable JSON). The service no
// longer writes it; tests make such tokens to prove links already handed out keep working.
import { createHmac } from 'node:crypto';
import type { TrackedLinkClaims } from '../../src/links/tracked-link.js';

export function signLegacyV1Link(secret: string, c: TrackedLinkClaims): string {
  const payload = Buffer.from(
    JSON.stringify({ d: c.decisionId, s: c.snapshotId, a: c.appId, v: c.advertiserId, u: c.destination, x: c.expiresAt, t: c.test ? 1 : 0 }),
  ).toString('base64url');
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8')).update(payload).digest().subarray(0, 16).toString('base64url');
  return `v1.${payload}.${mac}`;
}
