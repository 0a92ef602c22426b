// The counter store of this process: Redis when REDIS_URL is configured (the production and
// multi-instance mode), process memory otherwise (the embedded default).
import { MemoryCounterStore, type MemoryCounterStoreOptions } from './memory-counter-store.js';
import { RedisCounterStore } from './redis-counter-store.js';
import type { CounterStoreLogger, StartableCounterStore } from './counter-store.js';

export interface CounterStoreConfig {
  redisUrl?: string;
  /** Prefix of every key (default `sn:`); lets several deployments or test runs share a Redis. */
  keyPrefix?: string;
  /** Redis only: a command not answered within this fails (default 200 ms). */
  commandTimeoutMs?: number;
  /** Redis only: TCP connect timeout (default 1000 ms). */
  connectTimeoutMs?: number;
  /** Memory only: bounds of its namespaces (defaults in MEMORY_STORE_DEFAULTS). */
  memoryBounds?: Pick<MemoryCounterStoreOptions, 'maxCampaigns' | 'maxMemoryMb' | 'maxFrequencyWindows' | 'maxRateWindows' | 'maxEntries'>;
  logger?: CounterStoreLogger;
}

/** Creates the store without connecting; call `ready()` once at startup (it never throws). */
export function createCounterStore(config: CounterStoreConfig = {}): StartableCounterStore {
  if (config.redisUrl) {
    return new RedisCounterStore({
      url: config.redisUrl,
      keyPrefix: config.keyPrefix,
      commandTimeoutMs: config.commandTimeoutMs,
      connectTimeoutMs: config.connectTimeoutMs,
      logger: config.logger,
    });
  }
  return new MemoryCounterStore({ keyPrefix: config.keyPrefix, ...config.memoryBounds });
}

export {
  CounterStoreUnavailable,
  isCounterStoreUnavailable,
  type CachedSpend,
  type ClaimCandidate,
  type ClaimOutcome,
  type ClaimReceipt,
  type LedgerSpend,
  type SpendClaim,
  type CounterStore,
  type CounterStoreLogger,
  type FrequencyLimit,
  type StartableCounterStore,
} from './counter-store.js';
export { COUNTER_TTLS, DEFAULT_KEY_PREFIX, counterKeys, keyHash } from './keys.js';
export { ENTRY_HEAP_BYTES, MEMORY_STORE_DEFAULTS, MemoryCounterStore, entriesWithin, type MemoryCounterStoreOptions } from './memory-counter-store.js';
export { RedisCounterStore, type RedisCounterStoreOptions } from './redis-counter-store.js';
export { createRateLimitStore } from './rate-limit-store.js';
