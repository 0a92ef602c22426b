-- History rows (decisions, events, conversions, affiliate impressions) keep no foreign keys.
--
-- Each of these tables is append-only and written in group-commit batches on the hot path. A
-- foreign key costs every inserted row a lookup of the referenced row under a FOR KEY SHARE lock
-- (one per row, run by a trigger): with every decide of an app naming the same `apps` row, that
-- is a lock taken thousands of times a second on one row. Measured with `npm run bench`
-- (decide at 50 connections, Postgres + Redis): 45–49 µs of Postgres CPU per decide with the two
-- keys on decisions, 36–38 µs without (bench/RESULTS.md, "Issue 16, third slice").
--
-- The references still hold, by construction rather than by check:
-- - `app_id` is the app of the serving key that authenticated the request (or of the decision
--   an event names), read from `apps`;
-- - `offer_snapshot_id` is a snapshot of the loaded catalog or of the decision being reported on;
-- - nothing deletes from `apps` or `offer_snapshots` (snapshots are immutable and kept for as
--   long as history may name them; an app's keys are revoked, the app itself is never deleted). A test holds the code to
--   that (test/db/history-references.test.ts).
ALTER TABLE decisions DROP CONSTRAINT decisions_app_id_fkey;
ALTER TABLE decisions DROP CONSTRAINT decisions_offer_snapshot_id_fkey;
ALTER TABLE events DROP CONSTRAINT events_app_id_fkey;
ALTER TABLE events DROP CONSTRAINT events_offer_snapshot_id_fkey;
ALTER TABLE conversions DROP CONSTRAINT conversions_app_id_fkey;
ALTER TABLE conversions DROP CONSTRAINT conversions_offer_snapshot_id_fkey;
ALTER TABLE affiliate_impressions DROP CONSTRAINT affiliate_impressions_app_id_fkey;
ALTER TABLE affiliate_impressions DROP CONSTRAINT affiliate_impressions_offer_snapshot_id_fkey;
