// A client's rate-limit identity, remembered per address: the same keyed hash as computed afresh,
// IPv6 grouped by its prefix, and still right after a flood of addresses has started the memo
// over (src/http/rate-limit.ts, clientIdentities).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clientIdentities, clientIdentity } from '../../src/http/rate-limit.js';

describe('client identities', () => {
  const key = randomBytes(32);
  const identityOf = clientIdentities(key, 64);

  it('is the keyed hash of the address, never the address', () => {
    for (const ip of ['203.0.113.7', '::ffff:203.0.113.7', '2001:db8:1:2:3:4:5:6']) {
      expect(identityOf(ip)).toBe(clientIdentity(key, ip, 64));
      expect(identityOf(ip)).toBe(clientIdentity(key, ip, 64));
      expect(identityOf(ip)).not.toContain(ip);
    }
    // One subscriber's /64 is one client; another key, another identity.
    expect(identityOf('2001:db8:1:2:aaaa::1')).toBe(identityOf('2001:db8:1:2:bbbb::2'));
    expect(identityOf('2001:db8:1:3::1')).not.toBe(identityOf('2001:db8:1:2::1'));
    expect(clientIdentities(randomBytes(32), 64)('203.0.113.7')).not.toBe(identityOf('203.0.113.7'));
  });

  it('answers the same after a flood of distinct addresses', () => {
    const before = identityOf('198.51.100.20');
    for (let i = 0; i < 25_000; i++) identityOf(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    expect(identityOf('198.51.100.20')).toBe(before);
    expect(identityOf('10.0.1.2')).toBe(clientIdentity(key, '10.0.1.2', 64));
  });
});
