// A steady stream of host traffic against a running server, for fault and soak tests: decides
// and impression events from a few concurrent "hosts", with every answer tallied so a test can
// say what was seen while a fault was on, and every acknowledged event id kept so it can be
// looked up in the database afterwards.
import { randomBytes } from 'node:crypto';
import { koreanTurn } from './envelopes.js';

export interface Tally {
  decide: Record<string, number>; // status → count
  decideReasons: Record<string, number>; // reason code → count (200 answers)
  events: Record<string, number>; // status → count
  eventsWithoutRetryAfter503: number;
  /** Requests that got no answer at all within the client timeout, or a network error. */
  noAnswer: number;
  /** Error bodies that are not the documented `{ ok:false, error }` shape. */
  badBodies: string[];
  /** Slowest decide and event answers, in ms. */
  decideMaxMs: number;
  eventMaxMs: number;
  /** Requests started in this tally's window and not answered yet. */
  inFlight: number;
}

const newTally = (): Tally => ({
  decide: {},
  decideReasons: {},
  events: {},
  eventsWithoutRetryAfter503: 0,
  noAnswer: 0,
  badBodies: [],
  decideMaxMs: 0,
  eventMaxMs: 0,
  inFlight: 0,
});
const bump = (m: Record<string, number>, k: string) => void (m[k] = (m[k] ?? 0) + 1);

export const servingEnvelope = (message = '제주도 오션뷰 호텔 최저가 알려줘') =>
  koreanTurn(message, { session: { token: `s-${randomBytes(6).toString('hex')}` } });

export class HostTraffic {
  tally = newTally();
  readonly acknowledgedEventIds: string[] = [];
  private running = false;
  private workers: Promise<void>[] = [];
  private seq = 0;
  private readonly tag = randomBytes(4).toString('hex');

  constructor(
    private readonly opts: {
      url: string;
      key: string;
      /** A served decision whose snapshot the events refer to. */
      served: { decision_id: string; offer_id: string };
      concurrency?: number;
      timeoutMs?: number;
      /** Pause of each loop between requests: a steady stream, not a CPU-saturating flood. */
      pauseMs?: number;
    },
  ) {}

  /** `concurrency` decide loops and as many event loops, independent of each other, so a
   *  stalled event never holds back a decide (or the reverse). */
  start() {
    this.running = true;
    const n = this.opts.concurrency ?? 3;
    this.workers = [...Array.from({ length: n }, () => this.loop(() => this.decide())), ...Array.from({ length: n }, () => this.loop(() => this.event()))];
  }

  async stop() {
    this.running = false;
    await Promise.all(this.workers);
  }

  /** Returns what was seen since the last call, and starts a new tally. */
  take(): Tally {
    const t = this.tally;
    this.tally = newTally();
    return t;
  }

  /** Waits until every request started in that tally's window has its answer counted. */
  static async settled(t: Tally): Promise<Tally> {
    while (t.inFlight > 0) await new Promise((r) => setTimeout(r, 50));
    return t;
  }

  private async loop(request: () => Promise<void>) {
    while (this.running) {
      await request();
      await new Promise((r) => setTimeout(r, this.opts.pauseMs ?? 10));
    }
  }

  private async call(path: string, body: unknown, headers: Record<string, string> = {}) {
    return fetch(`${this.opts.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.opts.key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.opts.timeoutMs ?? 15_000),
    });
  }

  private async decide() {
    const tally = this.tally;
    const started = Date.now();
    tally.inFlight++;
    try {
      const res = await this.call('/v1/offers/decide', servingEnvelope());
      tally.decideMaxMs = Math.max(tally.decideMaxMs, Date.now() - started);
      bump(tally.decide, String(res.status));
      const body = await res.json();
      if (res.status === 200) for (const code of body.reason_codes ?? []) bump(tally.decideReasons, code);
      else if (body?.ok !== false || typeof body.error !== 'string') tally.badBodies.push(JSON.stringify(body));
    } catch {
      tally.noAnswer++;
    } finally {
      tally.inFlight--;
    }
  }

  private async event() {
    const tally = this.tally;
    const started = Date.now();
    tally.inFlight++;
    const n = ++this.seq;
    const path = n % 2 ? '/v1/events/rendered' : '/v1/events/qualified-impression';
    try {
      const res = await this.call(
        path,
        { offer_snapshot_id: this.opts.served.offer_id, decision_id: this.opts.served.decision_id },
        { 'idempotency-key': `traffic-${this.tag}-${n}` },
      );
      tally.eventMaxMs = Math.max(tally.eventMaxMs, Date.now() - started);
      bump(tally.events, String(res.status));
      const body = await res.json();
      if (res.status === 200) this.acknowledgedEventIds.push(body.event_id);
      else if (body?.ok !== false || typeof body.error !== 'string') tally.badBodies.push(JSON.stringify(body));
      if (res.status === 503 && !res.headers.get('retry-after')) tally.eventsWithoutRetryAfter503++;
    } catch {
      tally.noAnswer++;
    } finally {
      tally.inFlight--;
    }
  }
}

/** Resident set size of a process in MB, from /proc (Linux). */
export async function rssMb(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}
