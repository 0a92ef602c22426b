// The batch-insert helper (src/persistence/batch-insert.ts): placeholders numbered from the
// column declaration, and a round trip of every column type through the engine under test
// (PGlite, or Postgres with DATABASE_URL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchInsert, type BatchColumn } from '../../src/persistence/batch-insert.js';
import { createTestDatabase, usingRealPostgres, type TestDatabase } from '../helpers/test-db.js';

interface Row {
  id: string;
  n: number;
  big: number;
  flag: boolean;
  at: Date | null;
  hash: Buffer;
  doc: string;
  tags: string[];
}

const COLUMNS: readonly BatchColumn<Row>[] = [
  { name: 'id', type: 'text', value: (r) => r.id },
  { name: 'n', type: 'int', value: (r) => r.n },
  { name: 'big', type: 'bigint', value: (r) => r.big },
  { name: 'flag', type: 'boolean', value: (r) => r.flag },
  { name: 'at', type: 'timestamptz', value: (r) => r.at },
  { name: 'hash', type: 'bytea', value: (r) => r.hash },
  { name: 'doc', type: 'jsonb', value: (r) => r.doc },
  { name: 'tags', type: 'text[]', value: (r) => r.tags },
];

describe('batchInsert', () => {
  it('numbers one array placeholder per column, and adds the clauses asked for', () => {
    const insert = batchInsert('things', COLUMNS, { onConflict: '(id) DO NOTHING', returning: 'id' });
    expect(insert.sql).toBe(
      [
        'INSERT INTO things (id, n, big, flag, at, hash, doc, tags)',
        "SELECT id, n, big, flag, at, hash, doc, string_to_array(tags, ',')",
        'FROM unnest($1::text[], $2::int[], $3::bigint[], $4::boolean[], $5::timestamptz[], $6::bytea[], $7::jsonb[], $8::text[]) AS batch(id, n, big, flag, at, hash, doc, tags)',
        'ON CONFLICT (id) DO NOTHING',
        'RETURNING id',
      ].join('\n'),
    );
    expect(batchInsert('things', COLUMNS.slice(0, 1)).sql).toBe('INSERT INTO things (id)\nSELECT id\nFROM unnest($1::text[]) AS batch(id)');
  });

  it("names one column's parameter as the statement reads it, for a CTE that reads the same rows", () => {
    const insert = batchInsert('things', COLUMNS);
    expect(['id', 'at', 'tags'].map(insert.param)).toEqual(['$1::text[]', '$5::timestamptz[]', '$8::text[]']);
    expect(() => insert.param('nope')).toThrow(/no column nope/);
  });

  it('sends one array per column: dates as ISO 8601, lists comma-joined', () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    const hash = Buffer.from([1, 2]);
    const params = batchInsert('things', COLUMNS).params([
      { id: 'a', n: 1, big: 2, flag: true, at, hash, doc: '{}', tags: ['x', 'y'] },
      { id: 'b', n: 3, big: 4, flag: false, at: null, hash, doc: '[]', tags: [] },
    ]);
    expect(params).toEqual([
      ['a', 'b'],
      [1, 3],
      [2, 4],
      [true, false],
      [at.toISOString(), null],
      [hash, hash],
      ['{}', '[]'],
      ['x,y', ''],
    ]);
  });

  it('refuses a list element with a comma rather than split it, and names that are not identifiers', () => {
    const insert = batchInsert('things', COLUMNS);
    expect(() => insert.params([{ id: 'a', n: 1, big: 2, flag: true, at: null, hash: Buffer.alloc(0), doc: '{}', tags: ['x,y'] }])).toThrow(/contains a comma/);
    expect(() => batchInsert('things; DROP TABLE x', COLUMNS)).toThrow(/identifier/);
    expect(() => batchInsert('things', [{ name: 'Id', type: 'text', value: () => 1 }])).toThrow(/identifier/);
  });

  describe(`round trip (${usingRealPostgres ? 'Postgres' : 'PGlite'})`, () => {
    let t: TestDatabase;
    beforeAll(async () => {
      t = await createTestDatabase();
      await t.db.exec(`CREATE TABLE things (
        id text PRIMARY KEY, n int, big bigint, flag boolean, at timestamptz, hash bytea, doc jsonb, tags text[] NOT NULL)`);
    });
    afterAll(async () => {
      await t?.drop();
    });

    it('writes every type, keeps conflict handling and returns what RETURNING names', async () => {
      const insert = batchInsert('things', COLUMNS, { onConflict: '(id) DO NOTHING', returning: 'id' });
      const at = new Date('2026-01-02T03:04:05.678Z');
      const rows: Row[] = [
        { id: 'a', n: 1, big: 2 ** 40, flag: true, at, hash: Buffer.from([0, 255]), doc: '{"k":[1]}', tags: ['travel', 'travel.hotels'] },
        { id: 'b', n: -3, big: 0, flag: false, at: null, hash: Buffer.alloc(0), doc: 'null', tags: [] },
      ];
      const first = await t.db.query<{ id: string }>(insert.sql, insert.params(rows));
      expect(first.rows.map((r) => r.id).sort()).toEqual(['a', 'b']);
      // A conflicting row is skipped and not returned; the new one is.
      const second = await t.db.query<{ id: string }>(
        insert.sql,
        insert.params([
          { ...rows[0], n: 9 },
          { ...rows[1], id: 'c' },
        ]),
      );
      expect(second.rows).toEqual([{ id: 'c' }]);
      const stored = await t.db.query<{ id: string; n: number; big: number; flag: boolean; at: Date | null; hash: Uint8Array; doc: unknown; tags: string[] }>(
        'SELECT * FROM things ORDER BY id',
      );
      expect(stored.rows.map((r) => ({ ...r, hash: Buffer.from(r.hash) }))).toEqual([
        { id: 'a', n: 1, big: 2 ** 40, flag: true, at, hash: Buffer.from([0, 255]), doc: { k: [1] }, tags: ['travel', 'travel.hotels'] },
        { id: 'b', n: -3, big: 0, flag: false, at: null, hash: Buffer.alloc(0), doc: null, tags: [] },
        { id: 'c', n: -3, big: 0, flag: false, at: null, hash: Buffer.alloc(0), doc: null, tags: [] },
      ]);
    });
  });
});
