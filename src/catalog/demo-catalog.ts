// The demo catalog shipped in catalog/demo.json, loaded on the embedded default so a fresh
// `npm start` has something real to serve.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import type { CatalogRepository } from './catalog-repository.js';

export const DEMO_CATALOG_PATH = fileURLToPath(new URL('../../catalog/demo.json', import.meta.url));

export async function readDemoCatalog(): Promise<unknown> {
  return JSON.parse(await readFile(DEMO_CATALOG_PATH, 'utf8'));
}

export async function loadDemoCatalog(repo: CatalogRepository, log?: FastifyBaseLogger) {
  const report = await repo.import(await readDemoCatalog());
  log?.info({ version: report.version, offers: report.offers, snapshots: report.snapshots_created }, 'demo catalog imported');
  return report;
}
