// Starts the catalog's worker threads (the import worker, the catalog loader's worker). In dist/
// a worker is the compiled file next to this one. Running from the TypeScript source (tests,
// `npm run cli` before a build), it is the compiled file when dist/ is current, else the source
// loaded through tsx's loader (which costs each worker about half a second).
import { Worker, type ResourceLimits } from 'node:worker_threads';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { compiledBuildIsCurrent, ROOT } from '../util/compiled-build.js';

const SOURCE = import.meta.url.endsWith('.ts');

/** `file`: the worker's module in this folder, without its extension. */
export function startCatalogWorker(file: string, workerData: unknown, resourceLimits: ResourceLimits): Worker {
  if (!SOURCE) return new Worker(new URL(`./${file}.js`, import.meta.url), { workerData, resourceLimits });
  if (compiledBuildIsCurrent()) return new Worker(pathToFileURL(path.join(ROOT, 'dist/catalog', `${file}.js`)), { workerData, resourceLimits });
  const url = new URL(`./${file}.ts`, import.meta.url);
  const tsx = import.meta.resolve('tsx/esm/api');
  const code = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(code, { eval: true, workerData, resourceLimits });
}
