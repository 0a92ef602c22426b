// The Redis counter store: the hot state every instance shares (REDIS_URL).
//
// Bounded on purpose (DESIGN.md §4: with ioredis defaults a hung or refused Redis stalls each
// request for over 8 s):
// - enableOfflineQueue:false: while disconnected a command fails at once instead of queueing;
// - maxRetriesPerRequest:0: a command in flight when the connection drops is failed, never
//   replayed (a replayed claim could count twice);
// - commandTimeout (default 200 ms): a hung server costs a request at most this much;
// - socketTimeout: a connection that stops answering is dropped and reconnected, after which
//   commands fail at once until the server answers again;
// - connectTimeout, and a retryStrategy that never gives up, with capped backoff and jitter;
// - lazyConnect, connected explicitly by ready() at startup, which never throws: the service
//   starts with Redis down and fails open until it is back.
// Every failure surfaces as CounterStoreUnavailable, whose message is fixed. The driver error is
// logged (at most once a second) by kind and code with the key prefix, never a key or a value.
//
// A command that timed out may still run when a stalled server resumes. For claimFirst that
// means a counter may be charged for a decide that already failed open: it can under-serve,
// never overspend.
//
// claimFirst touches keys of several campaigns in one script, so this store needs a single Redis
// node (or a primary behind Sentinel), not Redis Cluster.
import { Redis } from 'ioredis';
import {
  checkCandidates,
  checkKey,
  checkTtl,
  checkWindow,
  CounterStoreUnavailable,
  type ClaimCandidate,
  type ClaimOutcome,
  type CounterStoreLogger,
  type StartableCounterStore,
} from './counter-store.js';
import { DEFAULT_KEY_PREFIX } from './keys.js';

// Claims the first candidate that passes, atomically (a script runs alone on the server, so no
// other instance's claim can interleave between the checks and the increments).
//
// KEYS: for each candidate in order, its frequency keys, then its budget keys.
// ARGV[1]: number of candidates; then for each candidate:
//   nFrequency, nBudget,
//   (limit, windowMs) for each frequency key,
//   (limitMicros, amountMicros, ttlMs or -1 for a lifetime total) for each budget key.
// Returns a flat array: claimedIndex (0-based, -1 when none passed), then for each candidate
// skipped before it: index, reason (1 = frequency, 2 = budget), retryAfterMs (-1 = none).
const CLAIM_FIRST_LUA = `
local candidates = tonumber(ARGV[1])
local a = 2          -- ARGV cursor: the current candidate's header
local k = 1          -- KEYS cursor: the current candidate's first key
local out = {-1}
for i = 0, candidates - 1 do
  local nf = tonumber(ARGV[a])
  local nb = tonumber(ARGV[a + 1])
  local fa = a + 2             -- first (limit, windowMs) pair
  local ba = fa + nf * 2       -- first (limitMicros, amountMicros, ttlMs) triple
  local bk = k + nf            -- first budget key
  local reason = 0
  local retry = -1

  -- Frequency: the count served in the current window must be below the limit. The key's
  -- remaining TTL is when its window ends.
  for j = 0, nf - 1 do
    local count = tonumber(redis.call('GET', KEYS[k + j]) or '0') or 0
    if count >= tonumber(ARGV[fa + j * 2]) then
      reason = 1
      retry = redis.call('PTTL', KEYS[k + j])
      break
    end
  end

  -- Budget: what is spent plus this serve's amount must fit in the limit. Compared as
  -- spent > limit - amount, which stays exact for values up to 2^53 (Lua numbers are doubles).
  -- A daily bucket's remaining TTL is when it resets; a lifetime total has no reset.
  if reason == 0 then
    for j = 0, nb - 1 do
      local spent = tonumber(redis.call('GET', KEYS[bk + j]) or '0') or 0
      local limit = tonumber(ARGV[ba + j * 3])
      local amount = tonumber(ARGV[ba + j * 3 + 1])
      if spent > limit - amount then
        reason = 2
        if tonumber(ARGV[ba + j * 3 + 2]) >= 0 then retry = redis.call('PTTL', KEYS[bk + j]) end
        break
      end
    end
  end

  if reason == 0 then
    -- Passed: claim it. A frequency key's window starts with its first serve; a new daily
    -- bucket gets its expiry (PTTL -1 means the key exists without one, i.e. it was just created).
    for j = 0, nf - 1 do
      if redis.call('INCR', KEYS[k + j]) == 1 then
        redis.call('PEXPIRE', KEYS[k + j], ARGV[fa + j * 2 + 1])
      end
    end
    for j = 0, nb - 1 do
      redis.call('INCRBY', KEYS[bk + j], ARGV[ba + j * 3 + 1])
      local ttl = tonumber(ARGV[ba + j * 3 + 2])
      if ttl >= 0 and redis.call('PTTL', KEYS[bk + j]) == -1 then
        redis.call('PEXPIRE', KEYS[bk + j], ttl)
      end
    end
    out[1] = i
    return out
  end

  out[#out + 1] = i
  out[#out + 1] = reason
  out[#out + 1] = retry
  a = ba + nb * 3
  k = bk + nb
end
return out
`;

// Fixed-window hit. KEYS[1]: the window's counter; ARGV[1]: window length in ms.
// The first hit starts the window. A counter found without an expiry (which only an outside
// write could cause) gets one, so it can never count forever. Returns {count, msToReset}.
const HIT_LUA = `
local count = redis.call('INCR', KEYS[1])
local ttl = -1
if count ~= 1 then ttl = redis.call('PTTL', KEYS[1]) end
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

// Set if absent, atomically in one round trip. KEYS[1]: the key; ARGV[1]: value; ARGV[2]: TTL ms.
// Returns nil when this call set it, else the value already there. (Not SET NX GET, which needs
// Redis 7; and not SET NX then GET, which could see the key expire in between.)
const PUT_IF_ABSENT_LUA = `
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return nil
`;

type ScriptedRedis = Redis & {
  sidenoteClaimFirst(numKeys: number, ...keysThenArgs: (string | number)[]): Promise<number[]>;
  sidenoteHit(key: string, windowMs: number): Promise<[number, number]>;
  sidenotePutIfAbsent(key: string, value: string, ttlMs: number): Promise<string | null>;
};

export interface RedisCounterStoreOptions {
  url: string;
  keyPrefix?: string;
  /** A command not answered within this fails (default 200 ms). */
  commandTimeoutMs?: number;
  /** TCP connect timeout (default 1000 ms). */
  connectTimeoutMs?: number;
  /** A connection with a command outstanding and no data for this long is dropped and
   *  reconnected (default 2000 ms). */
  socketTimeoutMs?: number;
  /** Reconnect backoff cap (default 2000 ms). */
  maxReconnectDelayMs?: number;
  /** Coalesce commands issued in the same tick into one write (default true). */
  autoPipelining?: boolean;
  logger?: CounterStoreLogger;
}

export class RedisCounterStore implements StartableCounterStore {
  readonly kind = 'redis' as const;
  private readonly redis: ScriptedRedis;
  private readonly log?: CounterStoreLogger;
  private readonly keyPrefix: string;
  private lastLoggedAt = 0;
  private suppressed = 0;
  private closed = false;

  constructor(opts: RedisCounterStoreOptions) {
    this.log = opts.logger;
    this.keyPrefix = opts.keyPrefix ?? DEFAULT_KEY_PREFIX;
    const maxDelay = opts.maxReconnectDelayMs ?? 2000;
    this.redis = new Redis(opts.url, {
      keyPrefix: this.keyPrefix,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: opts.commandTimeoutMs ?? 200,
      connectTimeout: opts.connectTimeoutMs ?? 1000,
      socketTimeout: opts.socketTimeoutMs ?? 2000,
      enableAutoPipelining: opts.autoPipelining ?? true,
      // Keep reconnecting for as long as the process lives: 50 ms, 100 ms … capped, with jitter so
      // that many instances do not reconnect in lockstep.
      retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times - 1, 10), maxDelay) + Math.floor(Math.random() * 100),
      connectionName: 'sidenote-counters',
    }) as ScriptedRedis;
    // Without a listener ioredis prints each connection error to stderr, with the address.
    this.redis.on('error', (err: Error) => this.report('connection', err));
    this.redis.on('ready', () => {
      if (this.suppressed > 0 || this.lastLoggedAt > 0) this.log?.info?.({ counterStore: { keyPrefix: this.keyPrefix } }, 'counter store connected');
    });
    this.redis.defineCommand('sidenoteClaimFirst', { lua: CLAIM_FIRST_LUA });
    this.redis.defineCommand('sidenoteHit', { numberOfKeys: 1, lua: HIT_LUA });
    this.redis.defineCommand('sidenotePutIfAbsent', { numberOfKeys: 1, lua: PUT_IF_ABSENT_LUA });
  }

  /** Connects if not yet connected and waits up to timeoutMs for it. Never throws; reconnection
   *  goes on in the background either way. */
  async ready(timeoutMs = 2000): Promise<boolean> {
    if (this.closed) return false;
    if (this.redis.status === 'ready') return true;
    if (this.redis.status === 'wait') this.redis.connect().catch(() => {});
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.redis.off('ready', onReady);
        resolve(ok);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.redis.on('ready', onReady);
    });
  }

  hit(key: string, windowMs: number) {
    return this.run('hit', async () => {
      checkWindow(key, windowMs);
      const [count, ttl] = await this.redis.sidenoteHit(key, windowMs);
      return { count: Number(count), resetInMs: Math.max(0, Number(ttl)) };
    });
  }

  claimFirst(candidates: ClaimCandidate[]): Promise<ClaimOutcome> {
    return this.run('claimFirst', async () => {
      checkCandidates(candidates);
      if (candidates.length === 0) return { claimedIndex: -1, skipped: [] };
      const keys: string[] = [];
      const args: (string | number)[] = [candidates.length];
      for (const c of candidates) {
        args.push(c.frequency.length, c.budgets.length);
        for (const f of c.frequency) {
          keys.push(f.key);
          args.push(f.limit, f.windowMs);
        }
        for (const b of c.budgets) {
          keys.push(b.key);
          args.push(b.limitMicros, b.amountMicros, b.ttlMs ?? -1);
        }
      }
      const out = (await this.redis.sidenoteClaimFirst(keys.length, ...keys, ...args)).map(Number);
      const skipped: ClaimOutcome['skipped'] = [];
      for (let i = 1; i + 2 < out.length; i += 3) {
        skipped.push({ index: out[i], reason: out[i + 1] === 1 ? 'frequency' : 'budget', retryAfterMs: out[i + 2] >= 0 ? out[i + 2] : null });
      }
      return { claimedIndex: out[0], skipped };
    });
  }

  putIfAbsent(key: string, value: string, ttlMs: number) {
    return this.run('putIfAbsent', async () => {
      checkKey(key);
      checkTtl(ttlMs);
      const existing = await this.redis.sidenotePutIfAbsent(key, value, ttlMs);
      return existing == null ? null : String(existing);
    });
  }

  get(key: string) {
    return this.run('get', async () => {
      checkKey(key);
      return this.redis.get(key);
    });
  }

  delete(key: string) {
    return this.run('delete', async () => {
      checkKey(key);
      await this.redis.del(key);
    });
  }

  ping() {
    return this.run('ping', async () => {
      await this.redis.ping();
    });
  }

  async close() {
    this.closed = true;
    // Not QUIT: it waits for replies a hung server may never send.
    this.redis.disconnect();
  }

  /** Runs one operation; argument errors (programming errors) pass through as they are, every
   *  driver or server error becomes CounterStoreUnavailable. */
  private async run<T>(op: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof RangeError) throw err;
      this.report(op, err);
      throw new CounterStoreUnavailable();
    }
  }

  /** Logs a driver error by kind and code only: its message can carry addresses, and a reply
   *  error's text is the server's, so neither is logged. At most one line a second. */
  private report(op: string, err: unknown) {
    if (!this.log || this.closed) return;
    const now = Date.now();
    if (now - this.lastLoggedAt < 1000) {
      this.suppressed++;
      return;
    }
    const e = err as { name?: unknown; code?: unknown; message?: unknown };
    const message = typeof e?.message === 'string' ? e.message : '';
    const kind = /timed out|timeout/i.test(message)
      ? 'timeout'
      : /enableOfflineQueue|Connection is closed|MaxRetriesPerRequest|Stream isn't writeable/i.test(message)
        ? 'not_connected'
        : op === 'connection'
          ? 'connection'
          : 'command';
    const code = typeof e?.code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(e.code) ? e.code : undefined;
    this.log.warn(
      {
        counterStore: {
          op,
          kind,
          ...(code ? { code } : {}),
          errorType: typeof e?.name === 'string' ? e.name : 'Error',
          status: this.redis.status,
          keyPrefix: this.keyPrefix,
          suppressed: this.suppressed,
        },
      },
      'counter store unavailable',
    );
    this.lastLoggedAt = now;
    this.suppressed = 0;
  }
}
