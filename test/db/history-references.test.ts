// History rows name apps and offer snapshots without foreign keys (migration 010: a key costs
// each hot-path insert a locked lookup). What keeps the references sound instead: the rows they
// name are never deleted, and no code changes their ids. This file holds the schema and the code
// to that, on the engine under test.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, usingRealPostgres, type TestDatabase } from '../helpers/test-env.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));
const HISTORY = ['decisions', 'events', 'clicks', 'conversions', 'affiliate_impressions', 'click_intents'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.(ts|sql)$/.test(name) ? [p] : [];
  });
}

describe(`history references (${usingRealPostgres ? 'Postgres' : 'PGlite'})`, () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.drop());

  it('history tables keep no foreign keys: an insert takes no lock on apps or snapshots', async () => {
    const r = await t.db.query<{ table_name: string; constraint_name: string }>(
      `SELECT conrelid::regclass::text AS table_name, conname AS constraint_name
       FROM pg_constraint WHERE contype = 'f' AND conrelid::regclass::text = ANY($1::text[])`,
      [HISTORY],
    );
    expect(r.rows).toEqual([]);
  });

  it('nothing deletes an app or an offer snapshot, nor changes their ids', () => {
    // An UPDATE's SET list, up to its WHERE: `UPDATE apps SET name = $2 WHERE id = $1` sets no id.
    const offending =
      /\b(DELETE\s+FROM|TRUNCATE(\s+TABLE)?)\s+(apps|offer_snapshots)\b|\bUPDATE\s+(apps|offer_snapshots)\b[^;]*?\bSET\b(?:(?!\bWHERE\b)[^;])*?\bid\s*=/i;
    expect(offending.test('UPDATE apps SET id = $2 WHERE id = $1')).toBe(true);
    expect(offending.test('UPDATE offer_snapshots SET content = $2, id = $3 WHERE id = $1')).toBe(true);
    expect(offending.test('DELETE FROM apps WHERE id = $1')).toBe(true);
    expect(offending.test('UPDATE apps SET blocked_category_ids = $2 WHERE id = $1 RETURNING id')).toBe(false);
    const found = sourceFiles(SRC)
      .filter((f) => !/[/\\]migrations[/\\]00\d_/.test(f)) // migrations before 010 ran while the keys still held
      .filter((f) => offending.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(SRC, f));
    expect(found).toEqual([]);
  });
});
