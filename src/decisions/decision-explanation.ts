// "Why this offer" (EU DSA Art. 26: the main parameters behind an ad, shown to the user).
// Built from the decision record and the catalog's display names, never from the message,
// in the decision's language.
import type { DecisionMetadata } from './decision-repository.js';

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
  };
}

const LANGUAGE_NAMES = { ko: { ko: '한국어', en: '영어' }, en: { ko: 'Korean', en: 'English' } } as const;

export function explainDecision(
  d: DecisionMetadata & { implied_category_ids?: string[] },
  advertiser: string | null,
  nameOf: (id: string) => { ko: string; en: string } | undefined,
): DecisionExplanation {
  const lang: 'ko' | 'en' = d.locale?.toLowerCase().startsWith('ko') ? 'ko' : 'en';
  // The evidence that won, strongest first: the entities named, the categories asked for, then
  // categories only implied by a named entity (a place implies travel).
  const ids = [...d.matched_entity_ids, ...d.matched_category_ids, ...(d.implied_category_ids ?? [])];
  const topics = [...new Set(ids.map((id) => nameOf(id)?.[lang]).filter((n): n is string => Boolean(n)))].slice(0, 5);
  const language = d.locale ? LANGUAGE_NAMES[lang][(d.locale.toLowerCase().startsWith('ko') ? 'ko' : 'en') as 'ko' | 'en'] : null;
  const country = d.country ? d.country.toUpperCase() : null;
  let explanation: string;
  if (!d.serve) {
    explanation =
      lang === 'ko'
        ? '이번 대화에는 광고가 표시되지 않았습니다. 개인정보나 대화 기록은 사용되지 않았습니다.'
        : 'No sponsored content was shown for this turn. No personal data or conversation history was used.';
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
    parameters: { topics, language, country, personal_data_used: false, conversation_history_used: false },
  };
}
