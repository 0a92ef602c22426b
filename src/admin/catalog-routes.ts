// The catalog in the operator API: export, import (synchronous, `PUT /admin/catalog`) and import
// jobs (`POST /admin/catalog/imports`, `GET /admin/catalog/imports/{id}`). Registered inside the
// admin plugin, so its key check runs first.
//
// Both imports take the body as a stream, stored to a temporary file as it arrives (up to
// CATALOG_IMPORT_MAX_BYTES) and parsed on a worker thread: this context replaces the JSON parser
// with one that hands the handler the stream, so a catalog of hundreds of megabytes is never one
// string on the serving event loop (src/catalog/catalog-import-jobs.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { sendError } from '../http/errors.js';
import { paramsSchema, requestBody, response } from '../http/openapi.js';
import { ADMIN_KEY_ERRORS, errorResponse } from '../http/error-responses.js';
import { Catalog } from '../catalog/catalog-schema.js';
import type { ImportJobRow } from '../catalog/catalog-import-jobs.js';
import { ImportJob, ImportJobIdParam, ImportReport } from './admin-schemas.js';
import { ADMIN_EXAMPLES as EX } from './admin-examples.js';
import { feature } from '../http/feature.js';
import type { ZodSchemas } from '../http/validation.js';

/** The body as this plugin's parser leaves it: the request stream, which the importers read
 *  themselves; absent when the request had none. */
function bodyStream(req: FastifyRequest): Readable | undefined {
  if (req.body === undefined || req.body === null) return undefined;
  if (req.body instanceof Readable) return req.body;
  throw new Error('a catalog body came through a parser other than the stream parser');
}

const tags = ['admin'];
const security = [{ adminKey: [] }];

const CATALOG_BODY_ERRORS = {
  413: errorResponse('The catalog is larger than CATALOG_IMPORT_MAX_BYTES (1 GiB by default).', [{ error: 'payload_too_large' }]),
  415: errorResponse('The body is not `application/json`.', [{ error: 'unsupported_media_type' }]),
};
const IN_PROGRESS = {
  409: errorResponse('Another catalog import is running (one at a time, across instances); `job_id` names it when it is a job.', [
    { error: 'import_in_progress', extra: { job_id: 'imp_2Lq8Vn4Xc6Bz0Mw2Er4Ty6' } },
  ]),
};
/** The body of an import job: a catalog file (as PUT /admin/catalog takes), checked by the job. */
const CatalogFile = z
  .looseObject({})
  .describe(
    'A catalog file, in the shape PUT /admin/catalog takes (catalog/catalog.schema.json). Only its being a JSON object is checked before the 202; the job checks the rest and lists every problem, with its JSON path, in its `error`.',
  );
const NOT_JSON = {
  name: 'not_json',
  error: 'invalid_request',
  summary: 'Not JSON · 올바른 JSON이 아님',
  extra: { message: 'the catalog is not valid JSON' },
} as const;
const NOT_OBJECT = {
  name: 'not_object',
  error: 'invalid_request',
  summary: 'Not a JSON object · JSON 객체가 아님',
  extra: { message: 'the catalog is not a JSON object' },
} as const;
const EMPTY = { name: 'empty', error: 'invalid_request', summary: 'Empty body · 빈 본문', extra: { message: 'the catalog is empty' } } as const;

async function catalog(plain: FastifyInstance) {
  const app = plain.withTypeProvider<ZodSchemas>();
  const { catalogImports } = app;
  const { catalog } = app.repositories;

  // The importers read the body themselves, as a stream.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (_request: FastifyRequest, payload: Readable, done: (err: Error | null, body?: unknown) => void) =>
    done(null, payload),
  );

  app.get(
    '/catalog',
    {
      schema: {
        tags,
        security,
        summary: 'Export the catalog being served',
        response: { 200: response(Catalog, 'The catalog, every default filled in.', EX.catalog), ...ADMIN_KEY_ERRORS },
      },
    },
    async () => catalog.export(),
  );

  app.put(
    '/catalog',
    {
      schema: {
        tags,
        security,
        summary: 'Import a catalog and wait for the result; every instance serves it within CATALOG_POLL_MS',
        description:
          'The same import as `POST /admin/catalog/imports` (checked on a worker thread, written in one transaction), answered when it has finished: for scripts and small catalogs. Large catalogs are better imported as a job.',
        body: requestBody(Catalog, EX.catalogRequest, { validatedBy: 'handler' }),
        response: {
          200: response(ImportReport, 'Imported (or unchanged).', EX.importReport),
          400: errorResponse(
            'The catalog failed validation (`invalid_catalog`, with every problem and its path), or the body is not a JSON object (`invalid_request`).',
            [{ error: 'invalid_catalog', extra: { problems: ['campaigns[0].advertiser_id: unknown advertiser "haneul"'] } }, NOT_JSON, NOT_OBJECT, EMPTY],
          ),
          ...ADMIN_KEY_ERRORS,
          ...IN_PROGRESS,
          ...CATALOG_BODY_ERRORS,
        },
      },
    },
    async (req) => catalogImports.importToEnd(bodyStream(req)),
  );

  app.post(
    '/catalog/imports',
    {
      schema: {
        tags,
        security,
        summary: 'Start a catalog import job; answers 202 once the file is stored',
        description:
          'The catalog is stored as it arrives, then read, checked and written in the background; `GET /admin/catalog/imports/{id}` (on any instance) follows it. A file that is not JSON or fails its checks makes the job fail with every problem listed, and writes nothing. One import runs at a time.',
        // What is checked before the 202 is only that the body is a JSON object; the catalog's
        // schema is the job's to check (the file may be a gigabyte), so that is what is published.
        body: requestBody(CatalogFile, EX.catalogRequest, { validatedBy: 'handler' }),
        response: {
          202: response(ImportJob, 'Accepted: the job, queued. `Location` is its address.', EX.importJobAccepted, {
            location: { description: 'The job: `/admin/catalog/imports/{id}`.', type: 'string' },
          }),
          400: errorResponse("The body is empty or not a JSON object (what can be told at once; anything else is the job's to find).", [NOT_OBJECT, EMPTY]),
          ...ADMIN_KEY_ERRORS,
          ...IN_PROGRESS,
          ...CATALOG_BODY_ERRORS,
        },
      },
    },
    async (req, reply) => {
      const job = await catalogImports.start(bodyStream(req));
      return reply.code(202).header('location', `${app.prefix}/catalog/imports/${job.id}`).send(importJob(job));
    },
  );

  app.get(
    '/catalog/imports/:id',
    {
      schema: {
        tags,
        security,
        summary: 'A catalog import job: its state, progress, and its report or problems',
        params: paramsSchema(ImportJobIdParam),
        response: {
          200: response(ImportJob, 'The job as it stands.', EX.importJob),
          400: errorResponse('The id is not an import job id.', [
            { error: 'invalid_request', summary: 'Malformed id · 잘못된 id 형식', extra: { message: 'params failed validation: id' } },
          ]),
          ...ADMIN_KEY_ERRORS,
          404: errorResponse('No import job with this id (finished jobs are kept 30 days).', [{ error: 'not_found' }]),
        },
      },
    },
    async (req, reply) => {
      const job = await catalogImports.get(req.params.id);
      if (!job) return sendError(reply, 'not_found');
      return importJob(job);
    },
  );
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** A job record as the API shows it. */
function importJob(j: ImportJobRow): z.infer<typeof ImportJob> {
  return {
    id: j.id,
    state: j.state,
    created_at: new Date(j.created_at).toISOString(),
    started_at: iso(j.started_at),
    validated_at: iso(j.validated_at),
    finished_at: iso(j.finished_at),
    updated_at: new Date(j.updated_at).toISOString(),
    progress: {
      bytes_total: Number(j.bytes_total),
      bytes_read: Number(j.bytes_read),
      offers_read: Number(j.offers_read),
      offers_checked: Number(j.offers_checked),
      offers_total: j.offers_total === null ? null : Number(j.offers_total),
      offers_written: Number(j.offers_written),
    },
    // Recorded when the catalog commits; shown once the job reads succeeded.
    report: j.state === 'succeeded' ? j.report : null,
    error: j.failure ? { ok: false, ...j.failure } : null,
  };
}

export const catalogRoutes = feature(catalog, { name: 'catalog', needs: ['repositories', 'catalogImports'] });
