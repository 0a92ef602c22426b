// How a host's server uses Sidenote on one chat turn, end to end, with the typed client:
// ask, render only on a fill (with the disclosure and advertiser visible), report the render
// and the qualified impression, and later a signed conversion.
//
//   SIDENOTE_URL=http://localhost:3000 SIDENOTE_KEY=sk_… SIDENOTE_CONVERSION_SECRET=whsec_… \
//     npx tsx examples/host-integration.ts "다음 달 제주도 호텔 최저가 추천해줘"
import { fileURLToPath } from 'node:url';
import { SidenoteClient } from '../src/client/sidenote-client.js';

export interface TurnReport {
  rendered: boolean;
  /** What the host put on its existing clickable surface, if anything. */
  surface?: { label: string; advertiser: string; title?: string; href: string };
  decisionId?: string;
  offerSnapshotId?: string;
  steps: string[];
}

export async function handleTurn(client: SidenoteClient, message: string, locale = 'ko-KR', country = 'KR'): Promise<TurnReport> {
  const steps: string[] = [];
  const outcome = await client.decide({
    message,
    locale,
    country,
    audience: { age_band: '18_plus', contextual_offer_consent: true },
    native_surface: { clickable: true, disclosure_capable: true },
  });
  if (!outcome.render) {
    // No-fill, timeout, network error, malformed answer: the host shows nothing extra.
    steps.push(`no offer (${outcome.why})`);
    return { rendered: false, steps };
  }
  const { offer } = outcome;
  const surface = { label: offer.disclosure, advertiser: offer.advertiser, title: offer.title, href: offer.link };
  steps.push(`shown: [${surface.label}] ${surface.advertiser} — ${surface.title ?? ''}`);
  const rendered = await client.rendered({ offerSnapshotId: offer.offer_id, decisionId: offer.decision_id });
  steps.push(`rendered event: ${rendered.ok ? 'recorded' : rendered.error}`);
  const qualified = await client.qualifiedImpression({ offerSnapshotId: offer.offer_id, decisionId: offer.decision_id });
  steps.push(`qualified impression: ${qualified.ok ? 'recorded' : qualified.error}`);
  return { rendered: true, surface, decisionId: offer.decision_id, offerSnapshotId: offer.offer_id, steps };
}

async function main() {
  const client = new SidenoteClient({
    baseUrl: process.env.SIDENOTE_URL ?? 'http://localhost:3000',
    apiKey: process.env.SIDENOTE_KEY ?? '',
    conversionSecret: process.env.SIDENOTE_CONVERSION_SECRET,
  });
  const report = await handleTurn(client, process.argv[2] ?? '다음 달 제주도 호텔 최저가 추천해줘');
  for (const s of report.steps) console.log(s);
  if (report.rendered && process.env.SIDENOTE_CONVERSION_SECRET) {
    const conversion = await client.conversion({ offerSnapshotId: report.offerSnapshotId!, decisionId: report.decisionId });
    console.log(`conversion: ${conversion.ok ? conversion.value.conversion_id : conversion.error}`);
    const decision = await client.decision(report.decisionId!);
    if (decision.ok) console.log(`decision events: ${JSON.stringify(decision.value.events)}`);
    const why = await client.explanation(report.decisionId!);
    if (why.ok) console.log(`why this offer: ${why.value.explanation}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
