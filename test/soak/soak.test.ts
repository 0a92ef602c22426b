// The soak run of bench/soak.ts, shortened for CI (npm run soak runs it for minutes): decide and
// impression events together against a real server process. No timing targets, only what must
// hold however fast the machine is: no 5xx, no socket errors, every acknowledged event stored,
// a clean drain on SIGTERM, and RSS growth within a generous bound.
import { describe, expect, it } from 'vitest';
import { formatSoak, runSoak } from '../../bench/soak.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 12);
const stores = `${process.env.DATABASE_URL ? 'Postgres' : 'PGlite'} + ${process.env.REDIS_URL ? 'Redis' : 'in-process counters'}`;

describe(`soak, ${SECONDS} s (${stores})`, () => {
  it(
    'serves decide and events with no 5xx, stores every acknowledged event, and keeps memory bounded',
    async () => {
      // Paced, so the other test file running beside it keeps its CPU (decide has a 50 ms budget).
      const report = await runSoak({ durationSec: SECONDS, connections: 4, rate: 120 });
      console.log(formatSoak(report));
      expect(report.decide.requests).toBeGreaterThan(SECONDS * 50);
      expect(report.eventsAcknowledged).toBeGreaterThan(100);
      expect(report.fiveXx).toBe(0);
      expect(report.decide.errors + report.decide.timeouts + report.events.errors + report.events.timeouts).toBe(0);
      expect(Object.keys(report.decide.statuses)).toEqual(['200']);
      expect(Object.keys(report.events.statuses)).toEqual(['200']);
      expect(report.acknowledgedStored).toBe(report.eventsAcknowledged);
      // Unanswered requests cut off by the load generator's stop may also have been written.
      expect(report.eventRows - report.eventsAcknowledged).toBeLessThanOrEqual(8);
      expect(report.serverExitCode).toBe(0);
      // Generous: a leak of a few hundred bytes per request over ~20k requests shows; GC noise does not.
      expect(report.rssMb.growth).toBeLessThan(200);
    },
    (SECONDS + 90) * 1000,
  );
});
