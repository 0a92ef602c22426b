// The store writes its two batched script calls itself (src/counters/encoded-script.ts): the
// bytes must be exactly what ioredis would write for the same call, and a server that has lost
// the script (SCRIPT FLUSH, a restart) must still answer, through EVAL.
import { afterAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { Command, Redis } from 'ioredis';
import { EncodedScript, encodeCommand } from '../../src/counters/encoded-script.js';
import { createCounterStore } from '../../src/counters/index.js';

describe('encodeCommand', () => {
  it('writes the bytes ioredis writes for the same call, keys prefixed', () => {
    const keys = ['f:sess-1:cmp.a', 'spend:cmp.한글', ''];
    const args = [3, 0, 2, 1, 'ok', -1, 1.5, '', '값'];
    const mine = encodeCommand('evalsha', ['abc123', String(keys.length)], keys, 'sn:', args);
    const theirs = new Command('evalsha', ['abc123', keys.length, ...keys, ...args], { keyPrefix: 'sn:' });
    // ioredis prefixes keys by the command's key positions; for EVALSHA that is numkeys' count.
    expect(mine).toBe(String(theirs.toWritable(undefined as never)));
  });

  it('writes an empty call', () => {
    expect(encodeCommand('evalsha', ['abc', '0'], [], 'p:', [])).toBe('*3\r\n$7\r\nevalsha\r\n$3\r\nabc\r\n$1\r\n0\r\n');
  });
});

const redisUrl = process.env.REDIS_URL;

describe.runIf(redisUrl)('EncodedScript against Redis', () => {
  const redis = new Redis(redisUrl as string, { lazyConnect: false });
  afterAll(() => redis.quit());

  it('runs the script, and runs it again by its text once the server has forgotten it', async () => {
    const prefix = `sn:enc:${randomBytes(4).toString('hex')}:`;
    const script = new EncodedScript("redis.call('SET', KEYS[1], ARGV[1]) return {redis.call('GET', KEYS[1]), ARGV[2]}", prefix);
    await redis.script('FLUSH');
    expect(await script.call(redis, ['k'], ['v1', 7])).toEqual(['v1', '7']);
    expect(await redis.get(`${prefix}k`)).toBe('v1');
    expect(await script.call(redis, ['k'], ['v2', 'x'])).toEqual(['v2', 'x']);
    await redis.del(`${prefix}k`);
  });

  it('keeps the store answering claims after SCRIPT FLUSH', async () => {
    const prefix = `sn:enc:${randomBytes(4).toString('hex')}:`;
    const store = createCounterStore({ redisUrl, keyPrefix: prefix, commandTimeoutMs: 2000 });
    try {
      await store.ready?.(2000);
      const candidate = { frequency: [{ key: `f:${prefix}`, limit: 1, windowMs: 60_000 }], spend: null };
      expect((await store.claimFirst([candidate])).claimedIndex).toBe(0);
      await redis.script('FLUSH');
      const again = await store.claimFirst([candidate]);
      expect(again.claimedIndex).toBe(-1);
      expect(again.skipped[0]?.reason).toBe('frequency');
    } finally {
      await store.close?.();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    }
  });
});
