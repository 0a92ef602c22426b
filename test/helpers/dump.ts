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
 *  command arguments). SCAN, not KEYS: the shared Redis may hold many keys. */
export async function dumpRedis(url: string, prefix: string): Promise<string> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url);
  try {
    const parts: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      for (const k of keys) parts.push(`${k} ${await redisValue(redis, k)}`);
    } while (cursor !== '0');
    parts.push(JSON.stringify(await redis.call('SLOWLOG', 'GET', '1000')));
    return parts.join('\n');
  } finally {
    redis.disconnect();
  }
}

async function redisValue(redis: import('ioredis').Redis, key: string): Promise<string> {
  const type = await redis.type(key);
  switch (type) {
    case 'string':
      return String(await redis.get(key));
    case 'hash':
      return JSON.stringify(await redis.hgetall(key));
    case 'zset':
      return JSON.stringify(await redis.zrange(key, '0', '-1', 'WITHSCORES'));
    case 'list':
      return JSON.stringify(await redis.lrange(key, 0, -1));
    case 'set':
      return JSON.stringify(await redis.smembers(key));
    case 'stream':
      return JSON.stringify(await redis.xrange(key, '-', '+'));
    default:
      return type;
  }
}
