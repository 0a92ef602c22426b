// Apps, their keys and conversion secrets: the SQL behind the CLI and the admin API.
import type { Database, Queryable } from '../db/database.js';
import { newId } from '../util/ids.js';
import { generateConversionSecret, generateKey, hashKey, keyHint, type KeyKind, type KeyMode } from './keys.js';
import { Refusal } from '../errors/error-registry.js';

export interface CreatedApp {
  app_id: string;
  name: string;
  /** Shown once; only its hash is stored. */
  serving_key: string;
  serving_key_id: string;
  test_key: string;
  test_key_id: string;
  conversion_secret: string;
  conversion_secret_id: string;
}

export interface KeyRecord {
  id: string;
  app_id: string;
  kind: KeyKind;
  mode: KeyMode;
  hint: string;
  created_at: string;
  revoked_at: string | null;
}

export interface AppSummary {
  id: string;
  name: string;
  created_at: string;
  keys: KeyRecord[];
  active_conversion_secrets: number;
}

/** What a host never wants beside its answers: offers in these catalog categories (or below
 *  them) or from these advertisers. Ids as the catalog names them. */
export interface BrandSafety {
  blocked_category_ids: string[];
  blocked_advertiser_ids: string[];
  /** When the settings last changed; null when never set. */
  updated_at: string | null;
}

/** A key as authentication sees it, with its app's exclusions: both are read on every decide
 *  and cached together, so a change to either reaches every instance within the key cache's
 *  second. */
export interface KeyLookup {
  key_id: string;
  app_id: string;
  kind: KeyKind;
  mode: KeyMode;
  revoked: boolean;
  blocked_category_ids: string[];
  blocked_advertiser_ids: string[];
}

/** No app or key with this id: answered 404 not_found. */
export class NotFoundError extends Refusal {
  constructor(message: string) {
    super('not_found', {}, message);
  }
}

export const MAX_ACTIVE_CONVERSION_SECRETS = 2;

export class AppRepository {
  constructor(private readonly db: Database) {}

  async createApp(name: string): Promise<CreatedApp> {
    return this.db.transaction(async (tx) => {
      const appId = newId('app');
      await tx.query('INSERT INTO apps (id, name) VALUES ($1, $2)', [appId, name]);
      const live = await insertKey(tx, appId, 'serving', 'live');
      const test = await insertKey(tx, appId, 'serving', 'test');
      const secret = await insertSecret(tx, appId);
      return {
        app_id: appId,
        name,
        serving_key: live.key,
        serving_key_id: live.id,
        test_key: test.key,
        test_key_id: test.id,
        conversion_secret: secret.secret,
        conversion_secret_id: secret.id,
      };
    });
  }

  async createKey(appId: string, kind: KeyKind, mode: KeyMode = 'live'): Promise<{ id: string; key: string }> {
    await this.requireApp(this.db, appId);
    return insertKey(this.db, appId, kind, mode);
  }

  /** Some app's id, or null when there is none yet (the start's warm-up needs one). */
  async anyAppId(): Promise<string | null> {
    const r = await this.db.query<{ id: string }>('SELECT id FROM apps LIMIT 1');
    return r.rows[0]?.id ?? null;
  }

  async listApps(): Promise<AppSummary[]> {
    const apps = await this.db.query<{ id: string; name: string; created_at: Date }>('SELECT id, name, created_at FROM apps ORDER BY created_at, id');
    const keys = await this.db.query<KeyRow>('SELECT id, app_id, kind, mode, key_hint, created_at, revoked_at FROM api_keys ORDER BY created_at, id');
    const secrets = await this.db.query<{ app_id: string; n: number }>(
      'SELECT app_id, count(*)::int AS n FROM conversion_secrets WHERE retired_at IS NULL GROUP BY app_id',
    );
    const secretCount = new Map(secrets.rows.map((r) => [r.app_id, r.n]));
    return apps.rows.map((a) => ({
      id: a.id,
      name: a.name,
      created_at: a.created_at.toISOString(),
      keys: keys.rows.filter((k) => k.app_id === a.id).map(toKeyRecord),
      active_conversion_secrets: secretCount.get(a.id) ?? 0,
    }));
  }

  async revokeKey(keyId: string): Promise<KeyRecord> {
    const r = await this.db.query<KeyRow>(
      `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1
       RETURNING id, app_id, kind, mode, key_hint, created_at, revoked_at`,
      [keyId],
    );
    if (r.rows.length === 0) throw new NotFoundError(`no key ${keyId}`);
    return toKeyRecord(r.rows[0]);
  }

  /** Adds a new secret; when two are already active the oldest is retired, so hosts always
   *  have a window in which both the old and the new secret verify. */
  async rotateConversionSecret(appId: string): Promise<{ id: string; secret: string; retired: string[] }> {
    return this.db.transaction(async (tx) => {
      await this.requireApp(tx, appId);
      const active = await tx.query<{ id: string }>(
        `SELECT id FROM conversion_secrets WHERE app_id = $1 AND retired_at IS NULL
         ORDER BY created_at DESC, id DESC FOR UPDATE`,
        [appId],
      );
      const retire = active.rows.slice(MAX_ACTIVE_CONVERSION_SECRETS - 1).map((r) => r.id);
      if (retire.length > 0) {
        await tx.query('UPDATE conversion_secrets SET retired_at = now() WHERE id = ANY($1::text[])', [retire]);
      }
      const created = await insertSecret(tx, appId);
      return { ...created, retired: retire };
    });
  }

  async activeConversionSecrets(appId: string): Promise<string[]> {
    const r = await this.db.query<{ secret: string }>(
      `SELECT secret FROM conversion_secrets WHERE app_id = $1 AND retired_at IS NULL
       ORDER BY created_at DESC LIMIT ${MAX_ACTIVE_CONVERSION_SECRETS}`,
      [appId],
    );
    return r.rows.map((x) => x.secret);
  }

  async findKeyByHash(hash: Buffer): Promise<KeyLookup | null> {
    const r = await this.db.query<{
      id: string;
      app_id: string;
      kind: KeyKind;
      mode: KeyMode;
      revoked_at: Date | null;
      blocked_category_ids: string[];
      blocked_advertiser_ids: string[];
    }>(
      `SELECT k.id, k.app_id, k.kind, k.mode, k.revoked_at, a.blocked_category_ids, a.blocked_advertiser_ids
       FROM api_keys k JOIN apps a ON a.id = k.app_id WHERE k.key_hash = $1`,
      [hash],
    );
    const k = r.rows[0];
    return k
      ? {
          key_id: k.id,
          app_id: k.app_id,
          kind: k.kind,
          mode: k.mode,
          revoked: k.revoked_at !== null,
          blocked_category_ids: k.blocked_category_ids,
          blocked_advertiser_ids: k.blocked_advertiser_ids,
        }
      : null;
  }

  async brandSafety(appId: string): Promise<BrandSafety> {
    const r = await this.db.query<{ blocked_category_ids: string[]; blocked_advertiser_ids: string[]; brand_safety_updated_at: Date | null }>(
      'SELECT blocked_category_ids, blocked_advertiser_ids, brand_safety_updated_at FROM apps WHERE id = $1',
      [appId],
    );
    const a = r.rows[0];
    if (!a) throw new NotFoundError(`no app ${appId}`);
    return toBrandSafety(a);
  }

  /** Replaces the app's exclusions (sorted, without duplicates). */
  async setBrandSafety(appId: string, categoryIds: readonly string[], advertiserIds: readonly string[]): Promise<BrandSafety> {
    const r = await this.db.query<{ blocked_category_ids: string[]; blocked_advertiser_ids: string[]; brand_safety_updated_at: Date | null }>(
      `UPDATE apps SET blocked_category_ids = $2::text[], blocked_advertiser_ids = $3::text[], brand_safety_updated_at = now()
       WHERE id = $1 RETURNING blocked_category_ids, blocked_advertiser_ids, brand_safety_updated_at`,
      [appId, [...new Set(categoryIds)].sort(), [...new Set(advertiserIds)].sort()],
    );
    const a = r.rows[0];
    if (!a) throw new NotFoundError(`no app ${appId}`);
    return toBrandSafety(a);
  }

  private async requireApp(q: Queryable, appId: string): Promise<void> {
    const r = await q.query('SELECT 1 FROM apps WHERE id = $1', [appId]);
    if (r.rows.length === 0) throw new NotFoundError(`no app ${appId}`);
  }
}

function toBrandSafety(a: { blocked_category_ids: string[]; blocked_advertiser_ids: string[]; brand_safety_updated_at: Date | null }): BrandSafety {
  return {
    blocked_category_ids: a.blocked_category_ids,
    blocked_advertiser_ids: a.blocked_advertiser_ids,
    updated_at: a.brand_safety_updated_at?.toISOString() ?? null,
  };
}

interface KeyRow {
  id: string;
  app_id: string;
  kind: KeyKind;
  mode: KeyMode;
  key_hint: string;
  created_at: Date;
  revoked_at: Date | null;
}

function toKeyRecord(k: KeyRow): KeyRecord {
  return {
    id: k.id,
    app_id: k.app_id,
    kind: k.kind,
    mode: k.mode,
    hint: k.key_hint,
    created_at: k.created_at.toISOString(),
    revoked_at: k.revoked_at ? k.revoked_at.toISOString() : null,
  };
}

async function insertKey(q: Queryable, appId: string, kind: KeyKind, mode: KeyMode) {
  const key = generateKey(kind, mode);
  const id = newId('key');
  await q.query('INSERT INTO api_keys (id, app_id, kind, mode, key_hash, key_hint) VALUES ($1, $2, $3, $4, $5, $6)', [
    id,
    appId,
    kind,
    kind === 'setup' ? 'live' : mode,
    hashKey(key),
    keyHint(key),
  ]);
  return { id, key };
}

async function insertSecret(q: Queryable, appId: string) {
  const secret = generateConversionSecret();
  const id = newId('csec');
  await q.query('INSERT INTO conversion_secrets (id, app_id, secret) VALUES ($1, $2, $3)', [id, appId, secret]);
  return { id, secret };
}
