-- History by UTC day. decisions, events, clicks, conversions, affiliate_impressions and
-- click_intents grow with traffic (one row per decide, event or click); each becomes a table
-- partitioned by range of its time column, one partition per UTC day, so that expiry drops a
-- whole day's partition (src/db/history-partitions.ts, which also creates the days ahead)
-- instead of deleting rows one by one. Same SQL on Postgres and PGlite. docs/scaling.md has
-- the sizes and the retention defaults.
--
-- What changes with partitioning, and why each guarantee still holds:
--
-- * A partitioned table's primary key and unique constraints must include the partition key.
--   Decision ids now carry their creation time (src/util/ids.ts, newDecisionId) and the decide
--   writes `created_at` exactly as that time, so created_at is a function of id and
--   PRIMARY KEY (id, created_at) refuses a repeated id as PRIMARY KEY (id) did. A lookup by id
--   reads the time back from the id and names `created_at`, which prunes to one partition.
--   Ids written before this migration carry no time: their lookups probe each partition's index.
--   The other tables' ids are random 128-bit values, unique by construction, so
--   (id, created_at) loses nothing.
-- * Event idempotency keys, UNIQUE (app_id, idempotency_key), and conversion nonces,
--   UNIQUE (app_id, nonce), must hold across days, which no constraint on a day-partitioned table
--   can do. Each moves to a small unpartitioned key table with that primary key and its own
--   expiry: event_idempotency_keys (default 7 days: hosts retry within seconds to minutes, a week
--   covers a replayed queue after an outage) and conversion_nonces (default 7 days: a replayed
--   conversion is refused as expired_conversion 300 s after its signed timestamp anyway, so a
--   day is all replay protection needs; the week is margin). The key row is inserted in the same
--   statement as the history row and decides whether that row is written.
-- * Click intents, UNIQUE (affiliate_impression_id, event_id): partitioned by their impression's
--   creation time (impression_created_at), a function of the impression id, so
--   UNIQUE (affiliate_impression_id, event_id, impression_created_at) is the same guarantee, and
--   an impression's click intents live and expire with their impression's day.
-- * Foreign keys to decisions(id) and affiliate_impressions(id) go: a foreign key to a
--   partitioned table must name the partition key too, and it would forbid dropping a day of
--   decisions while later events still name them. It is safe: these tables are append-only,
--   and every writer checks the reference before inserting (events and conversions check the
--   decision's ownership, a click's decision is in its signed link, a click intent finds its
--   impression by token, an impression is written by the decide that made its decision). A
--   reference to a decision that retention has dropped reads as an unknown decision.
--   References to apps and offer_snapshots stay: those tables are never expired.
-- * The spend ledger (campaign_spend_daily / campaign_spend_total) is the money record, not
--   history: it is not partitioned and retention never touches it.
--
-- Existing rows move into the new tables: the old tables are renamed, a partition is made for
-- every day they hold, their rows are copied, and they are dropped. Partition bounds are written
-- with an explicit +00 so a server whose TimeZone is not UTC still cuts at UTC midnight.

ALTER TABLE click_intents RENAME TO click_intents_before_006;
ALTER TABLE affiliate_impressions RENAME TO affiliate_impressions_before_006;
ALTER TABLE conversions RENAME TO conversions_before_006;
ALTER TABLE clicks RENAME TO clicks_before_006;
ALTER TABLE events RENAME TO events_before_006;
ALTER TABLE decisions RENAME TO decisions_before_006;

-- LIKE keeps every column (those of later migrations too), default, NOT NULL and CHECK.
CREATE TABLE decisions (LIKE decisions_before_006 INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (created_at);
CREATE TABLE events (LIKE events_before_006 INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (created_at);
CREATE TABLE clicks (LIKE clicks_before_006 INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (created_at);
CREATE TABLE conversions (LIKE conversions_before_006 INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (created_at);
CREATE TABLE affiliate_impressions (LIKE affiliate_impressions_before_006 INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
  PARTITION BY RANGE (created_at);
CREATE TABLE click_intents (
  LIKE click_intents_before_006 INCLUDING DEFAULTS INCLUDING CONSTRAINTS,
  impression_created_at timestamptz NOT NULL
) PARTITION BY RANGE (impression_created_at);

-- One partition per UTC day that holds rows, named <table>_pYYYYMMDD as the service names them.
DO $$
DECLARE
  t record;
  d date;
BEGIN
  FOR t IN SELECT * FROM (VALUES
    ('decisions', 'SELECT created_at FROM decisions_before_006'),
    ('events', 'SELECT created_at FROM events_before_006'),
    ('clicks', 'SELECT created_at FROM clicks_before_006'),
    ('conversions', 'SELECT created_at FROM conversions_before_006'),
    ('affiliate_impressions', 'SELECT created_at FROM affiliate_impressions_before_006'),
    ('click_intents', 'SELECT ai.created_at FROM click_intents_before_006 ci
                       JOIN affiliate_impressions_before_006 ai ON ai.id = ci.affiliate_impression_id')
  ) AS v(name, times) LOOP
    FOR d IN EXECUTE format('SELECT DISTINCT (x.created_at AT TIME ZONE ''UTC'')::date FROM (%s) AS x(created_at)', t.times) LOOP
      EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
        t.name || '_p' || to_char(d, 'YYYYMMDD'), t.name, d::text || ' 00:00:00+00', (d + 1)::text || ' 00:00:00+00');
    END LOOP;
  END LOOP;
END $$;

INSERT INTO decisions SELECT * FROM decisions_before_006;
INSERT INTO events SELECT * FROM events_before_006;
INSERT INTO clicks SELECT * FROM clicks_before_006;
INSERT INTO conversions SELECT * FROM conversions_before_006;
INSERT INTO affiliate_impressions SELECT * FROM affiliate_impressions_before_006;
INSERT INTO click_intents SELECT ci.*, ai.created_at
FROM click_intents_before_006 ci JOIN affiliate_impressions_before_006 ai ON ai.id = ci.affiliate_impression_id;

-- The key tables. request_hash and the event's type answer a retry exactly as before.
CREATE TABLE event_idempotency_keys (
  app_id          text NOT NULL,
  idempotency_key text NOT NULL,
  event_id        text NOT NULL,
  type            text NOT NULL,
  request_hash    bytea NOT NULL,
  created_at      timestamptz NOT NULL,
  PRIMARY KEY (app_id, idempotency_key)
);
CREATE INDEX event_idempotency_keys_created ON event_idempotency_keys (created_at);
INSERT INTO event_idempotency_keys (app_id, idempotency_key, event_id, type, request_hash, created_at)
SELECT app_id, idempotency_key, id, type, request_hash, created_at FROM events_before_006;

CREATE TABLE conversion_nonces (
  app_id        text NOT NULL,
  nonce         text NOT NULL,
  conversion_id text NOT NULL,
  request_hash  bytea NOT NULL,
  created_at    timestamptz NOT NULL,
  PRIMARY KEY (app_id, nonce)
);
CREATE INDEX conversion_nonces_created ON conversion_nonces (created_at);
INSERT INTO conversion_nonces (app_id, nonce, conversion_id, request_hash, created_at)
SELECT app_id, nonce, id, request_hash, created_at FROM conversions_before_006;

DROP TABLE click_intents_before_006;
DROP TABLE affiliate_impressions_before_006;
DROP TABLE conversions_before_006;
DROP TABLE clicks_before_006;
DROP TABLE events_before_006;
DROP TABLE decisions_before_006;

-- Keys and indexes once the old tables (and their index names) are gone. Declared on the parent,
-- each is made on every partition, present and future.
ALTER TABLE decisions ADD PRIMARY KEY (id, created_at);
ALTER TABLE decisions ADD FOREIGN KEY (app_id) REFERENCES apps(id);
ALTER TABLE decisions ADD FOREIGN KEY (offer_snapshot_id) REFERENCES offer_snapshots(id);
CREATE INDEX decisions_app_created ON decisions (app_id, created_at);
CREATE INDEX decisions_created ON decisions (created_at);

ALTER TABLE events ADD PRIMARY KEY (id, created_at);
ALTER TABLE events ADD FOREIGN KEY (app_id) REFERENCES apps(id);
ALTER TABLE events ADD FOREIGN KEY (offer_snapshot_id) REFERENCES offer_snapshots(id);
CREATE INDEX events_decision ON events (decision_id);
CREATE INDEX events_created ON events (created_at);

ALTER TABLE clicks ADD PRIMARY KEY (id, created_at);
CREATE INDEX clicks_decision ON clicks (decision_id);
CREATE INDEX clicks_created ON clicks (created_at);

ALTER TABLE conversions ADD PRIMARY KEY (id, created_at);
ALTER TABLE conversions ADD FOREIGN KEY (app_id) REFERENCES apps(id);
ALTER TABLE conversions ADD FOREIGN KEY (offer_snapshot_id) REFERENCES offer_snapshots(id);
CREATE INDEX conversions_decision ON conversions (decision_id);
CREATE INDEX conversions_created ON conversions (created_at);

-- token_hash was UNIQUE: a token is 256 random bits, unique by construction; the index finds it.
ALTER TABLE affiliate_impressions ADD PRIMARY KEY (id, created_at);
ALTER TABLE affiliate_impressions ADD FOREIGN KEY (app_id) REFERENCES apps(id);
ALTER TABLE affiliate_impressions ADD FOREIGN KEY (offer_snapshot_id) REFERENCES offer_snapshots(id);
CREATE INDEX affiliate_impressions_token ON affiliate_impressions (token_hash);
CREATE INDEX affiliate_impressions_decision ON affiliate_impressions (decision_id);
CREATE INDEX affiliate_impressions_created ON affiliate_impressions (created_at);

ALTER TABLE click_intents ADD PRIMARY KEY (id, impression_created_at);
ALTER TABLE click_intents ADD UNIQUE (affiliate_impression_id, event_id, impression_created_at);
CREATE INDEX click_intents_created ON click_intents (created_at);
