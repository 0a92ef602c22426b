// npm run eval:relevance -- [--split dev|held-out|all] [--json out.json] [--check] [--now ISO]
//                           [--concurrency N] [--no-failures] [--batch earlier|session-5|session-6|session-7|session-9|session-10|session-11|session-12]
// Runs the labelled relevance set (eval/relevance/*.jsonl) through POST /v1/offers/decide of an
// in-process Sidenote on the demo catalog and prints the figures as Markdown, then the failing
// cases. --check exits 1 when a held-out figure is below eval/relevance/floors.json. A run where
// timing, a budget or a frequency cap decided any answer is not a measurement: it exits 2.
// --batch runs only the cases one batch wrote (cases.ts, BATCH_STARTS), to report it on its own.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BATCHES, type Batch, loadCases, type Split } from './cases.js';
import { DEFAULT_EVAL_NOW, checkFloors, failuresTable, markdownTable, report, runCases, startHarness, type Floors } from './benchmark.js';

const FLOORS_PATH = fileURLToPath(new URL('./floors.json', import.meta.url));

function usage(msg?: string): never {
  if (msg) console.error(msg);
  console.error(
    'usage: npm run eval:relevance -- [--split dev|held-out|all] [--json out.json] [--check] [--now ISO] [--concurrency N] [--no-failures] [--batch NAME]',
  );
  process.exit(64);
}

function commitOf(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return dirty ? `${sha} (with uncommitted changes)` : sha;
  } catch {
    return 'unknown';
  }
}

async function main() {
  const args = (() => {
    try {
      return parseArgs({
        options: {
          split: { type: 'string', default: 'all' },
          json: { type: 'string' },
          check: { type: 'boolean', default: false },
          now: { type: 'string', default: DEFAULT_EVAL_NOW },
          concurrency: { type: 'string', default: '8' },
          'no-failures': { type: 'boolean', default: false },
          batch: { type: 'string' },
          help: { type: 'boolean', default: false },
        },
        strict: true,
      }).values;
    } catch (err) {
      usage((err as Error).message);
    }
  })();
  if (args.help) usage();
  const split = args.split as Split | 'all';
  if (!['dev', 'held-out', 'all'].includes(split)) usage(`--split must be dev, held-out or all, not ${split}`);
  const concurrency = Number(args.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) usage('--concurrency must be a positive integer');
  const batch = args.batch as Batch | undefined;
  if (batch !== undefined && !(BATCHES as readonly string[]).includes(batch)) usage(`--batch must be one of ${BATCHES.join(', ')}`);
  if (batch !== undefined && args.check) usage('--check holds the whole split to its floors; it takes no --batch');
  let floors: Floors | null = null;
  if (args.check) {
    floors = JSON.parse(readFileSync(FLOORS_PATH, 'utf8')) as Floors;
    if (split !== 'all' && split !== floors.split) usage(`--check compares the ${floors.split} figures; run it with --split ${floors.split} or all`);
  }

  const cases = loadCases(split, batch);
  const started = performance.now();
  const harness = await startHarness({ now: args.now });
  const bootMs = performance.now() - started;
  let results: Awaited<ReturnType<typeof runCases>>;
  try {
    results = await runCases(harness, cases, concurrency);
  } finally {
    await harness.close();
  }
  const elapsedMs = performance.now() - started;
  const figures = report(results);
  const commit = commitOf();
  const instrumentErrors = results.filter((r) => r.outcome.instrumentError !== null);

  const out: string[] = [];
  out.push(`# Relevance benchmark`);
  out.push('');
  out.push(
    `${cases.length} cases (split: ${split}${batch ? `, batch: ${batch}` : ''}) · commit ${commit} · run ${new Date().toISOString()} · service clock pinned at ${args.now} · ` +
      `${(elapsedMs / 1000).toFixed(1)} s (start ${(bootMs / 1000).toFixed(1)} s, concurrency ${concurrency})`,
  );
  for (const s of ['held-out', 'dev', 'all'] as const) {
    const b = figures[s];
    if (!b || (s === 'all' && split !== 'all')) continue;
    out.push('', `## ${s}`, '', markdownTable(b));
    const sb = b.all.silentBlocked;
    out.push('', `Silent cases answered POLICY_BLOCK (counted right): ${sb.num} of ${sb.den}.`);
  }
  if (!args['no-failures']) {
    out.push('', `## Failing cases (${results.filter((r) => !r.correct).length})`, '', failuresTable(results));
  }
  if (instrumentErrors.length > 0) {
    out.push('', `## NOT A MEASUREMENT: ${instrumentErrors.length} answers were decided by timing, a budget, a frequency cap or an HTTP error`);
    for (const r of instrumentErrors) out.push(`- ${r.case.id}: ${r.outcome.instrumentError}`);
  }

  let violations: ReturnType<typeof checkFloors> = [];
  if (floors) {
    const b = figures[floors.split];
    violations = b ? checkFloors(b, floors) : [{ where: floors.split, figure: 'accuracy', bound: 0, measured: null }];
    out.push('', `## Floors (${floors.split}, eval/relevance/floors.json)`, '');
    if (violations.length === 0) out.push('Every figure is at or above its floor (false serve at or below its ceiling).');
    for (const v of violations) {
      const m = v.measured === null ? 'nothing measured' : `${v.measured.toFixed(1)}%`;
      out.push(`- BELOW FLOOR: ${v.where} ${v.figure}: ${m} against ${v.figure === 'false_serve_max' ? 'a ceiling' : 'a floor'} of ${v.bound}%`);
    }
  }
  console.log(out.join('\n'));

  if (args.json) {
    const json = {
      meta: {
        commit,
        ran_at: new Date().toISOString(),
        service_now: args.now,
        split,
        batch: batch ?? null,
        cases: cases.length,
        elapsed_ms: Math.round(elapsedMs),
        concurrency,
      },
      figures,
      floors: floors ? { split: floors.split, violations } : null,
      instrument_errors: instrumentErrors.length,
      results: results.map((r) => ({
        id: r.case.id,
        split: r.case.split,
        lang: r.case.lang,
        family: r.case.family,
        expect: r.case.expect,
        categories: r.case.categories ?? null,
        correct: r.correct,
        served: r.served,
        blocked: r.blocked,
        right_category: r.rightCategory,
        reason_codes: r.outcome.reasonCodes,
        offer_id: r.outcome.offerId,
        served_categories: r.outcome.servedCategories,
        intent_type: r.outcome.intentType,
        matched_category_ids: r.outcome.matchedCategoryIds,
        matched_entity_ids: r.outcome.matchedEntityIds,
        policy_reasons: r.outcome.policyReasons,
        instrument_error: r.outcome.instrumentError,
      })),
    };
    writeFileSync(args.json, JSON.stringify(json, null, 2) + '\n');
  }

  if (instrumentErrors.length > 0) process.exit(2);
  if (violations.length > 0) process.exit(1);
}

main().catch((err) => {
  console.error(err);
  process.exit(70);
});
