// How `sidenote catalog import` shows its progress, on stderr (stdout keeps the report, and
// `--json` stays pure JSON): a bar on a terminal (cli-progress, which redraws in place and
// handles terminal width), plain lines otherwise, so a log or CI keeps a readable record: none
// for an import done within a couple of seconds, else one at each phase and one every few seconds.
import cliProgress from 'cli-progress';
import type { ImportPhase, ImportProgress } from '../catalog/catalog-importer.js';

/** What the import has done so far, whichever way it runs (in process, or as a server's job). */
export type ImportProgressView = ImportProgress & { phase: ImportPhase };

export interface ProgressDisplay {
  update(p: ImportProgressView): void;
  stop(): void;
}

/** Plain lines: nothing before this, so a quick import prints only its report. */
const PLAIN_QUIET_MS = 2_000;
const PLAIN_EVERY_MS = 5_000;

export function progressDisplay(stream: NodeJS.WriteStream = process.stderr): ProgressDisplay {
  return stream.isTTY ? new BarDisplay(stream) : new LineDisplay(stream);
}

const mb = (n: number) => `${(n / 1_048_576).toFixed(1)} MB`;
const count = (n: number) => n.toLocaleString('en-US');

/** Where the import stands, as one line. */
export function describeProgress(p: ImportProgressView): string {
  if (p.phase === 'writing') return `writing: ${count(p.offersWritten)} of ${count(p.offersTotal ?? 0)} offers`;
  if (p.offersChecked === 0) return `validating: ${mb(p.bytesRead)} of ${mb(p.bytesTotal)} read, ${count(p.offersRead)} offers`;
  return `validating: references of ${count(p.offersChecked)} of ${count(p.offersRead)} offers checked`;
}

export class LineDisplay implements ProgressDisplay {
  private readonly started: number;
  private phase: string | null = null;
  private last = 0;
  private latest: string | null = null;
  private printed: string | null = null;
  constructor(
    private readonly stream: Pick<NodeJS.WritableStream, 'write'>,
    private readonly now: () => number = Date.now,
  ) {
    this.started = now();
  }

  update(p: ImportProgressView): void {
    this.latest = describeProgress(p);
    const now = this.now();
    if (now - this.started < PLAIN_QUIET_MS) return;
    if (p.phase === this.phase && now - this.last < PLAIN_EVERY_MS) return;
    this.phase = p.phase;
    this.last = now;
    this.print(this.latest);
  }

  /** The last figures, when any line was printed and they were not the last one. */
  stop(): void {
    if (this.latest && this.printed) this.print(this.latest);
  }

  private print(line: string) {
    if (line === this.printed) return;
    this.printed = line;
    this.stream.write(`${line}\n`);
  }
}

class BarDisplay implements ProgressDisplay {
  private readonly bar: cliProgress.SingleBar;
  private started = false;
  constructor(stream: NodeJS.WriteStream) {
    this.bar = new cliProgress.SingleBar(
      { stream, format: '{step} [{bar}] {percentage}% | {detail}', hideCursor: true, clearOnComplete: false },
      cliProgress.Presets.shades_classic,
    );
  }

  update(p: ImportProgressView): void {
    // Bytes while reading, offers while checking references and writing.
    const step = p.phase === 'writing' ? 'writing   ' : 'validating';
    const [value, total] =
      p.phase === 'writing'
        ? [p.offersWritten, p.offersTotal ?? 1]
        : p.bytesRead < p.bytesTotal
          ? [p.bytesRead, p.bytesTotal]
          : [p.offersChecked, Math.max(p.offersRead, 1)];
    const payload = { step, detail: describeProgress(p) };
    if (!this.started) {
      this.bar.start(total, value, payload);
      this.started = true;
    } else {
      this.bar.setTotal(total);
      this.bar.update(value, payload);
    }
  }

  stop(): void {
    if (this.started) this.bar.stop();
  }
}
