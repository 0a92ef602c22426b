// The operator dashboard: fetches GET /admin/reports with the admin key and draws it as SVG.
// No framework and no chart library: a line chart, stacked bars and horizontal bars are a few
// dozen lines each, and the page stays a static file the service serves as is.
const KEY_STORAGE = 'sidenote.adminKey';
const SVG = 'http://www.w3.org/2000/svg';
const COLORS = ['#3a5bd9', '#e0783a', '#2f9e6e', '#c2410c', '#8b5cf6', '#0891b2', '#d946ef', '#64748b', '#ca8a04', '#dc2626', '#0d9488'];
const state = { range: '24h', app: '', includeTest: false, report: null };

const $ = (sel) => document.querySelector(sel);
const fmt = new Intl.NumberFormat('en');
/** Axis numbers: whole where whole, else one decimal. */
const tick = (v) => (Number.isInteger(v) ? fmt.format(v) : String(Number(v.toFixed(2))));
const pct = (x) => (x === null || x === undefined ? '—' : `${(x * 100).toFixed(1)}%`);

function el(tag, attrs = {}, parent) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  parent?.appendChild(node);
  return node;
}

function timeLabel(iso, range) {
  const d = new Date(iso);
  if (range === '7d' || range === '30d') return d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
  return d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

/** Axes and horizontal grid lines; returns the plotting frame. */
function frame(svg, labels, max, yFormat) {
  const W = 560,
    H = 220,
    L = 48,
    R = 12,
    T = 10,
    B = 26;
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  const x = (i) => L + (labels.length <= 1 ? 0 : (i * (W - L - R)) / (labels.length - 1));
  const y = (v) => T + (H - T - B) * (1 - (max === 0 ? 0 : v / max));
  for (let k = 0; k <= 4; k++) {
    const v = (max * k) / 4;
    el('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), class: 'grid-line' }, svg);
    el('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end' }, svg).textContent = yFormat(v);
  }
  const step = Math.max(1, Math.ceil(labels.length / 6));
  labels.forEach((label, i) => {
    if (i % step === 0) el('text', { x: x(i), y: H - 8, 'text-anchor': 'middle' }, svg).textContent = label;
  });
  return { x, y, W, H, L, R, T, B };
}

function niceMax(v) {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 2.5, 5, 10].map((m) => m * p).find((m) => m >= v) ?? 10 * p;
}

function legend(container, names) {
  container.replaceChildren(
    ...names.map((name, i) => {
      const span = document.createElement('span');
      span.innerHTML = `<i style="background:${COLORS[i % COLORS.length]}"></i>`;
      span.append(name);
      return span;
    }),
  );
}

/** Hover: a guide line at the point nearest the pointer and a tooltip with every series' value there. */
function hover(container, svg, f, count, describe) {
  const guide = el('line', { y1: f.T, y2: f.H - f.B, class: 'hover-line', visibility: 'hidden' }, svg);
  // The whole width, so the first and last points are easy to reach.
  const area = el('rect', { x: 0, y: 0, width: f.W, height: f.H, fill: 'transparent', class: 'hover-area' }, svg);
  const tip = document.createElement('div');
  tip.className = 'tooltip';
  tip.hidden = true;
  area.addEventListener('pointermove', (event) => {
    const box = svg.getBoundingClientRect();
    const sx = ((event.clientX - box.left) * f.W) / box.width;
    const i = count <= 1 ? 0 : Math.max(0, Math.min(count - 1, Math.round(((sx - f.L) * (count - 1)) / (f.W - f.L - f.R))));
    guide.setAttribute('x1', f.x(i));
    guide.setAttribute('x2', f.x(i));
    guide.setAttribute('visibility', 'visible');
    const { title, rows, at } = describe(i);
    const heading = document.createElement('b');
    heading.textContent = title;
    tip.replaceChildren(
      heading,
      ...rows.map(([name, value, color]) => {
        const line = document.createElement('div');
        line.innerHTML = `<i style="background:${color}"></i>`;
        line.append(`${name}: ${value}`);
        return line;
      }),
    );
    tip.dataset.at = at;
    tip.style.left = `${(f.x(i) * box.width) / f.W}px`;
    tip.style.top = `${(f.T * box.height) / f.H}px`;
    // Kept inside the chart near its edges.
    const share = count <= 1 ? 0.5 : i / (count - 1);
    tip.style.transform = `translateX(${share < 0.2 ? 0 : share > 0.8 ? -100 : -50}%)`;
    tip.hidden = false;
  });
  area.addEventListener('pointerleave', () => {
    tip.hidden = true;
    guide.setAttribute('visibility', 'hidden');
  });
  container.append(tip);
}

/** `times`: each point's bucket start (ISO), named in the tooltip; `valueFormat` formats its values. */
function lineChart(container, labels, series, { max, yFormat = tick, area = false, times = [], valueFormat = tick } = {}) {
  const svg = el('svg', { role: 'img', 'data-points': series.reduce((n, s) => n + s.values.filter((v) => v !== null).length, 0) });
  const top = max ?? niceMax(Math.max(0, ...series.flatMap((s) => s.values.filter((v) => v !== null))));
  const f = frame(svg, labels, top, yFormat);
  series.forEach((s, si) => {
    const color = COLORS[si % COLORS.length];
    const pts = s.values.map((v, i) => (v === null ? null : [f.x(i), f.y(v)]));
    const segments = [];
    let current = [];
    for (const p of pts) {
      if (p) current.push(p);
      else if (current.length) segments.push(current), (current = []);
    }
    if (current.length) segments.push(current);
    for (const seg of segments) {
      const d = seg.map((p, i) => `${i ? 'L' : 'M'}${p[0].toFixed(1)},${p[1].toFixed(1)}`).join('');
      if (area) el('path', { d: `${d}L${seg.at(-1)[0]},${f.y(0)}L${seg[0][0]},${f.y(0)}Z`, fill: color, opacity: 0.12 }, svg);
      el('path', { d, fill: 'none', stroke: color, 'stroke-width': 2, class: 'series' }, svg);
      if (seg.length === 1) el('circle', { cx: seg[0][0], cy: seg[0][1], r: 3, fill: color }, svg);
    }
  });
  container.replaceChildren(svg);
  hover(container, svg, f, labels.length, (i) => ({
    at: times[i] ?? '',
    title: times[i] ? new Date(times[i]).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }) : labels[i],
    rows: series.map((s, si) => [s.name, s.values[i] === null ? '—' : valueFormat(s.values[i]), COLORS[si % COLORS.length]]),
  }));
}

function stackedBars(container, labels, rows, keys) {
  const totals = rows.map((r) => keys.reduce((n, k) => n + (r[k] ?? 0), 0));
  const svg = el('svg', { role: 'img', 'data-bars': 0 });
  const f = frame(svg, labels, niceMax(Math.max(0, ...totals)), tick);
  const slot = (f.W - f.L - f.R) / Math.max(1, labels.length);
  let bars = 0;
  rows.forEach((r, i) => {
    let base = 0;
    keys.forEach((k, ki) => {
      const v = r[k] ?? 0;
      if (!v) return;
      const y0 = f.y(base),
        y1 = f.y(base + v);
      const rect = el(
        'rect',
        { x: f.x(i) - slot * 0.4, y: y1, width: Math.max(1, slot * 0.8), height: Math.max(0.5, y0 - y1), fill: COLORS[ki % COLORS.length], class: 'bar' },
        svg,
      );
      el('title', {}, rect).textContent = `${k}: ${v}`;
      base += v;
      bars++;
    });
  });
  svg.setAttribute('data-bars', bars);
  container.replaceChildren(svg);
}

function hbars(container, rows) {
  if (rows.length === 0) return container.replaceChildren(empty());
  const max = Math.max(...rows.map((r) => r.decides));
  container.replaceChildren(
    ...rows.map((r) => {
      const row = document.createElement('div');
      row.className = 'hbar';
      row.innerHTML = `<span class="name"></span><span class="track"><span class="fill" style="width:${((100 * r.decides) / max).toFixed(1)}%;display:block"></span></span><span class="n">${fmt.format(r.decides)}</span>`;
      row.querySelector('.name').textContent = r.id;
      return row;
    }),
  );
}

function funnelTable(container, rows, steps) {
  if (rows.length === 0) return container.replaceChildren(empty());
  const table = document.createElement('table');
  table.innerHTML = `<thead><tr><th></th>${steps.map(([, label]) => `<th>${label}</th>`).join('')}</tr></thead>`;
  const body = document.createElement('tbody');
  for (const r of rows) {
    const tr = document.createElement('tr');
    const name = document.createElement('td');
    name.textContent = r.name;
    name.title = r.id;
    tr.append(name);
    const first = r[steps[0][0]] || 0;
    steps.forEach(([key], i) => {
      const td = document.createElement('td');
      td.dataset.step = key;
      td.textContent = fmt.format(r[key]);
      if (i > 0) {
        const rate = document.createElement('span');
        rate.className = 'pct';
        // The share of the step before. A step can count more than the one before it (a decision
        // rendered twice is two rendered events): then it says so rather than "150%".
        const prev = r[steps[i - 1][0]];
        rate.textContent = !prev ? '' : r[key] > prev ? '>100%' : `${Math.round((100 * r[key]) / prev)}%`;
        if (prev && r[key] > prev) rate.title = `${fmt.format(r[key])} counted against ${fmt.format(prev)} at the step before (repeated events)`;
        td.append(rate);
      }
      const bar = document.createElement('span');
      bar.className = 'bar';
      bar.style.width = `${first ? (100 * r[key]) / first : 0}%`;
      td.append(bar);
      tr.append(td);
    });
    body.append(tr);
  }
  table.append(body);
  container.replaceChildren(table);
}

const money = new Intl.NumberFormat('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
/** Micros of the account currency as units with two decimals. */
const units = (micros) => (micros === null || micros === undefined ? '—' : money.format(Math.round(micros / 10_000) / 100));

function spendTable(container, rows) {
  if (rows.length === 0) return container.replaceChildren(empty());
  const table = document.createElement('table');
  table.innerHTML =
    '<thead><tr><th>Campaign</th><th>Today / daily budget</th><th>Pacing</th><th>Runs out (UTC)</th><th>Lifetime / budget</th><th>Range spend</th><th>CTR</th><th>eCPM</th></tr></thead>';
  const body = document.createElement('tbody');
  for (const r of rows) {
    const tr = document.createElement('tr');
    tr.dataset.campaign = r.campaign_id;
    const cell = (key, text, sub) => {
      const td = document.createElement('td');
      td.dataset.col = key;
      td.textContent = text;
      if (sub) {
        const small = document.createElement('span');
        small.className = 'sub';
        small.textContent = sub;
        td.append(small);
      }
      tr.append(td);
      return td;
    };
    // A campaign that is not serving says so under its name, and who last changed its controls.
    const state = r.status === 'active' ? '' : ` · ${r.status}`;
    const name = cell('name', r.name, `${r.advertiser_name}${state}`);
    name.title = r.last_control_change
      ? `${r.campaign_id}: controls last changed ${r.last_control_change.changed_at.slice(0, 16).replace('T', ' ')} UTC by ${r.last_control_change.changed_by}`
      : r.campaign_id;
    if (r.status !== 'active') tr.classList.add('not-serving');
    const today = cell(
      'today',
      `${units(r.today.spend_micros)} / ${units(r.today.budget_micros)}`,
      r.today.budget_used === null ? '' : pct(r.today.budget_used),
    );
    const meter = document.createElement('span');
    meter.className = 'meter';
    meter.innerHTML = '<span class="bar"></span>';
    meter.firstChild.style.width = `${Math.min(100, 100 * (r.today.budget_used ?? 0))}%`;
    today.append(meter);
    // Before its first spend today a campaign has no pace to judge: a dash, not an amber 0.00×.
    const paced = r.today.pacing !== null && r.today.spend_micros > 0;
    const pacing = cell('pacing', paced ? `${r.today.pacing.toFixed(2)}×` : '—', paced ? `${pct(r.today.day_elapsed)} of day` : 'no spend today yet');
    if (paced) pacing.classList.add(r.today.pacing > 1.1 ? 'ahead' : r.today.pacing < 0.9 ? 'behind' : 'on-pace');
    cell(
      'exhausts',
      r.today.exhausted ? 'exhausted' : r.today.exhausts_at ? new Date(r.today.exhausts_at).toISOString().slice(11, 16) : '—',
      r.today.exhausted || r.today.exhausts_at ? '' : 'not today',
    );
    cell(
      'lifetime',
      `${units(r.lifetime.spend_micros)} / ${units(r.lifetime.budget_micros)}`,
      r.lifetime.budget_used === null ? '' : pct(r.lifetime.budget_used),
    );
    cell('range-spend', units(r.range.spend_micros), `${fmt.format(r.range.served)} served`);
    cell('ctr', pct(r.range.ctr), `${fmt.format(r.range.clicks)} / ${fmt.format(r.range.qualified)}`);
    cell('ecpm', units(r.range.ecpm_micros), `${fmt.format(r.range.rendered)} rendered`);
    body.append(tr);
  }
  table.append(body);
  container.replaceChildren(table);
}

function empty() {
  const p = document.createElement('p');
  p.className = 'empty';
  p.textContent = 'No traffic in this range.';
  return p;
}

function render(report) {
  const labels = report.timeline.map((p) => timeLabel(p.at, report.range));
  const t = report.totals;
  $('#totals').replaceChildren(
    ...[
      ['Decides', fmt.format(t.decides)],
      ['Fill rate', pct(t.fill_rate)],
      ['Rendered', fmt.format(t.rendered)],
      ['Qualified', fmt.format(t.qualified)],
      ['Clicks', fmt.format(t.clicks)],
      ['Conversions', fmt.format(t.conversions), 'Served decisions of the range that converted'],
      ['Conversions occurred', fmt.format(t.conversions_occurred), 'Conversions that happened in the range, however late they were sent'],
    ].map(([label, value, title]) => {
      const tile = document.createElement('div');
      tile.className = 'tile';
      if (title) tile.title = title;
      tile.dataset.total = label.toLowerCase().replace(' ', '_');
      tile.innerHTML = `<div class="label">${label}</div><div class="value"></div>`;
      tile.querySelector('.value').textContent = value;
      return tile;
    }),
  );
  const times = report.timeline.map((p) => p.at);
  lineChart($('#chart-decides .chart'), labels, [{ name: 'decides/min', values: report.timeline.map((p) => p.decides_per_minute) }], { area: true, times });
  lineChart($('#chart-fill .chart'), labels, [{ name: 'fill rate', values: report.timeline.map((p) => p.fill_rate) }], {
    max: 1,
    yFormat: (v) => `${Math.round(v * 100)}%`,
    times,
    valueFormat: pct,
  });
  const reasons = [...new Set(report.timeline.flatMap((p) => Object.keys(p.no_fill_reasons)))].sort();
  stackedBars(
    $('#chart-reasons .chart'),
    labels,
    report.timeline.map((p) => p.no_fill_reasons),
    reasons,
  );
  legend($('#chart-reasons .legend'), reasons);
  lineChart(
    $('#chart-latency .chart'),
    labels,
    ['p50', 'p90', 'p99'].map((q) => ({ name: q, values: report.timeline.map((p) => (p.latency_ms ? p.latency_ms[q] : null)) })),
    { times, valueFormat: (v) => `${v} ms` },
  );
  spendTable($('#spend-campaign .spend'), report.spend_by_campaign);
  legend($('#chart-latency .legend'), ['p50', 'p90', 'p99']);
  funnelTable($('#funnel-campaign .funnel'), report.funnel_by_campaign, [
    ['served', 'served'],
    ['rendered', 'rendered'],
    ['qualified', 'qualified'],
    ['clicks', 'clicks'],
    ['conversions', 'conversions'],
  ]);
  funnelTable($('#funnel-app .funnel'), report.funnel_by_app, [
    ['decides', 'decides'],
    ['served', 'served'],
    ['rendered', 'rendered'],
    ['qualified', 'qualified'],
    ['clicks', 'clicks'],
    ['conversions', 'conversions'],
  ]);
  hbars($('#top-categories .bars'), report.top_categories);
  hbars($('#top-entities .bars'), report.top_entities);
  const select = $('#app');
  const known = new Set([...select.options].map((o) => o.value));
  for (const a of report.funnel_by_app) {
    if (!known.has(a.id)) select.append(new Option(a.name, a.id));
  }
  $('#footnote').textContent =
    `${new Date(report.from).toLocaleString()} – ${new Date(report.until).toLocaleString()}, ${report.bucket_seconds / 60}-minute buckets${report.include_test ? ', test keys included' : ''}. Counted events only.`;
  document.body.dataset.loaded = 'true';
}

async function load() {
  const key = sessionStorage.getItem(KEY_STORAGE);
  if (!key) return showSignIn();
  const params = new URLSearchParams({ range: state.range, include_test: String(state.includeTest) });
  if (state.app) params.set('app_id', state.app);
  const res = await fetch(`/admin/reports?${params}`, { headers: { authorization: `Bearer ${key}` } });
  if (res.status === 401 || res.status === 404) {
    sessionStorage.removeItem(KEY_STORAGE);
    return showSignIn('That admin key was not accepted.');
  }
  if (!res.ok) {
    $('#footnote').textContent = `Could not load the report (${res.status}); retrying shortly.`;
    return;
  }
  $('#sign-in').hidden = true;
  $('#controls').hidden = false;
  $('#report').hidden = false;
  for (const b of document.querySelectorAll('[data-range]')) b.classList.toggle('active', b.dataset.range === state.range);
  render(await res.json());
}

function showSignIn(message = '') {
  document.body.dataset.loaded = 'false';
  $('#controls').hidden = true;
  $('#report').hidden = true;
  $('#sign-in').hidden = false;
  $('#sign-in-error').textContent = message;
}

$('#sign-in').addEventListener('submit', (e) => {
  e.preventDefault();
  sessionStorage.setItem(KEY_STORAGE, $('#admin-key').value.trim());
  $('#admin-key').value = '';
  void load();
});
$('#sign-out').addEventListener('click', () => {
  sessionStorage.removeItem(KEY_STORAGE);
  showSignIn();
});
for (const b of document.querySelectorAll('[data-range]')) {
  b.addEventListener('click', () => {
    state.range = b.dataset.range;
    void load();
  });
}
$('#app').addEventListener('change', (e) => {
  state.app = e.target.value;
  void load();
});
$('#include-test').addEventListener('change', (e) => {
  state.includeTest = e.target.checked;
  void load();
});
$('#refresh').addEventListener('click', () => void load());
// Fresh numbers every minute while the tab is open.
setInterval(() => {
  if (!document.hidden && sessionStorage.getItem(KEY_STORAGE)) void load();
}, 60_000);
void load();
