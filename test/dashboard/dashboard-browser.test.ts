// The dashboard in a real browser (Debian's chromium through playwright-core): the page asks for
// the admin key, then its charts render the seeded traffic, and screenshots are kept as test
// artifacts (test-artifacts/dashboard/). CI installs chromium (.ci/run); without it this test
// fails with a message saying so rather than skipping.
import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-env.js';
import { seedTraffic } from '../reporting/seed-traffic.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = new URL('../../test-artifacts/dashboard/', import.meta.url);
const ADMIN_KEY = 'admin-key-for-tests-0123456789';

describe('dashboard in headless Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH`);
    t = await createTestApp({ loadDemoCatalog: false, decideRateLimitPerMinute: 100_000, decideTimeBudgetMs: 2_000 });
    await seedTraffic(t.app, async (n) => {
      for (let i = 0; i < 100; i++) {
        if (Number((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM clicks')).rows[0].n) >= n) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('click not recorded');
    });
    // An operator paused the phones campaign after its traffic: the spend table says so.
    const paused = await t.app.inject({
      method: 'PATCH',
      url: '/admin/campaigns/cmp.phones/control',
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
      payload: { status: 'paused', changed_by: 'ops: Mina' },
    });
    expect(paused.statusCode).toBe(200);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows nothing without the key, then charts with the seeded numbers', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => (m.type() === 'error' ? errors.push(m.text()) : undefined));
    await page.goto(`${base}/dashboard`);
    await page.waitForSelector('#sign-in', { state: 'visible' });
    expect(await page.locator('#report').isHidden()).toBe(true);
    // The controls belong to the report: not shown before sign-in.
    expect(await page.locator('#controls').isHidden()).toBe(true);
    await page.screenshot({ path: new URL('sign-in.png', ARTIFACTS).pathname });

    // A wrong key is refused and no data appears.
    await page.fill('#admin-key', 'not-the-admin-key');
    await page.click('#sign-in button[type=submit]');
    await page.waitForFunction(() => document.querySelector('#sign-in-error')?.textContent === 'That admin key was not accepted.');
    expect(await page.locator('#report').isHidden()).toBe(true);

    // Only the refused key's 401 is expected so far; from here on nothing may fail.
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    errors.length = 0;
    await page.fill('#admin-key', ADMIN_KEY);
    await page.click('#sign-in button[type=submit]');
    await page.waitForSelector('body[data-loaded="true"]');
    // The default range is 24 hours; the last hour has minute buckets.
    await page.click('button[data-range="1h"]');
    await page.waitForFunction(() => document.querySelector('button[data-range="1h"]')?.classList.contains('active'));
    await page.waitForSelector('body[data-loaded="true"]');

    const total = (name: string) => page.locator(`[data-total="${name}"] .value`).textContent();
    expect(await total('decides')).toBe('9');
    expect(await total('fill_rate')).toBe('55.6%');
    expect(await total('rendered')).toBe('3');
    expect(await total('qualified')).toBe('2');
    expect(await total('clicks')).toBe('1');
    expect(await total('conversions')).toBe('1');
    expect(await total('conversions_occurred')).toBe('1');

    // Charts drew data: lines with points, stacked reason bars, funnel rows and top lists.
    expect(Number(await page.locator('#chart-decides svg').getAttribute('data-points'))).toBeGreaterThanOrEqual(60);
    expect(await page.locator('#chart-decides svg path.series').count()).toBeGreaterThan(0);
    expect(Number(await page.locator('#chart-reasons svg').getAttribute('data-bars'))).toBeGreaterThanOrEqual(1);
    expect(await page.locator('#chart-reasons .legend').textContent()).toContain('POLICY_BLOCK');
    expect(Number(await page.locator('#chart-latency svg').getAttribute('data-points'))).toBeGreaterThanOrEqual(3);
    const campaignRows = page.locator('#funnel-campaign tbody tr');
    expect(await campaignRows.count()).toBe(2);
    expect(await campaignRows.first().locator('td').first().textContent()).toBe('Jeju ocean-view hotels');
    expect(await campaignRows.first().locator('td').first().getAttribute('title')).toBe('cmp.jeju-hotels');
    expect(await campaignRows.first().locator('td[data-step="served"]').textContent()).toMatch(/^4/);
    expect(await campaignRows.first().locator('td[data-step="conversions"]').textContent()).toMatch(/^1/);
    expect(await page.locator('#funnel-app tbody tr').count()).toBe(2);
    expect(await page.locator('#top-entities .hbar').first().textContent()).toContain('place.jeju');
    await page.screenshot({ path: new URL('overview-1h.png', ARTIFACTS).pathname, fullPage: true });

    // Spend and pacing: campaign and advertiser names, money as units with two decimals.
    const spendRows = page.locator('#spend-campaign tbody tr');
    expect(await spendRows.count()).toBe(2);
    const hotels = page.locator('#spend-campaign tr[data-campaign="cmp.jeju-hotels"]');
    expect(await hotels.locator('td[data-col="name"]').textContent()).toBe('Jeju ocean-view hotelsHaneul Stay');
    const phones = page.locator('#spend-campaign tr[data-campaign="cmp.phones"] td[data-col="name"]');
    expect(await phones.textContent()).toBe('cmp.phonesGadget Harbor · paused');
    expect(await phones.getAttribute('title')).toMatch(/^cmp\.phones: controls last changed \d{4}-\d\d-\d\d \d\d:\d\d UTC by ops: Mina$/);
    // 4 live serves at a 2.00 bid in the last hour; the daily budget is 100.00.
    expect(await hotels.locator('td[data-col="range-spend"]').textContent()).toBe('8.004 served');
    expect(await hotels.locator('td[data-col="today"]').textContent()).toMatch(/^\d+\.\d{2} \/ 100\.00/);
    expect(await hotels.locator('td[data-col="lifetime"]').textContent()).toMatch(/^\d+\.\d{2} \/ 1,000\.00/);
    // CTR: 1 click over 2 qualified impressions; eCPM: 8.00 over 3 rendered, per thousand.
    expect(await hotels.locator('td[data-col="ctr"]').textContent()).toBe('50.0%1 / 2');
    expect(await hotels.locator('td[data-col="ecpm"]').textContent()).toBe('2,666.673 rendered');
    await page.locator('#spend-campaign').screenshot({ path: new URL('spend-1h.png', ARTIFACTS).pathname });
    // Pacing is judged only once a campaign has spent today: a dash before, never an amber 0.00×.
    for (const row of await spendRows.all()) {
      const today = (await row.locator('td[data-col="today"]').textContent()) ?? '';
      const pacing = row.locator('td[data-col="pacing"]');
      if (today.startsWith('0.00 /')) {
        expect(await pacing.textContent()).toMatch(/^—/);
        expect(await pacing.getAttribute('class')).toBeNull();
      }
    }
    // A funnel share is of the step before and never reads above 100%.
    for (const share of await page.locator('#funnel-campaign .pct, #funnel-app .pct').allTextContents()) {
      if (share) expect(share === '>100%' || Number(share.replace('%', '')) <= 100, share).toBe(true);
    }

    // The latency chart says which latency it shows.
    expect(await page.locator('#chart-latency figcaption').textContent()).toBe('Decide handler latency: p50, p90, p99 (ms)');

    // Hovering a line chart shows the value under the pointer: the busiest minute's decide rate,
    // as the report gives it for that bucket.
    const report = (await t.app.inject({ url: '/admin/reports?range=1h', headers: { authorization: `Bearer ${ADMIN_KEY}` } })).json();
    const busiest = report.timeline.reduce((best: { decides: number }, p: { decides: number }) => (p.decides > best.decides ? p : best));
    const index = report.timeline.indexOf(busiest);
    const chart = page.locator('#chart-decides svg');
    const box = (await chart.boundingBox())!;
    // The plot spans x 48..548 of the 560-wide view box (frame() in dashboard.js).
    const x = ((48 + (index * 500) / (report.timeline.length - 1)) * box.width) / 560;
    await chart.hover({ position: { x, y: box.height / 2 } });
    const tooltip = page.locator('#chart-decides .tooltip');
    await tooltip.waitFor({ state: 'visible' });
    expect(await tooltip.getAttribute('data-at')).toBe(busiest.at);
    expect(await tooltip.textContent()).toContain(`decides/min: ${busiest.decides_per_minute}`);
    expect(busiest.decides_per_minute).toBeGreaterThan(0);
    await page.locator('#chart-decides').screenshot({ path: new URL('hover-decides.png', ARTIFACTS).pathname });
    await page.mouse.move(0, 0);
    await tooltip.waitFor({ state: 'hidden' });

    // The app filter narrows every chart to one app.
    await page.selectOption('#app', { label: 'Host B' });
    await page.waitForFunction(() => document.querySelector('[data-total="decides"] .value')?.textContent === '2');
    await page.screenshot({ path: new URL('host-b-1h.png', ARTIFACTS).pathname, fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('fits a phone: nothing wider than a 390 px screen, tables scroll inside their cards', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    await page.goto(`${base}/dashboard`);
    await page.waitForSelector('#sign-in', { state: 'visible' });
    expect(await page.locator('#controls').isHidden()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: new URL('phone-sign-in.png', ARTIFACTS).pathname });
    await page.fill('#admin-key', ADMIN_KEY);
    await page.click('#sign-in button[type=submit]');
    await page.waitForSelector('body[data-loaded="true"]');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: new URL('phone-overview.png', ARTIFACTS).pathname, fullPage: true });
    await page.close();
  }, 60_000);
});
