// Opaque ids: a type prefix (dec_, snp_, evt_ …) and 128 random bits in base62.
import { createHash, randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Big-endian base62 of `bytes`, left-padded with '0' to the length the byte count needs.
 *  Long division over 16-bit limbs: no BigInt, which cost more than the rest of a decide's ids. */
export function base62(bytes: Uint8Array): string {
  // 16-bit limbs, most significant first; an odd leading byte is a limb of its own.
  const limbs: number[] = [];
  let i = 0;
  if (bytes.length % 2 === 1) limbs.push(bytes[i++]);
  for (; i < bytes.length; i += 2) limbs.push((bytes[i] << 8) | bytes[i + 1]);
  let out = '';
  let start = 0;
  while (start < limbs.length) {
    let rem = 0;
    for (let j = start; j < limbs.length; j++) {
      const cur = rem * 65536 + limbs[j];
      limbs[j] = Math.floor(cur / 62);
      rem = cur % 62;
    }
    out = ALPHABET[rem] + out;
    while (start < limbs.length && limbs[start] === 0) start++;
  }
  return out.padStart(Math.ceil((bytes.length * 8) / Math.log2(62)), '0');
}

// Random bytes are drawn from the CSPRNG a pool at a time: one randomFillSync call per 256 ids
// instead of one per id.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

export function randomBytesPooled(n: number): Uint8Array {
  if (n > pool.length) return randomFillSync(Buffer.alloc(n));
  if (poolOffset + n > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  // A copy: the pool is refilled in place, and an id's bytes must not change under it.
  const out = Uint8Array.prototype.slice.call(pool, poolOffset, poolOffset + n);
  poolOffset += n;
  return out;
}

export function newId(prefix: string, bytes = 16): string {
  return `${prefix}_${base62(randomBytesPooled(bytes))}`;
}

export function sha256(data: string | Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}

// A decision id carries the millisecond it was made: `dec_` + that time in 8 base62 digits +
// 128 random bits in 22. The decide records the decision with exactly that time as created_at,
// so a lookup by id names the day partition it lives in (src/db/migrations/006_history_partitions.sql).
// Ids made before carry 22 digits and no time.
const TIME_DIGITS = 8;
const TIMED_DECISION_ID = /^dec_[0-9A-Za-z]{30}$/;

export function newDecisionId(atMs: number): string {
  let time = '';
  for (let t = Math.floor(atMs), i = 0; i < TIME_DIGITS; i++, t = Math.floor(t / 62)) time = ALPHABET[t % 62] + time;
  return `dec_${time}${base62(randomBytesPooled(16))}`;
}

/** The millisecond a decision id was made at, or null for an id that carries none. */
export function decisionIdTime(id: string): number | null {
  if (!TIMED_DECISION_ID.test(id)) return null;
  let t = 0;
  for (let i = 4; i < 4 + TIME_DIGITS; i++) t = t * 62 + ALPHABET.indexOf(id[i]);
  return t;
}
