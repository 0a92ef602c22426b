// The core's turn classifier scores exactly as its trainer does: every turn of the training and
// validation sets, plus edge cases, is normalised and scored by the core (the `classify` example),
// and the same normalised text is scored by train.py from the weights file the core embeds; the
// f32 bits of both logits must agree. So the figures train.py reports (and the thresholds it
// chooses) are the service's. models/turn-classifier/README.md.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

interface CoreRow {
  normalized: string;
  sensitive_bits: number;
  commercial_bits: number;
  is_sensitive: boolean;
  is_commercial: boolean;
}

const DATA = path.resolve('models/turn-classifier/data');

const EDGE_CASES = [
  '',
  '?!...',
  'ＩＰＨＯＮＥ　１６　ｐｒｏ 살까',
  '죽\u200b고 싶어',
  'a',
  '가',
  'ㅋㅋㅋㅋㅋㅋㅋㅋ',
  '🙂 flights to tokyo ✈️ next week 🙏',
  'emoji-only 😭😭😭',
  'wh-1000xm5 vs qc-ultra — which?',
  'x'.repeat(300),
  '부산호텔2박가성비좋은곳추천해줘진짜급해',
  "i'm 14 & want an ipad (the cheap one)",
  'Ελληνικά και 日本語のテキスト mixed with русский',
  'i want to end it all',
  '요즘 그냥 살기가 싫어',
  '부산 호텔 2박',
  'flights to tokyo for next weekend',
  'how do i center a div in css',
];

/** The turns of a data file, one per line on the example's stdin: a pasted turn's line breaks
 *  are white space to normalize(), which collapses them either way. */
function texts(file: string): string[] {
  return readFileSync(path.join(DATA, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { text: string }).text.replace(/[\r\n]+/g, ' '));
}

/** The `classify` example's executable, built for the whole workspace as `cargo test
 *  --workspace` builds it: `cargo run -p sidenote-core` resolves the dependencies' features for
 *  that one package, so after CI's `cargo test` it compiled 14 crates again. */
function classifyExample(): string {
  const messages = execFileSync('cargo', ['build', '--profile', 'ci', '-q', '--workspace', '--example', 'classify', '--message-format', 'json'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const line of messages.split('\n')) {
    if (!line.startsWith('{')) continue;
    const m = JSON.parse(line) as { reason?: string; target?: { name?: string }; executable?: string | null };
    if (m.reason === 'compiler-artifact' && m.target?.name === 'classify' && m.executable) return m.executable;
  }
  throw new Error('cargo built no executable for the classify example');
}

describe('turn classifier: the core scores as its trainer does', () => {
  const inputs = [...texts('validation.jsonl'), ...texts('train.jsonl'), ...EDGE_CASES];
  let core: CoreRow[] = [];
  let trainer: Array<{ sensitive_bits: number; commercial_bits: number }> = [];

  beforeAll(() => {
    const out = execFileSync(classifyExample(), [], {
      input: `${inputs.join('\n')}\n`,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    core = out
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as CoreRow);
    const scored = execFileSync('python3', ['models/turn-classifier/train.py', '--score'], {
      input: `${core.map((r) => JSON.stringify(r.normalized)).join('\n')}\n`,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    trainer = scored
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l));
  }, 600_000);

  it('gives every turn the same f32 logits', () => {
    expect(core).toHaveLength(inputs.length);
    expect(trainer).toHaveLength(core.length);
    const mismatches = core.flatMap((row, i) =>
      row.sensitive_bits === trainer[i].sensitive_bits && row.commercial_bits === trainer[i].commercial_bits
        ? []
        : [{ text: row.normalized, core: row, trainer: trainer[i] }],
    );
    expect(mismatches).toEqual([]);
  });

  it('makes the obvious calls in both languages', () => {
    const call = (text: string) => core[inputs.indexOf(text)];
    expect(call('i want to end it all').is_sensitive).toBe(true);
    expect(call('요즘 그냥 살기가 싫어').is_sensitive).toBe(true);
    expect(call('부산 호텔 2박').is_commercial).toBe(true);
    expect(call('flights to tokyo for next weekend').is_commercial).toBe(true);
    expect(call('how do i center a div in css').is_sensitive).toBe(false);
    expect(call('how do i center a div in css').is_commercial).toBe(false);
  });
});
