// Warm-up before the port opens: what the first decide would pay once is paid here, so the first
// request meets the handler budget like the thousandth. Measured on a busy machine, the first
// decide after an embedded start spent 17 ms before its handler (first route, hooks, validation,
// key lookup) and 46 ms in its first decision insert (PGlite's first run of the statement), and
// answered TIMEOUT against the 50 ms budget; on Postgres the first burst opened its connections
// one request at a time. Nothing here leaves a trace: the insert is rolled back, the requests
// are refused before anything is recorded and are not counted in the metrics, the reads read.
import type { FastifyInstance } from 'fastify';
import { newDecisionId } from '../util/ids.js';
import { Envelope } from '../decide/envelope.js';

/** Turns in both languages, read by the matcher at least once before the first request. */
const SAMPLE_TURNS = [
  { message: '제주도 호텔 최저가 추천해줘', language: 'ko' },
  { message: 'cheap flights to tokyo next week', language: 'en' },
] as const;

/** The turn the embedded banner's curl sends (server.ts): the warm-up rehearses exactly it. */
export const DEMO_ENVELOPE = {
  message: '제주도 호텔 최저가 추천해줘',
  locale: 'ko-KR',
  country: 'KR',
  audience: { age_band: '18_plus', contextual_offer_consent: true },
  native_surface: { clickable: true, disclosure_capable: true },
};

/** A documentation address (RFC 5737): the refused requests below count against no real client. */
const WARM_UP_ADDRESS = '192.0.2.1';

export interface WarmUpReport {
  ms: number;
}

export async function warmUp(app: FastifyInstance): Promise<WarmUpReport> {
  return app.metrics.unrecorded(() => warm(app));
}

async function warm(app: FastifyInstance): Promise<WarmUpReport> {
  const started = performance.now();
  const nowMs = app.now();
  await app.db.openConnections(8);
  for (const turn of SAMPLE_TURNS) {
    for (const kind of ['sponsored', 'affiliate'] as const) {
      app.catalogRuntime.index.match({ ...turn, kind, nowMs, topK: 3 });
    }
  }
  await app.counters.ping().catch(() => {});
  // The envelope's validation and a tracked link's sealing, as a served decide runs them.
  Envelope.safeParse(DEMO_ENVELOPE);
  app.links.sign({
    decisionId: newDecisionId(nowMs),
    snapshotId: 'snp_warmup',
    appId: 'app_warmup',
    advertiserId: 'adv.warmup',
    destination: 'https://warm-up.example/',
    expiresAt: Math.floor(nowMs / 1000) + 60,
    test: true,
  });
  // The request path up to the key check, twice (no key, then an unknown one): refused with 401
  // before anything is recorded.
  for (const authorization of [undefined, 'Bearer sk_live_warmupwarmupwarmupwarmupwarm']) {
    await app.inject({
      method: 'POST',
      url: '/v1/offers/decide',
      headers: authorization ? { authorization } : {},
      payload: DEMO_ENVELOPE,
      remoteAddress: WARM_UP_ADDRESS,
    });
  }
  // The decision insert, rolled back. It needs an app to belong to; on a database with none yet
  // there is no first decide to warm for either.
  const appId = await app.repositories.apps.anyAppId();
  if (appId) {
    await app.repositories.decisions.rehearseInsert([
      {
        id: newDecisionId(nowMs),
        appId,
        requestId: 'warm-up',
        kind: 'offer',
        test: true,
        createdAt: new Date(nowMs),
        serve: false,
        reasonCodes: ['LOW_INTENT'],
        offerSnapshotId: null,
        campaignId: null,
        expiresAt: null,
        locale: 'ko-KR',
        country: 'KR',
        intentType: null,
        messageIntent: null,
        matchedCategoryIds: [],
        matchedEntityIds: [],
        impliedCategoryIds: [],
        droppedDigestIds: 0,
        policyReasons: [],
        readingOverBudget: false,
        excludedByApp: false,
        latencyUs: 0,
        spendMicros: 0,
      },
    ]);
  }
  return { ms: performance.now() - started };
}
