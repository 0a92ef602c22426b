// The settings table: values the instances sharing a database must agree on, kept in the
// database rather than in each process' environment.
import type { Database } from '../db/database.js';

const LINK_SIGNING_SECRET = 'link_signing_secret';

export class SettingsRepository {
  constructor(private readonly db: Database) {}

  /** The link-signing secret every instance uses. `candidate` is stored if none is yet; when
   *  instances start together the first insert wins and all read the same value back. */
  async linkSigningSecret(candidate: string): Promise<string> {
    await this.db.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [LINK_SIGNING_SECRET, candidate]);
    const r = await this.db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [LINK_SIGNING_SECRET]);
    return r.rows[0].value;
  }
}
