import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base62, decisionIdTime, newDecisionId, newId, randomBytesPooled } from '../../src/util/ids.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** base62 by definition, with BigInt: what the fast long division must equal. */
function base62ByDefinition(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(Math.ceil((bytes.length * 8) / Math.log2(62)), '0');
}

describe('ids', () => {
  it('base62 equals its definition for every length, zeros and all-ones included', () => {
    for (const length of [0, 1, 2, 3, 15, 16, 17, 24, 32]) {
      for (let i = 0; i < 500; i++) {
        const bytes = randomBytes(length);
        if (i === 0) bytes.fill(0);
        if (i === 1) bytes.fill(255);
        if (i % 5 === 2) bytes.fill(0, 0, Math.min(length, 3));
        expect(base62(bytes)).toBe(base62ByDefinition(bytes));
      }
    }
  });

  it('ids have the documented shape and do not repeat across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const id = newId('dec');
      expect(id).toMatch(/^dec_[0-9A-Za-z]{22}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(5000);
  });

  it('pooled bytes are copies the pool cannot change later', () => {
    const first = randomBytesPooled(16);
    const copy = Buffer.from(first);
    for (let i = 0; i < 1000; i++) randomBytesPooled(16);
    expect(Buffer.from(first).equals(copy)).toBe(true);
    expect(randomBytesPooled(10_000)).toHaveLength(10_000);
  });

  it('decision ids carry the millisecond they were made, sort by it, and older ids carry none', () => {
    const times = [0, 1, 61, 1_790_000_000_123, Date.now(), 62 ** 8 - 1];
    const ids = times.map((t) => newDecisionId(t));
    for (const [i, id] of ids.entries()) {
      expect(id).toMatch(/^dec_[0-9A-Za-z]{30}$/);
      expect(decisionIdTime(id)).toBe(times[i]);
    }
    expect([...ids].sort()).toEqual(ids.slice().sort((a, b) => decisionIdTime(a)! - decisionIdTime(b)!));
    expect(newDecisionId(5)).not.toBe(newDecisionId(5));
    expect(decisionIdTime(newId('dec'))).toBeNull();
    expect(decisionIdTime('evt_00000000000000000000000000000')).toBeNull();
  });
});
