// The sweep of unconfirmed serves (migration 011). A served decision's row is written before its
// decide knows whether the answer reaches the host in time, and is confirmed once it has. The
// instance that answers TIMEOUT corrects its row itself, but only while it lives and reaches the
// database; a row still unconfirmed `graceMs` after its decision was made belongs to an answer
// the host never got (the instance was killed, ran out of shutdown grace during an outage, or
// the outage outlasted its retries), and is corrected to the TIMEOUT row here: its spend off the
// ledger and its report counts moved, in the one statement the instance would have run.
//
// Any instance sweeps, at start and then every `intervalMs`; two sweeping at once are safe (the
// statement locks each row as it reads it, and skips one confirmed or corrected meanwhile).
// What a failure can cost: a serve answered in time whose confirmation never landed (the
// database away for longer than the recorder's retries) is corrected too: unbilled, never the
// reverse. The counter store keeps the spend it claimed (under-serving, never overspending).
import type { DecisionRepository } from './decision-repository.js';

const BATCH = 500;

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface UnconfirmedServesOptions {
  /** How long after its decision a served row may still be confirmed (default 5 minutes: the
   *  recorder retries a confirmation for about two). */
  graceMs?: number;
  intervalMs?: number;
  now: () => number;
  log?: Log;
}

export class UnconfirmedServes {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private readonly graceMs: number;

  constructor(
    private readonly decisions: Pick<DecisionRepository, 'unconfirmedBefore' | 'correctTimedOut'>,
    private readonly opts: UnconfirmedServesOptions,
  ) {
    this.graceMs = opts.graceMs ?? 5 * 60_000;
  }

  /** Corrects every served row unconfirmed past the grace; returns how many. One run at a time. */
  sweep(): Promise<number> {
    this.running ??= this.sweepAll().finally(() => (this.running = null));
    return this.running;
  }

  start(): void {
    if (this.timer) return;
    const tick = () =>
      void this.sweep().catch((err) => this.opts.log?.warn({ err: { type: (err as Error).name } }, 'unconfirmed serves: sweep failed; next run retries'));
    tick();
    this.timer = setInterval(tick, this.opts.intervalMs ?? 60_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => {});
  }

  private async sweepAll(): Promise<number> {
    const before = new Date(this.opts.now() - this.graceMs);
    let corrected = 0;
    for (;;) {
      const rows = await this.decisions.unconfirmedBefore(before, BATCH);
      if (rows.length === 0) break;
      corrected += await this.decisions.correctTimedOut(rows, true);
      if (rows.length < BATCH) break;
    }
    if (corrected > 0) this.opts.log?.info({ corrected }, 'served decisions never confirmed in time corrected to TIMEOUT');
    return corrected;
  }
}
