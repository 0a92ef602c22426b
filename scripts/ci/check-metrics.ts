// CI: the service's /metrics as Prometheus would scrape it, after some traffic, checked by
// `promtool check metrics` (Prometheus' own linter: naming, units, counter suffixes, help text).
// Exits with promtool's code. Usage: npx tsx scripts/ci/check-metrics.ts
import { execFileSync } from 'node:child_process';
import { buildApp } from '../../src/app.js';
import { parseConfig } from '../../src/config/config.js';

const token = 'metrics-token-for-the-ci-check-0123';
const app = await buildApp(
  parseConfig({ dataDir: 'memory', logLevel: 'silent', loadDemoCatalog: true, metricsToken: token, adminKey: 'admin-key-for-the-ci-check-0123' }),
);
await app.ready();
try {
  const admin = { authorization: 'Bearer admin-key-for-the-ci-check-0123' };
  const { serving_key } = (await app.inject({ method: 'POST', url: '/admin/apps', headers: admin, payload: { name: 'Metrics check' } })).json();
  const envelope = {
    message: '제주도 호텔 최저가 추천해줘',
    locale: 'ko-KR',
    country: 'KR',
    audience: { age_band: '18_plus', contextual_offer_consent: true },
    native_surface: { clickable: true, disclosure_capable: true },
  };
  for (const message of [envelope.message, '오늘 날씨 어때']) {
    await app.inject({ method: 'POST', url: '/v1/offers/decide', headers: { authorization: `Bearer ${serving_key}` }, payload: { ...envelope, message } });
  }
  const text = (await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${token}` } })).body;
  if (!text.includes('sidenote_decide_outcomes_total')) throw new Error('no sidenote series in /metrics');
  execFileSync('promtool', ['check', 'metrics'], { input: text, stdio: ['pipe', 'inherit', 'inherit'] });
  console.log(`promtool check metrics: clean (${text.split('\n').filter((l) => l && !l.startsWith('#')).length} samples)`);
} finally {
  await app.close();
}
