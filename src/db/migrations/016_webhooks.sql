-- Signed notifications (webhooks): operators subscribe a URL to events that matter to them (a
-- campaign paused or resumed, a catalog import finished or failed). Deliveries follow the
-- Standard Webhooks conventions and come from this durable outbox: one row per event and
-- endpoint, retried with backoff until the endpoint answers 2xx or the attempts run out.
CREATE TABLE webhook_endpoints (
  id          text PRIMARY KEY,
  url         text NOT NULL,
  -- The signing secret, `whsec_` + base64 of 32 random bytes; shown once, at creation.
  secret      text NOT NULL,
  event_types text[] NOT NULL,
  description text NOT NULL DEFAULT '',
  created_at  timestamptz NOT NULL DEFAULT now(),
  -- Set when the endpoint is removed: no new deliveries, its history kept.
  removed_at  timestamptz
);

CREATE TABLE webhook_deliveries (
  -- The `webhook-id` header: the same on every attempt, so a receiver can deduplicate.
  id              text PRIMARY KEY,
  endpoint_id     text NOT NULL REFERENCES webhook_endpoints(id),
  event_type      text NOT NULL,
  -- One event is enqueued once per endpoint, however many instances saw it.
  event_key       text NOT NULL,
  payload         jsonb NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  -- When an instance may next try it; also the lease of the instance trying it now.
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  attempts        integer NOT NULL DEFAULT 0,
  last_attempt_at timestamptz,
  last_status     integer,
  last_error      text,
  delivered_at    timestamptz,
  failed_at       timestamptz,
  UNIQUE (endpoint_id, event_key)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE delivered_at IS NULL AND failed_at IS NULL;
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, created_at DESC);
