// Does a snapshot id exist? Events name snapshots that may be older than the live catalog, so
// the answer comes from the database; positive answers are cached because snapshots are
// immutable and never deleted.
import type { CatalogRepository } from './catalog-repository.js';

const MAX_CACHED = 100_000;

export class SnapshotLookup {
  private readonly known = new Set<string>();

  constructor(private readonly catalog: CatalogRepository) {}

  async exists(snapshotId: string): Promise<boolean> {
    if (this.known.has(snapshotId)) return true;
    if (!(await this.catalog.snapshotExists(snapshotId))) return false;
    if (this.known.size >= MAX_CACHED) this.known.clear();
    this.known.add(snapshotId);
    return true;
  }
}
