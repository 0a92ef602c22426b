// The TypeScript Hangul typo matcher on the cases the core's unit tests use
// (crates/sidenote-core/src/hangul_typo.rs); the differential test compares it with the core on
// generated messages with one jamo changed.
import { describe, expect, it } from 'vitest';
import { HangulTypoMatcher } from '../../testkit/matching-reference/hangul-typo-matcher.js';
import { loadCommonKoreanWords } from '../../testkit/matching-reference/korean-words.js';

const CATALOG = ['노트북', '갤럭시', '맥북', '맥북에어', '아이폰', '제주도', '한국어', '인사동', '대만', '여행지', '블루투스스피커', '호텔'];
const matcher = new HangulTypoMatcher(CATALOG.map((a, i) => [a, i, true] as const));
const found = (text: string, startsAt: (i: number) => boolean = () => false) => {
  const chars = Array.from(text);
  return matcher.find(chars, chars.length, [], startsAt).map(([, , p]) => CATALOG[p]);
};

describe('Hangul typo matcher (TypeScript twin)', () => {
  it('finds an alias one jamo away', () => {
    expect(found('노트븍 가벼운거 추천')).toEqual(['노트북']);
    expect(found('겔럭시 s25 사려고')).toEqual(['갤럭시']);
    expect(found('아이펀 16 얼마야')).toEqual(['아이폰']);
    expect(found('아이폰 16 얼마야')).toEqual([]);
    expect(found('블루투스스퓌커 추천')).toEqual(['블루투스스피커']);
    expect(found('노트부 하나')).toEqual(['노트북']);
  });

  it('takes only a sound-alike change in a two-syllable alias', () => {
    expect(found('맥뿍 에어 사고싶다')).toEqual(['맥북']);
    expect(found('호탤 예약')).toEqual(['호텔']);
    expect(found('맥묵 에어')).toEqual([]);
  });

  it('prefers the longest candidate and lets a particle or another alias follow', () => {
    expect(found('맥뿍에어 학생할인')).toEqual(['맥북에어']);
    expect(found('노트븍을 사려고')).toEqual(['노트북']);
    expect(found('노트븍추천')).toEqual([]);
    expect(found('노트븍추천', (i) => i === 3)).toEqual(['노트북']);
  });

  it('reads a word and its particle as written, and never a common word', () => {
    expect(found('스타벅스 한국에 언제 들어왔어')).toEqual([]);
    expect(found('마지막 인사도 못 했어')).toEqual([]);
    expect(found('잘 데만 있으면 돼')).toEqual([]);
    expect(found('제쥬도 숙소 추천')).toEqual(['제주도']);
    expect(found('여행자 보험')).toEqual([]);
    expect(found('사무용노트븍')).toEqual([]);
    expect(loadCommonKoreanWords().has('여행자')).toBe(true);
  });

  it('reads only what names a thing, outside exact hits', () => {
    const cue = new HangulTypoMatcher([['노트북', 0, false]]);
    expect(cue.find(Array.from('노트븍 추천'), 6, [], () => false)).toEqual([]);
    expect(matcher.find(Array.from('노트븍 추천'), 6, [[0, 1]], () => false)).toEqual([]);
  });
});
