-- Conversions as advertisers send them: late, in batches, deduplicated by their own order id.
-- occurred_at is when the conversion happened (the request's optional event_time; NULL when not
-- sent: then it happened when it was received, created_at). order_id is the advertiser's own id
-- for it. Like nonces, order ids need a table of their own: conversions are partitioned by day,
-- and no unique constraint on them can span days. An order id is kept as long as a conversion
-- for it can still be accepted (the attribution window and a day; history maintenance forgets
-- older ones), so a resent order is a duplicate however late it comes.
ALTER TABLE conversions ADD COLUMN occurred_at timestamptz;
ALTER TABLE conversions ADD COLUMN order_id text;

CREATE TABLE conversion_orders (
  app_id        text NOT NULL,
  order_id      text NOT NULL,
  conversion_id text NOT NULL,
  created_at    timestamptz NOT NULL,
  PRIMARY KEY (app_id, order_id)
);
CREATE INDEX conversion_orders_created ON conversion_orders (created_at);
