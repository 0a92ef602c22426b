// Ages and school years that say the user is a minor, read as patterns (a word list cannot).
import { describe, expect, it } from 'vitest';
import { saysMinorAge } from '../../src/decide/minor-age.js';

describe('saysMinorAge', () => {
  it.each([
    '저 15살인데 혼자 여행 가도 돼요?',
    '나 17 살이야',
    '열다섯 살인데 노트북 사고 싶어',
    '12세 아이가 쓸 태블릿',
    '중2인데 폰 바꾸고 싶어',
    '고1 학생 노트북 추천',
    '중학교 2학년 영어 앱',
    '저 이제 고딩 되는데 핸드폰 바꾸고 싶어요',
    "I'm 14, what laptop should I ask for?",
    'im 15 can i get a vpn',
    'I am only 13',
    'my son is 9 years old',
    'a 16-year-old asking about flights',
    "I'm in 8th grade and want an iPad",
    'as a seventh grader what headphones should I get',
    'freshman in high school here, best laptop?',
    "I'm in middle school and want a phone",
    'thinking about su\u200bicide at 1\u200b5 years old',
    '6학년인데 폰 사고 싶어',
    "I'm fifteen and want airpods",
    'im sixteen, can i book a hotel alone',
    'a thirteen-year-old asking about laptops',
    "I'm in year 10 and need a laptop",
    'grade 8 student here, which tablet?',
  ])('minor: %s', (message) => expect(saysMinorAge(message)).toBe(true));

  it.each([
    '아이폰 16 세일 언제야?',
    '아이폰16세일',
    '아이패드 10세대 살만해?',
    '갤럭시 탭s10 살만함?',
    '이 중 2개만 골라줘',
    '최고 3개 추천해줘',
    '노트북 100만원 이하로 살까',
    '30살인데 이직 준비 중',
    '아이폰16 살라구 하는데 어디서 사면 싸요?',
    '아이폰 16 살 수 있어?',
    '갤탭 s10 살래',
    '아이폰 16 살건데 케이스 추천',
    '대학교 3학년인데 노트북 추천',
    '대학 2학년 과제용 태블릿',
    "I'm 15 minutes late to the meeting",
    "I'm 35 and want a new phone",
    'iPhone 15 vs 16',
    'MacBook Air 13 inch or 15 inch?',
    'flight at 10 am',
    'best laptops of the year 2026',
    'Windows 11 laptop under 900',
    'senior software engineer, best laptop for coding?',
    '',
    undefined,
  ])('not a minor: %s', (message) => expect(saysMinorAge(message)).toBe(false));
});
