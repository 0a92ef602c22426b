// The whole host flow against a running Sidenote, as a host's server would do it:
// decide → rendered → qualified impression → follow the tracked link → signed conversion →
// decision lookup. Usage:
//   SIDENOTE_URL=http://localhost:3000 SIDENOTE_KEY=sk_live_… SIDENOTE_CONVERSION_SECRET=whsec_… npx tsx scripts/host-flow.ts
import { createHmac, randomUUID } from 'node:crypto';

const base = process.env.SIDENOTE_URL ?? 'http://localhost:3000';
const key = required('SIDENOTE_KEY');
const secret = required('SIDENOTE_CONVERSION_SECRET');

function required(name: string): string {
  const v = process.env[name];
  if (!v) {
    console.error(`${name} is required`);
    process.exit(2);
  }
  return v;
}

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    redirect: 'manual',
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? (JSON.parse(text) as Record<string, any>) : null };
}

function step(name: string, ok: boolean, detail: unknown) {
  console.log(`${ok ? 'ok ' : 'FAIL'} ${name} ${JSON.stringify(detail)}`);
  if (!ok) process.exitCode = 1;
  return ok;
}

const decided = await call('POST', '/v1/offers/decide', {
  message: process.env.SIDENOTE_MESSAGE ?? '다음 달 제주도 호텔 최저가 추천해줘',
  session: { token: `flow-${randomUUID()}` },
  locale: 'ko-KR',
  country: 'KR',
  audience: { age_band: '18_plus', contextual_offer_consent: true },
  native_surface: { clickable: true, disclosure_capable: true },
});
if (!step('decide', decided.status === 200 && decided.json?.serve === true, decided.json)) process.exit(1);
const { decision_id, offer_id, link } = decided.json!;

const rendered = await call('POST', '/v1/events/rendered', { offer_snapshot_id: offer_id, decision_id }, { 'idempotency-key': `r-${decision_id}` });
step('rendered', rendered.status === 200 && rendered.json?.inserted === true, rendered.json);
const qualified = await call(
  'POST',
  '/v1/events/qualified-impression',
  { offer_snapshot_id: offer_id, decision_id },
  { 'idempotency-key': `q-${decision_id}` },
);
step('qualified impression', qualified.status === 200 && qualified.json?.type === 'qualified_impression', qualified.json);

const click = await fetch(link, {
  redirect: 'manual',
  headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36' },
});
step('tracked link', click.status === 302, { status: click.status, location: click.headers.get('location') });

const conversion = { offer_snapshot_id: offer_id, decision_id, timestamp: Math.floor(Date.now() / 1000), nonce: randomUUID() };
const signature = createHmac('sha256', secret)
  .update(`${conversion.timestamp}.${conversion.nonce}.${conversion.offer_snapshot_id}.${conversion.decision_id}`)
  .digest('hex');
const converted = await call('POST', '/v1/events/conversion', { ...conversion, signature });
step('conversion', converted.status === 200 && converted.json?.ledger_written === false, converted.json);

// The click is recorded after the redirect; give it a moment to land.
let lookup: Awaited<ReturnType<typeof call>> | undefined;
for (let i = 0; i < 50; i++) {
  lookup = await call('GET', `/v1/decisions/${decision_id}`);
  if (lookup.json?.events?.clicks >= 1) break;
  await new Promise((r) => setTimeout(r, 50));
}
const events = lookup!.json?.events;
step('decision lookup', events?.offer_rendered === 1 && events?.qualified_impression === 1 && events?.clicks === 1 && events?.conversions === 1, events);
