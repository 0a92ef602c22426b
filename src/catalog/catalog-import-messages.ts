// What the import worker (catalog-import-worker.ts) and the importer (catalog-importer.ts) say
// to each other over the worker's message port.
import type { ImportPlan, PreparedOffer } from './catalog-import-plan.js';

export interface WorkerInput {
  /** The catalog file. */
  file: string;
  /** An empty directory for the offers the worker has read; the importer removes it. */
  spoolDir: string;
  /** Offers per batch it hands over. */
  batchSize: number;
}

export type ToImporter =
  | { kind: 'progress'; bytesTotal: number; bytesRead?: number; offersRead?: number; offersChecked?: number }
  /** The file is not JSON. */
  | { kind: 'not_json' }
  /** The catalog has problems: every one, with its path. */
  | { kind: 'invalid'; problems: string[] }
  /** The catalog is good; its offers follow in batches, on request. */
  | { kind: 'valid'; plan: ImportPlan }
  | { kind: 'batch'; offers: PreparedOffer[] }
  | { kind: 'end' }
  /** A bug in the worker: its name and stack frames, never its message. */
  | { kind: 'failed'; name: string; frames: string };

/** The importer asks for the next batch. */
export type ToWorker = { kind: 'next' };
