// Generic medicine names read by their naming stems, beside the catalog's list of names.
import { describe, expect, it } from 'vitest';
import { namesMedicine } from '../../src/decide/medicine-names.js';

describe('namesMedicine', () => {
  it.each([
    'been on escitalopram for a month, ok to fly to tokyo?',
    'can i take alprazolam on a long flight',
    'atorvastatin and grapefruit juice on vacation?',
    'i take lisinopril, is the altitude in cusco a problem',
    'is omeprazole ok with coffee',
    'prednisolone made me gain weight, which fitness tracker should i buy',
    '에스시탈로프람 먹는 중인데 해외여행 괜찮을까',
    '알프라졸람 처방받았는데 비행기에서 먹어도 돼?',
    '아토르바스타틴 먹는데 자몽 먹어도 돼',
    'fluoxetine\u200b and melatonin together?',
  ])('names a medicine: %s', (message) => expect(namesMedicine(message)).toBe(true));

  it.each([
    'flights to tokyo in april',
    'is the pro model worth it',
    'best alpine ski resorts in japan',
    'saline solution for contact lenses travel size',
    'my protocol for packing',
    '실린 기사 좀 요약해줘',
    '노트북 추천해줘',
    '',
    undefined,
  ])('no medicine: %s', (message) => expect(namesMedicine(message)).toBe(false));
});
