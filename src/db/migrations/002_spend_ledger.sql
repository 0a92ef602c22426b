-- The spend ledger. Postgres is the record of what each campaign spent: every served decision
-- carries the amount it spent, and the per-campaign totals below are changed in the same
-- statement that writes decision rows (src/decide/decision-recorder.ts), so they can never
-- disagree with the rows. The counter store (Redis or in-process) only caches these figures and
-- is rebuilt from them (src/spend/).

ALTER TABLE decisions ADD COLUMN spend_micros bigint NOT NULL DEFAULT 0 CHECK (spend_micros >= 0);

-- Spend per campaign and UTC day (daily budgets), and over its whole life (lifetime budgets):
-- kept as totals so that rebuilding a cache reads one row per campaign, whatever the history.
CREATE TABLE campaign_spend_daily (
  campaign_id  text NOT NULL,
  day          date NOT NULL,
  spend_micros bigint NOT NULL CHECK (spend_micros >= 0),
  serves       bigint NOT NULL CHECK (serves >= 0),
  PRIMARY KEY (campaign_id, day)
);

CREATE TABLE campaign_spend_total (
  campaign_id  text PRIMARY KEY,
  spend_micros bigint NOT NULL CHECK (spend_micros >= 0),
  serves       bigint NOT NULL CHECK (serves >= 0)
);

-- Decisions served before the ledger existed spent their campaign's current bid (the bid they
-- were served at was not recorded; a later bid change makes this an estimate).
UPDATE decisions d SET spend_micros = c.bid_micros
FROM campaigns c
WHERE d.serve AND NOT d.test AND d.campaign_id = c.id;

INSERT INTO campaign_spend_daily (campaign_id, day, spend_micros, serves)
SELECT campaign_id, (created_at AT TIME ZONE 'UTC')::date, sum(spend_micros), count(*)
FROM decisions WHERE spend_micros > 0 GROUP BY 1, 2;

INSERT INTO campaign_spend_total (campaign_id, spend_micros, serves)
SELECT campaign_id, sum(spend_micros), sum(serves) FROM campaign_spend_daily GROUP BY 1;
