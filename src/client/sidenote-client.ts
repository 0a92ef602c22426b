// A small typed client for hosts, for use on the host's server (the serving key never goes to
// a browser). It treats every doubt as "do not render", as the contract asks of every host: a no-fill, a
// timeout (its own, short), a network error, an error status or a response that does not
// match the published schema all come back as `{ render: false, … }`, never as an exception.
// Events get an Idempotency-Key and are retried on 503 / network errors; conversions are
// signed. Responses are checked against the same zod schemas the server is built from.
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { AffiliateFillSchema, NoFillSchema, ServedOfferSchema } from '../decide/decide-schemas.js';
import type { Envelope } from '../decide/envelope.js';
import { ImpressionEventResponse } from '../events/event-schemas.js';
import { ConversionBatchResponse, ConversionResponse } from '../conversions/conversion-schemas.js';
import { signConversion } from '../conversions/conversion-signature.js';
import { ClickIntentResponse } from '../affiliate/click-intent-schemas.js';
import { DecisionMetadataSchema } from '../decisions/decision-schemas.js';
import { HostReportSchema, type HostReportRange } from '../reporting/host-report-schemas.js';

/** What `decide` and `affiliate` take: one user turn, as the service's own schema describes it. */
export type { Envelope };
export type { HostReport, HostReportRange } from '../reporting/host-report-schemas.js';
export type ServedOffer = z.infer<typeof ServedOfferSchema>;
export type AffiliateFill = z.infer<typeof AffiliateFillSchema>;
export type NoFill = z.infer<typeof NoFillSchema>;

export type DoNotRender =
  | { render: false; why: 'no_fill'; noFill: NoFill }
  | { render: false; why: 'timeout' | 'network_error' | 'malformed_response' }
  | { render: false; why: 'error'; status: number; error: string };

export type DecideOutcome = { render: true; offer: ServedOffer } | DoNotRender;
export type AffiliateOutcome = { render: true; offer: AffiliateFill } | DoNotRender;

export type EventOutcome<T> = { ok: true; value: T } | { ok: false; status: number | null; error: string };

export interface SidenoteClientOptions {
  baseUrl: string;
  /** Server-side serving key (`sk_live_…` or `sk_test_…`). */
  apiKey: string;
  /** The app's conversion secret, needed only for `conversion()`. */
  conversionSecret?: string;
  /** Client-side bound on a decide, including the network (default 300 ms): past it, do not render. */
  decideTimeoutMs?: number;
  /** Bound on each event call (default 2 s) and how many times a 503 or network error is retried (default 2). */
  eventTimeoutMs?: number;
  eventRetries?: number;
  fetch?: typeof fetch;
}

/** A conversion to sign and send. */
export interface ConversionInput {
  offerSnapshotId: string;
  decisionId?: string;
  nonce?: string;
  /** Signing time, Unix seconds; default now (it must be within 300 s of the server's clock). */
  timestamp?: number;
  /** When the conversion happened, when earlier than now. */
  eventTime?: Date | number;
  /** The advertiser's own id for it: the app's second conversion with it is a duplicate. */
  orderId?: string;
}

export class SidenoteClient {
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: SidenoteClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? fetch;
  }

  /** Asks whether an offer may be shown for this turn. Never throws. */
  decide(envelope: Envelope): Promise<DecideOutcome> {
    return this.decideLike('/v1/offers/decide', envelope, ServedOfferSchema) as Promise<DecideOutcome>;
  }

  /** The travel-affiliate variant: a direct network URL. Never throws. */
  affiliate(envelope: Envelope): Promise<AffiliateOutcome> {
    return this.decideLike('/v1/offers/affiliate', envelope, AffiliateFillSchema) as Promise<AffiliateOutcome>;
  }

  /** The offer was shown on the host's surface. The key defaults to one per decision, so a
   *  retry of the same report is recognised as one. */
  rendered(e: { offerSnapshotId: string; decisionId?: string; idempotencyKey?: string }) {
    return this.impression('/v1/events/rendered', 'offer_rendered', e);
  }

  qualifiedImpression(e: { offerSnapshotId: string; decisionId?: string; idempotencyKey?: string }) {
    return this.impression('/v1/events/qualified-impression', 'qualified_impression', e);
  }

  /** A signed conversion. `nonce` defaults to a fresh UUID; pass your order id as `orderId` so
   *  that the order counts once whatever is resent, and `eventTime` when it happened earlier than
   *  now (within the attribution window after the decision). */
  conversion(c: ConversionInput) {
    return this.event('/v1/events/conversion', this.signed(c), {}, ConversionResponse);
  }

  /** Up to 1,000 signed conversions in one request, each answered in its own result (inserted,
   *  duplicate, or invalid with the reason). Safe to resend whole: recorded ones answer duplicate. */
  conversionBatch(conversions: readonly ConversionInput[]) {
    return this.event('/v1/events/conversions/batch', { conversions: conversions.map((c) => this.signed(c)) }, {}, ConversionBatchResponse);
  }

  private signed(c: ConversionInput) {
    const secret = this.options.conversionSecret;
    if (!secret) throw new Error('conversionSecret is required to sign conversions');
    const eventTime = c.eventTime instanceof Date ? Math.floor(c.eventTime.getTime() / 1000) : c.eventTime;
    const body = {
      offer_snapshot_id: c.offerSnapshotId,
      ...(c.decisionId ? { decision_id: c.decisionId } : {}),
      timestamp: c.timestamp ?? Math.floor(Date.now() / 1000),
      nonce: c.nonce ?? randomUUID(),
      ...(eventTime !== undefined ? { event_time: eventTime } : {}),
      ...(c.orderId !== undefined ? { order_id: c.orderId } : {}),
    };
    return { ...body, signature: signConversion(secret, body) };
  }

  /** Records that the user clicked an affiliate offer (analytics only). */
  clickIntent(c: { impressionToken: string; eventId: string; occurredAt?: Date }) {
    return this.event(
      '/v1/events/click-intent',
      { impression_token: c.impressionToken, event_id: c.eventId, ...(c.occurredAt ? { occurred_at: c.occurredAt.toISOString() } : {}) },
      {},
      ClickIntentResponse,
    );
  }

  /** The calling app's decision with its event counts. */
  decision(decisionId: string) {
    return this.call('GET', `/v1/decisions/${encodeURIComponent(decisionId)}`, undefined, {}, DecisionMetadataSchema, 0);
  }

  /** "Why this offer": a user-presentable explanation in the decision's language. */
  async explanation(decisionId: string): Promise<EventOutcome<{ explanation: string; locale: string; sponsored: boolean }>> {
    const r = await this.call('GET', `/v1/decisions/${encodeURIComponent(decisionId)}/explanation`, undefined, {}, null, 0);
    return r as EventOutcome<{ explanation: string; locale: string; sponsored: boolean }>;
  }

  /** The calling app's own figures (decides, fill, no-fill reasons, the funnel) over a range,
   *  in total and per bucket: one per UTC day over 30 days, the default. Live keys only unless
   *  `includeTest`. */
  report(r: { range?: HostReportRange; includeTest?: boolean } = {}) {
    const query = new URLSearchParams({ range: r.range ?? '30d', include_test: String(r.includeTest ?? false) });
    return this.call('GET', `/v1/reports?${query}`, undefined, {}, HostReportSchema, 0);
  }

  private async decideLike(path: string, envelope: Envelope, fill: z.ZodType): Promise<DecideOutcome | AffiliateOutcome> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.options.decideTimeoutMs ?? 300);
    try {
      const res = await this.fetch(`${this.baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.options.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(envelope),
        signal: controller.signal,
      });
      const text = await res.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return { render: false, why: 'malformed_response' };
      }
      if (res.status !== 200) {
        const error = typeof (body as { error?: unknown })?.error === 'string' ? (body as { error: string }).error : 'unknown';
        return { render: false, why: 'error', status: res.status, error };
      }
      const served = readAs(fill, body);
      if (served.success) return { render: true, offer: served.data } as DecideOutcome | AffiliateOutcome;
      const noFill = readAs(NoFillSchema, body);
      if (noFill.success) return { render: false, why: 'no_fill', noFill: noFill.data };
      return { render: false, why: 'malformed_response' };
    } catch (err) {
      return { render: false, why: controller.signal.aborted ? 'timeout' : 'network_error' };
    } finally {
      clearTimeout(timer);
    }
  }

  private impression(path: string, type: string, e: { offerSnapshotId: string; decisionId?: string; idempotencyKey?: string }) {
    const key = e.idempotencyKey ?? `${type}:${e.decisionId ?? e.offerSnapshotId}`;
    return this.event(
      path,
      { offer_snapshot_id: e.offerSnapshotId, ...(e.decisionId ? { decision_id: e.decisionId } : {}), type },
      { 'idempotency-key': key },
      ImpressionEventResponse,
    );
  }

  private event<T>(path: string, body: unknown, headers: Record<string, string>, schema: z.ZodType<T>) {
    return this.call('POST', path, body, headers, schema, this.options.eventRetries ?? 2);
  }

  /** One request with bounded retries on 503 and network errors (the server wrote nothing). */
  private async call<T>(
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string>,
    schema: z.ZodType<T> | null,
    retries: number,
  ): Promise<EventOutcome<T>> {
    for (let attempt = 0; ; attempt++) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), this.options.eventTimeoutMs ?? 2000);
      try {
        const res = await this.fetch(`${this.baseUrl}${path}`, {
          method,
          headers: {
            ...(path === '/v1/events/click-intent' ? {} : { authorization: `Bearer ${this.options.apiKey}` }),
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...headers,
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: controller.signal,
        });
        const json = (await res.json().catch(() => null)) as { error?: string } | null;
        if (res.status === 503 && attempt < retries) {
          await sleep(Math.min(Number(res.headers.get('retry-after') ?? 1), 5) * 250 * (attempt + 1));
          continue;
        }
        if (res.status !== 200) return { ok: false, status: res.status, error: json?.error ?? 'unknown' };
        if (!schema) return { ok: true, value: json as T };
        const parsed = readAs(schema, json);
        return parsed.success ? { ok: true, value: parsed.data } : { ok: false, status: 200, error: 'malformed_response' };
      } catch {
        if (attempt < retries) {
          await sleep(250 * (attempt + 1));
          continue;
        }
        return { ok: false, status: null, error: controller.signal.aborted ? 'timeout' : 'network_error' };
      } finally {
        clearTimeout(timer);
      }
    }
  }
}

/** The answer read with its published schema, tolerant of fields a newer server added (the
 *  contract grows by new fields only): an answer whose only fault is keys the schema does not
 *  know is read as it is; anything else missing or mistyped is still malformed. */
function readAs<T>(schema: z.ZodType<T>, json: unknown): { success: true; data: T } | { success: false } {
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed;
  return parsed.error.issues.every((i) => i.code === 'unrecognized_keys') ? { success: true, data: json as T } : { success: false };
}

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}
