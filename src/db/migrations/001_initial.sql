-- Sidenote schema, version 1. Used unchanged by real Postgres (pg) and PGlite.
-- The user's message is never stored: no table has a column for it.

CREATE TABLE settings (
  key        text PRIMARY KEY,
  value      text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Apps and their keys -------------------------------------------------------------------------

CREATE TABLE apps (
  id         text PRIMARY KEY CHECK (id ~ '^app_[A-Za-z0-9]+$'),
  name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Keys are stored only as SHA-256 hashes; the plain key is shown once at creation.
CREATE TABLE api_keys (
  id         text PRIMARY KEY CHECK (id ~ '^key_[A-Za-z0-9]+$'),
  app_id     text NOT NULL REFERENCES apps(id),
  kind       text NOT NULL CHECK (kind IN ('serving', 'setup')),
  mode       text NOT NULL DEFAULT 'live' CHECK (mode IN ('live', 'test')),
  key_hash   bytea NOT NULL UNIQUE CHECK (length(key_hash) = 32),
  -- First characters of the key, so operators can tell keys apart in listings.
  key_hint   text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX api_keys_app ON api_keys (app_id);

-- HMAC keys hosts sign conversions with. Verification needs the secret itself, so it is kept;
-- at most two are active per app so a rotation never breaks signing hosts.
CREATE TABLE conversion_secrets (
  id         text PRIMARY KEY CHECK (id ~ '^csec_[A-Za-z0-9]+$'),
  app_id     text NOT NULL REFERENCES apps(id),
  secret     text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  retired_at timestamptz
);
CREATE INDEX conversion_secrets_active ON conversion_secrets (app_id) WHERE retired_at IS NULL;

-- Catalog -------------------------------------------------------------------------------------

-- Bumped by every catalog import; instances reload their offer index when it moves.
CREATE TABLE catalog_state (
  id          int PRIMARY KEY CHECK (id = 1),
  version     bigint NOT NULL,
  imported_at timestamptz NOT NULL DEFAULT now(),
  -- SHA-256 of the imported catalog as normalised: importing the same file again changes nothing.
  catalog_hash bytea NOT NULL,
  taxonomy    jsonb NOT NULL
);

CREATE TABLE advertisers (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  status      text NOT NULL CHECK (status IN ('active', 'suspended')),
  entity_id   text,
  archived_at timestamptz,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Where an advertiser's tracked links may send a browser: https origin + optional path prefix.
CREATE TABLE advertiser_destinations (
  advertiser_id text NOT NULL REFERENCES advertisers(id),
  url_prefix    text NOT NULL CHECK (url_prefix LIKE 'https://%'),
  PRIMARY KEY (advertiser_id, url_prefix)
);

CREATE TABLE affiliate_networks (
  id             text PRIMARY KEY,
  name           text NOT NULL,
  adapter        text NOT NULL,
  partner_marker text NOT NULL,
  link_template  text,
  destinations   text[] NOT NULL,
  archived_at    timestamptz,
  updated_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE campaigns (
  id                     text PRIMARY KEY,
  advertiser_id          text NOT NULL REFERENCES advertisers(id),
  status                 text NOT NULL CHECK (status IN ('active', 'paused', 'ended')),
  starts_at              timestamptz,
  ends_at                timestamptz,
  countries              text[] NOT NULL DEFAULT '{}',
  bid_micros             bigint NOT NULL CHECK (bid_micros >= 0),
  priority               int NOT NULL CHECK (priority BETWEEN 1 AND 10),
  budget_total_micros    bigint NOT NULL CHECK (budget_total_micros >= 0),
  budget_daily_micros    bigint NOT NULL CHECK (budget_daily_micros >= 0),
  frequency_cap_count    int NOT NULL CHECK (frequency_cap_count >= 1),
  frequency_cap_window_s int NOT NULL CHECK (frequency_cap_window_s >= 60),
  offer_ttl_s            int NOT NULL CHECK (offer_ttl_s >= 60),
  archived_at            timestamptz,
  updated_at             timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE offers (
  id                  text PRIMARY KEY,
  campaign_id         text NOT NULL REFERENCES campaigns(id),
  -- The snapshot that serves now; older snapshots stay for the decisions that served them.
  current_snapshot_id text,
  archived_at         timestamptz,
  updated_at          timestamptz NOT NULL DEFAULT now()
);

-- Immutable: a changed offer gets a new snapshot, never an update.
CREATE TABLE offer_snapshots (
  id           text PRIMARY KEY CHECK (id ~ '^snp_[A-Za-z0-9]+$'),
  offer_id     text NOT NULL REFERENCES offers(id),
  content_hash bytea NOT NULL,
  content      jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (offer_id, content_hash)
);
ALTER TABLE offers ADD CONSTRAINT offers_current_snapshot
  FOREIGN KEY (current_snapshot_id) REFERENCES offer_snapshots(id) DEFERRABLE INITIALLY DEFERRED;

-- Decisions and events ------------------------------------------------------------------------

CREATE TABLE decisions (
  id                 text PRIMARY KEY CHECK (id ~ '^dec_[A-Za-z0-9]+$'),
  app_id             text NOT NULL REFERENCES apps(id),
  request_id         text NOT NULL,
  kind               text NOT NULL CHECK (kind IN ('offer', 'affiliate')),
  test               boolean NOT NULL DEFAULT false,
  created_at         timestamptz NOT NULL,
  serve              boolean NOT NULL,
  reason_codes       text[] NOT NULL,
  offer_snapshot_id  text REFERENCES offer_snapshots(id),
  campaign_id        text,
  expires_at         timestamptz,
  locale             text,
  country            text,
  intent_type        text,
  -- Intent from cue words (purchase / compare / none): an enum, never text.
  cue_intent         text,
  matched_category_ids text[] NOT NULL DEFAULT '{}',
  matched_entity_ids   text[] NOT NULL DEFAULT '{}',
  dropped_digest_ids int NOT NULL DEFAULT 0,
  latency_us         int NOT NULL,
  CHECK (serve = (offer_snapshot_id IS NOT NULL))
);
CREATE INDEX decisions_app_created ON decisions (app_id, created_at);
CREATE INDEX decisions_created ON decisions (created_at);

-- Rendered and qualified impressions. Idempotency scope is (app, key).
CREATE TABLE events (
  id                text PRIMARY KEY CHECK (id ~ '^evt_[A-Za-z0-9]+$'),
  app_id            text NOT NULL REFERENCES apps(id),
  type              text NOT NULL CHECK (type IN ('offer_rendered', 'qualified_impression')),
  offer_snapshot_id text NOT NULL REFERENCES offer_snapshots(id),
  decision_id       text REFERENCES decisions(id),
  idempotency_key   text NOT NULL CHECK (length(idempotency_key) BETWEEN 8 AND 80),
  -- Hash of the request's content: the same key with another body is refused.
  request_hash      bytea NOT NULL,
  test              boolean NOT NULL DEFAULT false,
  counted           boolean NOT NULL DEFAULT true,
  not_counted_reason text,
  created_at        timestamptz NOT NULL,
  UNIQUE (app_id, idempotency_key)
);
CREATE INDEX events_decision ON events (decision_id);

CREATE TABLE clicks (
  id                 text PRIMARY KEY CHECK (id ~ '^clk_[A-Za-z0-9]+$'),
  decision_id        text NOT NULL,
  app_id             text NOT NULL,
  offer_snapshot_id  text NOT NULL,
  created_at         timestamptz NOT NULL,
  -- Keyed, truncated hash; raw IPs are never stored.
  ip_hash            text,
  user_agent_bot     boolean NOT NULL DEFAULT false,
  counted            boolean NOT NULL,
  not_counted_reason text
);
CREATE INDEX clicks_decision ON clicks (decision_id);

-- Signed conversions. A nonce is single-use per app.
CREATE TABLE conversions (
  id                text PRIMARY KEY CHECK (id ~ '^cnv_[A-Za-z0-9]+$'),
  app_id            text NOT NULL REFERENCES apps(id),
  offer_snapshot_id text NOT NULL REFERENCES offer_snapshots(id),
  decision_id       text REFERENCES decisions(id),
  nonce             text NOT NULL CHECK (length(nonce) BETWEEN 8 AND 80),
  signed_at         timestamptz NOT NULL,
  request_hash      bytea NOT NULL,
  test              boolean NOT NULL DEFAULT false,
  created_at        timestamptz NOT NULL,
  UNIQUE (app_id, nonce)
);
CREATE INDEX conversions_decision ON conversions (decision_id);

-- An affiliate fill hands the host an impression token; click intents prove possession of it.
CREATE TABLE affiliate_impressions (
  id                text PRIMARY KEY CHECK (id ~ '^aim_[A-Za-z0-9]+$'),
  -- SHA-256 of the token: a database leak does not hand out working capabilities.
  token_hash        bytea NOT NULL UNIQUE,
  decision_id       text NOT NULL REFERENCES decisions(id),
  app_id            text NOT NULL REFERENCES apps(id),
  network_id        text NOT NULL,
  offer_snapshot_id text NOT NULL REFERENCES offer_snapshots(id),
  expires_at        timestamptz NOT NULL,
  created_at        timestamptz NOT NULL
);

CREATE TABLE click_intents (
  id                      text PRIMARY KEY CHECK (id ~ '^cli_[A-Za-z0-9]+$'),
  affiliate_impression_id text NOT NULL REFERENCES affiliate_impressions(id),
  event_id                text NOT NULL CHECK (length(event_id) BETWEEN 1 AND 128),
  occurred_at             timestamptz,
  created_at              timestamptz NOT NULL,
  UNIQUE (affiliate_impression_id, event_id)
);
