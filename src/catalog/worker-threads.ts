// Starts the catalog's worker threads (the import worker, the catalog loader's worker). Under tsx
// (tests, `npm run cli` before a build) a worker is the TypeScript source, loaded through tsx's
// loader; in dist/ it is the compiled file next to this one.
import { Worker, type ResourceLimits } from 'node:worker_threads';

const SOURCE = import.meta.url.endsWith('.ts');

/** `file`: the worker's module in this folder, without its extension. */
export function startCatalogWorker(file: string, workerData: unknown, resourceLimits: ResourceLimits): Worker {
  const url = new URL(`./${file}${SOURCE ? '.ts' : '.js'}`, import.meta.url);
  if (!SOURCE) return new Worker(url, { workerData, resourceLimits });
  const tsx = import.meta.resolve('tsx/esm/api');
  const code = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(code, { eval: true, workerData, resourceLimits });
}
