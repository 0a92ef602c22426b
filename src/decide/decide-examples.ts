// Examples of decide's requests and answers, shown in the OpenAPI document (decide-routes.ts
// attaches them; the OpenAPI tests check each against its schema). Values only: shapes are the schemas'.

const KO_ENVELOPE = {
  message: '다음 달 제주도 호텔 최저가 추천해줘',
  session: { token: 'sess-8f2c', digest: { intent_type: 'purchase', category_ids: ['travel.hotels'], generated_at: '2026-11-22T09:00:00Z' } },
  locale: 'ko-KR',
  country: 'KR',
  audience: { age_band: '18_plus', contextual_offer_consent: true },
  native_surface: { clickable: true, disclosure_capable: true },
};
const EN_ENVELOPE = {
  message: 'Which noise cancelling headphones should I buy for flights?',
  locale: 'en-US',
  country: 'US',
  audience: { age_band: '18_plus', contextual_offer_consent: true },
  native_surface: { clickable: true, disclosure_capable: true },
};
export const ENVELOPE_EXAMPLES = {
  ko: { summary: 'Korean user turn with a digest · 다이제스트가 있는 한국어 요청', value: KO_ENVELOPE },
  en: { summary: 'English user turn · 영어 요청', value: EN_ENVELOPE },
};
export const AFFILIATE_ENVELOPE_EXAMPLES = {
  ko: { summary: 'Korean flight question · 한국어 항공권 질문', value: { ...KO_ENVELOPE, message: '다음 주 도쿄 항공권 최저가 알려줘', session: undefined } },
  en: { summary: 'English hotel question · 영어 호텔 질문', value: { ...EN_ENVELOPE, message: 'Cheapest hotel in Jeju next month?' } },
};

export const NO_FILL_EXAMPLE = {
  summary: 'No-fill: render nothing · 광고 없음: 아무것도 표시하지 않음',
  value: {
    serve: false,
    request_id: 'b7e1c0d2-4a8f-4e0b-9d51-2c6f3a1e8b90',
    decision_id: 'dec_3Xk9Qm2pLr7ZtV1sN8cB4d',
    reason_codes: ['POLICY_BLOCK', 'LOCALE_NOT_LIVE'],
  },
};
export const TIMEOUT_EXAMPLE = {
  summary: 'Time budget exceeded, fail open · 시간 예산 초과, 광고 없음',
  value: {
    serve: false,
    request_id: 'c2a4e6f8-1b3d-4f5a-8c7e-9d0b1a2c3e4f',
    decision_id: 'dec_8Lm2Np4Qr6St8Uv0Wx2Yz4',
    reason_codes: ['TIMEOUT'],
    retry_after_seconds: 2,
  },
};

export const SERVED_EXAMPLES = {
  ko: {
    summary: 'Served offer in Korean · 한국어 광고 노출',
    value: {
      serve: true,
      request_id: '5f0c2b1e-8d4a-4c6b-9e2f-1a3b5c7d9e0f',
      decision_id: 'dec_7Hc2mQ9xPz4LkV1sR8tY0a',
      offer_id: 'snp_4f9Qm2x8Lr1aZ0cV7bN3kD',
      expires_at: '2026-11-22T10:15:00.000Z',
      disclosure: '광고',
      advertiser: 'Haneul Stay',
      link: 'https://sidenote.example/r/v2.fF-8U6X-TP2zIbl6sEl8UtWNST5OjXf0gRZNefhJ3chwynmdZnTB3CTCpo8yjcRJRXDnksHmaqprA5voAmTR2irJuNYBWkN2S5Kl_zmypJn_IQiMFaw775fjVr_o2_fMrK27jHAoHmF21SVlwHS_n4mdjgQ7d4D91Nb2K6d9CZ_V7Fx2DfdWmycJK6OlM_IQpjnGmnh-6xq6saoBdfu0JHRc3FYjvw',
      title: '제주 오션뷰 호텔 특가',
      description: '다음 달 숙박 최대 30% 할인',
      cta: '객실 보기',
      reason_codes: ['MATCHED'],
    },
  },
  en: {
    summary: 'Served offer in English · 영어 광고 노출',
    value: {
      serve: true,
      request_id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
      decision_id: 'dec_2Tg5kW8nYq1RcF4hJ7mP0s',
      offer_id: 'snp_6Bn3vX9zQw2Ek5Rt8Yu1Io',
      expires_at: '2026-11-22T10:15:00.000Z',
      disclosure: 'Sponsored',
      advertiser: 'Quietwave Audio',
      link: 'https://sidenote.example/r/v2.ttJHu_Bi710gn2CsGQSUwJQt8VvOGhscNtPJGmnYzhB1IaSqnCM6NfIzmppoCU1zgXqXMjKfn6EX4yIl06gvVbx-M7xARvIPt3mU5_z_MkLh4C_BPrMrmGwYWwd3-enzTp_Ee5kxPpsDzhIRgZ9P2-D7QrFHFv_fsxr03vny6U6As_ghjtSTZJe61xIXK9IebUNhSaZpWdaFbs8VQqI3asFkRWkojw',
      title: 'Quietwave QX2 noise-cancelling headphones',
      description: '40-hour battery, made for long flights',
      cta: 'See the QX2',
      reason_codes: ['MATCHED'],
    },
  },
};

export const AFFILIATE_FILL_EXAMPLES = {
  ko: {
    summary: 'Affiliate fill in Korean · 한국어 제휴 링크',
    value: {
      serve: true,
      request_id: '1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a',
      decision_id: 'dec_5Rt7Yu9Io1Pa3Sd5Fg7Hj9',
      network: 'TripNet',
      advertiser: 'Bluewave Air',
      disclosure: '제휴 링크',
      affiliate_url: 'https://c.tripnet.example/r?marker=sidenote&sub_id=dec_5Rt7Yu9Io1Pa3Sd5Fg7Hj9&u=https%3A%2F%2Fbluewave.example%2Fko%2Ftokyo',
      impression_token: 'q8Xn2Lm5Vb7Ct9Zr1Kd3Fh6Jw0Ps4Ga8Ue2Yi5To7R',
      expires_at: '2026-11-23T09:00:00.000Z',
      title: '서울-도쿄 왕복 항공권 특가',
      reason_codes: ['MATCHED'],
    },
  },
  en: {
    summary: 'Affiliate fill in English · 영어 제휴 링크',
    value: {
      serve: true,
      request_id: '6a7b8c9d-0e1f-4a2b-9c3d-4e5f6a7b8c9d',
      decision_id: 'dec_9Kl1Zx3Cv5Bn7Mq9Wq1Er3',
      network: 'StayLink',
      advertiser: 'Haneul Stay',
      disclosure: 'Affiliate link',
      affiliate_url: 'https://haneulstay.example/en/jeju?aid=sidenote&label=dec_9Kl1Zx3Cv5Bn7Mq9Wq1Er3',
      impression_token: 'Zt4Wq8Er2Ty6Ui0Op3As7Df1Gh5Jk9Lz2Xc6Vb0Nm4',
      expires_at: '2026-11-23T09:00:00.000Z',
      title: 'Jeju ocean-view rooms',
      reason_codes: ['MATCHED'],
    },
  },
};
