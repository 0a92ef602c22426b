// The Redis counter store: the hot state every instance shares (REDIS_URL).
//
// Bounded on purpose (with ioredis defaults a hung or refused Redis stalls each
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
// never overspend (and the spend is rebuilt from the ledger when the record is next loaded).
//
// claimFirst touches keys of several campaigns in one script, so this store needs a single Redis
// node (or a primary behind Sentinel), not Redis Cluster.
import { Redis } from 'ioredis';
import {
  checkCampaignId,
  checkCandidates,
  checkKey,
  checkLedgerSpend,
  checkReceipt,
  checkTtl,
  checkHit,
  checkMark,
  CounterStoreUnavailable,
  newGeneration,
  receiptOf,
  SKIP_REASONS,
  type CachedSpend,
  type ClaimCandidate,
  type ClaimOutcome,
  type ClaimReceipt,
  type CounterStoreLogger,
  type LedgerSpend,
  type Mark,
  type MarksAndHitsOutcome,
  type StartableCounterStore,
  type WindowHit,
} from './counter-store.js';
import { EncodedScript } from './encoded-script.js';
import { DEFAULT_KEY_PREFIX, counterKeys } from './keys.js';

// Claims, for each decide in a batch, the first of its candidates that passes, atomically (a
// script runs alone on the server, so no other instance's claim can interleave between the checks
// and the increments; the decides of one batch are claimed one after the other, in order). One
// script call carries every claim made in one event-loop turn: one command, not one per decide.
//
// A campaign's spend is one hash (counterKeys.spend): g = generation (set when the record was
// loaded from the ledger), t = lifetime micros, d = UTC day, m = micros spent on day d. A hash
// without g is a spend we do not know (the store lost its data, or the campaign is new): the
// candidate is skipped (reason 3) until src/spend/ loads it from the ledger.
//
// KEYS: for each decide, for each of its candidates in order, its frequency keys, then its
// spend hash (if it has one).
// ARGV[1]: number of decides; then for each decide: nCandidates, nArgs (its arguments after this
// header), then for each candidate:
//   nFrequency, hasSpend (0/1),
//   (limit, windowMs) for each frequency key,
//   (amount, totalLimit, dailyLimit, day, msToDayEnd) if it has a spend.
// Returns a flat array, for each decide: claimedIndex (0-based, -1 when none passed), the
// generation claimed in ('' without spend), nSkipped, then for each candidate skipped before the
// claimed one: index, reason (1 = frequency, 2 = budget, 3 = spend unknown), retryAfterMs (-1 =
// none).
const CLAIM_BATCH_LUA = `
local function claim(candidates, a, k, out)
  local skipped = {}
  for i = 0, candidates - 1 do
    local nf = tonumber(ARGV[a])
    local ns = tonumber(ARGV[a + 1])
    local fa = a + 2             -- first (limit, windowMs) pair
    local sa = fa + nf * 2       -- spend arguments
    local sk = KEYS[k + nf]      -- spend hash, if ns == 1
    local reason = 0
    local retry = -1
    local gen = ''

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

    -- Spend: known, and what is spent plus this serve's amount fits both limits. Compared as
    -- spent > limit - amount, exact for values up to 2^53 (Lua numbers are doubles).
    if reason == 0 and ns == 1 then
      local h = redis.call('HMGET', sk, 'g', 't', 'd', 'm')
      if not h[1] then
        reason = 3
      else
        gen = h[1]
        local amount = tonumber(ARGV[sa])
        local today = 0
        -- The record's day, or a later one (the caller's clock is behind another instance's: a
        -- campaign's day never moves backwards), holds what today has spent. Days compare as text.
        if h[3] and h[3] >= ARGV[sa + 3] then today = tonumber(h[4]) or 0 end
        if (tonumber(h[2]) or 0) > tonumber(ARGV[sa + 1]) - amount then
          reason = 2
        elseif today > tonumber(ARGV[sa + 2]) - amount then
          reason = 2
          retry = tonumber(ARGV[sa + 4])
        end
      end
    end

    if reason == 0 then
      -- Passed: claim it. A frequency key's window starts with its first serve.
      for j = 0, nf - 1 do
        if redis.call('INCR', KEYS[k + j]) == 1 then
          redis.call('PEXPIRE', KEYS[k + j], ARGV[fa + j * 2 + 1])
        end
      end
      if ns == 1 then
        redis.call('HINCRBY', sk, 't', ARGV[sa])
        local d = redis.call('HGET', sk, 'd')
        if d and d >= ARGV[sa + 3] then
          redis.call('HINCRBY', sk, 'm', ARGV[sa])
        else
          redis.call('HSET', sk, 'd', ARGV[sa + 3], 'm', ARGV[sa])
        end
      end
      out[#out + 1] = i
      out[#out + 1] = gen
      out[#out + 1] = #skipped / 3
      for _, v in ipairs(skipped) do out[#out + 1] = v end
      return
    end

    skipped[#skipped + 1] = i
    skipped[#skipped + 1] = reason
    skipped[#skipped + 1] = retry
    a = sa + ns * 5
    k = k + nf + ns
  end
  out[#out + 1] = -1
  out[#out + 1] = ''
  out[#out + 1] = #skipped / 3
  for _, v in ipairs(skipped) do out[#out + 1] = v end
end

local out = {}
local a = 2
local k = 1
for r = 1, tonumber(ARGV[1]) do
  local candidates = tonumber(ARGV[a])
  local nargs = tonumber(ARGV[a + 1])
  claim(candidates, a + 2, k, out)
  -- The next decide's keys start after this one's: count them from its candidates' headers.
  local c = a + 2
  for i = 1, candidates do
    local nf = tonumber(ARGV[c])
    local ns = tonumber(ARGV[c + 1])
    k = k + nf + ns
    c = c + 2 + nf * 2 + ns * 5
  end
  a = a + 2 + nargs
end
return out
`;

// Gives one claim back. KEYS: frequency keys, then the spend hash (if any).
// ARGV: nFrequency, hasSpend, generation, day, amount. A frequency key is only counted down if it
// still exists (an expired window is not recreated); the spend only if the hash still has the
// generation the claim was made in (a record rebuilt from the ledger since may not include it).
const REFUND_LUA = `
local nf = tonumber(ARGV[1])
for j = 1, nf do
  if (tonumber(redis.call('GET', KEYS[j]) or '0') or 0) > 0 then redis.call('DECR', KEYS[j]) end
end
if tonumber(ARGV[2]) == 1 then
  local sk = KEYS[nf + 1]
  if redis.call('HGET', sk, 'g') == ARGV[3] then
    local amount = tonumber(ARGV[5])
    redis.call('HSET', sk, 't', math.max(0, (tonumber(redis.call('HGET', sk, 't')) or 0) - amount))
    if redis.call('HGET', sk, 'd') == ARGV[4] then
      redis.call('HSET', sk, 'm', math.max(0, (tonumber(redis.call('HGET', sk, 'm')) or 0) - amount))
    end
  end
end
return 1
`;

// Loads spend records that do not exist. KEYS: spend hashes. ARGV: generation, then (total, day,
// dayMicros) per key. Returns the 0-based indexes of the records loaded now.
const LOAD_SPEND_LUA = `
local out = {}
for i = 1, #KEYS do
  if redis.call('HEXISTS', KEYS[i], 'g') == 0 then
    local b = 2 + (i - 1) * 3
    redis.call('HSET', KEYS[i], 'g', ARGV[1], 't', ARGV[b], 'd', ARGV[b + 1], 'm', ARGV[b + 2])
    out[#out + 1] = i - 1
  end
end
return out
`;

// Raises existing spend records to at least the ledger's figures. KEYS: spend hashes. ARGV:
// (total, day, dayMicros) per key. Days compare as text (YYYY-MM-DD).
const RAISE_SPEND_LUA = `
for i = 1, #KEYS do
  if redis.call('HEXISTS', KEYS[i], 'g') == 1 then
    local b = 1 + (i - 1) * 3
    local total = tonumber(ARGV[b])
    if (tonumber(redis.call('HGET', KEYS[i], 't')) or 0) < total then redis.call('HSET', KEYS[i], 't', total) end
    local d = redis.call('HGET', KEYS[i], 'd')
    if d == ARGV[b + 1] then
      if (tonumber(redis.call('HGET', KEYS[i], 'm')) or 0) < tonumber(ARGV[b + 2]) then redis.call('HSET', KEYS[i], 'm', ARGV[b + 2]) end
    elseif (not d) or d < ARGV[b + 1] then
      redis.call('HSET', KEYS[i], 'd', ARGV[b + 1], 'm', ARGV[b + 2])
    end
  end
end
return 1
`;

// Marks set if absent, and fixed-window hits, for many callers in one script (a turn's clicks:
// each click's dedup marks and its address' rate windows; `hits` is one caller without marks,
// `putIfAbsent` one caller with one mark). A mark is GET, then SET with its TTL if there was
// none: not SET NX GET, which needs Redis 7, and atomic where SET NX then GET could see the key
// expire in between.
// The first hit starts a window. A counter found without an expiry (which only an outside write
// could cause) gets one, so it can never count forever. KEYS: for each caller, its marks' keys,
// then its windows' keys. ARGV[1]: number of callers; then for each: nMarks, nHits, (value,
// ttlMs) per mark, (windowMs, by) per hit. Returns, for each caller, per mark: 1 and the value
// already there, or 0 and '' when it was set now; per hit: count and ms to the window's reset.
// No nil in the reply: Lua would end the array there.
const MARKS_AND_HITS_LUA = `
local out = {}
local a = 2
local k = 1
for r = 1, tonumber(ARGV[1]) do
  local nm = tonumber(ARGV[a])
  local nh = tonumber(ARGV[a + 1])
  a = a + 2
  for i = 1, nm do
    local existing = redis.call('GET', KEYS[k])
    if existing then
      out[#out + 1] = 1
      out[#out + 1] = existing
    else
      redis.call('SET', KEYS[k], ARGV[a], 'PX', ARGV[a + 1])
      out[#out + 1] = 0
      out[#out + 1] = ''
    end
    a = a + 2
    k = k + 1
  end
  for i = 1, nh do
    local window = tonumber(ARGV[a])
    local by = tonumber(ARGV[a + 1])
    local count = redis.call('INCRBY', KEYS[k], by)
    local ttl = -1
    if count ~= by then ttl = redis.call('PTTL', KEYS[k]) end
    if ttl < 0 then
      redis.call('PEXPIRE', KEYS[k], window)
      ttl = window
    end
    out[#out + 1] = count
    out[#out + 1] = ttl
    a = a + 2
    k = k + 1
  end
end
return out
`;

/** Callers per batched script call at most, so no one script holds the server for long. */
const MAX_PER_CALL = 256;

interface MarksAndHitsRequest {
  marks: readonly Mark[];
  hits: readonly WindowHit[];
}

/** Calls made in one event-loop turn, sent together in one `send`: the first schedules the send
 *  for the end of the turn, a full batch goes at once. Each caller hears its own answer; a failed
 *  send fails every caller in it. */
class TurnBatch<In, Out> {
  private pending: { input: In; resolve: (o: Out) => void; reject: (e: unknown) => void }[] = [];

  constructor(
    private readonly max: number,
    private readonly send: (inputs: In[]) => Promise<Out[]>,
  ) {}

  add(input: In): Promise<Out> {
    return new Promise((resolve, reject) => {
      this.pending.push({ input, resolve, reject });
      if (this.pending.length >= this.max) this.flush();
      else if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush() {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.send(batch.map((b) => b.input)).then(
      (outs) => batch.forEach((b, i) => b.resolve(outs[i])),
      (err) => {
        for (const b of batch) b.reject(err);
      },
    );
  }
}

/** The claim script's keys and arguments for the decides of one turn (its layout is the
 *  script's, above). */
export function claimBatchCall(batch: readonly ClaimCandidate[][]): { keys: string[]; args: (string | number)[] } {
  const keys: string[] = [];
  const args: (string | number)[] = [batch.length];
  for (const candidates of batch) {
    const header = args.length;
    args.push(candidates.length, 0);
    for (const c of candidates) {
      args.push(c.frequency.length, c.spend ? 1 : 0);
      for (const f of c.frequency) {
        keys.push(f.key);
        args.push(f.limit, f.windowMs);
      }
      if (c.spend) {
        keys.push(counterKeys.spend(c.spend.campaignId));
        args.push(c.spend.amountMicros, c.spend.totalLimitMicros, c.spend.dailyLimitMicros, c.spend.day, c.spend.msToDayEnd);
      }
    }
    args[header + 1] = args.length - header - 2;
  }
  return { keys, args };
}

type ScriptedRedis = Redis & {
  sidenoteRefund(numKeys: number, ...keysThenArgs: (string | number)[]): Promise<number>;
  sidenoteLoadSpend(numKeys: number, ...keysThenArgs: (string | number)[]): Promise<number[]>;
  sidenoteRaiseSpend(numKeys: number, ...keysThenArgs: (string | number)[]): Promise<number>;
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
  private readonly claims = new TurnBatch(MAX_PER_CALL, (batch: ClaimCandidate[][]) => this.sendClaims(batch));
  private readonly marks = new TurnBatch(MAX_PER_CALL, (batch: MarksAndHitsRequest[]) => this.runMarksAndHits('marksAndHits', batch));
  // The two calls made once per event-loop turn, written to the socket by the store itself.
  private readonly claimBatch: EncodedScript;
  private readonly marksAndHitsBatch: EncodedScript;

  constructor(opts: RedisCounterStoreOptions) {
    this.log = opts.logger;
    this.keyPrefix = opts.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.claimBatch = new EncodedScript(CLAIM_BATCH_LUA, this.keyPrefix);
    this.marksAndHitsBatch = new EncodedScript(MARKS_AND_HITS_LUA, this.keyPrefix);
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
    this.redis.defineCommand('sidenoteRefund', { lua: REFUND_LUA });
    this.redis.defineCommand('sidenoteLoadSpend', { lua: LOAD_SPEND_LUA });
    this.redis.defineCommand('sidenoteRaiseSpend', { lua: RAISE_SPEND_LUA });
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

  async hits(batch: readonly WindowHit[]) {
    for (const h of batch) checkHit(h);
    if (batch.length === 0) return [];
    const [outcome] = await this.runMarksAndHits('hits', [{ marks: [], hits: batch }]);
    return outcome.hits;
  }

  claimFirst(candidates: ClaimCandidate[]): Promise<ClaimOutcome> {
    try {
      checkCandidates(candidates);
    } catch (err) {
      return Promise.reject(err);
    }
    if (candidates.length === 0) return Promise.resolve({ claimedIndex: -1, receipt: null, skipped: [] });
    return this.claims.add(candidates);
  }

  /** The claims of one event-loop turn in one script call; each decide hears its own. */
  private async sendClaims(batch: ClaimCandidate[][]): Promise<ClaimOutcome[]> {
    const { keys, args } = claimBatchCall(batch);
    const out = await this.run('claimFirst', () => this.claimBatch.call<Array<number | string>>(this.redis, keys, args));
    let o = 0;
    return batch.map((candidates) => {
      const claimedIndex = Number(out[o]);
      const generation = String(out[o + 1]);
      const nSkipped = Number(out[o + 2]);
      o += 3;
      const skipped: ClaimOutcome['skipped'] = [];
      for (let i = 0; i < nSkipped; i++, o += 3) {
        const retry = Number(out[o + 2]);
        skipped.push({ index: Number(out[o]), reason: SKIP_REASONS[Number(out[o + 1])], retryAfterMs: retry >= 0 ? retry : null });
      }
      return { claimedIndex, receipt: claimedIndex >= 0 ? receiptOf(candidates[claimedIndex], generation) : null, skipped };
    });
  }

  marksAndHits(marks: readonly Mark[], hits: readonly WindowHit[]): Promise<MarksAndHitsOutcome> {
    try {
      for (const m of marks) checkMark(m);
      for (const h of hits) checkHit(h);
    } catch (err) {
      return Promise.reject(err);
    }
    if (marks.length === 0 && hits.length === 0) return Promise.resolve({ existing: [], hits: [] });
    return this.marks.add({ marks, hits });
  }

  /** Callers' marks and hits in one script call (operation `op`, for the log): the marks and
   *  hits of one event-loop turn, or one `hits` or `putIfAbsent` call. */
  private async runMarksAndHits(op: string, batch: MarksAndHitsRequest[]): Promise<MarksAndHitsOutcome[]> {
    const keys: string[] = [];
    const args: (string | number)[] = [batch.length];
    for (const { marks, hits } of batch) {
      args.push(marks.length, hits.length);
      for (const m of marks) {
        keys.push(m.key);
        args.push(m.value, m.ttlMs);
      }
      for (const h of hits) {
        keys.push(h.key);
        args.push(h.windowMs, h.by);
      }
    }
    const out = await this.run(op, () => this.marksAndHitsBatch.call<Array<number | string>>(this.redis, keys, args));
    let o = 0;
    return batch.map(({ marks, hits }) => {
      const existing = marks.map(() => {
        const had = Number(out[o]) === 1;
        const value = String(out[o + 1]);
        o += 2;
        return had ? value : null;
      });
      const counts = hits.map(() => {
        const hit = { count: Number(out[o]), resetInMs: Math.max(0, Number(out[o + 1])) };
        o += 2;
        return hit;
      });
      return { existing, hits: counts };
    });
  }

  refund(receipt: ClaimReceipt): Promise<void> {
    return this.run('refund', async () => {
      checkReceipt(receipt);
      const keys = [...receipt.frequencyKeys];
      const s = receipt.spend;
      if (s) keys.push(counterKeys.spend(s.campaignId));
      await this.redis.sidenoteRefund(keys.length, ...keys, receipt.frequencyKeys.length, s ? 1 : 0, s?.generation ?? '', s?.day ?? '', s?.amountMicros ?? 0);
    });
  }

  loadSpend(spend: LedgerSpend[]): Promise<string[]> {
    return this.run('loadSpend', async () => {
      checkLedgerSpend(spend);
      if (spend.length === 0) return [];
      const keys = spend.map((s) => counterKeys.spend(s.campaignId));
      const args = spend.flatMap((s) => [s.totalMicros, s.day, s.dayMicros]);
      const loaded = await this.redis.sidenoteLoadSpend(keys.length, ...keys, newGeneration(), ...args);
      return loaded.map((i) => spend[Number(i)].campaignId);
    });
  }

  raiseSpend(spend: LedgerSpend[]): Promise<void> {
    return this.run('raiseSpend', async () => {
      checkLedgerSpend(spend);
      if (spend.length === 0) return;
      const keys = spend.map((s) => counterKeys.spend(s.campaignId));
      await this.redis.sidenoteRaiseSpend(keys.length, ...keys, ...spend.flatMap((s) => [s.totalMicros, s.day, s.dayMicros]));
    });
  }

  readSpend(campaignId: string): Promise<CachedSpend | null> {
    return this.run('readSpend', async () => {
      checkCampaignId(campaignId);
      const [g, t, d, m] = await this.redis.hmget(counterKeys.spend(campaignId), 'g', 't', 'd', 'm');
      if (!g) return null;
      return { campaignId, generation: g, totalMicros: Number(t ?? 0), day: d ?? '', dayMicros: Number(m ?? 0) };
    });
  }

  async putIfAbsent(key: string, value: string, ttlMs: number) {
    checkKey(key);
    checkTtl(ttlMs);
    const [outcome] = await this.runMarksAndHits('putIfAbsent', [{ marks: [{ key, value, ttlMs }], hits: [] }]);
    return outcome.existing[0];
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
      throw new CounterStoreUnavailable({ mayHaveRun: isTimeout(err) });
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
    const kind = isTimeout(err)
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

/** ioredis gave up waiting for the answer (commandTimeout): the command was sent and may have run. */
function isTimeout(err: unknown): boolean {
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' && /timed out|timeout/i.test(message);
}
