// What `sidenote catalog import` prints while it works, when stderr is not a terminal: nothing
// for a quick import, else a line per phase and one every few seconds, then the last figures.
import { describe, expect, it } from 'vitest';
import { LineDisplay, describeProgress, type ImportProgressView } from '../../src/cli/import-progress.js';

const at = (p: Partial<ImportProgressView>): ImportProgressView => ({
  phase: 'validating',
  bytesTotal: 10 * 1_048_576,
  bytesRead: 0,
  offersRead: 0,
  offersChecked: 0,
  offersTotal: null,
  offersWritten: 0,
  ...p,
});

function display() {
  let now = 0;
  const lines: string[] = [];
  const d = new LineDisplay({ write: (s: string) => lines.push(s.trimEnd()) > 0 }, () => now);
  return { d, lines, advance: (ms: number) => (now += ms) };
}

describe('catalog import progress as plain lines', () => {
  it('says where each phase stands', () => {
    expect(describeProgress(at({ bytesRead: 5 * 1_048_576, offersRead: 12_000 }))).toBe('validating: 5.0 MB of 10.0 MB read, 12,000 offers');
    expect(describeProgress(at({ bytesRead: 10 * 1_048_576, offersRead: 30_000, offersChecked: 7_000 }))).toBe(
      'validating: references of 7,000 of 30,000 offers checked',
    );
    expect(describeProgress(at({ phase: 'writing', offersTotal: 30_000, offersWritten: 4_000 }))).toBe('writing: 4,000 of 30,000 offers');
  });

  it('prints nothing for an import done within two seconds', () => {
    const { d, lines, advance } = display();
    d.update(at({ bytesRead: 1_048_576, offersRead: 10 }));
    advance(1_500);
    d.update(at({ phase: 'writing', offersTotal: 10, offersWritten: 10 }));
    d.stop();
    expect(lines).toEqual([]);
  });

  it('prints each phase, then every five seconds, then the last figures', () => {
    const { d, lines, advance } = display();
    d.update(at({ bytesRead: 1_048_576, offersRead: 1_000 }));
    advance(2_000);
    d.update(at({ bytesRead: 2 * 1_048_576, offersRead: 2_000 }));
    advance(1_000);
    d.update(at({ bytesRead: 3 * 1_048_576, offersRead: 3_000 }));
    advance(5_000);
    d.update(at({ bytesRead: 9 * 1_048_576, offersRead: 9_000 }));
    advance(100);
    d.update(at({ phase: 'writing', offersTotal: 10_000, offersWritten: 1_000 }));
    advance(100);
    d.update(at({ phase: 'writing', offersTotal: 10_000, offersWritten: 10_000 }));
    d.stop();
    expect(lines).toEqual([
      'validating: 2.0 MB of 10.0 MB read, 2,000 offers',
      'validating: 9.0 MB of 10.0 MB read, 9,000 offers',
      'writing: 1,000 of 10,000 offers',
      'writing: 10,000 of 10,000 offers',
    ]);
  });
});
