// "Why this offer" (EU DSA Art. 26: the main parameters behind an ad, shown to the user).
// Built from the decision record and the catalog's display names, never from the message,
// in the decision's language.
import type { DecisionEvidence, DecisionMetadata } from './decision-repository.js';

export interface DecisionExplanation {
  decision_id: string;
  locale: 'ko' | 'en';
  sponsored: boolean;
  advertiser: string | null;
  /** One short paragraph, ready to show to the user. */
  explanation: string;
  parameters: {
    topics: string[];
    language: string | null;
    country: string | null;
    personal_data_used: false;
    conversation_history_used: false;
    /** What a POLICY_BLOCK stood on: `audience`, `consent`, `host_safety` or the sensitive
     *  families read in the message (`health`, `minors`, …; `sensitive` when unnamed). */
    policy: string[];
    reading_budget_exceeded: boolean;
    app_exclusions_applied: boolean;
  };
}

// The sensitive families the demo catalog and the core's patterns name, in plain words. A
// catalog's own topic id without a name here is "a sensitive subject".
const FAMILY_NAMES: Record<string, { ko: string; en: string }> = {
  health: { ko: '건강', en: 'health' },
  'self-harm': { ko: '자해·자살', en: 'self-harm' },
  medication: { ko: '의약품', en: 'medication' },
  gambling: { ko: '도박', en: 'gambling' },
  adult: { ko: '성인 콘텐츠', en: 'adult content' },
  politics: { ko: '정치', en: 'politics' },
  minors: { ko: '미성년자', en: 'minors' },
  'finance-advice': { ko: '투자 조언', en: 'investment advice' },
  'financial-distress': { ko: '경제적 어려움', en: 'money troubles' },
  grief: { ko: '사별', en: 'grief' },
  'violence-abuse': { ko: '폭력·학대', en: 'violence or abuse' },
  'legal-trouble': { ko: '법적 문제', en: 'legal trouble' },
};

/** The sentence that says why nothing was shown, when the record knows more than "no fill". */
function withheldBecause(d: DecisionEvidence, lang: 'ko' | 'en'): string | null {
  const reasons = d.policy_reasons;
  if (reasons.includes('audience') || reasons.includes('consent')) {
    return lang === 'ko'
      ? '광고는 문맥 광고에 동의한 성인에게만 표시됩니다.'
      : 'Sponsored content is shown only to adults who have agreed to contextual offers.';
  }
  if (reasons.includes('host_safety')) {
    return lang === 'ko'
      ? '이용 중인 서비스가 이 대화를 광고가 맞지 않는 대화로 표시했습니다.'
      : 'The assistant marked this conversation as one where sponsored content does not belong.';
  }
  const families = reasons.filter((r) => r.startsWith('sensitive'));
  if (families.length > 0) {
    const named = [...new Set(families.map((r) => FAMILY_NAMES[r.slice('sensitive:'.length)]?.[lang]).filter((n): n is string => Boolean(n)))];
    if (lang === 'ko') return named.length ? `${named.join(', ')} 관련 대화에는 광고를 표시하지 않습니다.` : '민감한 주제의 대화에는 광고를 표시하지 않습니다.';
    return named.length
      ? `Sponsored content is never shown beside conversations about ${named.join(' or ')}.`
      : 'Sponsored content is never shown beside sensitive conversations.';
  }
  if (d.excluded_by_app) {
    return lang === 'ko'
      ? '이용 중인 서비스가 표시하지 않기로 정한 분야나 광고주의 광고는 제외되었습니다.'
      : 'Offers from categories or advertisers this assistant chose never to show were left out.';
  }
  if (d.reading_over_budget) {
    return lang === 'ko'
      ? '메시지가 길거나 복잡해서 정해진 처리 한도 안에 다 읽지 못했습니다.'
      : 'The message was too long or complex to read within the limit Sidenote sets itself.';
  }
  return null;
}

const LANGUAGE_NAMES = { ko: { ko: '한국어', en: '영어' }, en: { ko: 'Korean', en: 'English' } } as const;

export function explainDecision(
  d: DecisionMetadata & DecisionEvidence,
  advertiser: string | null,
  nameOf: (id: string) => { ko: string; en: string } | undefined,
): DecisionExplanation {
  const lang: 'ko' | 'en' = d.locale?.toLowerCase().startsWith('ko') ? 'ko' : 'en';
  // The evidence that won, strongest first: the entities named, the categories asked for, then
  // categories only implied by a named entity (a place implies travel).
  const ids = [...d.matched_entity_ids, ...d.matched_category_ids, ...d.implied_category_ids];
  const topics = [...new Set(ids.map((id) => nameOf(id)?.[lang]).filter((n): n is string => Boolean(n)))].slice(0, 5);
  const language = d.locale ? LANGUAGE_NAMES[lang][(d.locale.toLowerCase().startsWith('ko') ? 'ko' : 'en') as 'ko' | 'en'] : null;
  const country = d.country ? d.country.toUpperCase() : null;
  let explanation: string;
  if (!d.serve) {
    const why = withheldBecause(d, lang);
    explanation =
      lang === 'ko'
        ? `이번 대화에는 광고가 표시되지 않았습니다. ${why ? `${why} ` : ''}개인정보나 대화 기록은 사용되지 않았습니다.`
        : `No sponsored content was shown for this turn. ${why ? `${why} ` : ''}No personal data or conversation history was used.`;
  } else if (lang === 'ko') {
    const about = topics.length ? `현재 질문의 주제(${topics.join(', ')})` : '현재 질문의 주제';
    const where = [language, country].filter(Boolean).join(', ');
    explanation =
      `이 내용은 ${advertiser ?? '광고주'}의 광고입니다. ${about}${where ? `와 언어·지역 설정(${where})` : ''}에 맞춰 선택되었습니다. ` +
      '개인정보, 사용자 프로필, 이전 대화 기록은 사용되지 않았습니다.';
  } else {
    const about = topics.length ? `the topic of the current question (${topics.join(', ')})` : 'the topic of the current question';
    const where = [language, country].filter(Boolean).join(', ');
    explanation =
      `This is sponsored content from ${advertiser ?? 'an advertiser'}. It was chosen based on ${about}${where ? ` and the language and region settings (${where})` : ''}. ` +
      'No personal data, user profile or previous conversation history was used.';
  }
  return {
    decision_id: d.decision_id,
    locale: lang,
    sponsored: d.serve,
    advertiser: d.serve ? advertiser : null,
    explanation,
    parameters: {
      topics,
      language,
      country,
      personal_data_used: false,
      conversation_history_used: false,
      policy: d.policy_reasons.map((r) => (r.startsWith('sensitive:') ? r.slice('sensitive:'.length) : r)),
      reading_budget_exceeded: d.reading_over_budget,
      app_exclusions_applied: d.excluded_by_app,
    },
  };
}
