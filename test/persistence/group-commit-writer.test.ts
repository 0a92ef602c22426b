import { describe, expect, it } from 'vitest';
import { GroupCommitWriter } from '../../src/persistence/group-commit-writer.js';

describe('GroupCommitWriter', () => {
  it('flushes concurrent writes together and answers each after its batch commits', async () => {
    const batches: number[][] = [];
    let committed = new Set<number>();
    const writer = new GroupCommitWriter<number, string>(async (rows) => {
      batches.push(rows);
      await new Promise((r) => setTimeout(r, 5));
      committed = new Set([...committed, ...rows]);
      return rows.map((r) => `ok:${r}`);
    });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        writer.write(i).then((res) => {
          // The row is committed by the time its caller hears back.
          expect(committed.has(i)).toBe(true);
          return res;
        }),
      ),
    );
    expect(results).toEqual(Array.from({ length: 50 }, (_, i) => `ok:${i}`));
    expect(batches.length).toBe(1);
    expect(writer.stats.largestBatch).toBe(50);
  });

  it('counts as pending the rows of the batch being flushed, until it commits or fails', async () => {
    // A full run once read `pending === 0` while a batch of 1,000 clicks was still being written,
    // and took the click rows for settled with that batch missing.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const writer = new GroupCommitWriter<number>(async (rows) => {
      await held;
      if (rows.includes(-1)) throw new Error('refused');
      return rows.map(() => undefined);
    });
    const written = Promise.allSettled([writer.write(1), writer.write(2), writer.write(-1)]);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(writer.stats.pending).toBe(3);
    release();
    await written;
    expect(writer.stats.pending).toBe(0);
  });

  it('collects rows that arrive during a flush into the next batch', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const writer = new GroupCommitWriter<number>(async (rows) => {
      batches.push(rows);
      if (batches.length === 1) await new Promise<void>((r) => (release = r));
      return rows.map(() => undefined);
    });
    const first = writer.write(1);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const later = [writer.write(2), writer.write(3), writer.write(4)];
    release();
    await Promise.all([first, ...later]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('rejects every row of a failed batch and keeps working afterwards', async () => {
    let fail = true;
    const writer = new GroupCommitWriter<number>(async (rows) => {
      if (fail) throw new Error('database down');
      return rows.map(() => undefined);
    });
    const failed = await Promise.allSettled([writer.write(1), writer.write(2)]);
    expect(failed.map((f) => f.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await expect(writer.write(3)).resolves.toBeUndefined();
    expect(writer.stats.failedFlushes).toBe(1);
  });

  it('drains pending rows on close and refuses new ones', async () => {
    const seen: number[] = [];
    const writer = new GroupCommitWriter<number>(async (rows) => {
      await new Promise((r) => setTimeout(r, 10));
      seen.push(...rows);
      return rows.map(() => undefined);
    });
    const pending = [writer.write(1), writer.write(2)];
    await writer.close();
    expect(seen).toEqual([1, 2]);
    await Promise.all(pending);
    await expect(writer.write(3)).rejects.toThrow('writer closed');
  });
});
