-- Conversions counted on the day they happened. The funnel (report_rollups.conversions) counts a
-- decision that converted at the decision's time, so a cohort reads decide → … → conversion;
-- an advertiser reconciling a day's sales wants each conversion at its own time instead (its
-- event_time, else when it was received), however long after the decision it came. This rollup
-- counts conversions that way, every conversion (a decision converted twice counts twice), keyed
-- like the other rollups: by the conversion's app and test flag, and the campaign of the
-- decision it names ('' when it names none). The conversion's writer keeps it in the statement
-- that inserts the conversion (src/reporting/report-repository.ts, foldConversions).
CREATE TABLE report_conversion_rollups (
  grain       smallint NOT NULL CHECK (grain IN (60, 1800)),
  at          timestamptz NOT NULL,
  app_id      text NOT NULL,
  test        boolean NOT NULL,
  campaign_id text NOT NULL,
  conversions int NOT NULL,
  PRIMARY KEY (grain, at, app_id, test, campaign_id)
);

-- Rollups of the conversions written before this migration.
INSERT INTO report_conversion_rollups (grain, at, app_id, test, campaign_id, conversions)
SELECT g.grain, date_bin(g.grain * interval '1 second', coalesce(v.occurred_at, v.created_at), timestamptz '1970-01-01 00:00:00+00'), v.app_id, v.test,
       coalesce((SELECT CASE WHEN d.serve THEN coalesce(d.campaign_id, '') ELSE '' END FROM decisions d WHERE d.id = v.decision_id LIMIT 1), ''),
       count(*)
FROM conversions v CROSS JOIN (VALUES (60), (1800)) AS g(grain)
GROUP BY 1, 2, 3, 4, 5;
