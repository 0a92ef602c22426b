// Operator CLI. Talks to the same database the service uses (DATABASE_URL, or the embedded
// PGlite directory), so it works before any server is running.
//
// An embedded directory belongs to one process (src/db/data-dir-lock.ts). When a server holds
// it, each command goes through that server's local admin channel instead (the Unix socket and
// per-start key in the directory; src/admin/local-admin-channel.ts): the same admin API call,
// the same printed output and exit code. When the holder does not answer there (another CLI
// command, a server still starting) the CLI waits a few seconds, then refuses with exit 1
// without ever opening the database. With DATABASE_URL nothing is locked: Postgres is shared.
//
// Arguments are read by node:util's parseArgs (strict: an unknown flag is a usage error); the
// commands and their help are the COMMANDS table below. Help never opens a database.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { loadConfig, ConfigError, type Config } from '../config/config.js';
import { openDatabase, type Database } from '../db/database.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import { migrate } from '../db/migrate.js';
import { AppRepository, NotFoundError, type AppSummary, type CreatedApp } from '../apps/app-repository.js';
import { BrandSafetySettings, type BrandSafetyView } from '../apps/brand-safety.js';
import { CatalogRepository, type ImportReport } from '../catalog/catalog-repository.js';
import { CampaignControls, CONTROLLED_FIELDS, type CampaignControlView, type ControlPatch } from '../campaigns/campaign-controls.js';
import { Notifications } from '../webhooks/notifications.js';
import { WebhookRepository } from '../webhooks/webhook-repository.js';
import { Refusal } from '../errors/error-registry.js';
import { userInfo } from 'node:os';
import { CatalogValidationError } from '../catalog/catalog-validation.js';
import { CatalogImporter, CatalogNotJson, ImportInProgress } from '../catalog/catalog-importer.js';
import { progressDisplay, type ImportProgressView } from './import-progress.js';
import { AdminIdParam, CampaignControlBody, CreateAppBody } from '../admin/admin-schemas.js';
import { CatalogId } from '../catalog/catalog-schema.js';
import { AdminChannelClient, ChannelUnavailable, type ChannelAnswer } from './admin-channel-client.js';

/** Every command: how it is called and what it does (its `--help`). */
const COMMANDS: Record<string, { usage: string; about: string }> = {
  'app create': {
    usage: 'sidenote app create <name> [--json]',
    about: 'Create an app. Prints its live and test serving keys and its conversion secret, once.',
  },
  'app list': { usage: 'sidenote app list [--json]', about: 'List apps with their keys (hints only) and active conversion secrets.' },
  'app brand-safety': {
    usage:
      'sidenote app brand-safety <app_id> [--block-category <id>]... [--unblock-category <id>]... [--block-advertiser <id>]... [--unblock-advertiser <id>]... [--json]',
    about:
      "Show an app's brand-safety exclusions, or change them: offers in a blocked category (or below it) or from a blocked advertiser never serve beside that app. Takes effect on every instance within about a second.",
  },
  'key create': {
    usage: 'sidenote key create <app_id> [--kind serving|setup] [--mode live|test] [--json]',
    about: 'Create a key for an app (default: a live serving key). Prints it once.',
  },
  'key revoke': { usage: 'sidenote key revoke <key_id>', about: 'Revoke a key; requests with it are refused from now on.' },
  'secret rotate': {
    usage: 'sidenote secret rotate <app_id> [--json]',
    about: 'Create a new conversion secret; at most two stay active, the oldest is retired.',
  },
  'catalog import': {
    usage: 'sidenote catalog import <file.json> [--json]',
    about: 'Validate a catalog file and import it, showing progress on stderr; prints what changed, or every problem with its JSON path.',
  },
  'campaign show': {
    usage: 'sidenote campaign show <campaign_id> [--json]',
    about: "Show a campaign's controls, its values as they serve and as the catalog has them, and its recent changes.",
  },
  'campaign pause': {
    usage: 'sidenote campaign pause <campaign_id> [--by <who>] [--json]',
    about: 'Pause a campaign without importing the catalog: its serves stop on every instance within about two seconds. Spend already made stays.',
  },
  'campaign resume': {
    usage: 'sidenote campaign resume <campaign_id> [--by <who>] [--json]',
    about: 'Resume a campaign (even one the catalog pauses).',
  },
  'campaign set': {
    usage:
      'sidenote campaign set <campaign_id> [--budget-total <micros>] [--budget-daily <micros>] [--ends-at <iso time>|never] [--follow-catalog status|budget.total_micros|budget.daily_micros|ends_at]... [--by <who>] [--json]',
    about:
      "Change a campaign's lifetime or daily budget or its end date, or return a field to the catalog's value. Controls outlive catalog imports until returned.",
  },
  'campaign clear': {
    usage: 'sidenote campaign clear <campaign_id> [--by <who>] [--json]',
    about: "Clear a campaign's controls: every field follows the catalog again.",
  },
  'catalog export': { usage: 'sidenote catalog export [file.json]', about: 'Write the current catalog as JSON to the file, or to stdout.' },
  migrate: { usage: 'sidenote migrate', about: 'Apply database migrations (the server also applies them when it starts).' },
};

const EXIT_CODES = 'exit codes: 0 done, 1 refused or failed (unknown id, invalid catalog, a held directory whose owner does not answer), 2 usage error';
const ENVIRONMENT = 'environment: DATABASE_URL (Postgres; else the embedded database in SIDENOTE_DATA_DIR, default .data/)';

/** Help for everything, a group ("key") or one command ("key create"). */
function help(group?: string, command?: string): string {
  const name = [group, command].filter(Boolean).join(' ');
  const one = COMMANDS[name];
  if (one) return `usage: ${one.usage}\n\n${one.about}\n\n${EXIT_CODES}\n`;
  const listed = Object.entries(COMMANDS).filter(([n]) => !group || n === group || n.startsWith(`${group} `));
  const shown = listed.length > 0 ? listed : Object.entries(COMMANDS);
  const width = Math.max(...shown.map(([, c]) => c.usage.length));
  return [
    'usage:',
    ...shown.map(([, c]) => `  ${c.usage.padEnd(width)}  ${c.about}`),
    '',
    'Run `sidenote <command> --help` for one command.',
    ENVIRONMENT,
    EXIT_CODES,
    '',
  ].join('\n');
}

class UsageError extends Error {}
/** Not done, and why: exit 1. */
class Refused extends Error {}

type Kind = 'serving' | 'setup';
type Mode = 'live' | 'test';

/** What each command does, once against the database and once through a running server. */
interface Operations {
  createApp(name: string): Promise<CreatedApp>;
  listApps(): Promise<AppSummary[]>;
  createKey(appId: string, kind: Kind, mode: Mode): Promise<{ id: string; key: string }>;
  revokeKey(keyId: string): Promise<{ id: string; revoked_at: string | null }>;
  rotateSecret(appId: string): Promise<{ id: string; secret: string; retired: string[] }>;
  brandSafety(appId: string): Promise<BrandSafetyView>;
  setBrandSafety(appId: string, categoryIds: string[], advertiserIds: string[]): Promise<BrandSafetyView>;
  campaignControl(campaignId: string): Promise<CampaignControlView>;
  changeCampaign(campaignId: string, patch: ControlPatch, by: string): Promise<CampaignControlView>;
  /** Imports the file, telling `progress` how far it got. */
  importCatalog(file: string, progress: (p: ImportProgressView) => void): Promise<ImportReport>;
  exportCatalog(): Promise<unknown>;
  migrate(): Promise<void>;
}

function directOperations(db: Database): Operations {
  const apps = new AppRepository(db);
  const catalog = new CatalogRepository(db);
  const brandSafety = new BrandSafetySettings(apps, catalog);
  // A pause or resume made here is announced as through the API: a running instance delivers it.
  const controls = new CampaignControls(catalog, undefined, new Notifications(new WebhookRepository(db), Date.now, { warn: () => {} }));
  return {
    createApp: (name) => apps.createApp(name),
    listApps: () => apps.listApps(),
    createKey: (appId, kind, mode) => apps.createKey(appId, kind, mode),
    revokeKey: (keyId) => apps.revokeKey(keyId),
    rotateSecret: (appId) => apps.rotateConversionSecret(appId),
    brandSafety: (appId) => brandSafety.read(appId),
    setBrandSafety: (appId, categories, advertisers) => brandSafety.replace(appId, categories, advertisers),
    campaignControl: (campaignId) => controls.read(campaignId),
    changeCampaign: async (campaignId, patch, by) => {
      try {
        return await controls.change(campaignId, patch, { changedBy: by, channel: 'cli' });
      } catch (err) {
        // The admin API answers this 400 invalid_request; both paths print its message.
        if (err instanceof Refusal && err.code === 'invalid_request') throw new Refused(String(err.details.message));
        throw err;
      }
    },
    importCatalog: (file, progress) => {
      let phase: ImportProgressView['phase'] = 'validating';
      return new CatalogImporter(db, catalog).importFile(file, {
        onPhase: (p) => {
          phase = p;
        },
        onProgress: (p) => progress({ phase, ...p }),
      });
    },
    exportCatalog: () => catalog.export(),
    migrate: async () => {}, // done on open
  };
}

/** The same operations as admin API calls on the server's local channel. Errors become the ones
 *  the repositories throw, so both paths print the same message and exit with the same code. */
function channelOperations(channel: AdminChannelClient, holder: DataDirLockedError): Operations {
  const id = encodeURIComponent;
  const expect = async (answer: Promise<ChannelAnswer>, notFound?: string) => {
    const { status, body } = await answer;
    if (status >= 200 && status < 300) return body;
    if (status === 404 && notFound) throw new NotFoundError(notFound);
    if (status === 400 && body?.error === 'invalid_catalog') throw new CatalogValidationError(body.problems ?? []);
    if (status === 400 && body?.error === 'invalid_request' && /catalog/.test(body.message ?? '')) throw new CatalogNotJson();
    if (status === 400 && body?.error === 'invalid_request' && typeof body.message === 'string' && !/failed validation/.test(body.message)) {
      throw new Refused(body.message);
    }
    if (status === 413) throw new Refused('the catalog is larger than the server accepts (its CATALOG_IMPORT_MAX_BYTES)');
    if (status === 409 && body?.error === 'import_in_progress') throw new ImportInProgress(body.job_id);
    throw new Error(`the server answered ${status} ${body?.error ?? ''}${body?.message ? `: ${body.message}` : ''}`);
  };
  return {
    createApp: (name) => expect(channel.call('POST', '/admin/apps', JSON.stringify({ name }))),
    listApps: async () => (await expect(channel.call('GET', '/admin/apps'))).apps,
    createKey: (appId, kind, mode) => expect(channel.call('POST', `/admin/apps/${id(appId)}/keys`, JSON.stringify({ kind, mode })), `no app ${appId}`),
    revokeKey: (keyId) => expect(channel.call('POST', `/admin/keys/${id(keyId)}/revoke`), `no key ${keyId}`),
    rotateSecret: (appId) => expect(channel.call('POST', `/admin/apps/${id(appId)}/conversion-secrets`), `no app ${appId}`),
    brandSafety: (appId) => expect(channel.call('GET', `/admin/apps/${id(appId)}/brand-safety`), `no app ${appId}`),
    setBrandSafety: (appId, categories, advertisers) =>
      expect(
        channel.call('PUT', `/admin/apps/${id(appId)}/brand-safety`, JSON.stringify({ blocked_category_ids: categories, blocked_advertiser_ids: advertisers })),
        `no app ${appId}`,
      ),
    campaignControl: (campaignId) => expect(channel.call('GET', `/admin/campaigns/${id(campaignId)}/control`), `no campaign ${campaignId}`),
    changeCampaign: (campaignId, patch, by) =>
      expect(channel.call('PATCH', `/admin/campaigns/${id(campaignId)}/control`, JSON.stringify({ ...patch, changed_by: by })), `no campaign ${campaignId}`),
    // As a job of the server's, followed until it ends.
    importCatalog: async (file, progress) => {
      const job = await expect(channel.call('POST', '/admin/catalog/imports', await readFile(file, 'utf8')));
      for (;;) {
        const now = await expect(channel.call('GET', `/admin/catalog/imports/${id(job.id)}`));
        if (now.state === 'succeeded') return now.report;
        if (now.state === 'failed') return expect(Promise.resolve({ status: 400, body: now.error }));
        if (now.state === 'validating' || now.state === 'writing') {
          const p = now.progress;
          progress({
            phase: now.state,
            bytesTotal: p.bytes_total,
            bytesRead: p.bytes_read,
            offersRead: p.offers_read,
            offersChecked: p.offers_checked,
            offersTotal: p.offers_total,
            offersWritten: p.offers_written,
          });
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    exportCatalog: () => expect(channel.call('GET', '/admin/catalog')),
    migrate: async () => {
      throw new Refused(
        `a Sidenote server (process ${holder.owner.pid}) holds ${holder.dataDir} and applied its migrations when it started. ` +
          'To apply the migrations of this version, stop the server and run `sidenote migrate` again, or start this version (the server migrates on start).',
      );
    },
  };
}

/** How long a command waits for a held directory's owner to answer or let go: a server takes a
 *  few seconds to start listening, another CLI command a few seconds to finish. */
const HELD_WAIT_MS = 10_000;

/** Runs `fn` directly on the database, or through the server that holds the embedded directory. */
async function withOperations<T>(config: Config, fn: (ops: Operations) => Promise<T>): Promise<T> {
  const direct = async (db: Database) => {
    try {
      await migrate(db);
      return await fn(directOperations(db));
    } finally {
      await db.close();
    }
  };
  if (config.databaseUrl) return direct(await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 }));

  const channel = config.dataDir === 'memory' ? undefined : new AdminChannelClient(config.dataDir);
  const until = Date.now() + HELD_WAIT_MS;
  for (;;) {
    let held: DataDirLockedError;
    try {
      return await direct(await openDatabase({ dataDir: config.dataDir, cacheDir: config.cacheDir }));
    } catch (err) {
      if (!(err instanceof DataDirLockedError)) throw err;
      held = err;
    }
    try {
      // Every command is one request: a ChannelUnavailable means it was not performed.
      return await fn(channelOperations(channel!, held));
    } catch (err) {
      if (!(err instanceof ChannelUnavailable)) throw err;
    }
    if (Date.now() >= until) {
      throw new Refused(
        `${held.dataDir} is held by process ${held.owner.pid} (${held.owner.command}, since ${held.owner.since}), which does not answer on ${channel!.paths.socket}. ` +
          'An embedded database belongs to one process. If it is a Sidenote server that is still starting, try again in a moment; ' +
          'if it is another CLI command, wait for it to finish. Nothing was changed.',
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The arguments: strict (an unknown flag throws), positionals allowed. */
function readArgs(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: 'boolean' },
      kind: { type: 'string' },
      mode: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      'block-category': { type: 'string', multiple: true },
      'unblock-category': { type: 'string', multiple: true },
      'block-advertiser': { type: 'string', multiple: true },
      'unblock-advertiser': { type: 'string', multiple: true },
      'budget-total': { type: 'string' },
      'budget-daily': { type: 'string' },
      'ends-at': { type: 'string' },
      'follow-catalog': { type: 'string', multiple: true },
      by: { type: 'string' },
    },
  });
}

/** The change a `campaign` command asks for, checked as the admin API checks it; null for
 *  `campaign show`. */
function campaignPatch(command: string, values: ReturnType<typeof readArgs>['values']): ControlPatch | null {
  if (command === 'show') return null;
  if (command === 'pause') return { status: 'paused' };
  if (command === 'resume') return { status: 'active' };
  if (command === 'clear') return { follow_catalog: [...CONTROLLED_FIELDS] };
  const micros = (flag: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    if (!/^\d{1,16}$/.test(v)) throw new UsageError(`--${flag} takes a whole number of micro-units`);
    return Number(v);
  };
  const total = micros('budget-total', values['budget-total']);
  const daily = micros('budget-daily', values['budget-daily']);
  const endsAt = values['ends-at'];
  const patch = {
    ...(total !== undefined || daily !== undefined
      ? { budget: { ...(total !== undefined ? { total_micros: total } : {}), ...(daily !== undefined ? { daily_micros: daily } : {}) } }
      : {}),
    ...(endsAt !== undefined ? { ends_at: endsAt === 'never' ? null : endsAt } : {}),
    ...(values['follow-catalog'] ? { follow_catalog: values['follow-catalog'] } : {}),
  };
  if (Object.keys(patch).length === 0) throw new UsageError('campaign set needs --budget-total, --budget-daily, --ends-at or --follow-catalog');
  const checked = CampaignControlBody.safeParse(patch);
  if (!checked.success) throw new UsageError(checked.error.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`).join('; '));
  return checked.data;
}

function describeCampaign(v: CampaignControlView): string {
  const settings = (s: CampaignControlView['effective']) =>
    `${s.status}, budget ${s.budget.total_micros} total / ${s.budget.daily_micros} daily (micros), ${s.ends_at ? `ends ${s.ends_at}` : 'never ends'}`;
  const o = v.overrides;
  const set = [
    o.status !== undefined && `status ${o.status}`,
    o.budget?.total_micros !== undefined && `budget.total_micros ${o.budget.total_micros}`,
    o.budget?.daily_micros !== undefined && `budget.daily_micros ${o.budget.daily_micros}`,
    o.ends_at !== undefined && `ends_at ${o.ends_at ?? 'never'}`,
  ].filter(Boolean);
  return [
    `campaign ${v.campaign_id}${v.archived ? ' (archived: not in the live catalog)' : ''}`,
    `  serves as: ${settings(v.effective)}`,
    `  catalog:   ${settings(v.catalog)}`,
    `  controls:  ${set.join(', ') || '(none: follows the catalog)'}${v.updated_at ? ` (changed ${v.updated_at})` : ''}`,
    ...v.changes.slice(0, 5).map((c) => `  ${c.changed_at}  ${c.changed_by} (${c.channel}): ${settings(c.before)} -> ${settings(c.after)}`),
  ].join('\n');
}

export async function runCli(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  let parsed: ReturnType<typeof readArgs>;
  try {
    parsed = readArgs(argv);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${help()}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const json = values.json === true;
  const flag = (name: 'kind' | 'mode') => values[name];
  const args = positionals;
  if (args[0] === 'help') args.shift();
  const [group, command, arg] = args;
  // Help asked for, or nothing asked at all: usage on stdout, exit 0, no database opened.
  if (values.help || argv[0] === 'help' || args.length === 0) {
    out(help(group, command));
    return 0;
  }
  const print = (value: unknown, human: string) => out(json ? `${JSON.stringify(value, null, 2)}\n` : `${human}\n`);
  // Ids the admin API would refuse as malformed are ids no app or key has: the same answer on both paths.
  const knownShape = (id: string, what: 'app' | 'key') => {
    if (!AdminIdParam.safeParse({ id }).success) throw new NotFoundError(`no ${what} ${id}`);
    return id;
  };

  try {
    const config = loadConfig();
    switch (`${group} ${command}`) {
      case 'app create': {
        if (!arg) throw new UsageError('app create needs a name');
        const body = CreateAppBody.safeParse({ name: arg });
        if (!body.success) throw new UsageError(`app name: ${body.error.issues.map((i) => i.message).join('; ')}`);
        const created = await withOperations(config, (ops) => ops.createApp(body.data.name.trim()));
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
        const list = await withOperations(config, (ops) => ops.listApps());
        print(
          list,
          list
            .map((a) =>
              [
                `${a.id}  ${a.name}  (${a.active_conversion_secrets} active conversion secret(s))`,
                ...a.keys.map((k) => `    ${k.id}  ${k.kind}/${k.mode}  ${k.hint}  ${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}`),
              ].join('\n'),
            )
            .join('\n') || '(no apps)',
        );
        return 0;
      }
      case 'key create': {
        if (!arg) throw new UsageError('key create needs an app id');
        const kind = (flag('kind') ?? 'serving') as Kind;
        const mode = (flag('mode') ?? 'live') as Mode;
        if (!['serving', 'setup'].includes(kind) || !['live', 'test'].includes(mode)) throw new UsageError('bad --kind or --mode');
        const appId = knownShape(arg, 'app');
        const key = await withOperations(config, (ops) => ops.createKey(appId, kind, mode));
        print(key, `key ${key.id} created (shown once): ${key.key}`);
        return 0;
      }
      case 'key revoke': {
        if (!arg) throw new UsageError('key revoke needs a key id');
        const keyId = knownShape(arg, 'key');
        const key = await withOperations(config, (ops) => ops.revokeKey(keyId));
        print(key, `key ${key.id} revoked at ${key.revoked_at}`);
        return 0;
      }
      case 'app brand-safety': {
        if (!arg) throw new UsageError('app brand-safety needs an app id');
        const appId = knownShape(arg, 'app');
        const block = { category: values['block-category'] ?? [], advertiser: values['block-advertiser'] ?? [] };
        const unblock = { category: values['unblock-category'] ?? [], advertiser: values['unblock-advertiser'] ?? [] };
        const bad = [...block.category, ...block.advertiser].find((x) => !CatalogId.safeParse(x).success);
        if (bad !== undefined) throw new UsageError(`not a catalog id: ${JSON.stringify(bad)}`);
        const changes = block.category.length + block.advertiser.length + unblock.category.length + unblock.advertiser.length;
        const view = await withOperations(config, async (ops) => {
          const now = await ops.brandSafety(appId);
          if (changes === 0) return now;
          const apply = (list: string[], add: string[], remove: string[]) => [...new Set([...list, ...add])].filter((x) => !remove.includes(x));
          return ops.setBrandSafety(
            appId,
            apply(now.blocked_category_ids, block.category, unblock.category),
            apply(now.blocked_advertiser_ids, block.advertiser, unblock.advertiser),
          );
        });
        const unknown = view.not_in_catalog;
        print(
          view,
          [
            `app ${appId} brand safety${view.updated_at ? ` (changed ${view.updated_at})` : ' (never set)'}`,
            `  blocked categories:  ${view.blocked_category_ids.join(', ') || '(none)'}`,
            `  blocked advertisers: ${view.blocked_advertiser_ids.join(', ') || '(none)'}`,
            ...(unknown.category_ids.length + unknown.advertiser_ids.length > 0
              ? [`  not in the live catalog (kept; they apply once a catalog has them): ${[...unknown.category_ids, ...unknown.advertiser_ids].join(', ')}`]
              : []),
          ].join('\n'),
        );
        return 0;
      }
      case 'campaign show':
      case 'campaign pause':
      case 'campaign resume':
      case 'campaign set':
      case 'campaign clear': {
        if (!arg) throw new UsageError(`campaign ${command} needs a campaign id`);
        // An id the admin API would refuse as malformed is one no campaign has.
        if (!CatalogId.safeParse(arg).success) throw new NotFoundError(`no campaign ${arg}`);
        const by = values.by ?? `cli (${userInfo().username})`;
        const patch = campaignPatch(command, values);
        const view = await withOperations(config, (ops) => (patch ? ops.changeCampaign(arg, patch, by) : ops.campaignControl(arg)));
        print(view, describeCampaign(view));
        return 0;
      }
      case 'secret rotate': {
        if (!arg) throw new UsageError('secret rotate needs an app id');
        const appId = knownShape(arg, 'app');
        const s = await withOperations(config, (ops) => ops.rotateSecret(appId));
        print(s, `new conversion secret ${s.id} (shown once): ${s.secret}${s.retired.length ? `\nretired: ${s.retired.join(', ')}` : ''}`);
        return 0;
      }
      case 'catalog import': {
        if (!arg) throw new UsageError('catalog import needs a file');
        try {
          if (!(await stat(arg)).isFile()) throw new Error('not a file');
        } catch (err) {
          throw new UsageError(`cannot read ${arg}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
        }
        const display = progressDisplay();
        let report: ImportReport;
        try {
          report = await withOperations(config, (ops) => ops.importCatalog(arg, (p) => display.update(p)));
        } catch (err) {
          if (err instanceof CatalogNotJson) throw new UsageError(`cannot read ${arg} as JSON: the file is not valid JSON`);
          throw err;
        } finally {
          display.stop();
        }
        print(
          report,
          report.changed
            ? `catalog version ${report.version}: ${report.offers} offers (${report.snapshots_created} new snapshots, ${report.offers_archived} archived), ${report.campaigns} campaigns, ${report.advertisers} advertisers`
            : `catalog unchanged (version ${report.version})`,
        );
        return 0;
      }
      case 'catalog export': {
        const doc = `${JSON.stringify(await withOperations(config, (ops) => ops.exportCatalog()), null, 2)}\n`;
        if (arg) await writeFile(arg, doc);
        else out(doc);
        return 0;
      }
      case 'migrate undefined':
      case 'migrate ': {
        await withOperations(config, (ops) => ops.migrate());
        out('migrations applied\n');
        return 0;
      }
      default:
        throw new UsageError(`unknown command: ${args.join(' ') || '(none)'}`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n${help(group, command)}`);
      return 2;
    }
    if (
      err instanceof ConfigError ||
      err instanceof CatalogValidationError ||
      err instanceof NotFoundError ||
      err instanceof Refused ||
      err instanceof ImportInProgress
    ) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    process.stderr.write(`sidenote: ${(err as Error).message}\n`);
    return 1;
  }
}

// Run directly (`tsx src/cli/sidenote-cli.ts …`). bin/sidenote.mjs calls runCli itself, so a
// symlinked or npx-installed `sidenote` does not depend on the name it was started by.
if (process.argv[1] && pathToFileURL(realpathSync(process.argv[1])).href === import.meta.url) {
  process.exitCode = await runCli(process.argv.slice(2));
}
