// What the catalog loader (serving thread) and its worker say to each other.
import type { ServingCatalogHead, ServingOfferRow } from './catalog-repository.js';
import type { ToServing } from './catalog-load.js';

export interface LoadWorkerInput {
  /** Set: the worker reads Postgres on a connection of its own. Null: it is fed the rows. */
  databaseUrl: string | null;
  /** Offers per read. */
  batchSize: number;
}

/** What the loader tells its worker: `load` starts a load that the worker reads itself (Postgres);
 *  a fed load (PGlite) is its rows, from `head` to `end`. */
export type ToLoadWorker = { kind: 'load' } | { kind: 'head'; head: ServingCatalogHead } | { kind: 'offers'; rows: ServingOfferRow[] } | { kind: 'end' };

export type ToLoader = ToServing | { kind: 'failed'; name: string; code?: string; message?: string; frames?: string };
