-- The millisecond a decision id carries (src/util/ids.ts `decisionIdTime`), as the timestamptz
-- its decision is recorded at, or NULL for an id made before ids carried one.
--
-- History is partitioned by day on created_at, and a decision's row is written with exactly the
-- time its id carries. Statements that reach decisions from rows naming them (the report funnel
-- folds of events, clicks and conversions) join on (id, decision_id_time(id)): the primary key
-- (id, created_at) and one partition, instead of probing the id's index in every day kept.
--
-- Exact: the milliseconds (< 2^53) times 1000 microseconds stay below 2^53, so the float
-- arithmetic of interval * float8 loses nothing (a test compares it with the TypeScript decoder).
CREATE FUNCTION decision_id_time(id text) RETURNS timestamptz
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
  SELECT CASE WHEN id ~ '^dec_[0-9A-Za-z]{30}$' THEN
    timestamptz '1970-01-01 00:00:00+00' + interval '1 millisecond' * (
      SELECT sum((strpos('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', substr(id, 4 + i, 1)) - 1)::float8 * (62::float8 ^ (8 - i)))
      FROM generate_series(1, 8) AS i
    )
  END
$$;
