// A Lua script call whose protocol bytes the store writes itself, in one pass over its keys and
// arguments (issue 34, "counters in one round trip, pre-encoded"). The decide's claims and the
// clicks' marks and hits go to Redis as one script call per event-loop turn with up to hundreds
// of keys and arguments; ioredis would first copy them into a Command (prefixing each key,
// checking each argument's type) and then write them out. Here the keys are prefixed as they
// are written and nothing is copied twice. Everything else stays ioredis': the connection,
// reconnects, the command timeout, reply parsing and errors. A server that has not seen the
// script yet (a restart, a failover, SCRIPT FLUSH) answers NOSCRIPT, and the call is sent again
// with the script's text, as ioredis' own scripts do.
import { createHash } from 'node:crypto';
import { Command, type Redis } from 'ioredis';

/** One `*n` RESP array of bulk strings: the command name, then its arguments. */
export function encodeCommand(name: string, head: readonly string[], keys: readonly string[], keyPrefix: string, args: readonly (string | number)[]): string {
  const prefixBytes = Buffer.byteLength(keyPrefix);
  let out = `*${1 + head.length + keys.length + args.length}\r\n$${name.length}\r\n${name}\r\n`;
  for (const h of head) out += `$${Buffer.byteLength(h)}\r\n${h}\r\n`;
  for (const k of keys) out += `$${prefixBytes + Buffer.byteLength(k)}\r\n${keyPrefix}${k}\r\n`;
  for (const a of args) {
    const s = typeof a === 'number' ? String(a) : a;
    out += `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
  }
  return out;
}

/** A command whose bytes are already written: ioredis sends them as they are. */
class EncodedCommand extends Command {
  constructor(
    name: string,
    private readonly bytes: string,
  ) {
    super(name, [], { replyEncoding: 'utf8' });
  }

  override toWritable(): string {
    return this.bytes;
  }
}

export class EncodedScript {
  private readonly sha: string;

  constructor(
    private readonly lua: string,
    private readonly keyPrefix: string,
  ) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  /** EVALSHA with these keys (prefixed) and arguments; EVAL once if the server lacks it. */
  async call<T>(redis: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<T> {
    const count = String(keys.length);
    try {
      return (await redis.sendCommand(new EncodedCommand('evalsha', encodeCommand('evalsha', [this.sha, count], keys, this.keyPrefix, args)))) as T;
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return (await redis.sendCommand(new EncodedCommand('eval', encodeCommand('eval', [this.lua, count], keys, this.keyPrefix, args)))) as T;
    }
  }
}
