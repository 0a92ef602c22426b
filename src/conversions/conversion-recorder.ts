// Conversions without an order id are written through the group-commit writer: the rows of
// concurrent requests go to the conversions repository together, as one statement that spends
// their nonces, inserts them and counts them in the report rollups, and each request is answered
// once that statement has committed. One statement a batch takes each hot rollup row's lock once,
// where a statement per conversion queued on it (bench/RESULTS.md, "Conversions in bulk"). A
// conversion with an order id claims the order too, in a transaction of its own.
import { GroupCommitWriter } from '../persistence/group-commit-writer.js';
import type { ConversionRepository, NewConversion, Recorded } from './conversion-repository.js';

export class ConversionRecorder {
  private readonly writer: GroupCommitWriter<NewConversion, Recorded>;

  constructor(
    private readonly conversions: ConversionRepository,
    onFlush?: (size: number, ms: number, ok: boolean) => void,
  ) {
    this.writer = new GroupCommitWriter((rows) => conversions.recordWithoutOrder(rows), { onFlush });
  }

  record(c: NewConversion): Promise<Recorded> {
    return c.orderId === null ? this.writer.write(c) : this.conversions.record(c);
  }

  get stats() {
    return this.writer.stats;
  }

  close(): Promise<void> {
    return this.writer.close();
  }
}
