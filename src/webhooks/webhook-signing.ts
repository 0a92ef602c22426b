// Standard Webhooks signatures (https://www.standardwebhooks.com): the signed content is
// `${webhook-id}.${webhook-timestamp}.${body}`, signed with HMAC-SHA256 under the endpoint's
// secret (`whsec_` + base64 of its bytes), sent as `webhook-signature: v1,<base64>`. Receivers
// verify with any Standard Webhooks library; the tests verify with one written by others.
import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** A new endpoint secret: 32 random bytes. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The headers of one delivery attempt. `timestamp` is in seconds. */
export function signedHeaders(secret: string, id: string, timestamp: number, body: string): Record<string, string> {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
}
