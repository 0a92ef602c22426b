// Operator CLI. Talks to the same database the service uses (DATABASE_URL, or the embedded
// PGlite directory), so it works before any server is running.
//
//   sidenote app create <name> [--json]         create an app; prints its keys and secret once
//   sidenote app list [--json]
//   sidenote key create <app_id> [--kind serving|setup] [--mode live|test] [--json]
//   sidenote key revoke <key_id>
//   sidenote secret rotate <app_id> [--json]    new conversion secret; at most two stay active
//   sidenote catalog import <file.json>         validate and import; prints what changed
//   sidenote catalog export [file.json]
//   sidenote migrate
import { readFile, writeFile } from 'node:fs/promises';
import { loadConfig, ConfigError } from '../config/config.js';
import { openDatabase, type Database } from '../db/database.js';
import { migrate } from '../db/migrate.js';
import { AppRepository, NotFoundError } from '../apps/app-repository.js';
import { CatalogRepository } from '../catalog/catalog-repository.js';
import { CatalogValidationError } from '../catalog/catalog-validation.js';

const USAGE = `usage:
  sidenote app create <name> [--json]
  sidenote app list [--json]
  sidenote key create <app_id> [--kind serving|setup] [--mode live|test] [--json]
  sidenote key revoke <key_id>
  sidenote secret rotate <app_id> [--json]
  sidenote catalog import <file.json>
  sidenote catalog export [file.json]
  sidenote migrate`;

class UsageError extends Error {}

export async function runCli(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  const json = argv.includes('--json');
  const flag = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const args = argv.filter((a, i) => !a.startsWith('--') && !argv[i - 1]?.match(/^--(kind|mode)$/));
  const [group, command, arg] = args;
  const print = (value: unknown, human: string) => out(json ? `${JSON.stringify(value, null, 2)}\n` : `${human}\n`);

  let db: Database | undefined;
  try {
    const config = loadConfig();
    db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
    await migrate(db);
    const apps = new AppRepository(db);
    const catalog = new CatalogRepository(db);
    switch (`${group} ${command}`) {
      case 'app create': {
        if (!arg) throw new UsageError('app create needs a name');
        const created = await apps.createApp(arg);
        print(
          created,
          [
            `app ${created.app_id} "${created.name}" created. These values are shown once; store them now.`,
            `  serving key (live): ${created.serving_key}`,
            `  serving key (test): ${created.test_key}`,
            `  conversion secret:  ${created.conversion_secret}`,
          ].join('\n'),
        );
        return 0;
      }
      case 'app list': {
        const list = await apps.listApps();
        print(
          list,
          list
            .map((a) =>
              [`${a.id}  ${a.name}  (${a.active_conversion_secrets} active conversion secret(s))`, ...a.keys.map((k) => `    ${k.id}  ${k.kind}/${k.mode}  ${k.hint}  ${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}`)].join('\n'),
            )
            .join('\n') || '(no apps)',
        );
        return 0;
      }
      case 'key create': {
        if (!arg) throw new UsageError('key create needs an app id');
        const kind = (flag('kind') ?? 'serving') as 'serving' | 'setup';
        const mode = (flag('mode') ?? 'live') as 'live' | 'test';
        if (!['serving', 'setup'].includes(kind) || !['live', 'test'].includes(mode)) throw new UsageError('bad --kind or --mode');
        const key = await apps.createKey(arg, kind, mode);
        print(key, `key ${key.id} created (shown once): ${key.key}`);
        return 0;
      }
      case 'key revoke': {
        if (!arg) throw new UsageError('key revoke needs a key id');
        const key = await apps.revokeKey(arg);
        print(key, `key ${key.id} revoked at ${key.revoked_at}`);
        return 0;
      }
      case 'secret rotate': {
        if (!arg) throw new UsageError('secret rotate needs an app id');
        const s = await apps.rotateConversionSecret(arg);
        print(s, `new conversion secret ${s.id} (shown once): ${s.secret}${s.retired.length ? `\nretired: ${s.retired.join(', ')}` : ''}`);
        return 0;
      }
      case 'catalog import': {
        if (!arg) throw new UsageError('catalog import needs a file');
        let doc: unknown;
        try {
          doc = JSON.parse(await readFile(arg, 'utf8'));
        } catch (err) {
          throw new UsageError(`cannot read ${arg} as JSON: ${(err as Error).message}`);
        }
        const report = await catalog.import(doc);
        print(
          report,
          report.changed
            ? `catalog version ${report.version}: ${report.offers} offers (${report.snapshots_created} new snapshots, ${report.offers_archived} archived), ${report.campaigns} campaigns, ${report.advertisers} advertisers`
            : `catalog unchanged (version ${report.version})`,
        );
        return 0;
      }
      case 'catalog export': {
        const doc = `${JSON.stringify(await catalog.export(), null, 2)}\n`;
        if (arg) await writeFile(arg, doc);
        else out(doc);
        return 0;
      }
      case 'migrate undefined':
      case 'migrate ': {
        out('migrations applied\n');
        return 0;
      }
      default:
        throw new UsageError(`unknown command: ${args.join(' ') || '(none)'}`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n${USAGE}\n`);
      return 2;
    }
    if (err instanceof ConfigError || err instanceof CatalogValidationError || err instanceof NotFoundError) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    process.stderr.write(`sidenote: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await db?.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('sidenote.mjs')) {
  process.exitCode = await runCli(process.argv.slice(2));
}
