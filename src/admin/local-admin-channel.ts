// The local admin channel of an embedded (PGlite) server. The data directory belongs to the
// server process (src/db/data-dir-lock.ts), so the CLI cannot write to it while the server runs;
// it sends its command here instead, and the server performs it on its own database handle.
//
// A second, small Fastify instance bound to a Unix socket in the data directory. It registers
// the same encapsulated `adminApi` plugin as the public server, key check included, with a key
// generated for this start only and written to `admin.key` beside the socket. Socket and key file
// are mode 0600: a caller needs both the operator's file access and the key. Nothing else is
// served on the socket, and the public server's admin API stays off unless ADMIN_KEY is set.
import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, unlinkSync, writeFileSync } from 'node:fs';
import Fastify, { type FastifyInstance } from 'fastify';
import { adminApi } from './admin-routes.js';
import { localChannelPaths, type LocalChannelPaths } from './local-channel-paths.js';
import { clientError, frameworkError } from '../http/errors.js';
import httpConventions from '../http/conventions.js';
import { methodNotAllowedHook, notFound, trackRouteMethods } from '../http/method-not-allowed.js';

export interface LocalAdminChannel {
  readonly paths: LocalChannelPaths;
  close(): Promise<void>;
}

/** Serves `main`'s admin API on `<dataDir>/admin.sock`. The caller must hold the data directory's
 *  lock (it does: it opened the database there), so a socket or key file found there is stale. */
export async function startLocalAdminChannel(main: FastifyInstance, dataDir: string): Promise<LocalAdminChannel> {
  const paths = localChannelPaths(dataDir);
  const key = randomBytes(32).toString('base64url');
  const local = Fastify({
    loggerInstance: main.log.child({ channel: 'admin-socket' }),
    bodyLimit: main.initialConfig.bodyLimit,
    forceCloseConnections: 'idle',
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
  });
  await local.register(httpConventions);
  const routeMethods = trackRouteMethods(local);
  local.setNotFoundHandler(notFound);
  // The admin API works on the main server's resources.
  local.decorate('repositories', main.repositories);
  local.decorate('catalogImports', main.catalogImports);
  // A campaign control reloads the catalog the server serves (campaign-routes.ts).
  local.decorate('catalogRuntime', main.catalogRuntime);
  local.decorate('reports', main.reports);
  local.decorate('now', main.now);
  // Campaign pauses and resumes are announced, and webhook targets checked, as on the server.
  local.decorate('notifications', main.notifications);
  local.decorate('config', main.config);
  await local.register(adminApi, { prefix: '/admin', adminKey: key, routeMethods });
  // As on the public port: after the admin plugin, which has its own copy behind its key check.
  local.addHook('onRequest', methodNotAllowedHook(local, routeMethods));

  removeStale(paths.socket);
  removeStale(paths.keyFile);
  // The socket is created by bind(2) with the process umask; 0177 leaves 0600 from the start,
  // and the chmod below states it whatever the platform did.
  const umask = process.umask(0o177);
  try {
    await local.listen({ path: paths.socket });
  } finally {
    process.umask(umask);
  }
  chmodSync(paths.socket, 0o600);
  // Written only once the socket answers: a CLI that finds the key finds the server.
  writeFileSync(paths.keyFile, `${key}\n`, { flag: 'wx', mode: 0o600 });
  chmodSync(paths.keyFile, 0o600);
  main.log.info({ socket: paths.socket }, 'local admin channel listening');

  return {
    paths,
    async close() {
      removeStale(paths.keyFile);
      // Node removes the socket file when the server closes.
      await local.close();
    },
  };
}

function removeStale(file: string) {
  try {
    lstatSync(file);
  } catch {
    return;
  }
  unlinkSync(file);
}
