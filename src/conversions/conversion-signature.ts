// Conversion signatures: lowercase hex HMAC-SHA256, keyed by one of the app's
// active conversion secrets, over "{timestamp}.{nonce}.{offer_snapshot_id}.{decision_id or empty}",
// followed by ".{event_time or empty}.{order_id or empty}" when either is sent (so a conversion
// without them signs as it always did).
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface SignedConversion {
  timestamp: number;
  nonce: string;
  offer_snapshot_id: string;
  decision_id?: string | null;
  event_time?: number | null;
  order_id?: string | null;
}

export function conversionSigningInput(c: SignedConversion): string {
  const base = `${c.timestamp}.${c.nonce}.${c.offer_snapshot_id}.${c.decision_id ?? ''}`;
  if (c.event_time == null && c.order_id == null) return base;
  return `${base}.${c.event_time ?? ''}.${c.order_id ?? ''}`;
}

export function signConversion(secret: string, c: SignedConversion): string {
  return createHmac('sha256', secret).update(conversionSigningInput(c)).digest('hex');
}

const HEX_SHA256 = /^[0-9a-f]{64}$/;

/** Constant-time check against every active secret. A signature of the wrong shape is simply
 *  wrong: it never reaches timingSafeEqual with a different length (which would throw). */
export function verifyConversionSignature(secrets: readonly string[], c: SignedConversion, signature: string): boolean {
  if (!HEX_SHA256.test(signature)) return false;
  const given = Buffer.from(signature, 'hex');
  let ok = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(conversionSigningInput(c)).digest();
    // No early exit: the time taken does not tell which secret matched.
    ok = timingSafeEqual(given, expected) || ok;
  }
  return ok;
}
