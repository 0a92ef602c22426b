// The CLI's side of an embedded server's local admin channel (src/admin/local-admin-channel.ts):
// one admin API request over the Unix socket in the data directory, with the key the server
// wrote beside it for this start.
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { localChannelPaths, type LocalChannelPaths } from '../admin/local-channel-paths.js';

/** Nothing was done: no socket, nobody listening, or a key from an earlier start (the key check
 *  runs before any handler). Safe to try again or to fall back. */
export class ChannelUnavailable extends Error {}

export interface ChannelAnswer {
  status: number;
  body: any;
}

export class AdminChannelClient {
  readonly paths: LocalChannelPaths;
  constructor(dataDir: string) {
    this.paths = localChannelPaths(dataDir);
  }

  /** The key of the server's current start, or null while there is none (not a server, or starting). */
  private readKey(): string | null {
    try {
      return readFileSync(this.paths.keyFile, 'utf8').trim() || null;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return null;
      if (code === 'EACCES') throw new Error(`cannot read ${this.paths.keyFile}: run the CLI as the user that runs the server`);
      throw err;
    }
  }

  async call(method: string, path: string, body?: string): Promise<ChannelAnswer> {
    const key = this.readKey();
    if (!key) throw new ChannelUnavailable('no admin key file');
    const answer = await new Promise<ChannelAnswer>((resolve, reject) => {
      let connected = false;
      const req = request(
        {
          socketPath: this.paths.socket,
          method,
          path,
          agent: false,
          headers: {
            authorization: `Bearer ${key}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            try {
              resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
            } catch {
              reject(new Error(`the server's admin channel answered ${res.statusCode} with a body that is not JSON`));
            }
          });
        },
      );
      req.on('socket', (socket) => socket.once('connect', () => (connected = true)));
      req.on('error', (err) => {
        // Before the connection there was no request; after it the outcome is unknown.
        if (!connected) reject(new ChannelUnavailable(err.message));
        else
          reject(
            new Error(
              `the connection to the server broke during the command (${err.message}); whether it took effect is unknown: check with \`sidenote app list\` or \`catalog export\``,
            ),
          );
      });
      req.end(body);
    });
    if (answer.status === 401) throw new ChannelUnavailable('admin key refused (the server restarted)');
    return answer;
  }
}
