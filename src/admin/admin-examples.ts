// Examples of the operator API for the OpenAPI document. The catalog example is a small but
// complete one: one category, advertiser, campaign and offer in each language.
import type { Examples } from '../http/openapi.js';

const CATALOG = {
  version: 1,
  taxonomy: {
    categories: [
      {
        id: 'travel.hotels',
        parent_id: null,
        name: { ko: '호텔·숙소', en: 'Hotels' },
        aliases: { ko: ['호텔', '숙소', '리조트'], en: ['hotel', 'hotels', 'resort'] },
      },
    ],
    entities: [{ id: 'place.jeju', kind: 'place', name: { ko: '제주', en: 'Jeju' }, aliases: { ko: ['제주', '제주도'], en: ['jeju'] }, category_ids: [] }],
    sensitive_topics: [{ id: 'health.medical', aliases: { ko: ['진단', '처방'], en: ['diagnosis', 'prescription'] } }],
    intent_cues: { purchase: { ko: ['최저가', '예약'], en: ['cheapest', 'book'] }, compare: { ko: ['비교'], en: ['compare', 'vs'] } },
  },
  advertisers: [{ id: 'haneul', name: 'Haneul Stay', status: 'active', entity_id: null, destinations: ['https://haneulstay.example/'] }],
  campaigns: [
    {
      id: 'haneul-jeju-winter',
      advertiser_id: 'haneul',
      status: 'active',
      starts_at: null,
      ends_at: null,
      countries: ['KR', 'US'],
      bid_micros: 1_200_000,
      priority: 5,
      budget: { total_micros: 5_000_000_000, daily_micros: 200_000_000 },
      frequency_cap: { count: 3, window_seconds: 3600 },
      offer_ttl_seconds: 900,
    },
  ],
  offers: [
    {
      id: 'haneul-jeju-ko',
      campaign_id: 'haneul-jeju-winter',
      kind: 'sponsored',
      network_id: null,
      locale: 'ko',
      title: '제주 오션뷰 호텔 특가',
      description: '다음 달 숙박 최대 30% 할인',
      image_url: null,
      cta: '객실 보기',
      disclosure: '광고',
      destination_url: 'https://haneulstay.example/ko/jeju',
      targeting: { category_ids: ['travel.hotels'], entity_ids: ['place.jeju'], budget_buckets: [] },
    },
    {
      id: 'haneul-jeju-en',
      campaign_id: 'haneul-jeju-winter',
      kind: 'sponsored',
      network_id: null,
      locale: 'en',
      title: 'Jeju ocean-view rooms',
      description: 'Up to 30% off next month',
      image_url: null,
      cta: 'See rooms',
      disclosure: 'Sponsored',
      destination_url: 'https://haneulstay.example/en/jeju',
      targeting: { category_ids: ['travel.hotels'], entity_ids: ['place.jeju'], budget_buckets: [] },
    },
  ],
  affiliate_networks: [],
};

const KEY = {
  id: 'key_4Rt6Yu8Io0Pa2Sd4Fg6Hj8',
  app_id: 'app_9Zx7Cv5Bn3Mq1Wq9Er7Ty5',
  kind: 'serving',
  mode: 'live',
  hint: 'sk_live_8Fh2',
  created_at: '2026-11-22T09:00:00.000Z',
  revoked_at: null,
};

const JOB = {
  id: 'imp_2Lq8Vn4Xc6Bz0Mw2Er4Ty6',
  state: 'queued',
  created_at: '2026-11-22T09:00:00.000Z',
  started_at: null,
  validated_at: null,
  finished_at: null,
  updated_at: '2026-11-22T09:00:00.000Z',
  progress: { bytes_total: 281_004_117, bytes_read: 0, offers_read: 0, offers_checked: 0, offers_total: null, offers_written: 0 },
  report: null,
  error: null,
};

const WEBHOOK = {
  id: 'whk_4nQ8vR2xTzLm6Yp0Bc3Ks1',
  url: 'https://ops.example.com/hooks/sidenote',
  event_types: ['campaign.paused', 'catalog.import.failed'],
  description: 'on-call channel',
  created_at: '2026-11-28T09:00:00.000Z',
};

export const ADMIN_EXAMPLES: Record<string, Examples> = {
  createAppRequest: {
    ko: { summary: 'Korean app name · 한국어 앱 이름', value: { name: '하늘 채팅' } },
    en: { summary: 'English app name · 영어 앱 이름', value: { name: 'Acme Chat' } },
  },
  createdApp: {
    created: {
      summary: 'Keys and secret, shown once · 키와 비밀값, 한 번만 표시',
      value: {
        app_id: KEY.app_id,
        name: 'Acme Chat',
        serving_key: 'sk_live_8Fh2Kd9Lm3Np5Qr7St1Uv3Wx5Yz7Ab9Cd',
        serving_key_id: KEY.id,
        test_key: 'sk_test_2Gh4Jk6Lm8Np0Qr2St4Uv6Wx8Yz0Ab2Cd',
        test_key_id: 'key_1Qw3Er5Ty7Ui9Op1As3Df5',
        conversion_secret: 'whsec_7Ty9Ui1Op3As5Df7Gh9Jk1Lm3Np5Qr7St9',
        conversion_secret_id: 'sec_5Gh7Jk9Lm1Np3Qr5St7Uv9',
      },
    },
  },
  appList: {
    apps: {
      summary: 'One app with its live key · 라이브 키가 있는 앱 하나',
      value: { apps: [{ id: KEY.app_id, name: 'Acme Chat', created_at: KEY.created_at, keys: [KEY], active_conversion_secrets: 1 }] },
    },
  },
  createKeyRequest: {
    test_key: { summary: 'A test serving key · 테스트 서빙 키', value: { kind: 'serving', mode: 'test' } },
    setup_token: { summary: 'A setup token · 설정 토큰', value: { kind: 'setup' } },
  },
  createdKey: {
    created: {
      summary: 'The key, shown once · 키, 한 번만 표시',
      value: { id: 'key_6Yu8Io0Pa2Sd4Fg6Hj8Kl0', key: 'sk_test_9Lm1Np3Qr5St7Uv9Wx1Yz3Ab5Cd7Ef9Gh' },
    },
  },
  revokedKey: {
    revoked: { summary: 'Revoked · 폐기됨', value: { ...KEY, revoked_at: '2026-11-22T12:00:00.000Z' } },
  },
  rotatedSecret: {
    rotated: {
      summary: 'New secret; the oldest of two retired · 새 비밀값, 오래된 것은 폐기',
      value: { id: 'sec_8Jk0Lm2Np4Qr6St8Uv0Wx2', secret: 'whsec_3As5Df7Gh9Jk1Lm3Np5Qr7St9Uv1Wx3Yz5', retired: ['sec_5Gh7Jk9Lm1Np3Qr5St7Uv9'] },
    },
  },
  brandSafetyRequest: {
    dating: {
      summary: 'No dating, no gambling, no competitor · 데이팅·도박·경쟁사 제외',
      value: { blocked_category_ids: ['dating', 'gambling'], blocked_advertiser_ids: ['rival-chat'] },
    },
    clear: { summary: 'Clear both lists · 모두 해제', value: { blocked_category_ids: [], blocked_advertiser_ids: [] } },
  },
  brandSafety: {
    set: {
      summary: 'Stored; one id is not in the live catalog · 저장됨, 한 id는 현재 카탈로그에 없음',
      value: {
        app_id: KEY.app_id,
        blocked_category_ids: ['dating', 'travel.flights'],
        blocked_advertiser_ids: ['rival-chat'],
        updated_at: '2026-11-28T09:30:00.000Z',
        not_in_catalog: { category_ids: ['dating'], advertiser_ids: [] },
      },
    },
  },
  campaignControlRequest: {
    pause: { summary: 'Pause it · 일시 중지', value: { status: 'paused', changed_by: 'ops: Mina Park' } },
    budget: {
      summary: 'Raise the daily budget, end on New Year · 일 예산 상향, 새해에 종료',
      value: { budget: { daily_micros: 50_000_000 }, ends_at: '2027-01-01T00:00:00+09:00' },
    },
    follow: { summary: 'Follow the catalog again · 카탈로그 값으로 복귀', value: { follow_catalog: ['status', 'ends_at'] } },
  },
  campaignControl: {
    paused: {
      summary: 'Paused by an operator · 운영자가 일시 중지',
      value: {
        campaign_id: 'cmp.haneul-korea-stays',
        archived: false,
        effective: { status: 'paused', budget: { total_micros: 500_000_000, daily_micros: 20_000_000 }, ends_at: null },
        catalog: { status: 'active', budget: { total_micros: 500_000_000, daily_micros: 20_000_000 }, ends_at: null },
        overrides: { status: 'paused' },
        updated_at: '2026-11-28T09:30:00.000Z',
        changes: [
          {
            changed_at: '2026-11-28T09:30:00.000Z',
            changed_by: 'ops: Mina Park',
            channel: 'admin_api',
            before: { status: 'active', budget: { total_micros: 500_000_000, daily_micros: 20_000_000 }, ends_at: null },
            after: { status: 'paused', budget: { total_micros: 500_000_000, daily_micros: 20_000_000 }, ends_at: null },
          },
        ],
      },
    },
  },
  catalog: { catalog: { summary: 'A catalog in Korean and English · 한국어·영어 카탈로그', value: CATALOG } },
  catalogRequest: { catalog: { summary: 'A catalog in Korean and English · 한국어·영어 카탈로그', value: CATALOG } },
  importJobAccepted: {
    queued: { summary: 'Stored and queued · 저장 후 대기 중', value: JOB },
  },
  importJob: {
    validating: {
      summary: 'Reading and checking the file · 파일 읽고 검사 중',
      value: {
        ...JOB,
        state: 'validating',
        started_at: '2026-11-22T09:00:00.120Z',
        updated_at: '2026-11-22T09:00:09.370Z',
        progress: { ...JOB.progress, bytes_read: 118_489_088, offers_read: 421_733 },
      },
    },
    writing: {
      summary: 'Checked; writing in one transaction · 검사 완료, 한 트랜잭션으로 쓰는 중',
      value: {
        ...JOB,
        state: 'writing',
        started_at: '2026-11-22T09:00:00.120Z',
        validated_at: '2026-11-22T09:00:41.905Z',
        updated_at: '2026-11-22T09:01:12.002Z',
        progress: {
          ...JOB.progress,
          bytes_read: 281_004_117,
          offers_read: 1_000_000,
          offers_checked: 1_000_000,
          offers_total: 1_000_000,
          offers_written: 384_000,
        },
      },
    },
    succeeded: {
      summary: 'Imported · 가져오기 완료',
      value: {
        ...JOB,
        state: 'succeeded',
        started_at: '2026-11-22T09:00:00.120Z',
        validated_at: '2026-11-22T09:00:41.905Z',
        finished_at: '2026-11-22T09:02:03.441Z',
        updated_at: '2026-11-22T09:02:03.441Z',
        progress: {
          ...JOB.progress,
          bytes_read: 281_004_117,
          offers_read: 1_000_000,
          offers_checked: 1_000_000,
          offers_total: 1_000_000,
          offers_written: 1_000_000,
        },
        report: { changed: true, version: 5, snapshots_created: 1_000_000, offers: 1_000_000, offers_archived: 0, campaigns: 50_000, advertisers: 10_000 },
      },
    },
    invalid: {
      summary: 'Refused: every problem with its path · 거부됨: 모든 문제와 경로',
      value: {
        ...JOB,
        state: 'failed',
        started_at: '2026-11-22T09:00:00.120Z',
        finished_at: '2026-11-22T09:00:02.310Z',
        updated_at: '2026-11-22T09:00:02.310Z',
        progress: { ...JOB.progress, bytes_total: 5_120, bytes_read: 5_120, offers_read: 2, offers_checked: 2 },
        error: { ok: false, error: 'invalid_catalog', problems: ['offers[1].campaign_id: unknown campaign "cmp.nope"'] },
      },
    },
    interrupted: {
      summary: 'Its instance stopped; nothing written · 인스턴스 중단, 아무것도 쓰지 않음',
      value: {
        ...JOB,
        state: 'failed',
        started_at: '2026-11-22T09:00:00.120Z',
        finished_at: '2026-11-22T09:00:30.000Z',
        updated_at: '2026-11-22T09:00:30.000Z',
        progress: { ...JOB.progress, bytes_read: 41_943_040, offers_read: 149_201 },
        error: { ok: false, error: 'import_interrupted', message: 'the instance running this import stopped before it finished; nothing was written' },
      },
    },
  },
  importReport: {
    imported: {
      summary: 'Two new offers · 새 광고 두 개',
      value: { changed: true, version: 4, snapshots_created: 2, offers: 2, offers_archived: 0, campaigns: 1, advertisers: 1 },
    },
    unchanged: {
      summary: 'Same catalog again · 같은 카탈로그',
      value: { changed: false, version: 4, snapshots_created: 0, offers: 2, offers_archived: 0, campaigns: 1, advertisers: 1 },
    },
  },
  createWebhookRequest: {
    pauses: {
      summary: 'Campaign pauses and failed imports · 캠페인 일시중지와 가져오기 실패',
      value: { url: 'https://ops.example.com/hooks/sidenote', event_types: ['campaign.paused', 'catalog.import.failed'], description: 'on-call channel' },
    },
  },
  createdWebhook: {
    created: {
      summary: 'Added; its secret shown this once · 추가됨, 비밀키는 이번 한 번만 표시',
      value: { ...WEBHOOK, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
    },
  },
  webhookEndpoint: { removed: { summary: 'Removed · 삭제됨', value: WEBHOOK } },
  webhookList: { one: { summary: 'One endpoint · 엔드포인트 하나', value: { endpoints: [WEBHOOK] } } },
  webhookDeliveries: {
    retried: {
      summary: 'One delivered after a retry, one waiting · 재시도 후 전달 하나, 대기 하나',
      value: {
        endpoint_id: WEBHOOK.id,
        deliveries: [
          {
            id: 'msg_2Fz8qT6yLwVx0bN4cR1dM9',
            event_type: 'catalog.import.failed',
            created_at: '2026-11-28T10:15:00.000Z',
            attempts: 1,
            last_attempt_at: '2026-11-28T10:15:00.420Z',
            last_status: 503,
            last_error: 'status 503',
            next_attempt_at: '2026-11-28T10:15:05.420Z',
            delivered_at: null,
            failed_at: null,
          },
          {
            id: 'msg_7Kp3sW9nHbQy2mE5tA8jU4',
            event_type: 'campaign.paused',
            created_at: '2026-11-28T09:30:00.000Z',
            attempts: 2,
            last_attempt_at: '2026-11-28T09:30:05.510Z',
            last_status: 204,
            last_error: null,
            next_attempt_at: null,
            delivered_at: '2026-11-28T09:30:05.510Z',
            failed_at: null,
          },
        ],
      },
    },
  },
};
