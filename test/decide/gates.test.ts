// The gates before any offer, as pure functions over an envelope: which codes, in which order,
// what a POLICY_BLOCK stood on, and when a digest still counts.
import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../src/decide/envelope.js';
import { effectiveDigest, evaluateGates, liveLanguage, NOTHING_SENSITIVE, policyReasons, primaryLanguage } from '../../src/decide/gates.js';
import { koreanTurn } from '../helpers/envelopes.js';

const NOW = Date.parse('2026-11-29T10:00:00Z');
const envelope = (rest: object = {}) => koreanTurn('제주 호텔 추천', rest) as unknown as Envelope;
const at = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();

describe('gates', () => {
  it('reads the primary language of any spelling of a locale, and only ko and en are live', () => {
    expect(['ko-KR', 'EN_us', 'en', 'ja-JP', ''].map(primaryLanguage)).toEqual(['ko', 'en', 'en', 'ja', null]);
    expect(['ko-KR', 'en-GB', 'ja-JP', undefined].map(liveLanguage)).toEqual(['ko', 'en', null, null]);
  });

  it('counts a digest made within the last 30 minutes, and not one older or from over 5 minutes ahead', () => {
    const withDigest = (generated_at: string) => envelope({ session: { digest: { intent_type: 'purchase', generated_at } } });
    expect(effectiveDigest(withDigest(at(-29 * 60_000)), NOW)).toMatchObject({ intent_type: 'purchase' });
    expect(effectiveDigest(withDigest(at(-31 * 60_000)), NOW)).toBeUndefined();
    expect(effectiveDigest(withDigest(at(4 * 60_000)), NOW)).toMatchObject({ intent_type: 'purchase' });
    expect(effectiveDigest(withDigest(at(6 * 60_000)), NOW)).toBeUndefined();
    expect(effectiveDigest(envelope(), NOW)).toBeUndefined();
  });

  it('says every reason a turn is refused POLICY_BLOCK, by family, never the words', () => {
    expect(policyReasons(envelope(), undefined, NOTHING_SENSITIVE)).toEqual([]);
    const minor = envelope({ audience: { age_band: '13_17', contextual_offer_consent: false } });
    const blocked = { safety: 'blocked' } as ReturnType<typeof effectiveDigest>;
    expect(policyReasons(minor, blocked, NOTHING_SENSITIVE)).toEqual(['audience', 'consent', 'host_safety']);
    // Topics and patterns name their family once each; a pattern speaks in the catalog's words.
    const read = { sensitiveTopicIds: ['health', 'medication'], sensitivePatterns: ['medicine_name', 'minor_age'], modelSensitive: true };
    expect(policyReasons(envelope(), undefined, read)).toEqual(['sensitive:health', 'sensitive:medication', 'sensitive:minors']);
    // The learned classifier alone names no family.
    expect(policyReasons(envelope(), undefined, { ...NOTHING_SENSITIVE, modelSensitive: true })).toEqual(['sensitive']);
  });

  it('lists every gate that fails, in order: capability, policy, locale', () => {
    expect(evaluateGates(envelope(), [])).toEqual([]);
    const nowhere = envelope({ native_surface: { clickable: false, disclosure_capable: true }, locale: 'ja-JP' });
    expect(evaluateGates(nowhere, ['sensitive'])).toEqual(['CAPABILITY_UNMET', 'POLICY_BLOCK', 'LOCALE_NOT_LIVE']);
    expect(evaluateGates(envelope({ native_surface: { clickable: true, disclosure_capable: false } }), [])).toEqual(['CAPABILITY_UNMET']);
  });
});
