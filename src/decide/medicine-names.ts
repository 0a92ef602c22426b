// Whether a turn names a medicine by its generic name. The catalog's `medication` topic lists
// brand and common generic names ("lexapro", "sertraline", "졸피뎀"); the generics it cannot list
// share the naming stems of the USAN/INN system (-azepam, -oxetine, -statin, -sartan …), so they
// are read here as a pattern, as ages are (minor-age.ts). A medicine beside a purchase ("on
// escitalopram, ok to fly to Tokyo?") is a health moment: recall first (DESIGN.md §2).
import { patternText } from './minor-age.js';

// Each stem ends a word of at least three more letters before it, and none ends a common English
// word ("april" is why -pril needs seven letters; -aline, -pine and -done are left out for
// "saline", "alpine", "done").
const EN_STEMS = [
  'azepam',
  'zolam',
  'oxetine',
  'alopram',
  'triptyline',
  'faxine',
  'iapine',
  'zapine',
  'piprazole',
  'peridone',
  'trigine',
  'statin',
  'sartan',
  'dipine',
  'olol',
  'prazole',
  'tidine',
  'gliflozin',
  'gliptin',
  'glutide',
  'formin',
  'cillin',
  'mycin',
  'floxacin',
  'cycline',
  'conazole',
  'codone',
  'morphone',
  'triptan',
  'profen',
  'coxib',
  'phenidate',
  'barbital',
  'semide',
  'thiazide',
  'lukast',
  'umab',
  'ximab',
  'tinib',
  'ciclovir',
  'navir',
  'setron',
  'nisone',
  'nisolone',
  'thasone',
  'thyroxine',
];
// Words of seven letters or more (three before the shortest stem) are the only candidates: the
// scan finds them, and each is then read from its end.
const EN_WORD = /[a-z]{7,}/g;
const EN_GENERIC_END = new RegExp(`(?:${EN_STEMS.join('|')})s?$|[^a]pril$`);

// The same stems as Korean writes them (에스시탈로프람, 알프라졸람, 아토르바스타틴), after two
// syllables at least: a stem alone is often a word of its own ("실린 기사").
const KO_STEMS = [
  '제팜',
  '졸람',
  '옥세틴',
  '로프람',
  '팍신',
  '피프라졸',
  '리돈',
  '트리진',
  '스타틴',
  '사르탄',
  '디핀',
  '프라졸',
  '포르민',
  '글루타이드',
  '실린',
  '마이신',
  '플록사신',
  '사이클린',
  '코돈',
  '트립탄',
  '프로펜',
  '페니데이트',
  '니솔론',
];
const KO_WORD = /[가-힣]{4,}/g;
const KO_GENERIC = new RegExp(`[가-힣]{2}(?:${KO_STEMS.join('|')})`);

export function namesMedicine(message: string | undefined): boolean {
  return namesMedicineIn(patternText(message));
}

/** `namesMedicine` on a turn already read by `patternText` (minor-age.ts). */
export function namesMedicineIn(text: string): boolean {
  for (const [word] of text.matchAll(EN_WORD)) if (EN_GENERIC_END.test(word)) return true;
  for (const [word] of text.matchAll(KO_WORD)) if (KO_GENERIC.test(word)) return true;
  return false;
}
