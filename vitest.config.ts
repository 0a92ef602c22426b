import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    pool: 'forks',
    // Three files at a time on two cores: about a third of the suite's time is spent waiting
    // (timers, child processes, the stores), and a third file fills it (on this 2-core machine:
    // 257 s with two, 244 s with three); the suite passes under far heavier load
    // (scripts/suite-under-load.sh).
    maxWorkers: 3,
    // Each worker runs its files one after another in one module graph instead of importing the
    // app's modules again for every file (a quarter of the suite's CPU: 430 -> 316 CPU-s, 232 -> 173 s
    // on this 2-core machine). Every file builds its own apps, stores and databases; a file that
    // mocks a module loads it again after vi.resetModules() (test/security/constant-time.test.ts).
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
