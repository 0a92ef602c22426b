// Where SQL lives (README, "Where SQL lives"): in repositories (`*-repository.ts`, one per table
// or closely-owned group of tables, in the feature's folder) and in the infrastructure folders
// src/db/ (handle, migrations, advisory locks) and src/persistence/ (group commit, batch insert).
// Services and routes call repository methods; they neither hold SQL nor run statements. And
// each table has one owner: only its repository's SQL names it, so a table's shape, indexes and
// invariants are read in one file.
//
// The scan reads every string and template literal of src/**/*.ts with the TypeScript parser,
// so SQL in comments does not count and SQL split across template spans still does.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const isSqlHome = (file: string) => file.startsWith('src/db/') || file.startsWith('src/persistence/') || file.endsWith('-repository.ts');

// Keywords as the code writes SQL (upper case), so prose in messages and descriptions does not
// trip them; `unnest(` is Postgres-only whatever its case.
const SQL_PATTERNS: RegExp[] = [
  /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\s+[^\s/]/, // a literal that is a statement, however short ('SELECT 1'); not a route ('DELETE /admin/…')
  /\bSELECT\b[\s\S]*\bFROM\b/,
  /\bINSERT\s+INTO\b/,
  /\bUPDATE\s+\w+(\s+(AS\s+)?\w+)?\s+SET\b/,
  /\bDELETE\s+FROM\b/,
  /\bWITH\s+\w+\s+AS\s*\(/,
  /\bunnest\s*\(/i,
  /\bON\s+CONFLICT\b/,
  /\bJOIN\s+\w+(\s+(AS\s+)?\w+)?\s+ON\b/,
];

/** Which repository owns each table: the only file whose SQL may name it. A new table gets a row. */
const OWNER: Record<string, string> = {
  schema_migrations: 'src/db/migrate.ts',
  settings: 'src/settings/settings-repository.ts',
  apps: 'src/apps/app-repository.ts',
  api_keys: 'src/apps/app-repository.ts',
  conversion_secrets: 'src/apps/app-repository.ts',
  catalog_state: 'src/catalog/catalog-repository.ts',
  advertisers: 'src/catalog/catalog-repository.ts',
  advertiser_destinations: 'src/catalog/catalog-repository.ts',
  affiliate_networks: 'src/catalog/catalog-repository.ts',
  campaigns: 'src/catalog/catalog-repository.ts',
  // Operators' overrides of campaigns, laid over them wherever a campaign serves.
  campaign_controls: 'src/catalog/catalog-repository.ts',
  campaign_control_changes: 'src/catalog/catalog-repository.ts',
  // Signed notifications: endpoints and their outbox.
  webhook_endpoints: 'src/webhooks/webhook-repository.ts',
  webhook_deliveries: 'src/webhooks/webhook-repository.ts',
  offers: 'src/catalog/catalog-repository.ts',
  offer_snapshots: 'src/catalog/catalog-repository.ts',
  catalog_import_jobs: 'src/catalog/catalog-import-job-repository.ts',
  // The spend ledger is written by the statement that writes the decision rows (money: one commit).
  decisions: 'src/decisions/decision-repository.ts',
  campaign_spend_daily: 'src/decisions/decision-repository.ts',
  campaign_spend_total: 'src/decisions/decision-repository.ts',
  // Served decisions not yet confirmed: noted by the same statement, cleared by the confirmation.
  unconfirmed_serves: 'src/decisions/decision-repository.ts',
  events: 'src/events/event-repository.ts',
  // Unique across days, which the day-partitioned events and conversions cannot be (migrations
  // 006 and 013).
  event_idempotency_keys: 'src/events/event-repository.ts',
  clicks: 'src/links/click-repository.ts',
  conversions: 'src/conversions/conversion-repository.ts',
  conversion_nonces: 'src/conversions/conversion-repository.ts',
  conversion_orders: 'src/conversions/conversion-repository.ts',
  // The report rollups are written by the statements that write the rows they count, with SQL
  // this repository builds (foldDecisions, foldFunnelSteps), and read by it alone.
  report_rollups: 'src/reporting/report-repository.ts',
  report_conversion_rollups: 'src/reporting/report-repository.ts',
  report_reason_rollups: 'src/reporting/report-repository.ts',
  report_latency_rollups: 'src/reporting/report-repository.ts',
  report_match_rollups: 'src/reporting/report-repository.ts',
  report_funnel_marks: 'src/reporting/report-repository.ts',
  affiliate_impressions: 'src/affiliate/affiliate-impression-repository.ts',
  click_intents: 'src/affiliate/affiliate-impression-repository.ts',
};

/** Read models that join tables they do not own, in one statement per figure: the reports name
 *  apps by their names. */
const READ_MODEL: Record<string, string[]> = {
  'src/reporting/report-repository.ts': ['apps'],
};

interface SourceFile {
  file: string;
  text: string;
  literals: string[];
  /** Tables written through `batchInsert('<table>', …)`: SQL the helper builds for this file. */
  batchTables: string[];
}

function sourceFiles(): SourceFile[] {
  const files = (readdirSync(path.join(ROOT, 'src'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `src/${f.split(path.sep).join('/')}`)
    .sort();
  return files.map((file) => {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
    const literals: string[] = [];
    const batchTables: string[] = [];
    const visit = (node: ts.Node) => {
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) literals.push(node.text);
      else if (ts.isTemplateExpression(node)) literals.push(node.head.text + node.templateSpans.map((s) => ` \${} ${s.literal.text}`).join(''));
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'batchInsert') {
        const table = node.arguments[0];
        if (table && ts.isStringLiteralLike(table)) batchTables.push(table.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    return { file, text, literals, batchTables };
  });
}

function migrationTables(): string[] {
  const dir = path.join(ROOT, 'src/db/migrations');
  const sql = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .map((f) => readFileSync(path.join(dir, f), 'utf8'))
    .join('\n');
  return [...sql.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?(\w+)/g)].map((m) => m[1]).concat('schema_migrations');
}

const files = sourceFiles();

describe('SQL placement', () => {
  it('finds SQL only in repositories, src/db/ and src/persistence/', () => {
    const misplaced = files
      .filter((f) => !isSqlHome(f.file))
      .flatMap((f) => f.literals.filter((l) => SQL_PATTERNS.some((p) => p.test(l))).map((l) => `${f.file}: ${l.replace(/\s+/g, ' ').trim().slice(0, 80)}`));
    expect(misplaced).toEqual([]);
  });

  it('runs statements only from repositories, src/db/ and src/persistence/', () => {
    const running = files.filter((f) => !isSqlHome(f.file) && /\.query\s*(<[^()]*>)?\s*\(/.test(f.text)).map((f) => f.file);
    expect(running).toEqual([]);
  });

  it('keeps .sql files in src/db/migrations/', () => {
    const stray = (readdirSync(path.join(ROOT, 'src'), { recursive: true }) as string[])
      .map((f) => f.split(path.sep).join('/'))
      .filter((f) => f.endsWith('.sql') && !f.startsWith('db/migrations/'));
    expect(stray).toEqual([]);
  });

  it('gives every table one owning repository, the only file whose SQL names it', () => {
    const tables = new Set(migrationTables());
    expect([...tables].filter((t) => !OWNER[t])).toEqual([]);
    const trespass: string[] = [];
    for (const f of files) {
      const named = new Set(f.batchTables);
      for (const l of f.literals) {
        for (const m of l.matchAll(/\b(?:FROM|JOIN|INTO|UPDATE)\s+(\w+)/g)) if (tables.has(m[1])) named.add(m[1]);
      }
      for (const t of named) {
        if (OWNER[t] !== f.file && !READ_MODEL[f.file]?.includes(t)) trespass.push(`${f.file} names ${t} (owner: ${OWNER[t]})`);
      }
    }
    expect(trespass.sort()).toEqual([]);
  });

  it('sees SQL where it is (the scan is not blind)', () => {
    const events = files.find((f) => f.file === 'src/events/event-repository.ts');
    expect(events?.literals.some((l) => SQL_PATTERNS.some((p) => p.test(l)))).toBe(true);
    expect(files.some((f) => f.batchTables.includes('events'))).toBe(true);
  });
});
