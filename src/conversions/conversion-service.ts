// Signed conversions. Order of checks: signature (is it really the host?), clock
// tolerance of the signature, the conversion's own time (`event_time`), snapshot and decision
// ownership with the attribution window, then the single-use nonce and the advertiser's order id,
// enforced by the unique keys of conversion_nonces and conversion_orders. Two clocks: the
// signature's `timestamp` must be fresh (replay protection), while the conversion itself may
// have happened days before it is sent, within the attribution window.
import { createHash } from 'node:crypto';
import type { Principal } from '../auth/authenticator.js';
import type { AppRepository } from '../apps/app-repository.js';
import type { SnapshotLookup } from '../catalog/snapshot-lookup.js';
import type { DecisionRepository } from '../decisions/decision-repository.js';
import { Refusal } from '../errors/error-registry.js';
import { newId } from '../util/ids.js';
import { verifyConversionSignature } from './conversion-signature.js';
import type { ConversionRepository } from './conversion-repository.js';
import type { ConversionRecorder } from './conversion-recorder.js';
import { failingFields } from '../http/validation.js';
import { BatchRefusal, ConversionRequest, type ConversionBatchResult } from './conversion-schemas.js';

export const CLOCK_TOLERANCE_SECONDS = 300;
/** Conversions of a batch recorded at once: enough to hide the round trips, few enough to leave
 *  the pool to other requests. */
const BATCH_CONCURRENCY = 4;

export interface RecordedConversion {
  ok: true;
  inserted: boolean;
  conversion_id: string;
  offer_snapshot_id: string;
  billable: false;
  ledger_written: false;
}

export class ConversionService {
  private readonly secretCache = new Map<string, { secrets: string[]; at: number }>();

  constructor(
    private readonly conversions: ConversionRepository,
    private readonly recorder: ConversionRecorder,
    private readonly apps: AppRepository,
    private readonly snapshots: SnapshotLookup,
    private readonly decisions: DecisionRepository,
    private readonly attributionWindowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records a conversion, or refuses it: invalid_signature, expired_conversion, unknown_snapshot,
   *  invalid_conversion (a nonce used before with other content). */
  async record(principal: Principal, req: ConversionRequest): Promise<RecordedConversion> {
    const secrets = await this.secrets(principal.appId);
    if (!verifyConversionSignature(secrets, req, req.signature)) throw new Refusal('invalid_signature');
    const nowMs = this.now();
    const toleranceMs = CLOCK_TOLERANCE_SECONDS * 1000;
    if (Math.abs(nowMs / 1000 - req.timestamp) > CLOCK_TOLERANCE_SECONDS) throw new Refusal('expired_conversion');
    const occurredMs = req.event_time === undefined ? null : req.event_time * 1000;
    // A conversion cannot have happened after it was sent (beyond clock skew).
    if (occurredMs !== null && occurredMs > nowMs + toleranceMs) throw new Refusal('invalid_conversion');
    if (!(await this.snapshots.exists(req.offer_snapshot_id))) throw new Refusal('unknown_snapshot');
    let test = principal.mode === 'test';
    if (req.decision_id) {
      const d = await this.decisions.ownership(req.decision_id);
      if (!d || d.appId !== principal.appId || d.offerSnapshotId !== req.offer_snapshot_id) throw new Refusal('unknown_snapshot');
      const decidedMs = d.createdAt.getTime();
      // Attributed from when it happened: a late batch of last week's purchases still counts.
      if ((occurredMs ?? nowMs) - decidedMs > this.attributionWindowMs) throw new Refusal('expired_conversion');
      // Nor can it have happened before the offer was shown.
      if (occurredMs !== null && occurredMs < decidedMs - toleranceMs) throw new Refusal('invalid_conversion');
      test ||= d.test;
    } else if (occurredMs !== null && nowMs - occurredMs > this.attributionWindowMs) {
      throw new Refusal('expired_conversion');
    }
    // What an exact retry repeats. The new fields join it only when sent, so a conversion that
    // sends neither hashes as it always did (its nonce may have been recorded before them).
    const signed: unknown[] = [req.offer_snapshot_id, req.decision_id ?? null, req.timestamp, req.nonce];
    if (req.event_time !== undefined || req.order_id !== undefined) signed.push(req.event_time ?? null, req.order_id ?? null);
    const requestHash = createHash('sha256').update(JSON.stringify(signed)).digest();
    const id = newId('cnv');
    const recorded = await this.recorder.record({
      id,
      appId: principal.appId,
      offerSnapshotId: req.offer_snapshot_id,
      decisionId: req.decision_id ?? null,
      nonce: req.nonce,
      signedAt: req.timestamp,
      requestHash,
      test,
      createdAt: new Date(nowMs),
      occurredAt: occurredMs === null ? null : new Date(occurredMs),
      orderId: req.order_id ?? null,
    });
    if (recorded.kind === 'inserted') return ok(true, id, req.offer_snapshot_id);
    if (recorded.kind === 'duplicate_order') return ok(false, recorded.conversionId, req.offer_snapshot_id);
    const e = await this.conversions.findByNonce(principal.appId, req.nonce);
    // A nonce is single use: only an exact retry is answered with the original conversion.
    if (!e || !e.requestHash.equals(requestHash)) throw new Refusal('invalid_conversion');
    return ok(false, e.id, req.offer_snapshot_id);
  }

  /** Records each conversion of a batch on its own: one that is refused is answered in its
   *  result and the others are recorded. A few at a time, in request order per result. A store
   *  that fails fails the batch (503); a retry of the whole batch answers what was recorded as
   *  duplicates. */
  async recordBatch(principal: Principal, items: readonly unknown[]): Promise<ConversionBatchResult[]> {
    const results: ConversionBatchResult[] = new Array(items.length);
    // Items that share an order id or a nonce are recorded in request order (the first is the
    // one inserted): each waits for the last earlier item that shares one. An earlier item has
    // always been picked up already (items are taken in order), so no wait is ever circular.
    const finished = items.map(() => {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      return { promise, resolve };
    });
    const last = new Map<string, number>();
    const waitsFor = items.map((item, index) => {
      const keys = sameConversionKeys(item);
      const earlier = keys.flatMap((k) => (last.has(k) ? [last.get(k)!] : []));
      for (const k of keys) last.set(k, index);
      return earlier;
    });
    let next = 0;
    const worker = async () => {
      for (let index = next++; index < items.length; index = next++) {
        try {
          await Promise.all(waitsFor[index].map((j) => finished[j].promise));
          results[index] = await this.recordOne(principal, items[index], index);
        } finally {
          finished[index].resolve();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, items.length) }, worker));
    return results;
  }

  private async recordOne(principal: Principal, item: unknown, index: number): Promise<ConversionBatchResult> {
    const parsed = ConversionRequest.safeParse(item);
    if (!parsed.success) {
      // The fields that failed, never their values.
      return { index, status: 'invalid', error: 'invalid_conversion', message: `failed validation: ${failingFields(parsed.error, 'conversion').join(', ')}` };
    }
    try {
      const r = await this.record(principal, parsed.data);
      return { index, status: r.inserted ? 'inserted' : 'duplicate', conversion_id: r.conversion_id };
    } catch (err) {
      const refusal = err instanceof Refusal ? BatchRefusal.safeParse(err.code) : undefined;
      if (refusal?.success) return { index, status: 'invalid', error: refusal.data };
      throw err;
    }
  }

  /** Active secrets, re-read at most every second so a rotation is seen quickly. */
  private async secrets(appId: string): Promise<string[]> {
    const cached = this.secretCache.get(appId);
    if (cached && this.now() - cached.at < 1000) return cached.secrets;
    const secrets = await this.apps.activeConversionSecrets(appId);
    if (this.secretCache.size > 10_000) this.secretCache.clear();
    this.secretCache.set(appId, { secrets, at: this.now() });
    return secrets;
  }
}

function ok(inserted: boolean, id: string, snapshotId: string): RecordedConversion {
  return { ok: true, inserted, conversion_id: id, offer_snapshot_id: snapshotId, billable: false, ledger_written: false };
}

/** The keys two conversions of a batch may share: its nonce and its order id, when it has them. */
function sameConversionKeys(item: unknown): string[] {
  if (typeof item !== 'object' || item === null) return [];
  const { nonce, order_id } = item as { nonce?: unknown; order_id?: unknown };
  return [...(typeof nonce === 'string' ? [`nonce:${nonce}`] : []), ...(typeof order_id === 'string' ? [`order:${order_id}`] : [])];
}
