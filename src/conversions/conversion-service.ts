// Signed conversions. Order of checks: signature (is it really the host?), clock
// tolerance, snapshot and decision ownership with the attribution window, then the single-use
// nonce, enforced by the (app_id, nonce) unique constraint.
import { createHash } from 'node:crypto';
import type { Principal } from '../auth/authenticator.js';
import type { AppRepository } from '../apps/app-repository.js';
import type { SnapshotLookup } from '../catalog/snapshot-lookup.js';
import type { DecisionRepository } from '../decisions/decision-repository.js';
import { Refusal } from '../errors/error-registry.js';
import { newId } from '../util/ids.js';
import { verifyConversionSignature } from './conversion-signature.js';
import type { ConversionRepository } from './conversion-repository.js';
import type { ConversionRequest } from './conversion-schemas.js';

export const CLOCK_TOLERANCE_SECONDS = 300;

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
    if (Math.abs(nowMs / 1000 - req.timestamp) > CLOCK_TOLERANCE_SECONDS) throw new Refusal('expired_conversion');
    if (!(await this.snapshots.exists(req.offer_snapshot_id))) throw new Refusal('unknown_snapshot');
    let test = principal.mode === 'test';
    if (req.decision_id) {
      const d = await this.decisions.ownership(req.decision_id);
      if (!d || d.appId !== principal.appId || d.offerSnapshotId !== req.offer_snapshot_id) throw new Refusal('unknown_snapshot');
      if (nowMs - d.createdAt.getTime() > this.attributionWindowMs) throw new Refusal('expired_conversion');
      test ||= d.test;
    }
    const requestHash = createHash('sha256')
      .update(JSON.stringify([req.offer_snapshot_id, req.decision_id ?? null, req.timestamp, req.nonce]))
      .digest();
    const id = newId('cnv');
    const inserted = await this.conversions.insertIfNonceUnused({
      id,
      appId: principal.appId,
      offerSnapshotId: req.offer_snapshot_id,
      decisionId: req.decision_id ?? null,
      nonce: req.nonce,
      signedAt: req.timestamp,
      requestHash,
      test,
      createdAt: new Date(nowMs),
    });
    if (inserted) return ok(true, id, req.offer_snapshot_id);
    const e = await this.conversions.findByNonce(principal.appId, req.nonce);
    // A nonce is single use: only an exact retry is answered with the original conversion.
    if (!e || !e.requestHash.equals(requestHash)) throw new Refusal('invalid_conversion');
    return ok(false, e.id, req.offer_snapshot_id);
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
