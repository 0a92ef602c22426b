// The app is wired from named plugins (src/app.ts): resources decorate the root and close in the
// reverse of the order they were built; features are encapsulated and name what they need.
// These tests register a feature alone over fakes, refuse a feature whose resources are
// missing, and check that shutdown flushes the writers before the database closes.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import httpConventions from '../../src/http/conventions.js';
import { healthRoutes } from '../../src/health/health-routes.js';
import { decideRoutes } from '../../src/decide/decide-routes.js';
import { buildApp } from '../../src/app.js';
import type { Database } from '../../src/db/database.js';
import type { CounterStore } from '../../src/counters/counter-store.js';
import type { CatalogRuntime } from '../../src/catalog/catalog-runtime.js';
import { testConfig } from '../helpers/test-env.js';

describe('features as plugins', () => {
  it('registers the health feature alone, over fakes of the resources it names', async () => {
    let counterStoreUp = true;
    const app = Fastify();
    await app.register(httpConventions);
    app.decorate('db', { query: async () => ({ rows: [] }) } as unknown as Database);
    app.decorate('counters', {
      ping: async () => {
        if (!counterStoreUp) throw new Error('down');
      },
    } as unknown as CounterStore);
    app.decorate('catalogRuntime', { index: { stats: () => ({ ready: true, offers: 7 }) }, serving: { version: 4 } } as unknown as CatalogRuntime);
    await app.register(healthRoutes);

    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ ok: true, checks: { database: 'ok', counters: 'ok', offer_index: 'ok' }, catalog_version: 4, offers: 7 });
    counterStoreUp = false;
    const degraded = await app.inject({ method: 'GET', url: '/readyz' });
    expect(degraded.statusCode).toBe(503);
    expect(degraded.json().checks.counters).toBe('unavailable');
    await app.close();
  });

  it('refuses to start a feature whose resources are not registered, naming the missing one', async () => {
    const app = Fastify({ logger: false });
    await expect(app.register(decideRoutes)).rejects.toThrow(/decorator 'config' required by 'decide' is not present/);
    await app.close();
  });
});

describe('shutdown order', () => {
  it('stops the catalog, spend and history work and flushes every writer before the database closes', async () => {
    const app = await buildApp(testConfig({ logLevel: 'warn' }));
    await app.ready();
    const order: string[] = [];
    const spy = <T extends object>(target: T, method: keyof T & string, label: string) => {
      const original = (target[method] as (...a: unknown[]) => unknown).bind(target);
      (target as Record<string, unknown>)[method] = (...args: unknown[]) => {
        order.push(label);
        return original(...args);
      };
    };
    spy(app.writers.decisions, 'close', 'decision writer');
    spy(app.writers.events, 'close', 'event writer');
    spy(app.writers.clicks, 'close', 'click writer');
    spy(app.catalogRuntime, 'stop', 'catalog poll');
    spy(app.spend, 'stop', 'spend reconcile');
    spy(app.history, 'stop', 'history upkeep');
    spy(app.db, 'close', 'database');
    await app.close();
    expect(order.at(-1)).toBe('database');
    expect(new Set(order)).toEqual(
      new Set(['decision writer', 'event writer', 'click writer', 'catalog poll', 'spend reconcile', 'history upkeep', 'database']),
    );
  });
});
