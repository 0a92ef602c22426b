// Lengths as the spec counts them (code points), judged without iterating the string: the
// shortcut by UTF-16 length must give the same answers as counting the characters one by one.
import { describe, expect, it } from 'vitest';
import { chars, codePoints } from '../../src/http/text.js';

const counted = (s: string) => [...s].length;

describe('code point lengths', () => {
  const samples = ['', 'a', '한국어', '😀', '😀😀x', 'a\ud800', '\udc00b', '\ud800\ud800\udc00', 'x'.repeat(4001), '😀'.repeat(2000), '한'.repeat(4000)];

  it('counts as the string iterator counts, lone surrogates included', () => {
    for (const s of samples) expect(codePoints(s)).toBe(counted(s));
  });

  it('accepts exactly the strings of min to max code points', () => {
    const rng = (() => {
      let x = 42;
      return () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    })();
    const pieces = ['a', '가', '😀', '\ud800', '\udc00'];
    for (const [min, max] of [
      [0, 5],
      [2, 16],
      [3, 4],
      [1, 1],
    ]) {
      const schema = chars(min, max);
      for (let i = 0; i < 2000; i++) {
        let s = '';
        const n = Math.floor(rng() * 12);
        for (let k = 0; k < n; k++) s += pieces[Math.floor(rng() * pieces.length)];
        const n2 = counted(s);
        expect(schema.safeParse(s).success, `${JSON.stringify(s)} in ${min}..${max}`).toBe(n2 >= min && n2 <= max);
      }
    }
  });

  it('takes a 4,000-emoji message and refuses 4,001', () => {
    expect(chars(0, 4000).safeParse('😀'.repeat(4000)).success).toBe(true);
    expect(chars(0, 4000).safeParse('😀'.repeat(4001)).success).toBe(false);
  });
});
