-- Reporting. Campaigns get a display name for operators (reports and the dashboard show the id
-- when it is null); serving never reads it.
ALTER TABLE campaigns ADD COLUMN name text CHECK (length(name) BETWEEN 1 AND 120);

-- Report rollups: what GET /admin/reports and the dashboard read, so that a report costs the
-- same whatever the history holds. They are kept in the statements that write decisions,
-- events, clicks and conversions (src/reporting/report-repository.ts builds that SQL), so they
-- never disagree with the rows. Each figure is kept at two grains: `grain` 60 (one row per
-- minute) for the last hour's minute buckets and the ragged ends of longer ranges, and 1800
-- (one row per half hour) for everything between, which is what 24-hour and 7-day reports
-- mostly read. `at` is the start of the minute or half hour, UTC.
--
-- Decides, fills, spend and the funnel per app and campaign (campaign_id '' for decides that
-- served nothing). Funnel steps count decisions that reached them (counted events only), at the
-- decision's time, as the reports always have.
CREATE TABLE report_rollups (
  grain        smallint NOT NULL CHECK (grain IN (60, 1800)),
  at           timestamptz NOT NULL,
  app_id       text NOT NULL,
  test         boolean NOT NULL,
  campaign_id  text NOT NULL,
  decides      int NOT NULL,
  served       int NOT NULL,
  spend_micros bigint NOT NULL,
  rendered     int NOT NULL,
  qualified    int NOT NULL,
  clicks       int NOT NULL,
  conversions  int NOT NULL,
  PRIMARY KEY (grain, at, app_id, test, campaign_id)
);

-- No-fill reason codes.
CREATE TABLE report_reason_rollups (
  grain   smallint NOT NULL CHECK (grain IN (60, 1800)),
  at      timestamptz NOT NULL,
  app_id  text NOT NULL,
  test    boolean NOT NULL,
  reason  text NOT NULL,
  decides int NOT NULL,
  PRIMARY KEY (grain, at, app_id, test, reason)
);

-- Decide handler latency as a histogram, which merges by addition: bucket b holds latencies in
-- [2^(b/8), 2^((b+1)/8)) microseconds, so a percentile read from it is within 4.4% of the exact
-- one (src/reporting/latency-histogram.ts).
CREATE TABLE report_latency_rollups (
  grain   smallint NOT NULL CHECK (grain IN (60, 1800)),
  at      timestamptz NOT NULL,
  app_id  text NOT NULL,
  test    boolean NOT NULL,
  bucket  smallint NOT NULL,
  decides int NOT NULL,
  PRIMARY KEY (grain, at, app_id, test, bucket)
);

-- Matched categories (kind 'category') and entities (kind 'entity').
CREATE TABLE report_match_rollups (
  grain    smallint NOT NULL CHECK (grain IN (60, 1800)),
  at       timestamptz NOT NULL,
  app_id   text NOT NULL,
  test     boolean NOT NULL,
  kind     text NOT NULL CHECK (kind IN ('category', 'entity')),
  match_id text NOT NULL,
  decides  int NOT NULL,
  PRIMARY KEY (grain, at, app_id, test, kind, match_id)
);

-- Which funnel steps a decision has reached: the first counted event of a step inserts its mark
-- and adds 1 to the rollups, later ones find the mark and add nothing. The primary key makes
-- that exact when two instances record the same decision's events at once. decided_at (the
-- decision's time) lets retention drop marks with the decisions they belong to.
CREATE TABLE report_funnel_marks (
  decision_id text NOT NULL,
  step        text NOT NULL CHECK (step IN ('rendered', 'qualified', 'click', 'conversion')),
  decided_at  timestamptz NOT NULL,
  PRIMARY KEY (decision_id, step)
);

-- Rollups of the history written before this migration, so reports read the same after it.
INSERT INTO report_funnel_marks (decision_id, step, decided_at)
SELECT d.id, s.step, d.created_at
FROM decisions d
CROSS JOIN LATERAL (
  SELECT 'rendered' WHERE EXISTS (SELECT 1 FROM events e WHERE e.decision_id = d.id AND e.type = 'offer_rendered' AND e.counted)
  UNION ALL SELECT 'qualified' WHERE EXISTS (SELECT 1 FROM events e WHERE e.decision_id = d.id AND e.type = 'qualified_impression' AND e.counted)
  UNION ALL SELECT 'click' WHERE EXISTS (SELECT 1 FROM clicks c WHERE c.decision_id = d.id AND c.counted)
  UNION ALL SELECT 'conversion' WHERE EXISTS (SELECT 1 FROM conversions v WHERE v.decision_id = d.id AND NOT v.test)
) AS s(step);

INSERT INTO report_rollups (grain, at, app_id, test, campaign_id, decides, served, spend_micros, rendered, qualified, clicks, conversions)
SELECT g.grain, date_bin(g.grain * interval '1 second', d.created_at, timestamptz '1970-01-01 00:00:00+00'), d.app_id, d.test,
       CASE WHEN d.serve THEN coalesce(d.campaign_id, '') ELSE '' END,
       count(*), count(*) FILTER (WHERE d.serve), sum(d.spend_micros),
       count(*) FILTER (WHERE m.rendered), count(*) FILTER (WHERE m.qualified), count(*) FILTER (WHERE m.click), count(*) FILTER (WHERE m.conversion)
FROM decisions d
CROSS JOIN (VALUES (60), (1800)) AS g(grain)
LEFT JOIN (
  SELECT decision_id, bool_or(step = 'rendered') AS rendered, bool_or(step = 'qualified') AS qualified,
         bool_or(step = 'click') AS click, bool_or(step = 'conversion') AS conversion
  FROM report_funnel_marks GROUP BY 1
) m ON m.decision_id = d.id
GROUP BY 1, 2, 3, 4, 5;

INSERT INTO report_reason_rollups (grain, at, app_id, test, reason, decides)
SELECT g.grain, date_bin(g.grain * interval '1 second', d.created_at, timestamptz '1970-01-01 00:00:00+00'), d.app_id, d.test, r.reason, count(*)
FROM decisions d CROSS JOIN (VALUES (60), (1800)) AS g(grain), unnest(d.reason_codes) AS r(reason)
WHERE NOT d.serve
GROUP BY 1, 2, 3, 4, 5;

INSERT INTO report_latency_rollups (grain, at, app_id, test, bucket, decides)
SELECT g.grain, date_bin(g.grain * interval '1 second', d.created_at, timestamptz '1970-01-01 00:00:00+00'), d.app_id, d.test,
       floor(8 * ln(greatest(d.latency_us, 1)::float8) / ln(2::float8))::smallint, count(*)
FROM decisions d CROSS JOIN (VALUES (60), (1800)) AS g(grain)
GROUP BY 1, 2, 3, 4, 5;

INSERT INTO report_match_rollups (grain, at, app_id, test, kind, match_id, decides)
SELECT g.grain, date_bin(g.grain * interval '1 second', d.created_at, timestamptz '1970-01-01 00:00:00+00'), d.app_id, d.test, x.kind, x.id, count(*)
FROM decisions d CROSS JOIN (VALUES (60), (1800)) AS g(grain),
  LATERAL (SELECT 'category', c FROM unnest(d.matched_category_ids) AS c UNION ALL SELECT 'entity', e FROM unnest(d.matched_entity_ids) AS e) AS x(kind, id)
GROUP BY 1, 2, 3, 4, 5, 6;
