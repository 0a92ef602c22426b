// Deleting many rows a batch at a time (retention of keys, nonces and report rollups): one long
// DELETE would hold its locks and bloat the WAL in one go; batches of `batch` rows keep each
// statement short. The statement deletes at most `LIMIT $n` rows, its last parameter.
import type { Queryable } from '../db/database.js';

/** Runs `statement` (whose last parameter is the batch size) until it deletes fewer rows than a
 *  batch; returns how many it deleted in all. */
export async function deleteInBatches(db: Queryable, statement: string, params: readonly unknown[], batch = 10_000): Promise<number> {
  let deleted = 0;
  for (;;) {
    const r = await db.query(statement, [...params, batch]);
    deleted += r.rowCount;
    if (r.rowCount < batch) return deleted;
  }
}
