-- Served decisions not yet confirmed (migration 011) are kept in a table of their own instead of
-- a flag on the decision row. Confirming a serve updated the wide decision row: a new version
-- of it, a new entry in each of its indexes, and on a day partition not yet analysed a plan that
-- scanned the partition (a hash join against the batch of ids). Under load that UPDATE was the
-- largest cost in Postgres, larger than the insert of the rows themselves (bench/RESULTS.md,
-- issue 34). Now the statement that inserts a served row also inserts its id here, the
-- confirmation deletes it by its key, and the sweep reads this table: only the few serves
-- between their write and their confirmation are ever in it.
CREATE TABLE unconfirmed_serves (
  id         text PRIMARY KEY,
  -- The decision's created_at (the time its id carries), which names its day partition.
  created_at timestamptz NOT NULL
);
CREATE INDEX unconfirmed_serves_created ON unconfirmed_serves (created_at);

INSERT INTO unconfirmed_serves (id, created_at) SELECT id, created_at FROM decisions WHERE unconfirmed;

DROP INDEX decisions_unconfirmed;
ALTER TABLE decisions DROP COLUMN unconfirmed;
