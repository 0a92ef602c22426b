// Korean adult-venue names that begin ordinary words, read as patterns beside the catalog's list
// (relevance slice 31).
import { describe, expect, it } from 'vitest';
import { namesAdultVenue } from '../../src/decide/adult-venues.js';

describe('namesAdultVenue', () => {
  it.each([
    '베트남 출장인데 안마방 괜찮은 데 알아? 비행기표도 끊어야 돼',
    '안마방이 뭐 하는 데야',
    '키스방이랑 오피 차이가 뭐야',
    '강남 키스방 가격',
    '립카페 처음 가보려는데',
    '부산 출장 가서 안마방\u200b 가볼까 호텔도 잡아줘',
  ])('names an adult venue: %s', (message) => expect(namesAdultVenue(message)).toBe(true));

  it.each([
    '안마방석 추천해줘 부모님 선물',
    '발 안마방법 알려줘',
    '키스방법 알려줘',
    '핸드드립카페 추천',
    '성수동 드립카페 어디가 좋아',
    '호텔 스파에서 타이 마사지 예약하고 싶어',
    '오피스텔 단기 임대 알아보는 중',
    '',
    undefined,
  ])('no adult venue: %s', (message) => expect(namesAdultVenue(message)).toBe(false));
});
