-- Campaign control without a catalog import: an operator pauses or resumes a campaign, or changes
-- its lifetime or daily budget or its end date, through the admin API or the CLI. A control
-- overrides the catalog's value of the fields it sets, and outlives imports until it is cleared;
-- every instance serves the effective values (the catalog's, overlaid with these) after the
-- catalog version moves, which each change does. Spend already made stays where it is.
CREATE TABLE campaign_controls (
  campaign_id         text PRIMARY KEY REFERENCES campaigns(id),
  status              text CHECK (status IN ('active', 'paused')),
  budget_total_micros bigint CHECK (budget_total_micros >= 0),
  budget_daily_micros bigint CHECK (budget_daily_micros >= 0),
  -- ends_at_set: the control sets the end date (ends_at null then means "never ends").
  ends_at_set         boolean NOT NULL DEFAULT false,
  ends_at             timestamptz,
  updated_at          timestamptz NOT NULL DEFAULT now()
);

-- Every change, kept: who (as the caller named itself), through what, when, and the effective
-- values before and after.
CREATE TABLE campaign_control_changes (
  id          bigserial PRIMARY KEY,
  campaign_id text NOT NULL REFERENCES campaigns(id),
  changed_at  timestamptz NOT NULL DEFAULT now(),
  changed_by  text NOT NULL,
  channel     text NOT NULL CHECK (channel IN ('admin_api', 'cli')),
  before      jsonb NOT NULL,
  after       jsonb NOT NULL
);
CREATE INDEX campaign_control_changes_by_campaign ON campaign_control_changes (campaign_id, id DESC);
