// Counter keys hold ids and hashes only: no user-controlled text reaches Redis (SLOWLOG keeps
// command arguments).
import { describe, expect, it } from 'vitest';
import { COUNTER_TTLS, DEFAULT_KEY_PREFIX, counterKeys, keyHash } from '../../src/counters/keys.js';

describe('counter keys', () => {
  it('builds one namespace per kind from ids', () => {
    const session = keyHash('app_1\u0000session-token');
    expect(counterKeys.frequency(session, 'cmp.coffee-1')).toBe(`fq:${session}:cmp.coffee-1`);
    expect(counterKeys.globalFrequency(session)).toBe(`fs:${session}`);
    expect(counterKeys.spend('cmp.coffee-1')).toBe('sp:cmp.coffee-1');
    expect(counterKeys.clickDedup('dec_abc123')).toBe('cd:dec_abc123');
    expect(counterKeys.rateLimit('GET/v1/decide', '10.0.0.1')).toMatch(/^rl:GET\/v1\/decide:[A-Za-z0-9_-]{22}$/);
    expect(DEFAULT_KEY_PREFIX).toBe('sn:');
    expect(COUNTER_TTLS.nonceMs).toBeGreaterThanOrEqual(600_000);
  });

  it('hashes client-chosen parts always, and any part that is not a plain id', () => {
    const canary = 'CANARY my secret message about debt';
    const keys = [
      counterKeys.idempotency('app_1', canary),
      counterKeys.nonce('app_1', canary),
      counterKeys.rateLimit('decide', canary),
      counterKeys.frequency(canary, canary),
      counterKeys.globalFrequency(canary),
      counterKeys.spend(canary),
      counterKeys.clickDedup(canary),
      counterKeys.clickRate(canary, canary),
      counterKeys.idempotency(canary, 'k'),
    ];
    for (const key of keys) {
      expect(key).not.toContain('CANARY');
      expect(key).not.toContain(' ');
      expect(key).toMatch(/^[a-z]{2}:[A-Za-z0-9._:-]+$/);
    }
    // Even an id-looking idempotency key is hashed: it was chosen by a client.
    expect(counterKeys.idempotency('app_1', 'abc')).toBe(`ik:app_1:${keyHash('abc')}`);
    // Deterministic, so the same request finds the same key.
    expect(counterKeys.idempotency('app_1', canary)).toBe(counterKeys.idempotency('app_1', canary));
    expect(counterKeys.idempotency('app_1', 'a')).not.toBe(counterKeys.idempotency('app_2', 'a'));
  });

  it('keeps keys of different parts apart', () => {
    expect(counterKeys.frequency('s1', 'a:b')).not.toBe(counterKeys.frequency('s1:a', 'b'));
    expect(counterKeys.spend('a')).not.toBe(counterKeys.globalFrequency('a'));
  });
});
