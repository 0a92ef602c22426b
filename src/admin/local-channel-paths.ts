// Where an embedded server's local admin channel lives: its Unix socket and the file holding the
// per-start admin key, both in the PGlite data directory (local-admin-channel.ts serves them,
// the CLI uses them).
import path from 'node:path';

export const ADMIN_SOCKET_FILE = 'admin.sock';
export const ADMIN_KEY_FILE = 'admin.key';

// sun_path holds 108 bytes on Linux (104 on macOS), terminator included.
const MAX_SOCKET_PATH = 103;

export interface LocalChannelPaths {
  socket: string;
  keyFile: string;
}

/** The channel's files for a data directory, as seen from this process' working directory. A
 *  socket path too long for sun_path is given relative to the working directory when that fits. */
export function localChannelPaths(dataDir: string): LocalChannelPaths {
  const absolute = path.resolve(dataDir, ADMIN_SOCKET_FILE);
  let socket = absolute;
  if (Buffer.byteLength(absolute) > MAX_SOCKET_PATH) {
    const relative = `./${path.relative(process.cwd(), absolute)}`;
    if (Buffer.byteLength(relative) > MAX_SOCKET_PATH) {
      throw new Error(`the admin socket path ${absolute} is longer than a Unix socket path may be (${MAX_SOCKET_PATH} bytes): use a shorter SIDENOTE_DATA_DIR`);
    }
    socket = relative;
  }
  return { socket, keyFile: path.resolve(dataDir, ADMIN_KEY_FILE) };
}
