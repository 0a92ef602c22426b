// The embedded default's admin key. With no ADMIN_KEY the admin API does not exist, which on a
// server deployment is the safe default; but on `npm start`'s embedded default it left the
// dashboard and the catalog API closed to the newcomer, with every key refused. So the embedded
// default makes one at its first start and keeps it beside its database, owner-only, as it keeps
// the demo keys: `<data dir>/admin-key`. ADMIN_KEY, when set, is used instead; with DATABASE_URL
// nothing is made.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { base62 } from '../util/ids.js';

export interface EmbeddedAdminKey {
  key: string;
  file: string;
  /** Made at this start (the banner shows it once). */
  created: boolean;
}

const SANE = /^[A-Za-z0-9_-]{24,200}$/;

export async function embeddedAdminKey(dataDir: string): Promise<EmbeddedAdminKey> {
  const file = path.join(dataDir, 'admin-key');
  const kept = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (SANE.test(kept)) return { key: kept, file, created: false };
  // 0700, as the database directory it shares (src/db/private-dir.ts).
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const key = `adm_${base62(randomBytes(24))}`;
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  return { key, file, created: true };
}
