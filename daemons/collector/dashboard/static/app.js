// Kite's dashboard: a read-only view of the pool, drawn from the
// collector's JSON endpoints (GET /v1/dashboard/...). Plain JavaScript, no
// framework and no build step. Every value from the pool is put into the
// page as text, never as HTML.
'use strict';

const TOKEN_KEY = 'kite-dashboard-token';
const API = '../v1/dashboard/';
const REFRESH_MS = 15000;
const COLORS = { busy: '#e0703a', idle: '#3aa76d', held: '#c9a227', total: '#2f6fde', other: '#8a7fd6', load: '#8a7fd6' };

// ---- the token ----

// takeTokenFromFragment moves a token from the URL's fragment
// (#token=...; kite dashboard prints such a link) into sessionStorage and
// takes it out of the address bar. The fragment never reaches the server.
function takeTokenFromFragment() {
  const parts = location.hash.replace(/^#/, '').split('&');
  const rest = [];
  let token = null;
  for (const p of parts) {
    if (p.startsWith('token=')) {
      token = decodeURIComponent(p.slice('token='.length));
    } else if (p !== '') {
      rest.push(p);
    }
  }
  if (token) {
    sessionStorage.setItem(TOKEN_KEY, token);
    history.replaceState(null, '', location.pathname + location.search + '#' + (rest.join('&') || 'overview'));
  }
}

function token() { return sessionStorage.getItem(TOKEN_KEY); }

// ---- requests ----

class AuthError extends Error {}

async function api(path) {
  const resp = await fetch(API + path, {
    headers: { 'Authorization': 'Bearer ' + token(), 'Accept': 'application/json' },
    cache: 'no-store',
  });
  let body = null;
  try { body = await resp.json(); } catch (e) { body = null; }
  if (resp.status === 401 || resp.status === 403) {
    throw new AuthError(body && body.error ? body.error.message : resp.statusText);
  }
  if (!resp.ok) {
    throw new Error(path + ': ' + (body && body.error ? body.error.message : resp.status + ' ' + resp.statusText));
  }
  return body;
}

// ---- building the page ----

// h makes an element: attributes (with on* handlers), then children
// (strings become text nodes).
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'style') setStyle(el, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

// setStyle sets inline styles through the CSSOM: the page's
// Content-Security-Policy refuses style attributes, not style properties.
function setStyle(el, css) {
  for (const decl of css.split(';')) {
    const i = decl.indexOf(':');
    if (i > 0) el.style.setProperty(decl.slice(0, i).trim(), decl.slice(i + 1).trim());
  }
}

function append(el, children) {
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

const SVG = 'http://www.w3.org/2000/svg';
function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  append(el, children);
  return el;
}

function table(id, headers, rows) {
  return h('table', { id },
    h('thead', {}, h('tr', {}, headers.map(c => h('th', { class: c.num ? 'num' : null }, c.label || c)))),
    h('tbody', {}, rows));
}

function num(x, digits) {
  if (x === null || x === undefined || Number.isNaN(x)) return '';
  if (digits === undefined) digits = Number.isInteger(x) ? 0 : 2;
  return Number(x).toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

function pct(part, whole) { return whole > 0 ? Math.round(100 * part / whole) + '%' : '–'; }

function when(unix) {
  if (!unix) return '';
  const d = new Date(unix * 1000);
  return d.toLocaleDateString('en-CA') + ' ' + d.toLocaleTimeString('en-GB');
}

function ago(unix) {
  if (!unix) return '';
  let secs = Math.max(0, Math.round(Date.now() / 1000 - unix));
  const d = Math.floor(secs / 86400); secs %= 86400;
  const hh = Math.floor(secs / 3600); secs %= 3600;
  const mm = Math.floor(secs / 60); secs %= 60;
  const p = n => String(n).padStart(2, '0');
  return d + '+' + p(hh) + ':' + p(mm) + ':' + p(secs);
}

function bar(value, max, cls) {
  const w = max > 0 ? Math.max(1, Math.round(160 * value / max)) : 0;
  return h('span', { class: 'bar ' + (cls || ''), style: 'width:' + w + 'px' });
}

function card(label, value, id) {
  return h('div', { class: 'card', id }, h('div', { class: 'value' }, value), h('div', { class: 'label' }, label));
}

function errorList(errors) {
  if (!errors || errors.length === 0) return null;
  return h('ul', { class: 'errors', id: 'errors' }, errors.map(e => h('li', {}, e)));
}

// lineChart draws series of [time, value] points over a shared time axis.
function lineChart(id, series, opts) {
  const W = opts.width || 720, H = opts.height || 220, L = 48, R = 12, T = 12, B = 26;
  const svg = s('svg', { id, class: 'chart', width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': opts.title });
  svg.append(s('title', {}, opts.title));
  const pts = series.flatMap(x => x.points);
  if (pts.length === 0) {
    svg.append(s('text', { x: W / 2, y: H / 2, 'text-anchor': 'middle' }, 'No samples yet'));
    return wrapChart(svg, series);
  }
  const t0 = Math.min(...pts.map(p => p[0])), t1 = Math.max(...pts.map(p => p[0]));
  let ymax = opts.ymax || Math.max(1, ...pts.map(p => p[1]));
  const x = t => L + (t1 === t0 ? (W - L - R) / 2 : (t - t0) * (W - L - R) / (t1 - t0));
  const y = v => T + (H - T - B) * (1 - v / ymax);
  for (let i = 0; i <= 4; i++) {
    const v = ymax * i / 4;
    svg.append(s('line', { class: 'grid', x1: L, x2: W - R, y1: y(v), y2: y(v) }));
    svg.append(s('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end' }, num(v, 1) + (opts.unit || '')));
  }
  svg.append(s('line', { class: 'axis', x1: L, x2: W - R, y1: H - B, y2: H - B }));
  svg.append(s('text', { x: L, y: H - 8 }, new Date(t0 * 1000).toLocaleTimeString('en-GB')));
  svg.append(s('text', { x: W - R, y: H - 8, 'text-anchor': 'end' }, new Date(t1 * 1000).toLocaleTimeString('en-GB')));
  for (const ser of series) {
    if (ser.points.length === 0) continue;
    const d = ser.points.map((p, i) => (i ? 'L' : 'M') + x(p[0]).toFixed(1) + ' ' + y(p[1]).toFixed(1)).join(' ');
    svg.append(s('path', { d, fill: 'none', stroke: ser.color, 'stroke-width': 2, 'data-series': ser.name }));
    if (ser.points.length === 1) {
      const p = ser.points[0];
      svg.append(s('circle', { cx: x(p[0]), cy: y(p[1]), r: 3, fill: ser.color }));
    }
  }
  return wrapChart(svg, series);
}

function wrapChart(svg, series) {
  return h('div', { class: 'chart-box' },
    h('div', { class: 'legend' }, series.map(x => h('span', {}, h('i', { style: 'background:' + x.color }), x.name))),
    svg);
}

// barChart draws one horizontal bar per row.
function barChart(id, rows, opts) {
  const W = opts.width || 720, rowH = 26, L = 120, R = 90, H = rows.length * rowH + 10;
  const svg = s('svg', { id, class: 'chart', width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': opts.title });
  svg.append(s('title', {}, opts.title));
  const max = Math.max(1e-9, ...rows.map(r => r.parts.reduce((a, p) => a + p.value, 0)));
  rows.forEach((r, i) => {
    const y = 5 + i * rowH;
    svg.append(s('text', { x: L - 8, y: y + 16, 'text-anchor': 'end' }, r.label));
    let x = L;
    for (const p of r.parts) {
      const w = (W - L - R) * p.value / max;
      if (w > 0) svg.append(s('rect', { x, y: y + 3, width: w, height: rowH - 8, fill: p.color, rx: 2 }));
      x += w;
    }
    svg.append(s('text', { x: x + 6, y: y + 16 }, r.note));
  });
  return svg;
}

// ---- the views ----

const views = {
  async overview() {
    const [ov, hist] = await Promise.all([api('overview'), api('history')]);
    setPool(ov.pool);
    const sl = ov.slots, jobs = totals(ov.owners);
    const out = [
      h('h2', {}, 'Pool overview'),
      h('div', { class: 'cards', id: 'summary' },
        card('slots', num(sl.total), 'card-slots'),
        card('claimed', num(sl.states.Claimed || 0), 'card-claimed'),
        card('CPUs in use', num(sl.cpus_busy) + ' / ' + num(sl.cpus) + ' (' + pct(sl.cpus_busy, sl.cpus) + ')', 'card-cpus'),
        card('machines', num(sl.machines), 'card-machines'),
        card('jobs running', num(jobs.running), 'card-running'),
        card('jobs idle', num(jobs.idle), 'card-idle'),
        card('jobs held', num(jobs.held), 'card-held')),
      errorList(ov.errors),
      h('div', { class: 'split' },
        h('div', {}, h('h3', {}, 'Slots by state'), slotStates(sl)),
        h('div', {}, h('h3', {}, 'Utilization'), utilization(hist, 'utilization-plot', 520))),
      h('h3', {}, 'Users: usage and fair-share priority'),
      owners(ov.owners),
      ov.cycle ? cycle(ov.cycle) : null,
      h('h3', {}, 'Daemons'),
      daemons(ov.daemons),
    ];
    return out;
  },

  async queue() {
    const q = await api('queue?limit=1000');
    const out = [h('h2', {}, 'The queue')];
    const filter = h('input', { id: 'queue-filter', type: 'search', placeholder: 'owner, job id or command' });
    const status = h('select', { id: 'queue-status' },
      h('option', { value: '' }, 'all'), h('option', { value: 'R' }, 'running'),
      h('option', { value: 'I' }, 'idle'), h('option', { value: 'H' }, 'held'));
    out.push(h('div', { class: 'filters' }, h('label', {}, 'Show ', status), filter));
    if (q.schedds.length === 0) out.push(h('p', { class: 'muted', id: 'no-schedds' }, 'No schedd has advertised itself.'));
    const tables = [];
    q.schedds.forEach((sq, i) => {
      const t = sq.totals;
      out.push(h('h3', {}, 'Schedd ', sq.schedd, ' ', h('span', { class: 'muted' }, sq.addr)));
      if (sq.error) out.push(h('p', { class: 'error' }, sq.error));
      if (t) out.push(h('p', { class: 'muted totals' }, `${t.jobs} jobs; ${t.completed} completed, ${t.removed} removed, ${t.idle} idle, ${t.running} running, ${t.held} held, ${t.suspended} suspended`));
      const rows = sq.jobs.map(j => h('tr', { 'data-st': j.st, 'data-text': (j.id + ' ' + j.owner + ' ' + j.cmd + ' ' + (j.batch || '')).toLowerCase() },
        h('td', {}, j.id), h('td', {}, j.owner), h('td', {}, when(j.submitted)),
        h('td', { class: 'st-' + j.st }, j.st),
        h('td', { class: 'num' }, j.status === 2 ? ago(j.since) : ''),
        h('td', {}, j.host || (j.hold_reason ? h('span', { class: 'muted' }, j.hold_reason) : '')),
        h('td', { class: 'num' }, num(j.cpus)), h('td', { class: 'num' }, num(j.memory_mib)),
        h('td', { class: 'expr' }, j.cmd + (j.args ? ' ' + j.args : ''))));
      const tb = table('queue-' + i, ['ID', 'Owner', 'Submitted', 'ST', { label: 'Run time', num: true }, 'Host / hold reason',
        { label: 'CPUs', num: true }, { label: 'Memory (MiB)', num: true }, 'Command'], rows);
      tb.classList.add('queue');
      tables.push(tb);
      out.push(tb);
      if (sq.truncated) out.push(h('p', { class: 'muted' }, `Only the first ${q.limit} jobs are shown; kite q lists them all.`));
    });
    const apply = () => {
      const text = filter.value.trim().toLowerCase(), st = status.value;
      for (const tb of tables) {
        for (const tr of tb.tBodies[0].rows) {
          tr.hidden = (st && tr.dataset.st !== st) || (text && !tr.dataset.text.includes(text));
        }
      }
    };
    filter.addEventListener('input', apply);
    status.addEventListener('change', apply);
    return out;
  },

  async machines() {
    const ms = await api('machines');
    const max = Math.max(1, ...ms.machines.map(m => m.cpus));
    const rows = ms.machines.map(m => h('tr', { class: m.absent ? 'absent' : null },
      h('td', {}, h('a', { href: '#machine/' + encodeURIComponent(m.name) }, m.name)),
      h('td', { class: 'num' }, num(m.slots)),
      h('td', {}, Object.entries(m.states).map(([k, v]) => k + ' ' + v).join(', ')),
      h('td', { class: 'num' }, num(m.cpus_busy) + ' / ' + num(m.cpus)),
      h('td', {}, bar(m.cpus_busy, max, 'busy'), bar(m.cpus - m.cpus_busy, max, 'idle')),
      h('td', { class: 'num' }, num(m.memory_mib)),
      h('td', { class: 'num' }, num(m.load, 2)),
      h('td', { class: 'num' }, m.sita || ''),
      h('td', {}, [m.arch, m.opsys].filter(Boolean).join(' ')),
      h('td', { class: 'muted' }, m.absent ? 'absent' : m.addr)));
    return [h('h2', {}, 'Machines'),
      table('machines', ['Machine', { label: 'Slots', num: true }, 'States', { label: 'CPUs busy', num: true }, '',
        { label: 'Memory (MiB)', num: true }, { label: 'Load', num: true }, { label: 'SITA-E', num: true }, 'Platform', 'Address'], rows)];
  },

  async machine(name) {
    const m = await api('machines/' + encodeURIComponent(name));
    const mc = m.machine;
    const hist = m.history || [];
    const out = [
      h('h2', {}, 'Machine ', h('span', { id: 'machine-name' }, mc.name)),
      h('div', { class: 'cards' },
        card('slots', num(mc.slots)), card('CPUs in use', num(mc.cpus_busy) + ' / ' + num(mc.cpus)),
        card('memory (MiB)', num(mc.memory_mib)), card('load', num(mc.load, 2)),
        card('SITA-E interval', mc.sita || '–')),
      h('h3', {}, 'Reliability'),
    ];
    const rel = Object.entries(m.reliability || {}).sort((a, b) => a[0].localeCompare(b[0]));
    out.push(rel.length === 0
      ? h('p', { class: 'muted', id: 'reliability' }, 'The machine\'s ads carry no reliability attributes yet.')
      : table('reliability', ['Attribute', 'Value'], rel.map(([k, v]) => h('tr', {}, h('td', {}, k), h('td', { class: 'expr' }, relValue(k, v))))));
    out.push(h('h3', {}, 'History: state and load as the collector sampled them'));
    out.push(lineChart('machine-history', [
      { name: 'CPUs busy', color: COLORS.busy, points: hist.map(x => [x.t, x.cpus_busy]) },
      { name: 'CPUs', color: COLORS.total, points: hist.map(x => [x.t, x.cpus]) },
      { name: 'load average', color: COLORS.load, points: hist.map(x => [x.t, x.load]) },
    ], { title: 'CPUs busy and load of ' + mc.name }));
    const gaps = hist.filter(x => x.absent).length;
    if (gaps > 0) out.push(h('p', { class: 'muted' }, `Absent (gossip reported its startd gone) in ${gaps} of ${hist.length} samples.`));
    out.push(h('h3', {}, 'Slot ads'));
    m.ads.forEach((ad, i) => {
      const keys = Object.keys(ad).sort((a, b) => a.localeCompare(b));
      out.push(h('h4', {}, ad.Name || 'slot ' + (i + 1)));
      const t = table(i === 0 ? 'machine-ad' : 'machine-ad-' + i, ['Attribute', 'Value'],
        keys.map(k => h('tr', {}, h('td', {}, k), h('td', { class: 'expr' }, adValue(ad[k])))));
      t.classList.add('ad');
      out.push(t);
    });
    return out;
  },

  async sita() {
    const sl = await api('sita');
    const out = [h('h2', {}, 'SITA-E size intervals')];
    if (!sl.enabled) {
      out.push(h('p', { id: 'sita-off', class: 'muted' }, 'No slot serves a SITA-E interval: set [startd.sita] intervals on the execute hosts (kite sita config).'));
      return out;
    }
    out.push(h('p', { class: 'muted' }, `Jobs are sized by ${sl.attribute}; k, p and a come from the ${sl.source === 'config' ? 'hosts\' configuration' : 'jobs'}.`));
    out.push(errorList(sl.errors));
    const rows = sl.intervals.map(iv => h('tr', { 'data-interval': iv.interval },
      h('td', { class: 'num' }, iv.interval),
      h('td', { class: iv.lower_expr ? 'expr' : 'num' }, iv.lower !== undefined ? num(iv.lower, 2) : (iv.interval === 1 ? '0' : shortExpr(iv.lower_expr))),
      h('td', { class: iv.upper_expr ? 'expr' : 'num' }, iv.upper !== undefined ? num(iv.upper, 2) : (iv.interval === sl.intervals.length ? '∞' : shortExpr(iv.upper_expr))),
      h('td', { class: 'num' }, iv.busy_slots + ' / ' + iv.slots),
      h('td', {}, iv.machines.join(', ')),
      h('td', { class: 'num' }, num(iv.running_jobs)), h('td', { class: 'num' }, num(iv.idle_jobs)),
      h('td', { class: 'num' }, num(iv.running_load + iv.idle_load, 1)),
      h('td', { class: 'num' }, iv.min_size !== undefined ? num(iv.min_size, 1) + ' – ' + num(iv.max_size, 1) : '')));
    out.push(table('sita-loads', [{ label: 'Interval', num: true }, { label: 'From', num: true }, { label: 'To', num: true },
      { label: 'Slots busy', num: true }, 'Machines', { label: 'Running', num: true }, { label: 'Idle', num: true },
      { label: 'Load', num: true }, { label: 'Sizes', num: true }], rows));
    out.push(h('h3', {}, 'Load per interval'));
    out.push(h('div', { class: 'legend' }, h('span', {}, h('i', { style: 'background:' + COLORS.busy }), 'running'),
      h('span', {}, h('i', { style: 'background:' + COLORS.idle }), 'idle')));
    out.push(barChart('sita-chart', sl.intervals.map(iv => ({
      label: 'interval ' + iv.interval,
      parts: [{ value: iv.running_load, color: COLORS.busy }, { value: iv.idle_load, color: COLORS.idle }],
      note: num(iv.running_load + iv.idle_load, 1),
    })), { title: 'Load of the queue\'s jobs per size interval' }));
    out.push(h('p', { id: 'sita-imbalance' }, `Imbalance M = ${num(sl.imbalance, 2)} (${num(sl.imbalance_percent, 1)}% of the mean load ${num(sl.mean_load, 1)}); ` +
      `${sl.unsized} job(s) without a size run anywhere` + (sl.unplaced ? `; ${sl.unplaced} job(s) fit no interval` : '') + '.'));
    return out;
  },

  async utilization() {
    const hist = await api('history');
    const smp = hist.samples;
    return [
      h('h2', {}, 'Utilization over time'),
      h('p', { class: 'muted' }, `The collector samples the pool every ${num(hist.interval_seconds)} s and keeps ${smp.length} sample(s).`),
      h('h3', {}, 'CPUs'),
      utilization(hist, 'utilization-cpus', 900),
      h('h3', {}, 'Jobs'),
      lineChart('utilization-jobs', [
        { name: 'running', color: COLORS.busy, points: smp.map(x => [x.t, x.running_jobs]) },
        { name: 'idle', color: COLORS.idle, points: smp.map(x => [x.t, x.idle_jobs]) },
        { name: 'held', color: COLORS.held, points: smp.map(x => [x.t, x.held_jobs]) },
      ], { title: 'Jobs by status', width: 900 }),
      h('h3', {}, 'Slots'),
      lineChart('utilization-slots', [
        { name: 'claimed', color: COLORS.busy, points: smp.map(x => [x.t, x.claimed]) },
        { name: 'slots', color: COLORS.total, points: smp.map(x => [x.t, x.slots]) },
      ], { title: 'Slots claimed and in all', width: 900 }),
    ];
  },
};
Object.assign(views, DAG_VIEWS); // dag.js

function utilization(hist, id, width) {
  const smp = hist.samples;
  return lineChart(id, [
    { name: 'CPUs busy', color: COLORS.busy, points: smp.map(x => [x.t, x.cpus_busy]) },
    { name: 'CPUs', color: COLORS.total, points: smp.map(x => [x.t, x.cpus]) },
  ], { title: 'CPUs busy and in all', width });
}

function totals(owners) {
  return owners.reduce((a, o) => ({ running: a.running + o.running, idle: a.idle + o.idle, held: a.held + o.held }),
    { running: 0, idle: 0, held: 0 });
}

function slotStates(sl) {
  const max = Math.max(1, ...sl.pairs.map(p => p.count));
  return table('slot-states', ['State', 'Activity', { label: 'Slots', num: true }, ''],
    sl.pairs.map(p => h('tr', { 'data-state': p.state },
      h('td', {}, p.state), h('td', {}, p.activity), h('td', { class: 'num' }, p.count),
      h('td', {}, bar(p.count, max, p.state === 'Claimed' ? 'busy' : p.state === 'Unclaimed' ? 'idle' : '')))));
}

function owners(list) {
  if (list.length === 0) return h('p', { class: 'muted', id: 'owners' }, 'No jobs and no users yet.');
  return table('owners', ['User', { label: 'Running', num: true }, { label: 'Idle', num: true }, { label: 'Held', num: true },
    { label: 'Effective priority', num: true }, { label: 'Real priority', num: true }, { label: 'Factor', num: true },
    { label: 'In use', num: true }, { label: 'Usage (slot-hours)', num: true }, 'Schedds'],
  list.map(o => {
    const p = o.priority || {};
    return h('tr', { 'data-owner': o.name },
      h('td', {}, o.name), h('td', { class: 'num' }, o.running), h('td', { class: 'num' }, o.idle), h('td', { class: 'num' }, o.held),
      h('td', { class: 'num' }, num(p.effective, 2)), h('td', { class: 'num' }, num(p.real, 2)), h('td', { class: 'num' }, num(p.factor, 2)),
      h('td', { class: 'num' }, num(p.in_use, 2)), h('td', { class: 'num' }, num(p.usage, 2)), h('td', {}, o.schedds.join(', ')));
  }));
}

function cycle(c) {
  return h('p', { id: 'cycle', class: 'muted' },
    `Last negotiation cycle: #${c.number} at ${when(c.time)}, ${num(c.duration, 3)} s, ${c.matches} match(es) over ${c.slots} slot(s) and ${c.submitters} submitter(s) (${c.negotiator}).`);
}

function daemons(list) {
  return table('daemons', ['Type', 'Name', 'Address', 'Version', 'Last heard'],
    list.map(d => h('tr', { class: d.absent ? 'absent' : null },
      h('td', {}, d.type), h('td', {}, d.role ? `${d.name} (${d.role})` : d.name), h('td', {}, d.addr), h('td', {}, d.version || ''),
      h('td', {}, d.absent ? 'absent' : when(d.heard)))));
}

// adValue shows a ClassAd JSON value: expressions travel as "/Expr(...)/".
function adValue(v) {
  if (typeof v === 'string') {
    const m = /^\/Expr\(([\s\S]*)\)\/$/.exec(v);
    return m ? m[1] : JSON.stringify(v);
  }
  if (v === null) return 'undefined';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

// relValue shows a reliability attribute: times (Unix seconds) as dates.
function relValue(name, v) {
  if (typeof v !== 'number') return v;
  if ((/Time$|Date$|^Last/.test(name)) && v > 1e9) return when(v);
  return num(v, 3);
}

function shortExpr(e) {
  if (!e) return '';
  return e.length > 60 ? e.slice(0, 57) + '…' : e;
}

function setPool(name) { document.getElementById('pool-name').textContent = name ? '· ' + name : ''; }

// ---- routing ----

function route() {
  const hash = location.hash.replace(/^#/, '').split('&')[0] || 'overview';
  const [view, ...rest] = hash.split('/');
  return { view: views[view] ? view : 'overview', arg: decodeURIComponent(rest.join('/')) };
}

let rendering = 0;

async function render() {
  const main = document.getElementById('view');
  const status = document.getElementById('status');
  if (!token()) {
    showLogin('');
    return;
  }
  document.getElementById('login').hidden = true;
  const { view, arg } = route();
  for (const a of document.querySelectorAll('#nav a')) {
    a.classList.toggle('active', a.dataset.view === view || (view === 'machine' && a.dataset.view === 'machines') ||
      (view === 'dag' && a.dataset.view === 'dags'));
  }
  const mine = ++rendering;
  status.textContent = 'Loading…';
  try {
    const content = await views[view](arg);
    if (mine !== rendering) return;
    main.replaceChildren(...content.filter(Boolean));
    main.dataset.view = view;
    main.dataset.ready = 'true';
    status.textContent = 'Updated ' + new Date().toLocaleTimeString('en-GB');
  } catch (e) {
    if (mine !== rendering) return;
    if (e instanceof AuthError) {
      sessionStorage.removeItem(TOKEN_KEY);
      showLogin('The pool refused the token: ' + e.message);
      return;
    }
    main.replaceChildren(h('p', { class: 'error', id: 'load-error' }, 'Could not load the page: ' + e.message));
    main.dataset.ready = 'error';
    status.textContent = 'Failed';
  }
}

function showLogin(message) {
  document.getElementById('view').replaceChildren();
  document.getElementById('view').dataset.ready = 'login';
  document.getElementById('login').hidden = false;
  const err = document.getElementById('login-error');
  err.textContent = message;
  err.hidden = !message;
  document.getElementById('status').textContent = 'Signed out';
}

function start() {
  takeTokenFromFragment();
  document.getElementById('login-form').addEventListener('submit', ev => {
    ev.preventDefault();
    const t = document.getElementById('token-input').value.trim();
    if (t) {
      sessionStorage.setItem(TOKEN_KEY, t);
      document.getElementById('token-input').value = '';
      render();
    }
  });
  document.getElementById('logout').addEventListener('click', () => { sessionStorage.removeItem(TOKEN_KEY); render(); });
  document.getElementById('refresh').addEventListener('click', render);
  window.addEventListener('hashchange', () => { takeTokenFromFragment(); render(); });
  setInterval(() => { if (token() && !document.hidden) render(); }, REFRESH_MS);
  render();
}

start();
