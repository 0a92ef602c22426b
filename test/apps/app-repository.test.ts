import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, usingRealPostgres, type TestDatabase } from '../helpers/test-db.js';
import { AppRepository, NotFoundError } from '../../src/apps/app-repository.js';
import { Authenticator } from '../../src/auth/authenticator.js';
import { hashKey } from '../../src/apps/keys.js';
import { DatabaseUnavailable } from '../../src/db/database.js';

describe(`apps and keys (${usingRealPostgres ? 'Postgres' : 'PGlite'})`, () => {
  let t: TestDatabase;
  let apps: AppRepository;
  beforeAll(async () => {
    t = await createTestDatabase();
    apps = new AppRepository(t.db);
  });
  afterAll(() => t.drop());

  it('creates an app with live and test keys and a conversion secret, storing only key hashes', async () => {
    const created = await apps.createApp('Acme Chat');
    expect(created.serving_key).toMatch(/^sk_live_[0-9A-Za-z]{32,}$/);
    expect(created.test_key).toMatch(/^sk_test_[0-9A-Za-z]{32,}$/);
    expect(created.conversion_secret).toMatch(/^whsec_/);
    const rows = await t.db.query<Record<string, unknown>>("SELECT *, encode(key_hash, 'hex') AS key_hash_hex FROM api_keys WHERE app_id = $1", [
      created.app_id,
    ]);
    expect(rows.rows).toHaveLength(2);
    const dump = JSON.stringify(rows.rows);
    expect(dump).not.toContain(created.serving_key);
    expect(dump).not.toContain(created.serving_key.slice(8));
    expect(dump).toContain(hashKey(created.serving_key).toString('hex'));
  });

  it('lists apps with key hints and revokes keys', async () => {
    const created = await apps.createApp('Lister');
    const listed = (await apps.listApps()).find((a) => a.id === created.app_id)!;
    expect(listed.keys.map((k) => k.mode).sort()).toEqual(['live', 'test']);
    expect(listed.keys[0].hint).toMatch(/^sk_(live|test)_.{4}…$/);
    expect(listed.active_conversion_secrets).toBe(1);
    const revoked = await apps.revokeKey(created.serving_key_id);
    expect(revoked.revoked_at).not.toBeNull();
    await expect(apps.revokeKey('key_doesnotexist')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('keeps at most two conversion secrets active across rotations', async () => {
    const created = await apps.createApp('Rotator');
    const r1 = await apps.rotateConversionSecret(created.app_id);
    expect(r1.retired).toEqual([]);
    expect(await apps.activeConversionSecrets(created.app_id)).toEqual([r1.secret, created.conversion_secret]);
    const r2 = await apps.rotateConversionSecret(created.app_id);
    expect(r2.retired).toEqual([created.conversion_secret_id]);
    expect(await apps.activeConversionSecrets(created.app_id)).toEqual([r2.secret, r1.secret]);
    await expect(apps.rotateConversionSecret('app_missing')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('authenticates serving keys and names every failure', async () => {
    const created = await apps.createApp('Auth');
    const setup = await apps.createKey(created.app_id, 'setup');
    expect(setup.key).toMatch(/^st_/);
    const auth = new Authenticator((h) => apps.findKeyByHash(h), 0);
    expect(await auth.authenticate(`Bearer ${created.serving_key}`)).toEqual({
      ok: true,
      principal: { appId: created.app_id, keyId: created.serving_key_id, mode: 'live', exclusions: { categoryIds: [], advertiserIds: [] } },
    });
    expect(await auth.authenticate(`Bearer ${created.test_key}`)).toMatchObject({ ok: true, principal: { mode: 'test' } });
    expect(await auth.authenticate(undefined)).toEqual({ ok: false, error: 'missing_api_key' });
    expect(await auth.authenticate('')).toEqual({ ok: false, error: 'missing_api_key' });
    expect(await auth.authenticate(`Basic ${created.serving_key}`)).toEqual({ ok: false, error: 'invalid_api_key' });
    expect(await auth.authenticate('Bearer')).toEqual({ ok: false, error: 'invalid_api_key' });
    expect(await auth.authenticate('Bearer sk_live_tooshort')).toEqual({ ok: false, error: 'invalid_api_key' });
    expect(await auth.authenticate(`Bearer sk_live_${'x'.repeat(40)}`)).toEqual({ ok: false, error: 'invalid_api_key' });
    expect(await auth.authenticate(`Bearer ${setup.key}`)).toEqual({ ok: false, error: 'setup_token_not_allowed' });
    await apps.revokeKey(created.serving_key_id);
    expect(await auth.authenticate(`Bearer ${created.serving_key}`)).toEqual({ ok: false, error: 'revoked_api_key' });
  });

  it('caches lookups briefly, and falls back to the last answer when the database fails', async () => {
    const created = await apps.createApp('Cache');
    let calls = 0;
    let down = false;
    let now = 1_000;
    const auth = new Authenticator(
      async (h) => {
        calls++;
        if (down) throw new DatabaseUnavailable(new Error('connection refused'));
        return apps.findKeyByHash(h);
      },
      500,
      () => now,
    );
    await auth.authenticate(`Bearer ${created.serving_key}`);
    await auth.authenticate(`Bearer ${created.serving_key}`);
    expect(calls).toBe(1);
    now += 600;
    down = true;
    expect(await auth.authenticate(`Bearer ${created.serving_key}`)).toMatchObject({ ok: true });
    expect(await auth.authenticate(`Bearer ${created.test_key}`)).toEqual({ ok: false, unavailable: true });
  });

  it('does not mistake a bug in the key lookup for an outage', async () => {
    const auth = new Authenticator(async () => {
      throw new TypeError('a bug');
    }, 500);
    await expect(auth.authenticate('Bearer sk_live_0123456789abcdef0123456789abcdef')).rejects.toThrow(TypeError);
  });
});
