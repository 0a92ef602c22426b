// Webhook endpoints and their outbox of deliveries (migration 016). An event is enqueued once per
// subscribed endpoint (its key makes a second enqueue by another instance a no-op); instances
// claim due deliveries with a lease (the next attempt time moved ahead), so two never send one
// at once, and nothing is held open while a receiver answers.
import type { Database, Queryable } from '../db/database.js';

export interface EndpointRow {
  id: string;
  url: string;
  event_types: string[];
  description: string;
  created_at: string;
}

export interface StoredEndpoint extends EndpointRow {
  secret: string;
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_type: string;
  created_at: string;
  attempts: number;
  last_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  failed_at: string | null;
}

/** A delivery an instance has claimed: what to send, where, and with which secret. */
export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  url: string;
  secret: string;
  payload: string;
  attempts: number;
}

const iso = (v: unknown): string | null => (v == null ? null : new Date(v as string).toISOString());

const ENDPOINT_COLUMNS = 'id, url, event_types, description, created_at';

function endpointRow(r: Record<string, unknown>): EndpointRow {
  return {
    id: r.id as string,
    url: r.url as string,
    event_types: r.event_types as string[],
    description: r.description as string,
    created_at: iso(r.created_at) as string,
  };
}

/** Days an ended delivery stays readable through the admin API. */
export const DELIVERY_RETENTION_DAYS = 30;

export class WebhookRepository {
  constructor(private readonly db: Database) {}

  async createEndpoint(e: { id: string; url: string; secret: string; eventTypes: string[]; description: string }): Promise<EndpointRow> {
    const r = await this.db.query(
      `INSERT INTO webhook_endpoints (id, url, secret, event_types, description) VALUES ($1, $2, $3, $4, $5) RETURNING ${ENDPOINT_COLUMNS}`,
      [e.id, e.url, e.secret, e.eventTypes, e.description],
    );
    return endpointRow(r.rows[0]);
  }

  async listEndpoints(): Promise<EndpointRow[]> {
    const r = await this.db.query(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE removed_at IS NULL ORDER BY created_at, id`);
    return r.rows.map(endpointRow);
  }

  async endpoint(id: string): Promise<EndpointRow | null> {
    const r = await this.db.query(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1 AND removed_at IS NULL`, [id]);
    return r.rows[0] ? endpointRow(r.rows[0]) : null;
  }

  /** Removes an endpoint: its pending deliveries stop; its history stays readable. */
  async removeEndpoint(id: string, at: Date): Promise<EndpointRow | null> {
    return this.db.transaction(async (tx) => {
      const r = await tx.query(`UPDATE webhook_endpoints SET removed_at = $2 WHERE id = $1 AND removed_at IS NULL RETURNING ${ENDPOINT_COLUMNS}`, [id, at]);
      if (!r.rows[0]) return null;
      await tx.query(
        "UPDATE webhook_deliveries SET failed_at = $2, last_error = 'endpoint removed' WHERE endpoint_id = $1 AND delivered_at IS NULL AND failed_at IS NULL",
        [id, at],
      );
      return endpointRow(r.rows[0]);
    });
  }

  /** One delivery per live endpoint subscribed to `eventType`; an event key already enqueued
   *  for an endpoint is not enqueued again. Returns how many were new. */
  async enqueue(eventType: string, eventKey: string, payload: object, newId: () => string, q: Queryable = this.db): Promise<number> {
    const endpoints = await q.query<{ id: string }>('SELECT id FROM webhook_endpoints WHERE removed_at IS NULL AND $1 = ANY(event_types)', [eventType]);
    let added = 0;
    for (const { id } of endpoints.rows) {
      const r = await q.query(
        `INSERT INTO webhook_deliveries (id, endpoint_id, event_type, event_key, payload)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (endpoint_id, event_key) DO NOTHING`,
        [newId(), id, eventType, eventKey, JSON.stringify(payload)],
      );
      added += r.rowCount ?? 0;
    }
    return added;
  }

  /** Claims up to `limit` due deliveries for `leaseMs`: their next attempt moves past the lease,
   *  so another instance (or this one, if it dies mid-send) tries again only after it. */
  async claimDue(now: Date, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    return this.db.transaction(async (tx) => {
      const r = await tx.query(
        `UPDATE webhook_deliveries d SET next_attempt_at = $2
           FROM webhook_endpoints e
          WHERE d.id IN (
                  SELECT id FROM webhook_deliveries
                   WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= $1
                   ORDER BY next_attempt_at LIMIT $3
                   FOR UPDATE SKIP LOCKED)
            AND e.id = d.endpoint_id AND e.removed_at IS NULL
        RETURNING d.id, d.endpoint_id, e.url, e.secret, d.payload, d.attempts`,
        [now, new Date(now.getTime() + leaseMs), limit],
      );
      return r.rows.map((row) => ({
        id: row.id as string,
        endpoint_id: row.endpoint_id as string,
        url: row.url as string,
        secret: row.secret as string,
        payload: typeof row.payload === 'string' ? row.payload : JSON.stringify(row.payload),
        attempts: Number(row.attempts),
      }));
    });
  }

  /** Records one attempt: delivered, retried at `retryAt`, or failed for good (`retryAt` null). */
  async recordAttempt(id: string, at: Date, outcome: { delivered: boolean; status: number | null; error: string | null; retryAt: Date | null }): Promise<void> {
    await this.db.query(
      `UPDATE webhook_deliveries
          SET attempts = attempts + 1, last_attempt_at = $2::timestamptz, last_status = $3::integer, last_error = $4::text,
              delivered_at = CASE WHEN $5::boolean THEN $2::timestamptz END,
              -- An endpoint removed while this attempt was in flight has already failed it.
              failed_at = coalesce(failed_at, CASE WHEN NOT $5::boolean AND $6::timestamptz IS NULL THEN $2::timestamptz END),
              next_attempt_at = coalesce($6::timestamptz, next_attempt_at)
        WHERE id = $1`,
      [id, at, outcome.status, outcome.error, outcome.delivered, outcome.retryAt],
    );
  }

  /** Forgets deliveries that ended (delivered or failed) before `before`; pending ones stay. */
  async forgetDeliveriesBefore(before: Date): Promise<number> {
    const r = await this.db.query('DELETE FROM webhook_deliveries WHERE coalesce(delivered_at, failed_at) < $1', [before]);
    return r.rowCount ?? 0;
  }

  /** An endpoint's latest deliveries, newest first. */
  async deliveries(endpointId: string, limit: number): Promise<DeliveryRow[]> {
    const r = await this.db.query(
      `SELECT id, endpoint_id, event_type, created_at, attempts, last_attempt_at, last_status, last_error, next_attempt_at, delivered_at, failed_at
         FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
      [endpointId, limit],
    );
    return r.rows.map((row) => {
      const pending = row.delivered_at == null && row.failed_at == null;
      return {
        id: row.id as string,
        endpoint_id: row.endpoint_id as string,
        event_type: row.event_type as string,
        created_at: iso(row.created_at) as string,
        attempts: Number(row.attempts),
        last_attempt_at: iso(row.last_attempt_at),
        last_status: row.last_status == null ? null : Number(row.last_status),
        last_error: (row.last_error as string | null) ?? null,
        next_attempt_at: pending ? iso(row.next_attempt_at) : null,
        delivered_at: iso(row.delivered_at),
        failed_at: iso(row.failed_at),
      };
    });
  }
}
