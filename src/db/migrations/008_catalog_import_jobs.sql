-- Catalog imports at scale (src/catalog/catalog-importer.ts, docs/scaling.md "Catalog imports").

-- The catalog version of the last import that listed the offer. An import writes its offers in
-- batches and then archives those it did not stamp, instead of sending every id in one list.
ALTER TABLE offers ADD COLUMN catalog_version bigint;

-- Imports run as jobs through the admin API: any instance answers for a job, and a job whose
-- runner is gone (a restart, a crash) reads as failed instead of running for ever.
CREATE TABLE catalog_import_jobs (
  id              text PRIMARY KEY CHECK (id ~ '^imp_[A-Za-z0-9]+$'),
  state           text NOT NULL CHECK (state IN ('queued', 'validating', 'writing', 'succeeded', 'failed')),
  bytes_total     bigint NOT NULL,
  bytes_read      bigint NOT NULL DEFAULT 0,
  offers_read     bigint NOT NULL DEFAULT 0,
  offers_checked  bigint NOT NULL DEFAULT 0,
  -- Known once the file is checked.
  offers_total    bigint,
  offers_written  bigint NOT NULL DEFAULT 0,
  -- The import report once it succeeded.
  report          jsonb,
  -- Why it failed, as an error body ({ error, problems | message }).
  failure         jsonb,
  -- Who runs it: a process-unique id, and on Postgres the backend that holds the import lock
  -- (its session ends with the process, and with it the lock: how other instances tell).
  runner          text NOT NULL,
  runner_pid      int,
  created_at      timestamptz NOT NULL DEFAULT now(),
  started_at      timestamptz,
  validated_at    timestamptz,
  finished_at     timestamptz,
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX catalog_import_jobs_unfinished ON catalog_import_jobs (created_at) WHERE state IN ('queued', 'validating', 'writing');
CREATE INDEX catalog_import_jobs_finished ON catalog_import_jobs (finished_at) WHERE finished_at IS NOT NULL;
