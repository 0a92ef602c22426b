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

export async function dumpRedis(url: string, prefix: string): Promise<string> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url);
  try {
    const keys = await redis.keys(`${prefix}*`);
    const parts: string[] = [];
    for (const k of keys) {
      const type = await redis.type(k);
      let value: string | null = type;
      if (type === 'string') value = await redis.get(k);
      else if (type === 'hash') value = JSON.stringify(await redis.hgetall(k));
      else if (type === 'zset') value = JSON.stringify(await redis.zrange(k, '0', '-1'));
      parts.push(`${k} ${value}`);
    }
    parts.push(JSON.stringify(await redis.call('SLOWLOG', 'GET', '1000')));
    return parts.join('\n');
  } finally {
    redis.disconnect();
  }
}
