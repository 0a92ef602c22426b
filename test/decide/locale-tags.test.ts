// The canonical locale and country a decision record keeps are read once per tag and
// remembered (ICU takes microseconds per tag): the memo answers as ICU does, and a flood of
// distinct made-up tags neither changes later answers nor grows without bound.
import { describe, expect, it } from 'vitest';
import { canonicalCountry, canonicalLocale } from '../../src/decide/locale-tags.js';

describe('locale tags', () => {
  it('answers the same the first time and every later time', () => {
    for (let round = 0; round < 2; round++) {
      expect(canonicalLocale('ko_kr')).toBe('ko-KR');
      expect(canonicalLocale('EN')).toBe('en');
      expect(canonicalLocale('ko-KR-x-anything')).toBe('ko-KR');
      expect(canonicalLocale('not a tag')).toBeNull();
      expect(canonicalLocale('zz-QQ')).toBeNull();
      expect(canonicalCountry('kr')).toBe('KR');
      expect(canonicalCountry('QQ')).toBeNull();
      expect(canonicalCountry('KOR')).toBeNull();
    }
  });

  it('keeps answering right after a flood of distinct made-up tags', () => {
    for (let i = 0; i < 5000; i++) expect(canonicalLocale(`xq-${i.toString(36)}`)).toBeNull();
    expect(canonicalLocale('ja_jp')).toBe('ja-JP');
    expect(canonicalLocale('en-us')).toBe('en-US');
  });
});
