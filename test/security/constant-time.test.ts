// Secrets are compared in constant time. A timing measurement would be
// flaky, so this proves the mechanism instead: every verify path ends in crypto.timingSafeEqual
// on equal-length buffers, and inputs of another length never reach it (where it would throw
// and turn a bad signature into a 500).
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return { ...crypto, default: crypto, timingSafeEqual: vi.fn(crypto.timingSafeEqual) };
});
// Files share a worker's module cache (vitest.config.ts): modules another file already loaded
// with the real node:crypto are loaded again here, with the mock.
vi.resetModules();

const { timingSafeEqual } = await import('node:crypto');
const { signConversion, verifyConversionSignature } = await import('../../src/conversions/conversion-signature.js');
const { TrackedLinkSigner } = await import('../../src/links/tracked-link.js');
const { signLegacyV1Link } = await import('../helpers/legacy-link.js');
const compare = vi.mocked(timingSafeEqual);

const conversion = { timestamp: 1_800_000_000, nonce: 'nonce-0123456789', offer_snapshot_id: 'snp_abc', decision_id: 'dec_abc' };

describe('constant-time comparisons', () => {
  beforeEach(() => {
    compare.mockClear();
  });

  it('conversion signatures: one timingSafeEqual per active secret, 32-byte buffers, no early exit', () => {
    const secrets = ['whsec_old_0123456789', 'whsec_new_0123456789'];
    const good = signConversion(secrets[0], conversion);
    expect(verifyConversionSignature(secrets, conversion, good)).toBe(true);
    expect(verifyConversionSignature(secrets, conversion, signConversion('whsec_other', conversion))).toBe(false);
    // Both secrets are checked even when the first matches: time does not say which one did.
    expect(compare).toHaveBeenCalledTimes(4);
    for (const [a, b] of compare.mock.calls) {
      expect(a.byteLength).toBe(32);
      expect(b.byteLength).toBe(32);
    }
  });

  it('conversion signatures of another length or alphabet are false without reaching the compare or throwing', () => {
    for (const signature of ['', 'ab', 'ab'.repeat(31), 'ab'.repeat(33), 'AB'.repeat(32), 'zz'.repeat(32), `${'ab'.repeat(32)}\n`]) {
      expect(verifyConversionSignature(['whsec_x'], conversion, signature)).toBe(false);
    }
    expect(compare).not.toHaveBeenCalled();
  });

  it('legacy v1 tracked-link MACs: timingSafeEqual on 16-byte buffers; other lengths never reach it', () => {
    const secret = 'link-secret-0123456789-0123456789';
    const signer = new TrackedLinkSigner(Buffer.from(secret));
    const token = signLegacyV1Link(secret, {
      decisionId: 'dec_a',
      snapshotId: 'snp_a',
      appId: 'app_a',
      advertiserId: 'adv.a',
      destination: 'https://a.example/',
      expiresAt: 4_000_000_000,
      test: false,
    });
    expect(signer.verify(token)).not.toBeNull();
    const [v, payload, mac] = token.split('.');
    expect(signer.verify(`${v}.${payload}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`)).toBeNull();
    expect(compare).toHaveBeenCalledTimes(2);
    for (const [a, b] of compare.mock.calls) expect([a.byteLength, b.byteLength]).toEqual([16, 16]);
    compare.mockClear();
    for (const bad of [`${v}.${payload}.${mac.slice(0, 8)}`, `${v}.${payload}.${mac}${mac}`, `${v}.${payload}.`]) {
      expect(signer.verify(bad)).toBeNull();
    }
    expect(compare).not.toHaveBeenCalled();
  });

  it('v2 tracked links: the GCM tag is checked by OpenSSL (constant time); a bad or short tag is null, never a throw', () => {
    const signer = new TrackedLinkSigner(Buffer.from('link-secret-0123456789-0123456789'));
    const token = signer.sign({
      decisionId: 'dec_a',
      snapshotId: 'snp_a',
      appId: 'app_a',
      advertiserId: 'adv.a',
      destination: 'https://a.example/',
      expiresAt: 1,
      test: false,
    });
    expect(signer.verify(token)).not.toBeNull();
    const raw = Buffer.from(token.slice(3), 'base64url');
    const badTag = Buffer.from(raw);
    badTag[badTag.length - 1] ^= 1;
    for (const bad of [
      `v2.${badTag.toString('base64url')}`,
      `v2.${raw.subarray(0, raw.length - 4).toString('base64url')}`,
      `v2.${raw.subarray(0, 30).toString('base64url')}`,
    ]) {
      expect(() => signer.verify(bad)).not.toThrow();
      expect(signer.verify(bad)).toBeNull();
    }
  });
});
