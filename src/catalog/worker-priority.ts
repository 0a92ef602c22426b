// Catalog work in a worker thread (an import, a load) runs behind the requests being served.
import { setPriority } from 'node:os';

/** On Linux a thread has its own nice value (setpriority with pid 0 means the calling thread):
 *  the worker yields the CPU to the serving thread and Postgres when they want it, and takes the
 *  rest. Elsewhere, or where it is not permitted, it runs at normal priority. */
export function yieldToServing(): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(10);
  } catch {
    // Not permitted here: run at normal priority.
  }
}
