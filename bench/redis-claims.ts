// Claims per second one Redis primary answers (docs/scaling.md, "Redis: how claims shard"): the
// decide's claim script (claimFirst, src/counters/redis-counter-store.ts) over 3 candidates of
// different campaigns with a session cap each, from one process at several concurrencies, and
// the Redis server's CPU per claim (INFO's used_cpu_sys + used_cpu_user before and after), and
// the client's: this process' CPU per claim (ioredis and the store's batching, with the candidates
// built here), and what one batch's command costs to write, by ioredis' Command and by the
// store's own writer (issue 34: the pre-encoded call), with no network.
//
//   REDIS_URL=redis://127.0.0.1:6379/0 npm run bench:redis-claims -- [--seconds 5] [--concurrency 10,50,200]
//
// Uses keys under its own prefix, deletes them all when done (a run makes hundreds of thousands
// of frequency keys), and touches no other key. Writes bench/out/redis-claims.{json,md}.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Redis } from 'ioredis';
import { encodeCommand } from '../src/counters/encoded-script.js';
import { createCounterStore } from '../src/counters/index.js';
import { claimBatchCall } from '../src/counters/redis-counter-store.js';
import type { ClaimCandidate } from '../src/counters/counter-store.js';
import { counterKeys } from '../src/counters/keys.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const SECONDS = Number(arg('seconds', '5'));
const CONCURRENCY = arg('concurrency', '10,50,200').split(',').map(Number);
const url = process.env.REDIS_URL;
if (!url) throw new Error('REDIS_URL is required');

const prefix = `sn:claimbench:${process.pid}:`;
const store = createCounterStore({ redisUrl: url, keyPrefix: prefix, commandTimeoutMs: 2000 });
await store.ready?.(2000);
const campaigns = Array.from({ length: 50 }, (_, i) => `cmp.bench-${i}`);
const day = new Date().toISOString().slice(0, 10);
await store.loadSpend(campaigns.map((campaignId) => ({ campaignId, totalMicros: 0, day, dayMicros: 0 })));

let session = 0;
function candidates(): ClaimCandidate[] {
  const s = `s${++session}`;
  return [0, 1, 2].map((k) => {
    const campaignId = campaigns[(session + k * 17) % campaigns.length];
    return {
      frequency: [
        { key: counterKeys.frequency(s, campaignId), limit: 3, windowMs: 3_600_000 },
        { key: counterKeys.globalFrequency(s), limit: 10, windowMs: 3_600_000 },
      ],
      spend: { campaignId, amountMicros: 1, totalLimitMicros: 1e15, dailyLimitMicros: 1e14, day, msToDayEnd: 3_600_000 },
    };
  });
}

const info = new Redis(url);
const serverCpu = async () => {
  const text = await info.info('cpu');
  const v = (k: string) => Number(new RegExp(`${k}:([\\d.]+)`).exec(text)?.[1] ?? 0);
  return v('used_cpu_sys') + v('used_cpu_user');
};

const rows: { concurrency: number; claimsPerSecond: number; serverCpuMicrosPerClaim: number; clientCpuMicrosPerClaim: number }[] = [];
for (const concurrency of CONCURRENCY) {
  let claims = 0;
  const cpu0 = await serverCpu();
  const client0 = process.cpuUsage();
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const out = await store.claimFirst(candidates());
        if (out.claimedIndex < 0) throw new Error('a claim that should pass did not');
        claims++;
      }
    }),
  );
  const client = process.cpuUsage(client0);
  const cpu = (await serverCpu()) - cpu0;
  const clientCpuMicrosPerClaim = Math.round((client.user + client.system) / claims);
  rows.push({ concurrency, claimsPerSecond: Math.round(claims / SECONDS), serverCpuMicrosPerClaim: Math.round((cpu / claims) * 1e6), clientCpuMicrosPerClaim });
  console.log(
    `${concurrency} concurrent: ${Math.round(claims / SECONDS)} claims/s, Redis CPU ${Math.round((cpu / claims) * 1e6)} µs per claim, client CPU ${clientCpuMicrosPerClaim} µs`,
  );
}

// What one batch's command costs to turn into bytes, no network: ioredis' Command (as the store
// sent it before issue 34's step) against the store's own writer (src/counters/encoded-script.ts),
// on the same call: the claims of five decides of one turn, keys prefixed.
const { keys: batchKeys, args: batchArgs } = claimBatchCall(Array.from({ length: 5 }, () => candidates()));
const sha = '0123456789abcdef0123456789abcdef01234567';
const callSize = batchKeys.length + batchArgs.length;
const ENCODINGS = 200_000;
let bytes = 0;
const t0 = process.cpuUsage();
for (let i = 0; i < ENCODINGS; i++) {
  const w = new Command('evalsha', [sha, batchKeys.length, ...batchKeys, ...batchArgs], { keyPrefix: prefix, replyEncoding: 'utf8' }).toWritable(
    undefined as never,
  );
  bytes += w.length;
}
const t = process.cpuUsage(t0);
const encodingMicros = (t.user + t.system) / ENCODINGS;
const h0 = process.cpuUsage();
for (let i = 0; i < ENCODINGS; i++) bytes += encodeCommand('evalsha', [sha, String(batchKeys.length)], batchKeys, prefix, batchArgs).length;
const h = process.cpuUsage(h0);
const handMicros = (h.user + h.system) / ENCODINGS;
if (bytes === 0) throw new Error('nothing was encoded');
console.log(
  `one batch of ${callSize} keys and arguments: ioredis Command + toWritable ${encodingMicros.toFixed(2)} µs, the store's writer ${handMicros.toFixed(2)} µs`,
);
// Every key of this run, and only those.
let cursor = '0';
do {
  const [next, keys] = await info.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 5000);
  if (keys.length > 0) await info.unlink(...keys);
  cursor = next;
} while (cursor !== '0');
await info.quit();
await store.close();

const md = [
  '# Redis claims (claimFirst, 3 candidates of different campaigns, session caps)',
  '',
  '| concurrency | claims/s (one client process) | Redis CPU per claim | client CPU per claim |',
  '|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${r.concurrency} | ${r.claimsPerSecond} | ${r.serverCpuMicrosPerClaim} µs | ${r.clientCpuMicrosPerClaim} µs |`),
  '',
  `One batch's command (five decides' claims, ${callSize} keys and arguments), no network: ioredis (Command and toWritable) ${encodingMicros.toFixed(2)} µs, the store's writer ${handMicros.toFixed(2)} µs.`,
  '',
  `One Redis core saturates near ${Math.round(1e6 / Math.min(...rows.map((r) => r.serverCpuMicrosPerClaim)))} claims/s at the lowest CPU per claim measured.`,
].join('\n');
mkdirSync(path.join(ROOT, 'bench/out'), { recursive: true });
writeFileSync(path.join(ROOT, 'bench/out/redis-claims.json'), `${JSON.stringify({ rows, encodingMicros, handMicros }, null, 2)}\n`);
writeFileSync(path.join(ROOT, 'bench/out/redis-claims.md'), `${md}\n`);
console.log(md);
