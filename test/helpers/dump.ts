// Everything a store holds, as text, for tests that prove what is never in it.
import type { Database } from '../../src/db/database.js';

export async function dumpDatabase(db: Database): Promise<string> {
  const tables = await db.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
  );
  const parts: string[] = [];
  for (const { table_name } of tables.rows) {
    const rows = await db.query<{ row: unknown }>(`SELECT row_to_json(t)::text AS row FROM "${table_name}" t`);
    for (const r of rows.rows) parts.push(`${table_name}: ${String(r.row)}`);
  }
  return parts.join('\n');
}

/** Every key under the prefix with its value, of every type, plus the slow log (which keeps
 *  command arguments). SCAN, not KEYS: the shared Redis may hold many keys; each page's types,
 *  then its values, go in one pipeline (a round trip per key took 16 s on 80,000 keys). */
export async function dumpRedis(url: string, prefix: string): Promise<string> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url);
  try {
    const parts: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      const types = await pipelined(
        redis,
        keys.map((k) => ['type', k]),
      );
      const values = await pipelined(
        redis,
        keys.map((k, i) => valueCommand(k, String(types[i]))),
      );
      keys.forEach((k, i) => parts.push(`${k} ${typeof values[i] === 'string' ? values[i] : JSON.stringify(values[i])}`));
    } while (cursor !== '0');
    parts.push(JSON.stringify(await redis.call('SLOWLOG', 'GET', '1000')));
    return parts.join('\n');
  } finally {
    redis.disconnect();
  }
}

async function pipelined(redis: import('ioredis').Redis, commands: string[][]): Promise<unknown[]> {
  if (commands.length === 0) return [];
  const results = (await redis.pipeline(commands).exec()) ?? [];
  return results.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}

/** The command that reads a key of this type whole (`type` itself for a type it cannot read,
 *  so the dump still names the key and its type). */
function valueCommand(key: string, type: string): string[] {
  switch (type) {
    case 'string':
      return ['get', key];
    case 'hash':
      return ['hgetall', key];
    case 'zset':
      return ['zrange', key, '0', '-1', 'WITHSCORES'];
    case 'list':
      return ['lrange', key, '0', '-1'];
    case 'set':
      return ['smembers', key];
    case 'stream':
      return ['xrange', key, '-', '+'];
    default:
      return ['type', key];
  }
}
