// The embedded counter store keeps to its stated heap ceiling (COUNTER_MEMORY_MB) whatever the
// traffic: 200,000 distinct session tokens, then 50,000 rate windows and 50,000 idempotency
// entries (several times what fits), all with the longest keys the service makes, grow the heap
// by no more than the ceiling. Without it, 200,000 sessions took a server from 122 to 501 MB.
import v8 from 'node:v8';
import vm from 'node:vm';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemoryCounterStore, counterKeys, entriesWithin } from '../../src/counters/index.js';

function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

const hash = (s: string) => createHash('sha256').update(s).digest('base64url').slice(0, 22);
const LONGEST_ID = 'c'.repeat(64);
const SPEND = { campaignId: 'cmp.a', amountMicros: 1, totalLimitMicros: 1e12, dailyLimitMicros: 1e12, day: '2026-11-28', msToDayEnd: 3_600_000 };

describe('embedded counter store: a heap ceiling', () => {
  it('sizes each namespace from the ceiling, and grows the heap by no more than it under any traffic', { timeout: 120_000 }, async () => {
    const MB = 16;
    const gc = collector();
    const store = new MemoryCounterStore({ keyPrefix: 'sidenote:prod-eu-1:', maxMemoryMb: MB });
    expect(store.bounds).toMatchObject({
      frequencyWindows: entriesWithin(MB).frequency,
      rateWindows: entriesWithin(MB).rate,
      entries: entriesWithin(MB).entry,
    });
    await store.loadSpend([{ campaignId: 'cmp.a', totalMicros: 0, dayMicros: 0, day: '2026-11-28' }]);
    gc();
    const before = process.memoryUsage().heapUsed;
    let served = 0;
    for (let i = 0; i < 200_000; i++) {
      const session = hash(`session ${i}`);
      const outcome = await store.claimFirst([
        {
          frequency: [
            { key: counterKeys.frequency(session, LONGEST_ID), limit: 3, windowMs: 86_400_000 },
            { key: counterKeys.globalFrequency(session), limit: 10, windowMs: 3_600_000 },
          ],
          spend: SPEND,
        },
      ]);
      if (outcome.claimedIndex === 0) served++;
    }
    for (let i = 0; i < 50_000; i++) {
      await store.hits([{ key: counterKeys.rateLimit('decide', `app.${LONGEST_ID}.${hash(`address ${i}`)}`), windowMs: 60_000, by: 1 }]);
      await store.putIfAbsent(counterKeys.idempotency(`app_${'x'.repeat(22)}`, `${'k'.repeat(200)}${i}`), `evt_${'y'.repeat(40)}`, 86_400_000);
    }
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    // Full: new sessions past the frequency share are refused (no serve rather than an uncapped
    // one), rate windows and entries keep the newest.
    expect(served).toBe(Math.floor(store.bounds.frequencyWindows / 2));
    expect(store.sizes).toMatchObject({ frequencyWindows: served * 2, rateWindows: store.bounds.rateWindows, entries: store.bounds.entries });
    expect(grown).toBeLessThanOrEqual(MB * 1024 * 1024);
    await store.close();
  });

  it('takes COUNTER_MEMORY_MB from the configuration, 128 MB by default', async () => {
    const { loadConfig } = await import('../../src/config/config.js');
    expect(loadConfig({}).counterMemoryMb).toBe(128);
    expect(loadConfig({ COUNTER_MEMORY_MB: '512' }).counterMemoryMb).toBe(512);
  });
});
