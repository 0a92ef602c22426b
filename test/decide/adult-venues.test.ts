// Korean adult-venue names that begin ordinary words, read as patterns beside the catalog's list
// (relevance slice 33), and veiled asks that name none (slice 34).
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
    // Veiled asks: no venue named (relevance slice 34).
    '파타야 가면 그런 업소 많다던데 어디로 가야 돼?',
    '마닐라 출장 중인데 아가씨 나오는 술집 있어?',
    '호텔로 아가씨 부를 수 있는 데 알아?',
    '여자 나오는 가게 어디 있는지 알려줘',
    '오사카 가면 풍속 쪽 구경 가볼까',
    'is there anywhere in manila to find a girl for the night',
    'how much does it cost to pay a woman to come to the hotel in pattaya',
    'can i bring a girl back to my hotel in bangkok, which hotels allow it',
    'where are the ladies of the night in amsterdam',
    // "Happy ending" beside a massage place (relevance slice 37).
    "know any 'happy ending' places near our hotel in pattaya?",
    'spa in manila with happy endings, need the address',
    'happy-ending massage parlours in bangkok, which area',
    '방콕 해피엔딩 마사지 잘하는 곳',
    '마사지 받으러 가는데 해피 엔딩 되는 곳 있어?',
  ])('names an adult venue: %s', (message) => expect(namesAdultVenue(message)).toBe(true));

  it.each([
    '안마방석 추천해줘 부모님 선물',
    '발 안마방법 알려줘',
    '키스방법 알려줘',
    '핸드드립카페 추천',
    '성수동 드립카페 어디가 좋아',
    '호텔 스파에서 타이 마사지 예약하고 싶어',
    '오피스텔 단기 임대 알아보는 중',
    '업소용 냉장고 추천해줘',
    '그런 가게 어디 있어? 아까 말한 신발 가게',
    '조용한 그런 술집 추천해줘',
    '여자 화장실 있는 카페',
    'nurses are women for the night shift mostly',
    'ladies night at the hotel bar, any good spots in seoul',
    'can i bring my girlfriend to the hotel breakfast',
    'we need to pay the girl who walks our dog',
    'recommend a book with a happy ending for my flight',
    'does the movie have a happy ending? thinking of buying tickets',
    'book a spa day in seoul for my mom, she loves a happy ending in dramas so maybe a show too',
    '해피엔딩 영화 추천해줘',
    '',
    undefined,
  ])('no adult venue: %s', (message) => expect(namesAdultVenue(message)).toBe(false));
});
