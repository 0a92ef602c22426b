// The second pass of CI (.ci/run): the suite runs in full on real Postgres and Redis, then only
// what behaves differently on the embedded defaults (PGlite and the in-process counter store)
// runs again here, on the current Node LTS: money and limits (the in-process store's own bounds
// and scripts), access, the CLI beside an embedded server, the data directory and its lock,
// durability after SIGKILL, privacy (what PGlite and the in-process store hold), and the webhook
// outbox. Files that run only on the embedded stores (cli-embedded-server and -lock, part of
// markers-everywhere) are here. Not here: the data directory's lock file (data-dir-lock.test.ts
// runs the same whatever the stores, in the first pass) and the CLI's commands on Postgres
// (cli.test.ts; on PGlite, cli-embedded-server runs every command directly and through a server).
//   env -u DATABASE_URL -u REDIS_URL npx vitest run --config vitest.embedded.config.ts
import { existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

const files = [
  'test/trust/money.test.ts',
  'test/trust/test-mode-and-traffic-quality.test.ts',
  'test/counters/counter-store.test.ts',
  'test/security/authorization.test.ts',
  'test/security/abuse-limits.test.ts',
  'test/security/click-flood.test.ts',
  'test/cli/cli-embedded-server.test.ts',
  'test/cli/cli-embedded-lock.test.ts',
  'test/db/migrate.test.ts',
  'test/durability/sigkill.test.ts',
  'test/privacy/message-never-stored.test.ts',
  'test/privacy/markers-everywhere.test.ts',
  'test/apps/demo-keys.test.ts',
  // The webhook outbox's claims (FOR UPDATE SKIP LOCKED, leases) on PGlite's single connection.
  'test/webhooks/webhooks.test.ts',
];
// A file renamed or removed must not drop out of this pass silently.
const missing = files.filter((f) => !existsSync(f));
if (missing.length > 0) throw new Error(`vitest.embedded.config.ts names files that do not exist: ${missing.join(', ')}`);

export default defineConfig({ ...base, test: { ...base.test, include: files } });
