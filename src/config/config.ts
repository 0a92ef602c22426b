// Typed configuration. Only server.ts and the CLI read process.env (through loadConfig);
// everything else receives a Config, so tests build apps from plain objects.
import { z } from 'zod';

const bool = z.union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no'])]).transform((v) => v === true || v === 'true' || v === '1' || v === 'yes');
const csv = z.union([z.array(z.string()), z.string()]).transform((v) => (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean));

export const ConfigSchema = z.object({
  /** TCP port of the HTTP server. */
  port: z.coerce.number().int().min(0).max(65535).default(3000),
  host: z.string().default('0.0.0.0'),
  /** Public base address used to build tracked links ({base_url}/r/<token>). */
  baseUrl: z.url().optional(),
  /** Postgres connection string; when absent the embedded PGlite database is used. */
  databaseUrl: z.string().min(1).optional(),
  /** PGlite data directory, or `memory` for an in-memory database (tests). */
  dataDir: z.string().default('.data/pglite'),
  /** Where a new embedded database's initialised empty cluster is kept, so that it starts
   *  without running initdb; `none` keeps none. Unset: `~/.cache/sidenote`. */
  cacheDir: z.string().min(1).optional(),
  /** Redis connection string; when absent counters live in process memory. */
  redisUrl: z.string().min(1).optional(),
  redisCommandTimeoutMs: z.coerce.number().int().min(10).max(10_000).default(200),
  /** Prefix of every Redis key, so several deployments (or test runs) can share one Redis. */
  redisKeyPrefix: z
    .string()
    .regex(/^[A-Za-z0-9:_.-]{1,40}$/)
    .default('sn:'),
  /** Key protecting /admin; admin API is disabled when unset. At least 24 characters. */
  adminKey: z.string().min(24).optional(),
  /** Secret of tracked-link tokens (their sealing key is derived from it). When unset one is
   *  generated once and kept in the database, so every instance sharing it reads the same links. */
  linkSigningSecret: z.string().min(32).optional(),
  /** Handler time budget of decide, from request receipt. */
  decideTimeBudgetMs: z.coerce.number().int().min(1).max(10_000).default(50),
  /** How long a campaign's spend record that went missing from the counter store waits before it
   *  is rebuilt from the ledger (src/spend/). Default: the decide budget + 250 ms. */
  spendSettleMs: z.coerce.number().int().min(0).max(60_000).optional(),
  /** How long after its decision a served row may still be confirmed as answered in time; past
   *  it the row is corrected to TIMEOUT (src/decisions/unconfirmed-serves.ts). */
  unconfirmedServeGraceMs: z.coerce.number().int().min(1000).max(86_400_000).default(300_000),
  /** How often every instance sweeps unconfirmed served rows. */
  unconfirmedServeSweepMs: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
  /** How often counter-store spend records are raised to at least the ledger's figures. */
  spendReconcileMs: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
  /** Decide requests per minute per client IP. Raised by configuration for benchmarks. */
  decideRateLimitPerMinute: z.coerce.number().int().min(1).default(60),
  /** Tracked-link clicks (GET|HEAD /r/) per minute per client address (IPv6: per /64);
   *  past it 429 and nothing is recorded (src/links/redirect-routes.ts says why). */
  clickRateLimitPerMinute: z.coerce.number().int().min(1).default(120),
  /** Click intents per minute per client IP (the endpoint needs no key, only a token). */
  clickIntentRateLimitPerMinute: z.coerce.number().int().min(1).default(600),
  /** Requests with a missing or wrong serving key per minute per client address; past it they
   *  get 429 instead of 401. A flood guard that never touches a host's decide quota, which only
   *  its own authenticated calls spend. */
  authFailureLimitPerMinute: z.coerce.number().int().min(1).default(60),
  /** Embedded counter store only (no REDIS_URL): heap for its frequency windows, rate windows
   *  and fast-path entries together; past it the oldest rate windows and entries go and new
   *  frequency windows are refused (src/counters/memory-counter-store.ts). */
  counterMemoryMb: z.coerce.number().int().min(8).max(65_536).default(128),
  /** Every per-address limit counts an IPv6 client by this many leading bits of its address
   *  (64: one subscriber's prefix, so rotating addresses within it does not multiply the
   *  allowance); IPv4 addresses count whole. */
  rateLimitIpv6PrefixBits: z.coerce.number().int().min(1).max(128).default(64),
  /** Serves per host session token across all campaigns within the window (per-campaign caps are in the catalog). */
  sessionCapCount: z.coerce.number().int().min(1).max(10_000).default(10),
  sessionCapWindowSeconds: z.coerce
    .number()
    .int()
    .min(60)
    .max(30 * 86400)
    .default(3600),
  /** How long a tracked link redirects after its decision. */
  linkTtlSeconds: z.coerce
    .number()
    .int()
    .min(60)
    .max(30 * 86400)
    .default(86400),
  /** Conversions for decisions older than this are expired_conversion. */
  attributionWindowDays: z.coerce.number().int().min(1).max(365).default(30),
  /** Addresses or CIDRs of reverse proxies whose X-Forwarded-For is believed. Empty: socket address only. */
  trustedProxies: csv.default([]),
  /** Load the shipped demo catalog on start when the catalog is empty. Default: on for the embedded database. */
  loadDemoCatalog: bool.optional(),
  /** How often each instance checks for a newer catalog version (ms). */
  catalogPollMs: z.coerce.number().int().min(50).max(600_000).default(1000),
  /** How long a looked-up API key is trusted before it is checked again (revocation latency). */
  apiKeyCacheMs: z.coerce.number().int().min(0).max(1000).default(500),
  /** Time allowed for in-flight requests to finish on SIGTERM. */
  shutdownGraceMs: z.coerce.number().int().min(0).max(120_000).default(10_000),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** One log line per answered request (at info). Off by default: on the hot path it costs more
   *  than the request's own validation, and the metrics already count every request. */
  logRequests: bool.default(false),
  /** Parse every answer with the schema its route publishes before sending it (tests, staging):
   *  an answer /openapi.json does not describe becomes a logged 500. */
  checkResponses: bool.default(false),
  /** Where Prometheus scrapes `/metrics`: a listener of its own, off the public API port. `off`
   *  disables it. In cluster mode the primary listens here and serves every worker's series. */
  metricsPort: z.union([z.literal('off'), z.coerce.number().int().min(0).max(65535)]).default(9464),
  metricsHost: z.string().default('127.0.0.1'),
  /** With it, `/metrics` also answers on the API port to `Authorization: Bearer <token>`. */
  metricsToken: z.string().min(24).optional(),
  /** History (src/db/history-partitions.ts, docs/scaling.md): days of each history table kept,
   *  counted from a row's time and dropped a whole UTC day at a time; 0 keeps it for ever.
   *  Decisions must outlive the attribution window (a conversion names its decision). */
  decisionsRetentionDays: z.coerce.number().int().min(0).max(3650).default(90),
  eventsRetentionDays: z.coerce.number().int().min(0).max(3650).default(90),
  clicksRetentionDays: z.coerce.number().int().min(0).max(3650).default(90),
  conversionsRetentionDays: z.coerce.number().int().min(0).max(3650).default(90),
  affiliateImpressionsRetentionDays: z.coerce.number().int().min(0).max(3650).default(90),
  /** Counted from the click intent's impression (they are kept with it). */
  clickIntentsRetentionDays: z.coerce.number().int().min(0).max(3650).default(90),
  /** How long an event idempotency key is remembered: a retry within it returns the original
   *  event; after it the key makes a new event. */
  idempotencyKeyRetentionDays: z.coerce.number().int().min(1).max(3650).default(7),
  /** How long a conversion nonce is remembered. A replay is expired_conversion 300 s after its
   *  signed timestamp, so one day already covers replays. */
  conversionNonceRetentionDays: z.coerce.number().int().min(1).max(3650).default(7),
  /** Days ahead whose history partitions always exist (made by the maintenance run). */
  historyDaysAhead: z.coerce.number().int().min(1).max(60).default(7),
  /** How often each instance tries the history maintenance run (one instance at a time does it). */
  historyMaintenanceMs: z.coerce.number().int().min(1000).max(86_400_000).default(3_600_000),
  /** Largest catalog accepted by `PUT /admin/catalog` and `POST /admin/catalog/imports`, in
   *  bytes. It is streamed to a temporary file, never held in memory. */
  catalogImportMaxBytes: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 ** 3)
    .default(1024 ** 3),
  /** A read replica for the reports (`/admin/reports`, the dashboard): read only, never migrated,
   *  never written. Unset: reports read the primary (DATABASE_URL or the embedded database). */
  reportingDatabaseUrl: z.string().min(1).optional(),
  /** Signed notifications (src/webhooks/): how often each instance looks for due deliveries. */
  webhookPollMs: z.coerce.number().int().min(50).max(600_000).default(1000),
  /** How long a receiver has to answer one delivery. */
  webhookTimeoutMs: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** The delay before each retry of a delivery, in ms (comma-separated); after the last, the
   *  delivery has failed. Default: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, 12 h (about
   *  23 hours in all). */
  webhookRetryDelaysMs: z
    .union([z.array(z.coerce.number()), z.string()])
    .transform((v) => (Array.isArray(v) ? v : v.split(',').map((s) => Number(s.trim()))))
    .pipe(
      z
        .array(
          z
            .number()
            .int()
            .min(10)
            .max(7 * 86_400_000),
        )
        .min(0)
        .max(50),
    )
    .default([5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000]),
  /** Let webhooks reach loopback, private and link-local addresses (a receiver on the same
   *  network). Off: such targets are refused when registered and when connected to. */
  webhookAllowPrivateTargets: bool.default(false),
  /** Largest request body accepted, in bytes. */
  bodyLimitBytes: z.coerce
    .number()
    .int()
    .min(1024)
    .max(10 * 1024 * 1024)
    .default(64 * 1024),
});

export type Config = z.infer<typeof ConfigSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;

/** Environment variable for each config key: the single table the README documents. */
export const ENV_VARS: Record<keyof Config, string> = {
  port: 'PORT',
  host: 'HOST',
  baseUrl: 'PUBLIC_BASE_URL',
  databaseUrl: 'DATABASE_URL',
  dataDir: 'SIDENOTE_DATA_DIR',
  cacheDir: 'SIDENOTE_CACHE_DIR',
  redisUrl: 'REDIS_URL',
  redisCommandTimeoutMs: 'REDIS_COMMAND_TIMEOUT_MS',
  redisKeyPrefix: 'REDIS_KEY_PREFIX',
  adminKey: 'ADMIN_KEY',
  linkSigningSecret: 'LINK_SIGNING_SECRET',
  decideTimeBudgetMs: 'DECIDE_TIME_BUDGET_MS',
  spendSettleMs: 'SPEND_SETTLE_MS',
  spendReconcileMs: 'SPEND_RECONCILE_MS',
  unconfirmedServeGraceMs: 'UNCONFIRMED_SERVE_GRACE_MS',
  unconfirmedServeSweepMs: 'UNCONFIRMED_SERVE_SWEEP_MS',
  decideRateLimitPerMinute: 'DECIDE_RATE_LIMIT_PER_MINUTE',
  clickRateLimitPerMinute: 'CLICK_RATE_LIMIT_PER_MINUTE',
  clickIntentRateLimitPerMinute: 'CLICK_INTENT_RATE_LIMIT_PER_MINUTE',
  authFailureLimitPerMinute: 'AUTH_FAILURE_LIMIT_PER_MINUTE',
  counterMemoryMb: 'COUNTER_MEMORY_MB',
  rateLimitIpv6PrefixBits: 'RATE_LIMIT_IPV6_PREFIX_BITS',
  sessionCapCount: 'SESSION_CAP_COUNT',
  sessionCapWindowSeconds: 'SESSION_CAP_WINDOW_SECONDS',
  linkTtlSeconds: 'LINK_TTL_SECONDS',
  attributionWindowDays: 'ATTRIBUTION_WINDOW_DAYS',
  trustedProxies: 'TRUSTED_PROXIES',
  loadDemoCatalog: 'LOAD_DEMO_CATALOG',
  catalogPollMs: 'CATALOG_POLL_MS',
  apiKeyCacheMs: 'API_KEY_CACHE_MS',
  shutdownGraceMs: 'SHUTDOWN_GRACE_MS',
  logLevel: 'LOG_LEVEL',
  logRequests: 'LOG_REQUESTS',
  checkResponses: 'CHECK_RESPONSES',
  bodyLimitBytes: 'BODY_LIMIT_BYTES',
  catalogImportMaxBytes: 'CATALOG_IMPORT_MAX_BYTES',
  reportingDatabaseUrl: 'REPORTING_DATABASE_URL',
  metricsPort: 'METRICS_PORT',
  metricsHost: 'METRICS_HOST',
  metricsToken: 'METRICS_TOKEN',
  decisionsRetentionDays: 'DECISIONS_RETENTION_DAYS',
  eventsRetentionDays: 'EVENTS_RETENTION_DAYS',
  clicksRetentionDays: 'CLICKS_RETENTION_DAYS',
  conversionsRetentionDays: 'CONVERSIONS_RETENTION_DAYS',
  affiliateImpressionsRetentionDays: 'AFFILIATE_IMPRESSIONS_RETENTION_DAYS',
  clickIntentsRetentionDays: 'CLICK_INTENTS_RETENTION_DAYS',
  idempotencyKeyRetentionDays: 'IDEMPOTENCY_KEY_RETENTION_DAYS',
  conversionNonceRetentionDays: 'CONVERSION_NONCE_RETENTION_DAYS',
  historyDaysAhead: 'HISTORY_DAYS_AHEAD',
  historyMaintenanceMs: 'HISTORY_MAINTENANCE_MS',
  webhookPollMs: 'WEBHOOK_POLL_MS',
  webhookTimeoutMs: 'WEBHOOK_TIMEOUT_MS',
  webhookRetryDelaysMs: 'WEBHOOK_RETRY_DELAYS_MS',
  webhookAllowPrivateTargets: 'WEBHOOK_ALLOW_PRIVATE_TARGETS',
};

export class ConfigError extends Error {}

export function parseConfig(input: ConfigInput): Config {
  const parsed = ConfigSchema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => {
      const key = String(i.path[0] ?? '');
      const env = ENV_VARS[key as keyof Config] ?? key;
      return `  ${env}: ${i.message}`;
    });
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  // A conversion within the window names its decision: the decision must still be there.
  if (c.decisionsRetentionDays !== 0 && c.decisionsRetentionDays <= c.attributionWindowDays) {
    throw new ConfigError(
      `invalid configuration:\n  ${ENV_VARS.decisionsRetentionDays}: must be more than ${ENV_VARS.attributionWindowDays} (${c.attributionWindowDays}), or 0`,
    );
  }
  return c;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const input: Record<string, string> = {};
  for (const [key, name] of Object.entries(ENV_VARS)) {
    const v = env[name];
    if (v !== undefined && v !== '') input[key] = v;
  }
  return parseConfig(input as ConfigInput);
}

export function publicBaseUrl(config: Config): string {
  return (config.baseUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, '');
}
