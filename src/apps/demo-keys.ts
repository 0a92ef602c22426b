// The demo app's keys on the embedded default: the same live and test key at every start, so a
// key a newcomer exported keeps working. Keys are stored hashed, so the plaintext is kept beside
// the embedded database, in `<data dir>/demo-keys.json` (owner-only), and nowhere on a server
// database: with DATABASE_URL there is no demo. A kept key that no longer works (revoked, or the
// directory's database was replaced) is replaced by a new pair.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { hashKey } from './keys.js';
import type { AppRepository } from './app-repository.js';

export const DEMO_APP_NAME = 'Demo host';

export interface DemoKeys {
  appId: string;
  liveKey: string;
  testKey: string;
  conversionSecret: string | null;
  /** Where they are kept (null in memory). */
  file: string | null;
  /** Made at this start: the banner shows the secrets only then. */
  created: boolean;
}

interface Kept {
  app_id: string;
  live_key: string;
  test_key: string;
}

/** The demo app's live and test keys, kept across starts when `dataDir` is a directory. */
export async function ensureDemoKeys(apps: AppRepository, dataDir: string): Promise<DemoKeys> {
  const file = dataDir === 'memory' ? null : path.join(dataDir, 'demo-keys.json');
  const kept = file ? await readKept(file) : null;
  if (kept && (await works(apps, kept.app_id, kept.live_key, 'live')) && (await works(apps, kept.app_id, kept.test_key, 'test'))) {
    return {
      appId: kept.app_id,
      liveKey: kept.live_key,
      testKey: kept.test_key,
      conversionSecret: (await apps.activeConversionSecrets(kept.app_id))[0] ?? null,
      file,
      created: false,
    };
  }
  const demo = (await apps.listApps()).find((a) => a.name === DEMO_APP_NAME);
  const appId = demo?.id ?? (await apps.createApp(DEMO_APP_NAME)).app_id;
  const live = await apps.createKey(appId, 'serving', 'live');
  const test = await apps.createKey(appId, 'serving', 'test');
  if (file) await writeFile(file, `${JSON.stringify({ app_id: appId, live_key: live.key, test_key: test.key } satisfies Kept, null, 2)}\n`, { mode: 0o600 });
  return { appId, liveKey: live.key, testKey: test.key, conversionSecret: (await apps.activeConversionSecrets(appId))[0] ?? null, file, created: true };
}

async function readKept(file: string): Promise<Kept | null> {
  try {
    const kept = JSON.parse(await readFile(file, 'utf8')) as Partial<Kept>;
    return typeof kept.app_id === 'string' && typeof kept.live_key === 'string' && typeof kept.test_key === 'string' ? (kept as Kept) : null;
  } catch {
    return null; // missing or unreadable: a new pair is made
  }
}

async function works(apps: AppRepository, appId: string, key: string, mode: 'live' | 'test'): Promise<boolean> {
  const found = await apps.findKeyByHash(hashKey(key));
  return found !== null && !found.revoked && found.app_id === appId && found.kind === 'serving' && found.mode === mode;
}
