// One multi-row INSERT for a whole batch: `INSERT INTO t (…) SELECT … FROM unnest($1::text[], …)`,
// one array parameter per column. The parameter count is fixed whatever the batch size, so the
// statement text never changes (both engines plan it once) and no batch outgrows Postgres'
// 65,535-parameter limit. Repositories declare the columns; the placeholders, casts and column
// lists are written here, from that one declaration, so they cannot drift apart.
//
// The same statement runs on `pg` and on PGlite: both send the arrays as parameters of the
// declared element type.

/** Postgres type of a column as it travels. `text[]` is a list of ids or codes: arrays of arrays
 *  cannot go through unnest() (it would flatten them, and ragged ones are refused), so a list
 *  travels as comma-joined text and is split per row on the server with string_to_array, which
 *  is cheaper there than expanding JSON and cheaper here than JSON.stringify. Its elements must
 *  not contain a comma (catalog ids are [a-z0-9._:-], reason codes [A-Z_]); one that does is
 *  refused rather than split. */
export type BatchColumnType = 'text' | 'int' | 'bigint' | 'boolean' | 'timestamptz' | 'bytea' | 'jsonb' | 'text[]';

export interface BatchColumn<Row> {
  /** Column of the table. */
  name: string;
  type: BatchColumnType;
  /** The value of this column for one row. A Date for `timestamptz` (sent as ISO 8601, UTC), a
   *  string array for `text[]`, null for SQL NULL. */
  value: (row: Row) => unknown;
}

export interface BatchInsertClauses {
  /** A condition on the batch's rows (alias `batch`): only those that meet it are inserted. */
  where?: string;
  /** What follows `ON CONFLICT`, e.g. `(id) DO NOTHING`. */
  onConflict?: string;
  /** What follows `RETURNING`, e.g. `id`. */
  returning?: string;
}

export interface BatchInsert<Row> {
  /** The statement; may be embedded in a larger one (a CTE) that passes `params(rows)` first. */
  readonly sql: string;
  /** One array per column, in placeholder order. */
  params(rows: readonly Row[]): unknown[];
  /** One column's array parameter as the statement reads it (`$3::text[]`): for a CTE before
   *  the insert that reads the same rows from the same parameters. */
  param(column: string): string;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

export function batchInsert<Row>(table: string, columns: readonly BatchColumn<Row>[], clauses: BatchInsertClauses = {}): BatchInsert<Row> {
  // Names come from code, never from input; checked so a typo fails at load, not mid-flush.
  for (const name of [table, ...columns.map((c) => c.name)]) {
    if (!IDENTIFIER.test(name)) throw new Error(`batchInsert: not a plain identifier: ${name}`);
  }
  if (columns.length === 0) throw new Error('batchInsert: no columns');
  const names = columns.map((c) => c.name).join(', ');
  const paramOf = columns.map((c, i) => `$${i + 1}::${c.type === 'text[]' ? 'text' : c.type}[]`);
  const arrays = paramOf.join(', ');
  const selected = columns.map((c) => (c.type === 'text[]' ? `string_to_array(${c.name}, ',')` : c.name)).join(', ');
  const sql =
    `INSERT INTO ${table} (${names})\nSELECT ${selected}\nFROM unnest(${arrays}) AS batch(${names})` +
    (clauses.where ? `\nWHERE ${clauses.where}` : '') +
    (clauses.onConflict ? `\nON CONFLICT ${clauses.onConflict}` : '') +
    (clauses.returning ? `\nRETURNING ${clauses.returning}` : '');
  const encoders = columns.map((c) => encoderOf(c));
  return {
    sql,
    params: (rows) => encoders.map((encode) => rows.map(encode)),
    param: (column) => {
      const i = columns.findIndex((c) => c.name === column);
      if (i < 0) throw new Error(`batchInsert: no column ${column}`);
      return paramOf[i];
    },
  };
}

function encoderOf<Row>(c: BatchColumn<Row>): (row: Row) => unknown {
  switch (c.type) {
    case 'timestamptz':
      return (row) => {
        const v = c.value(row);
        return v instanceof Date ? v.toISOString() : v;
      };
    case 'text[]':
      return (row) => {
        const v = c.value(row) as readonly string[] | null;
        return v === null ? null : listText(v, c.name);
      };
    default:
      return c.value;
  }
}

function listText(items: readonly string[], column: string): string {
  for (const item of items) if (item.includes(',')) throw new Error(`list column ${column}: element contains a comma`);
  return items.join(',');
}
