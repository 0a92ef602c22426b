import { describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config/config.js';

describe('config', () => {
  it('has defaults that run on a fresh machine', () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.databaseUrl).toBeUndefined();
    expect(c.redisUrl).toBeUndefined();
    expect(c.decideTimeBudgetMs).toBe(50);
    expect(c.decideRateLimitPerMinute).toBe(60);
    expect(c.trustedProxies).toEqual([]);
  });

  it('reads typed values from the environment', () => {
    const c = loadConfig({ PORT: '8080', DECIDE_TIME_BUDGET_MS: '75', TRUSTED_PROXIES: '10.0.0.1, 10.0.0.2', LOAD_DEMO_CATALOG: 'false' });
    expect(c.port).toBe(8080);
    expect(c.decideTimeBudgetMs).toBe(75);
    expect(c.trustedProxies).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(c.loadDemoCatalog).toBe(false);
  });

  it('names the environment variable of every bad value', () => {
    expect(() => loadConfig({ PORT: 'eighty', ADMIN_KEY: 'short' })).toThrow(ConfigError);
    try {
      loadConfig({ PORT: 'eighty', ADMIN_KEY: 'short' });
    } catch (err) {
      expect((err as Error).message).toContain('PORT');
      expect((err as Error).message).toContain('ADMIN_KEY');
    }
  });

  it('keeps decisions at least as long as a conversion may name them', () => {
    expect(loadConfig({}).decisionsRetentionDays).toBe(90);
    expect(() => loadConfig({ DECISIONS_RETENTION_DAYS: '30' })).toThrow(/DECISIONS_RETENTION_DAYS/);
    expect(loadConfig({ DECISIONS_RETENTION_DAYS: '31' }).decisionsRetentionDays).toBe(31);
    expect(loadConfig({ DECISIONS_RETENTION_DAYS: '0' }).decisionsRetentionDays).toBe(0);
    expect(() => loadConfig({ IDEMPOTENCY_KEY_RETENTION_DAYS: '0' })).toThrow(/IDEMPOTENCY_KEY_RETENTION_DAYS/);
  });
});
