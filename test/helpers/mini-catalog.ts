// A small, fully known catalog for tests that need exact expectations.
import type { CatalogInput } from '../../src/catalog/catalog-schema.js';

/** The mini catalog plus two travel affiliate networks and their offers. */
export function miniCatalogWithAffiliates(): CatalogInput {
  const c = miniCatalog();
  c.affiliate_networks = [
    {
      id: 'tripnet',
      name: 'TripNet',
      adapter: 'tripnet',
      partner_marker: '482913',
      destinations: ['https://www.skyfare.example/', 'https://tours.jejutrip.example/'],
    },
    { id: 'staylink', name: 'StayLink', adapter: 'staylink', partner_marker: 'aid-77120', destinations: ['https://www.staylink-hotels.example/hotel/'] },
  ];
  c.taxonomy.categories!.push({
    id: 'travel.flights',
    parent_id: 'travel',
    name: { ko: '항공권', en: 'Flights' },
    aliases: { ko: ['항공권', '비행기표'], en: ['flight', 'flights'] },
  });
  c.taxonomy.entities!.push({
    id: 'place.tokyo',
    kind: 'place',
    name: { ko: '도쿄', en: 'Tokyo' },
    aliases: { ko: ['도쿄'], en: ['tokyo'] },
    category_ids: ['travel'],
  });
  c.advertisers!.push({ id: 'adv.skyfare', name: 'SkyFare', destinations: ['https://www.skyfare.example/'] });
  c.advertisers!.push({ id: 'adv.staylink-hotels', name: 'StayLink Hotels', destinations: ['https://www.staylink-hotels.example/'] });
  c.campaigns!.push(
    { id: 'cmp.skyfare', advertiser_id: 'adv.skyfare', bid_micros: 0, budget: { total_micros: 0, daily_micros: 0 } },
    { id: 'cmp.staylink', advertiser_id: 'adv.staylink-hotels', bid_micros: 0, budget: { total_micros: 0, daily_micros: 0 } },
  );
  c.offers!.push(
    {
      id: 'aff.tokyo-flights-ko',
      campaign_id: 'cmp.skyfare',
      kind: 'affiliate',
      network_id: 'tripnet',
      locale: 'ko',
      title: '도쿄 항공권 최저가',
      disclosure: '제휴 링크',
      destination_url: 'https://www.skyfare.example/flights/ICN-NRT?lang=ko',
      targeting: { category_ids: ['travel.flights'], entity_ids: ['place.tokyo'] },
    },
    {
      id: 'aff.tokyo-flights-en',
      campaign_id: 'cmp.skyfare',
      kind: 'affiliate',
      network_id: 'tripnet',
      locale: 'en',
      title: 'Cheap flights to Tokyo',
      disclosure: 'Affiliate link',
      destination_url: 'https://www.skyfare.example/flights/ICN-NRT?lang=en',
      targeting: { category_ids: ['travel.flights'], entity_ids: ['place.tokyo'] },
    },
    {
      id: 'aff.jeju-hotel-ko',
      campaign_id: 'cmp.staylink',
      kind: 'affiliate',
      network_id: 'staylink',
      locale: 'ko',
      title: '제주 호텔 특가 (StayLink)',
      destination_url: 'https://www.staylink-hotels.example/hotel/kr/jeju-ocean.ko.html',
      targeting: { category_ids: ['travel.hotels'], entity_ids: ['place.jeju'] },
    },
  );
  return c;
}

export function miniCatalog(): CatalogInput {
  return {
    version: 1,
    taxonomy: {
      categories: [
        { id: 'travel', name: { ko: '여행', en: 'Travel' }, aliases: { ko: ['여행'], en: ['travel', 'trip'] } },
        { id: 'travel.hotels', parent_id: 'travel', name: { ko: '호텔', en: 'Hotels' }, aliases: { ko: ['호텔', '숙소'], en: ['hotel', 'hotels'] } },
        { id: 'electronics', name: { ko: '전자제품', en: 'Electronics' }, aliases: { ko: ['전자제품'], en: ['electronics'] } },
        {
          id: 'electronics.phones',
          parent_id: 'electronics',
          name: { ko: '휴대폰', en: 'Phones' },
          aliases: { ko: ['휴대폰', '스마트폰'], en: ['phone', 'smartphone'] },
        },
      ],
      entities: [
        {
          id: 'place.jeju',
          kind: 'place',
          name: { ko: '제주도', en: 'Jeju' },
          aliases: { ko: ['제주도', '제주'], en: ['jeju', 'jeju island'] },
          category_ids: ['travel'],
        },
        {
          id: 'product.iphone-16',
          kind: 'product',
          name: { ko: '아이폰 16', en: 'iPhone 16' },
          aliases: { ko: ['아이폰 16', '아이폰'], en: ['iphone 16', 'iphone'] },
          category_ids: ['electronics.phones'],
        },
        {
          id: 'brand.gadget-harbor',
          kind: 'brand',
          name: { ko: '가젯하버', en: 'Gadget Harbor' },
          aliases: { ko: ['가젯하버'], en: ['gadget harbor'] },
          category_ids: ['electronics'],
        },
      ],
      sensitive_topics: [
        { id: 'health', aliases: { ko: ['우울증'], en: ['depression'] } },
        { id: 'gambling', aliases: { ko: ['도박'], en: ['casino'] } },
      ],
      intent_cues: {
        purchase: { ko: ['최저가', '구매'], en: ['buy', 'cheapest', 'price'] },
        compare: { ko: ['비교', '추천'], en: ['compare', 'vs', 'best'] },
      },
    },
    advertisers: [
      { id: 'adv.haneul-stay', name: 'Haneul Stay', destinations: ['https://www.haneulstay.example/'] },
      {
        id: 'adv.gadget-harbor',
        name: 'Gadget Harbor',
        entity_id: 'brand.gadget-harbor',
        destinations: ['https://gadgetharbor.example/deals'],
      },
    ],
    campaigns: [
      {
        id: 'cmp.jeju-hotels',
        advertiser_id: 'adv.haneul-stay',
        countries: ['KR'],
        bid_micros: 2_000_000,
        priority: 6,
        budget: { total_micros: 1_000_000_000, daily_micros: 100_000_000 },
        frequency_cap: { count: 2, window_seconds: 3600 },
      },
      {
        id: 'cmp.phones',
        advertiser_id: 'adv.gadget-harbor',
        bid_micros: 1_000_000,
        budget: { total_micros: 500_000_000, daily_micros: 50_000_000 },
      },
    ],
    offers: [
      {
        id: 'off.jeju-hotel-ko',
        campaign_id: 'cmp.jeju-hotels',
        locale: 'ko',
        title: '제주 오션뷰 호텔 특가',
        description: '하늘스테이 제주 호텔 최대 30% 할인',
        cta: '예약하기',
        destination_url: 'https://www.haneulstay.example/jeju?src=sidenote',
        targeting: { category_ids: ['travel.hotels'], entity_ids: ['place.jeju'] },
      },
      {
        id: 'off.jeju-hotel-en',
        campaign_id: 'cmp.jeju-hotels',
        locale: 'en',
        title: 'Jeju ocean-view hotels',
        destination_url: 'https://www.haneulstay.example/en/jeju',
        targeting: { category_ids: ['travel.hotels'], entity_ids: ['place.jeju'] },
      },
      {
        id: 'off.iphone-en',
        campaign_id: 'cmp.phones',
        locale: 'en',
        title: 'iPhone 16 deals at Gadget Harbor',
        destination_url: 'https://gadgetharbor.example/deals/iphone-16',
        targeting: { category_ids: ['electronics.phones'], entity_ids: ['product.iphone-16'] },
      },
    ],
  };
}
