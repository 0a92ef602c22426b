// Rendered and qualified impressions. Validation of ownership happens
// before the write: the snapshot must exist, and a decision id must be the calling app's
// decision that served that very snapshot (else 404 unknown_snapshot, never a hint that
// another app's decision exists).
import { createHash } from 'node:crypto';
import type { Principal } from '../auth/authenticator.js';
import type { SnapshotLookup } from '../catalog/snapshot-lookup.js';
import type { DecisionRepository } from '../decisions/decision-repository.js';
import { Refusal } from '../errors/error-registry.js';
import { newId } from '../util/ids.js';
import type { EventRecorder } from './event-recorder.js';
import type { EventRepository, ImpressionType } from './event-repository.js';

export interface RecordedImpression {
  ok: true;
  inserted: boolean;
  event_id: string;
  offer_snapshot_id: string;
  type: ImpressionType;
  billable: false;
}

export interface ImpressionCommand {
  principal: Principal;
  type: ImpressionType;
  offerSnapshotId: string;
  decisionId: string | null;
  idempotencyKey: string;
}

export class ImpressionEvents {
  constructor(
    private readonly snapshots: SnapshotLookup,
    private readonly decisions: DecisionRepository,
    private readonly events: EventRepository,
    private readonly recorder: EventRecorder,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records an impression, or refuses it: unknown_snapshot, idempotency_key_reused. */
  async record(cmd: ImpressionCommand): Promise<RecordedImpression> {
    if (!(await this.snapshots.exists(cmd.offerSnapshotId))) throw new Refusal('unknown_snapshot');
    let test = cmd.principal.mode === 'test';
    if (cmd.decisionId) {
      const decision = await this.decisions.ownership(cmd.decisionId);
      if (!decision || decision.appId !== cmd.principal.appId || decision.offerSnapshotId !== cmd.offerSnapshotId) {
        throw new Refusal('unknown_snapshot');
      }
      test ||= decision.test;
    }
    // A qualified impression counts only after a rendered one for the same decision (whose 200
    // the host has seen); without a decision id there is nothing to follow.
    let notCountedReason: string | null = test ? 'test' : null;
    if (!notCountedReason && cmd.type === 'qualified_impression') {
      const rendered = cmd.decisionId ? await this.events.hasRenderedEvent(cmd.principal.appId, cmd.decisionId) : false;
      if (!rendered) notCountedReason = 'no_prior_render';
    }
    // What the key promises to mean: the same key must always carry the same event.
    const requestHash = createHash('sha256')
      .update(JSON.stringify([cmd.type, cmd.offerSnapshotId, cmd.decisionId]))
      .digest();
    const result = await this.recorder.record({
      id: newId('evt'),
      appId: cmd.principal.appId,
      type: cmd.type,
      offerSnapshotId: cmd.offerSnapshotId,
      decisionId: cmd.decisionId,
      idempotencyKey: cmd.idempotencyKey,
      requestHash,
      test,
      counted: notCountedReason === null,
      notCountedReason,
      createdAt: new Date(this.now()),
    });
    if (!result.inserted && !result.sameRequest) throw new Refusal('idempotency_key_reused');
    // Committed: a qualified impression for this decision may now count without asking Postgres.
    if (cmd.type === 'offer_rendered' && cmd.decisionId) this.events.noteRendered(cmd.principal.appId, cmd.decisionId);
    return { ok: true, inserted: result.inserted, event_id: result.eventId, offer_snapshot_id: cmd.offerSnapshotId, type: cmd.type, billable: false };
  }
}
