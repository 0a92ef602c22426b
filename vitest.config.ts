import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

// Files that take long mostly waiting (a soak, a cluster, killed processes, dependency faults)
// start first. Without timings from an earlier run (a fresh clone has none) vitest starts the
// largest files first, and the soak, a short file, ran last with the other workers idle.
const LONG_WAITS = ['test/soak/soak.test.ts', 'test/cluster/cluster.test.ts', 'test/durability/sigkill.test.ts', 'test/faults/dependency-faults.test.ts'];

class LongWaitsFirst extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const waits = (f: TestSpecification) => LONG_WAITS.some((w) => f.moduleId.endsWith(w));
    return [...sorted.filter(waits), ...sorted.filter((f) => !waits(f))];
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    pool: 'forks',
    // Three files at a time on two cores: about a third of the suite's time is spent waiting
    // (timers, child processes, the stores), and a third file fills it (CI: 275 s → 240 s on
    // this 2-core machine); the suite passes under far heavier load (scripts/suite-under-load.sh).
    maxWorkers: 3,
    sequence: { sequencer: LongWaitsFirst },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
