// The TypeScript twin of the core's turn classifier must agree with the Rust one bit for bit:
// both score every turn of the training and validation sets, plus edge cases, and the logits'
// f32 bit patterns and the decisions are compared. The Rust side is the `classify` example.
import { describe, expect, it, beforeAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isCommercial, isSensitive, turnScores } from '../../testkit/matching-reference/turn-classifier.js';

interface RustRow {
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
  'tab\tseparated\nlines',
];

function bits(x: number): number {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, x, true);
  return view.getUint32(0, true);
}

/** The turns of a data file, one per line on the example's stdin: a pasted turn's line breaks
 *  are white space to normalize(), which collapses them either way. */
function texts(file: string): string[] {
  return readFileSync(path.join(DATA, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { text: string }).text.replace(/[\r\n]+/g, ' '));
}

describe('turn classifier: TypeScript twin of the core', () => {
  const inputs = [...texts('validation.jsonl'), ...texts('train.jsonl'), ...EDGE_CASES.filter((t) => !t.includes('\n'))];
  let rust: RustRow[] = [];

  beforeAll(() => {
    const out = execFileSync('cargo', ['run', '--profile', 'ci', '-q', '-p', 'sidenote-core', '--example', 'classify'], {
      input: inputs.join('\n') + '\n',
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    rust = out
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as RustRow);
  }, 600_000);

  it('scores every turn with the same f32 logits and decisions as the core', () => {
    expect(rust).toHaveLength(inputs.length);
    const mismatches = rust.flatMap((row) => {
      const ts = turnScores(row.normalized);
      const same =
        bits(ts.sensitive) === row.sensitive_bits &&
        bits(ts.commercial) === row.commercial_bits &&
        isSensitive(row.normalized) === row.is_sensitive &&
        isCommercial(row.normalized) === row.is_commercial;
      return same ? [] : [{ text: row.normalized, ts, rust: row }];
    });
    expect(mismatches).toEqual([]);
  });

  it('reads white space inside a turn as a separator, as the core does', () => {
    expect(turnScores('tab\tseparated\nlines')).toEqual(turnScores('tab separated lines'));
  });

  it('makes the obvious calls in both languages', () => {
    expect(isSensitive('i want to end it all')).toBe(true);
    // Two-word turns are the word lists' to catch (the service asks the model from three words).
    expect(isSensitive('요즘 그냥 살기가 싫어')).toBe(true);
    expect(isCommercial('부산 호텔 2박')).toBe(true);
    expect(isCommercial('flights to tokyo for next weekend')).toBe(true);
    expect(isSensitive('how do i center a div in css')).toBe(false);
    expect(isCommercial('how do i center a div in css')).toBe(false);
  });
});
