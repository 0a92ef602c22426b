// Realistic, varied decide bodies for the benchmarks against the demo catalog: Korean and
// English messages of 50 to 4000 characters, digests, and a mix of serves and each kind of
// no-fill. Bodies that carry a session name it `__SESSION__`; the load generator replaces it
// per request, so frequency caps see many users rather than one user asking ten thousand times.
const adult = { age_band: '18_plus', contextual_offer_consent: true } as const;
const surface = { clickable: true, disclosure_capable: true } as const;

const KO_FILLER = '이번 주말에 가족이랑 어디 갈지 고민 중인데 날씨도 좋고 맛있는 것도 먹고 싶어. ';
const EN_FILLER = 'We are planning a long weekend and want something relaxing with good food nearby. ';

export const SESSION_PLACEHOLDER = '__SESSION__';

function pad(message: string, filler: string, length: number): string {
  let out = message;
  while (out.length < length) out += ` ${filler}`;
  return out.slice(0, length);
}

export function bodiesForDecide(): object[] {
  const bodies: object[] = [];
  const generatedAt = new Date().toISOString();
  const session = { token: SESSION_PLACEHOLDER };
  for (const length of [50, 200, 1000, 4000]) {
    bodies.push(
      {
        message: pad('제주도 오션뷰 호텔 최저가 알려줘', KO_FILLER, length),
        locale: 'ko-KR',
        country: 'KR',
        audience: adult,
        native_surface: surface,
        session,
      },
      { message: pad('아이폰 16 자급제 가격 비교해줘', KO_FILLER, length), locale: 'ko-KR', country: 'KR', audience: adult, native_surface: surface, session },
      {
        message: pad('Cheapest flights from Seoul to Tokyo in December?', EN_FILLER, length),
        locale: 'en-US',
        country: 'US',
        audience: adult,
        native_surface: surface,
        session,
      },
      {
        message: pad('Best noise cancelling headphones for flights, Sony vs Bose?', EN_FILLER, length),
        locale: 'en',
        country: 'US',
        audience: adult,
        native_surface: surface,
        session: { ...session, digest: { intent_type: 'compare', category_ids: ['electronics.audio'], generated_at: generatedAt } },
      },
      // No-fills of each kind.
      { message: pad('오늘 날씨 어때?', KO_FILLER, length), locale: 'ko', country: 'KR', audience: adult, native_surface: surface, session },
      {
        message: pad('우울증 진단 받았는데 여행 가도 될까', KO_FILLER, length),
        locale: 'ko',
        country: 'KR',
        audience: adult,
        native_surface: surface,
        session,
      },
      { message: pad('東京のホテルを教えて', EN_FILLER, length), locale: 'ja-JP', country: 'JP', audience: adult, native_surface: surface },
      { message: pad('cheapest jeju hotel', EN_FILLER, length), locale: 'en', country: 'KR', audience: { age_band: '13_17' }, native_surface: surface },
      {
        message: pad('cheapest jeju hotel', EN_FILLER, length),
        locale: 'en',
        country: 'KR',
        audience: adult,
        native_surface: { clickable: false, disclosure_capable: true },
      },
    );
  }
  return bodies;
}
