// rocelab report: draws the page's data (docs/report-format.md) as a ladder
// per host pair, a PSN-time graph and a throughput graph per request flow,
// and, when the capture shows congestion, every flow's rate on one time axis
// with its CE marks, CNPs and the switch queue's depth.
// No framework, no network; capture strings only ever become textContent.
'use strict';
(function () {

const SVGNS = 'http://www.w3.org/2000/svg';
const KIND = ['req', 'resp', 'ack', 'nak', 'cnp', 'cm'];
const KIND_NAME = ['request', 'response', 'ACK', 'NAK', 'CNP', 'CM'];
const F = { lost: 1, bad: 2, trouble: 4, resent: 8, dup: 16, gap: 32, ooo: 64,
  ce: 128, rnr: 256, seqerr: 512, fatal: 1024, acks: 2048, last: 4096 };
const DRAW_ALL = 5000;      // at or below this many rows every arrow is drawn
const ROW_H = 22;           // one frame on the ladder
const BREAK_H = 26;         // a broken (elided) time gap
const MAX_BOX = 8e6;        // browsers cap element heights; scale scrolling above
const PSN_MOD = 16777216;   // PSNs are 24 bits

// ---- small DOM helpers: text goes in as textContent, never as markup ----

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = String(text);
  return e;
}

function sv(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = String(text);
  return e;
}

function fmtTime(ns) {
  if (ns >= 1e9) return (ns / 1e9).toFixed(3) + ' s';
  if (ns >= 1e6) return (ns / 1e6).toFixed(3) + ' ms';
  if (ns >= 1e3) return (ns / 1e3).toFixed(3) + ' µs';
  return Math.round(ns) + ' ns';
}

// Seconds with nanoseconds, as the capture's clock has them.
function fmtSec(ns) { return (ns / 1e9).toFixed(9); }

// First index i in [lo, hi) with a[i] >= v (a sorted ascending).
function lowerBound(a, v, lo, hi) {
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (a[m] < v) lo = m + 1; else hi = m;
  }
  return lo;
}

// First index i in [lo, hi) with a[i] > v.
function upperBound(a, v, lo, hi) {
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (a[m] <= v) lo = m + 1; else hi = m;
  }
  return lo;
}

// ---- data: rows parsed once into columns, the JSON dropped ----

function readJson(id) {
  const e = document.getElementById(id);
  return e ? JSON.parse(e.textContent) : null;
}

function loadCapture(suffix) {
  const summary = readJson('rl-summary' + suffix);
  const rows = readJson('rl-rows' + suffix);
  if (!summary || !rows) return null;
  const n = rows.length;
  const d = {
    n, summary, prefix: suffix ? 'b-' : '',
    frame: new Int32Array(n), t: new Float64Array(n), sec: new Int32Array(n),
    dir: new Uint8Array(n), kind: new Uint8Array(n), op: new Uint8Array(n),
    psn: new Int32Array(n), qp: new Int32Array(n), len: new Int32Array(n),
    flags: new Int32Array(n), msg: new Int32Array(n), ans: new Int32Array(n),
    label: new Array(n), mark: new Array(n), detail: new Uint8Array(n),
    depth: new Float64Array(n).fill(-1), nDepth: 0,
    rowsId: 'rl-rows' + suffix, rowsText: null, words: new Map(),
  };
  for (let i = 0; i < n; i++) {
    const r = rows[i];
    d.frame[i] = r[0]; d.t[i] = r[1]; d.sec[i] = r[2]; d.dir[i] = r[3];
    d.kind[i] = r[4]; d.op[i] = r[5]; d.psn[i] = r[6]; d.qp[i] = r[7];
    d.len[i] = r[8]; d.flags[i] = r[9]; d.msg[i] = r[10]; d.ans[i] = r[11];
    d.label[i] = r[12]; d.mark[i] = r[13];
    d.detail[i] = r[14] ? 1 : 0;   // the object itself is read again from its text when shown
    if (r.length > 15) { d.depth[i] = r[15]; d.nDepth++; }
    const an = r[14] && r[14].analysis;
    if (an) d.words.set(i, [an.summary, an.explanation]);
    rows[i] = null;           // let the parsed row go as we copy it
  }
  buildSections(d);
  buildFlows(d);
  return d;
}

// A number of the detail as explain printed it: 64-bit GUIDs and 9-decimal times
// lose digits as JavaScript numbers.
function Num(text) { this.text = text; }

// Row i's detail object, parsed from its own text, which is also returned as explain printed it.
function detailOf(d, i) {
  if (d.rowsText === null) d.rowsText = document.getElementById(d.rowsId).textContent;
  const all = d.rowsText;
  const start = all.indexOf('\n[' + d.frame[i] + ',');
  if (start < 0) return null;
  const end = all.indexOf('\n', start + 1);
  let line = all.slice(start + 1, end < 0 ? all.length : end).replace(/,$/, '');
  if (d.depth[i] >= 0) line = line.replace(/,\d+\]$/, ']');   // the queue depth after the detail
  const from = line.indexOf(',{"frame":');
  if (from < 0 || !line.endsWith('}]')) return null;
  const text = line.slice(from + 1, -1);
  const obj = JSON.parse(text, (k, v, ctx) =>
    typeof v === 'number' && ctx && typeof ctx.source === 'string' ? new Num(ctx.source) : v);
  return { text, obj };
}

// The row of frame f, or -1 (frames grow in capture order).
function rowOf(d, f) {
  const i = lowerBound(d.frame, f, 0, d.n);
  return i < d.n && d.frame[i] === f ? i : -1;
}

// Rows of each host pair, in order, and each row's place in its section.
function buildSections(d) {
  const nsec = d.summary.pairs.length;
  const count = new Int32Array(nsec + 1);
  for (let i = 0; i < d.n; i++) if (d.sec[i] >= 1 && d.sec[i] <= nsec) count[d.sec[i]]++;
  d.sections = [];
  d.pos = new Int32Array(d.n);
  const fill = new Int32Array(nsec + 1);
  for (let s = 1; s <= nsec; s++) d.sections[s] = new Int32Array(count[s]);
  for (let i = 0; i < d.n; i++) {
    const s = d.sec[i];
    if (s < 1 || s > nsec) continue;
    d.pos[i] = fill[s];
    d.sections[s][fill[s]++] = i;
  }
}

// A flow is (sec, dir, qp) of the requests; answers join their request's
// flow, or the only flow going the other way in their section.
function buildFlows(d) {
  const ids = new Map();
  const flows = [];
  const flow = new Int32Array(d.n).fill(-1);
  const key = (s, dir, qp) => (s * 2 + dir) * PSN_MOD + qp;
  for (let i = 0; i < d.n; i++) {
    if (d.kind[i] !== 0) continue;
    const k = key(d.sec[i], d.dir[i], d.qp[i]);
    let id = ids.get(k);
    if (id === undefined) {
      id = flows.length;
      ids.set(k, id);
      flows.push({ sec: d.sec[i], dir: d.dir[i], qp: d.qp[i], count: 0 });
    }
    flow[i] = id;
  }
  const onlyFlow = new Map();   // (sec, dir) -> the one flow, or -2 if several
  flows.forEach((f, id) => {
    const k = f.sec * 2 + f.dir;
    onlyFlow.set(k, onlyFlow.has(k) ? -2 : id);
  });
  for (let i = 0; i < d.n; i++) {
    const k = d.kind[i];
    if (k === 0 || k === 5) continue;
    let id = -1;
    if (d.ans[i]) {
      const r = rowOf(d, d.ans[i]);
      if (r >= 0) id = flow[r];
    }
    if (id < 0) {
      const o = onlyFlow.get(d.sec[i] * 2 + (1 - d.dir[i]));
      if (o !== undefined && o >= 0) id = o;
    }
    flow[i] = id;
  }
  for (let i = 0; i < d.n; i++) if (flow[i] >= 0) flows[flow[i]].count++;
  flows.forEach(f => { f.rows = new Int32Array(f.count); f.count = 0; });
  for (let i = 0; i < d.n; i++) {
    if (flow[i] < 0) continue;
    const f = flows[flow[i]];
    f.rows[f.count++] = i;
  }
  flows.forEach(f => unwrapFlow(d, f));
  d.flows = flows;
}

// PSNs wrap at 2^24: place each one nearest the flow's last request PSN.
function unwrapFlow(d, f) {
  const u = new Float64Array(f.count);
  let ref = -1;
  for (let j = 0; j < f.count; j++) {
    const i = f.rows[j];
    const p = d.psn[i];
    if (d.kind[i] > 3) { u[j] = ref < 0 ? p : ref; continue; }
    if (ref < 0) { u[j] = p; if (d.kind[i] === 0) ref = p; continue; }
    let diff = (p - (ref % PSN_MOD) + PSN_MOD) % PSN_MOD;
    if (diff >= PSN_MOD / 2) diff -= PSN_MOD;
    u[j] = ref + diff;
    if (d.kind[i] === 0) ref = u[j];
  }
  f.upsn = u;
  f.t = new Float64Array(f.count);
  for (let j = 0; j < f.count; j++) f.t[j] = d.t[f.rows[j]];
}

// ---- summary ----

function table(head, rows) {
  const t = el('table', 'rl-table');
  const tr = el('tr');
  head.forEach(h => tr.appendChild(el('th', '', h)));
  t.appendChild(el('thead')).appendChild(tr);
  const tb = t.appendChild(el('tbody'));
  rows.forEach(r => {
    const row = tb.appendChild(el('tr'));
    r.forEach(c => row.appendChild(c instanceof Node ? wrapTd(c) : el('td', '', c)));
  });
  return t;
}

function wrapTd(node) { const td = el('td'); td.appendChild(node); return td; }

function frameLink(d, f, text) {
  const a = el('a', 'rl-flink', text);
  a.href = '#' + d.prefix + 'frame-' + f;
  return a;
}

// A QP's number, as a button that shows its flow in the graphs.
function flowButton(d, q) {
  const b = el('button', 'rl-qpbtn', q.qp);
  b.title = 'show this flow in the graphs below';
  b.addEventListener('click', () => {
    const id = d.flows.findIndex(f => f.sec === q.sec && f.dir === q.dir && f.qp === q.qp);
    if (id >= 0 && d.graphs && d.graphs.pick) {
      d.graphs.setFlow(id);
      d.graphs.pick.scrollIntoView({ block: 'start' });
    }
  });
  return b;
}

function drawSummary(d, box) {
  const s = d.summary;
  const sec = box.appendChild(el('section', 'rl-summary'));
  sec.appendChild(el('h2', '', s.file));
  sec.appendChild(el('p', 'rl-gen', s.generator + ', ' + fmtTime(s.duration_ns) + ' of capture'));
  if (s.interrupted) sec.appendChild(el('p', 'rl-red', 'Interrupted: this page holds only the frames read before Ctrl-C.'));
  const counts = [['frames', s.frames], ['RoCE', s.roce], ['other', s.other],
    ['malformed', s.malformed], ['ICRC failures', s.icrc_bad], ['unknown opcodes', s.unknown],
    ['cut by snap length', s.snapped], ['rows drawn', s.rows]];
  sec.appendChild(table(['count', 'value'], counts.filter(c => c[1] !== undefined)));
  sec.appendChild(el('h3', '', 'Hosts'));
  sec.appendChild(table(['section', 'left', 'right'],
    s.pairs.map((p, i) => [i + 1, p[0], p[1]])));
  if (s.pairs_more) sec.appendChild(el('p', '', s.pairs_more + ' frames between further host pairs not drawn'));
  sec.appendChild(el('h3', '', 'Operations'));
  sec.appendChild(table(['opcode', 'name', 'count'], s.ops));
  sec.appendChild(el('h3', '', 'Queue pairs (request flows)'));
  const qrows = s.qps.map(q => [q.sec, q.src + ' → ' + q.dst, flowButton(d, q), q.service, q.requests,
    q.bytes, q.resent, q.naks, q.rnr, q.cnps, q.ce, frameLink(d, q.first, q.first),
    q.cm ? frameLink(d, q.cm, 'CM ' + q.cm_msg + ' of ' + q.cm) : '']);
  const qbox = sec.appendChild(el('div', 'rl-scroll'));
  qbox.appendChild(table(['sec', 'hosts', 'dest QP', 'svc', 'requests', 'bytes', 'resent',
    'NAKs', 'RNR', 'CNPs', 'CE', 'first', 'set up by'], qrows));
  if (s.qps_more) sec.appendChild(el('p', '', s.qps_more + ' more flows not listed'));
  sec.appendChild(el('h3', '', 'Findings'));
  if (!s.findings.length) sec.appendChild(el('p', '', 'nothing went wrong'));
  const ul = sec.appendChild(el('div', 'rl-scroll')).appendChild(el('ul', 'rl-findings'));
  s.findings.forEach(f => {
    const li = ul.appendChild(el('li'));
    li.appendChild(frameLink(d, f[0], 'frame ' + f[0]));
    li.appendChild(document.createTextNode(': ' + f[1]));
  });
  if (s.findings_more) sec.appendChild(el('p', '', s.findings_more + ' more findings not listed'));
}

function drawLegend(box) {
  const lg = box.appendChild(el('div', 'rl-legend'));
  KIND.forEach((k, i) => {
    const item = lg.appendChild(el('span', 'rl-key rl-' + k));
    item.appendChild(el('i'));
    item.appendChild(document.createTextNode(KIND_NAME[i]));
  });
  lg.appendChild(el('span', 'rl-key rl-lost-key', 'lost: stops halfway, dashed'));
  lg.appendChild(el('span', 'rl-key rl-trouble-key', 'red words: trouble'));
  lg.appendChild(el('span', 'rl-key rl-ce-key', '● ECN-CE on the way'));
  lg.appendChild(el('span', 'rl-key', '┊ ≈ time not to scale'));
}

// ---- ladder ----

// Each section's vertical layout: a row's top, and where time breaks.
function layoutSection(d, rows) {
  const m = rows.length;
  const all = new Float64Array(m);
  let ng = 0;
  for (let j = 1; j < m; j++) {
    const g = d.t[rows[j]] - d.t[rows[j - 1]];
    if (g > 0) all[ng++] = g;
  }
  // The median gap is one step; gaps up to 10 of them add space to scale,
  // larger ones are broken with a marker so small gaps stay readable.
  const gaps = all.subarray(0, ng).sort();
  const med = ng ? gaps[ng >> 1] : 1;
  const top = new Float64Array(m + 1);
  const brk = new Uint8Array(m);
  let y = 0;
  for (let j = 0; j < m; j++) {
    if (j > 0) {
      const g = d.t[rows[j]] - d.t[rows[j - 1]];
      if (g > 20 * med && g > 1000) { brk[j] = 1; y += BREAK_H; }
      else y += Math.min(20, 2 * g / med);
    }
    top[j] = y;
    y += ROW_H;
  }
  top[m] = y;
  return { top, brk, height: y + 6 };
}

function messageSpans(d, rows) {
  // A bracket per message: the rows from its first packet to its last.
  const open = new Map();
  const spans = [];
  for (let j = 0; j < rows.length; j++) {
    const i = rows[j];
    if (d.kind[i] > 1 || !d.msg[i]) continue;
    // (kind, dir, qp) below 2^26, the message number below 2^26: exact in a double
    const k = ((d.kind[i] * 2 + d.dir[i]) * PSN_MOD + d.qp[i]) * 67108864 + d.msg[i];
    let s = open.get(k);
    if (!s) { s = { a: j, b: j, dir: d.dir[i], msg: d.msg[i] }; open.set(k, s); spans.push(s); }
    s.b = j;
    if (d.flags[i] & F.last) open.delete(k);
  }
  // Spans start in row order: a paint finds its own by binary search.
  spans.start = Int32Array.from(spans, s => s.a);
  spans.longest = spans.reduce((n, s) => Math.max(n, s.b - s.a), 0);
  return spans;
}

function drawSections(d, box, state) {
  d.ladders = [];
  const virtual = d.n > DRAW_ALL;
  const io = virtual && 'IntersectionObserver' in window
    ? new IntersectionObserver(es => es.forEach(e => {
      if (e.isIntersecting && e.target.rlLadder) e.target.rlLadder.paint();
    })) : null;
  // As wide as the column (narrower side by side), but wide enough for words.
  const width = Math.max(720, Math.floor(box.clientWidth) - 24);   // less a scroll bar
  for (let s = 1; s < d.sections.length; s++) {
    const rows = d.sections[s];
    if (!rows.length) continue;
    const pair = d.summary.pairs[s - 1];
    const sec = box.appendChild(el('section', 'rl-ladder'));
    sec.appendChild(el('h3', '', '[' + s + '] ' + pair[0] + '  ⇄  ' + pair[1] +
      ' (' + rows.length + ' frames)'));
    const lad = new Ladder(d, rows, pair, width, virtual, state);
    sec.appendChild(lad.box);
    d.ladders[s] = lad;
    // The first few paint now; the rest when scrolled into view.
    if (io && d.ladders.filter(Boolean).length > 20) io.observe(lad.box); else lad.paint();
  }
}

const X_TIME = 4, X_FRAME = 92, X_L = 210, GAP_R = 16, LANES_H = 18;

function Ladder(d, rows, pair, width, virtual, state) {
  this.d = d; this.rows = rows; this.virtual = virtual; this.state = state;
  this.lay = layoutSection(d, rows);
  this.spans = messageSpans(d, rows);
  this.width = width;
  this.xR = width - Math.min(300, Math.round(width * 0.3));   // room for the analyzer's words
  this.box = el('div', 'rl-ladder-box');
  this.box.rlLadder = this;
  this.scale = virtual ? Math.max(1, this.lay.height / MAX_BOX) : 1;
  this.svg = sv('svg', { class: 'rl-ladder-svg', width: this.width });
  this.head = this.box.appendChild(el('div', 'rl-lanes'));
  this.head.style.width = width + 'px';
  this.head.appendChild(el('span', 'rl-host', pair[0])).style.left = X_L + 'px';
  this.head.appendChild(el('span', 'rl-host', pair[1])).style.left = this.xR + 'px';
  this.box.appendChild(this.svg);
  this.painted = false;
  if (virtual) {
    this.spacer = this.box.appendChild(el('div', 'rl-spacer'));
    this.box.style.height = this.viewH() + 'px';   // so only boxes in view paint
    // Browsers send at most one scroll event a frame: paint right away.
    this.box.addEventListener('scroll', () => this.paint(), { passive: true });
  }
}

// Layout pixels per scrolled pixel of a virtual ladder showing @sh of them at a time.
Ladder.prototype.ratio = function (sh) {
  const range = this.box.scrollHeight - this.box.clientHeight;
  return range > 0 ? Math.max(0, this.lay.height - sh) / range : this.scale;
};

// The box's visible height: at most 70% of the window.
Ladder.prototype.viewH = function () {
  return Math.min(this.lay.height + LANES_H, Math.max(200, Math.round(window.innerHeight * 0.7)));
};

Ladder.prototype.paint = function () {
  const svg = this.svg;
  const m = this.rows.length;
  let y0 = 0, y1 = this.lay.height, a = 0, b = m;
  if (this.virtual) {
    const h = this.viewH();
    const total = this.lay.height / this.scale;
    this.box.style.height = h + 'px';
    this.spacer.style.height = Math.max(0, total - h) + 'px';
    const sh = h - LANES_H;
    // Linear from the scroll range onto the layout, so that the last rows can be reached too.
    y0 = Math.min(this.box.scrollTop * this.ratio(sh), Math.max(0, this.lay.height - sh));
    y1 = y0 + sh;
    a = Math.max(0, lowerBound(this.lay.top, y0, 0, m + 1) - 1);
    b = Math.min(m, lowerBound(this.lay.top, y1, 0, m + 1) + 1);
    svg.setAttribute('height', sh);
    svg.setAttribute('viewBox', '0 ' + y0 + ' ' + this.width + ' ' + sh);
  } else {
    if (this.painted) return;
    this.box.style.maxHeight = this.viewH() + 'px';
    svg.setAttribute('height', this.lay.height);
  }
  this.painted = true;
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const g = svg.appendChild(sv('g'));
  g.appendChild(sv('line', { class: 'rl-lane', x1: X_L, x2: X_L, y1: y0, y2: y1 }));
  g.appendChild(sv('line', { class: 'rl-lane', x1: this.xR, x2: this.xR, y1: y0, y2: y1 }));
  this.drawSpans(g, a, b);
  for (let j = a; j < b; j++) this.drawRow(g, j);
};

Ladder.prototype.drawSpans = function (g, a, b) {
  const top = this.lay.top, sp = this.spans;
  const first = lowerBound(sp.start, a - sp.longest, 0, sp.length);
  const end = lowerBound(sp.start, b, first, sp.length);
  for (let k = first; k < end; k++) {
    const s = sp[k];
    if (s.b < a || s.a === s.b) continue;
    const x = s.dir ? X_L - 8 : this.xR + 8;
    const ya = top[s.a] + 8, yb = top[s.b] + 18;
    const tick = s.dir ? 4 : -4;
    const p = g.appendChild(sv('path', { class: 'rl-msg',
      d: 'M' + (x + tick) + ',' + ya + 'H' + x + 'V' + yb + 'H' + (x + tick) }));
    p.appendChild(sv('title', {}, 'message ' + s.msg));
  }
};

Ladder.prototype.drawRow = function (g, j) {
  const d = this.d, i = this.rows[j], fl = d.flags[i];
  const y = this.lay.top[j];
  if (this.lay.brk[j]) this.drawBreak(g, y - BREAK_H, d.t[i] - d.t[this.rows[j - 1]]);
  const cls = ['rl-arrow', 'rl-' + KIND[d.kind[i]]];
  if (fl & F.lost) cls.push('rl-lost');
  if (fl & F.bad) cls.push('rl-bad');
  if (fl & F.trouble) cls.push('rl-trouble');
  if (this.state.sel === i) cls.push('rl-sel');
  const a = g.appendChild(sv('g', { class: cls.join(' '), 'data-frame': d.frame[i] }));
  if (!this.virtual) a.setAttribute('id', d.prefix + 'frame-' + d.frame[i]);
  a.appendChild(sv('title', {}, tipText(d, i)));
  a.appendChild(sv('rect', { class: 'rl-hit', x: 0, y: y, width: this.width, height: ROW_H }));
  a.appendChild(sv('text', { class: 'rl-time', x: X_TIME, y: y + 15 }, fmtSec(d.t[i])));
  a.appendChild(sv('text', { class: 'rl-fno', x: X_FRAME, y: y + 15 }, d.frame[i]));
  const ly = y + 16;
  let x1 = d.dir[i] ? X_L : this.xR, x2 = d.dir[i] ? this.xR : X_L;
  if (fl & F.lost) x2 = (x1 + x2) / 2;      // it never arrived
  a.appendChild(sv('line', { class: 'rl-line', x1, x2, y1: ly, y2: ly }));
  const h = x2 > x1 ? -7 : 7;
  if (fl & F.lost) {
    a.appendChild(sv('path', { class: 'rl-x', d: 'M' + (x2 - 4) + ',' + (ly - 4) + 'l8,8m0,-8l-8,8' }));
  } else {
    a.appendChild(sv('path', { class: 'rl-head',
      d: 'M' + x2 + ',' + ly + 'l' + h + ',-4v8z' }));
  }
  a.appendChild(sv('text', { class: 'rl-label', x: (X_L + this.xR) / 2, y: y + 11,
    'text-anchor': 'middle' }, d.label[i]));
  if (d.mark[i]) {
    a.appendChild(sv('text', { class: 'rl-mark', x: this.xR + GAP_R, y: y + 15 }, d.mark[i]));
  }
  if (fl & F.ce) {     // congestion marked on the way: a dot where it rides
    a.appendChild(sv('circle', { class: 'rl-ce', cx: (x1 + x2) / 2, cy: ly, r: 3.5 }))
      .appendChild(sv('title', {}, 'ECN Congestion Experienced'));
  }
};

Ladder.prototype.drawBreak = function (g, y, ns) {
  // A zig-zag across the lanes: this much time is not drawn to scale.
  let p = 'M' + X_L + ',' + (y + 13);
  for (let x = X_L; x < this.xR; x += 12) p += 'l6,-5l6,5';
  const b = g.appendChild(sv('g', { class: 'rl-break' }));
  b.appendChild(sv('path', { d: p }));
  b.appendChild(sv('text', { x: this.xR + GAP_R, y: y + 17 }, '≈ ' + fmtTime(ns)));
};

// Bring row i into view and mark it selected.
Ladder.prototype.reveal = function (i) {
  const j = this.d.pos[i];
  const y = this.lay.top[j];
  this.box.scrollIntoView({ block: 'center' });
  const h = this.box.clientHeight || this.viewH();
  const sh = this.virtual ? h - LANES_H : h;
  this.box.scrollTop = Math.max(0, (y - sh / 2) / (this.virtual ? this.ratio(sh) : 1));
  if (this.virtual) this.paint();
};

function tipText(d, i) {
  let s = 'frame ' + d.frame[i] + ' at ' + fmtSec(d.t[i]) + ' s: ' + KIND_NAME[d.kind[i]] +
    '\n' + d.label[i];
  if (d.mark[i]) s += '\n' + d.mark[i];
  const an = d.words.get(i);
  if (an && an[0]) s += '\n' + an[0];
  if (an && an[1]) s += '\n' + an[1];
  return s + '\n(click for all fields)';
}

// ---- the selected frame's fields ----

function hex(v, w) { return v.toString(16).padStart(w, '0'); }

// IBA's name of opcode op (Table 38), as the summary lists the opcodes seen.
function opName(d, op) {
  for (const o of d.summary.ops || []) if (o[0] === op) return o[1];
  return 'opcode ' + op;
}

function showDetail(d, i) {
  const p = d.panel;
  while (p.firstChild) p.removeChild(p.firstChild);
  p.dataset.frame = String(d.frame[i]);
  p.appendChild(el('h3', '', 'Frame ' + d.frame[i]));
  p.appendChild(el('p', 'rl-d-label', d.label[i]));
  p.appendChild(el('p', 'rl-d-bth', opName(d, d.op[i]) + ' (opcode 0x' + hex(d.op[i], 2) + ') to QP 0x' +
    hex(d.qp[i], 6) + ', PSN ' + d.psn[i]));
  if (d.mark[i]) p.appendChild(el('p', d.flags[i] & F.trouble ? 'rl-d-mark rl-red' : 'rl-d-mark', d.mark[i]));
  const flags = Object.keys(F).filter(k => d.flags[i] & F[k]);
  p.appendChild(el('p', 'rl-d-meta', KIND_NAME[d.kind[i]] + ', ' + fmtSec(d.t[i]) + ' s, ' +
    d.len[i] + ' bytes' + (d.msg[i] ? ', message ' + d.msg[i] : '') +
    (flags.length ? ', flags: ' + flags.join(' ') : '')));
  if (d.ans[i]) {
    const q = p.appendChild(el('p', '', 'answers '));
    q.appendChild(frameLink(d, d.ans[i], 'frame ' + d.ans[i]));
  }
  const got = d.detail[i] ? detailOf(d, i) : null;
  if (!got) {
    p.appendChild(el('p', 'rl-d-none', 'The fields are kept for the first ' +
      d.summary.detail_limit + ' frames only: run rocelab explain -v on the capture and look at frame ' +
      d.frame[i] + '.'));
    return;
  }
  // The analyzer's words first, then the fields in decode order.
  const det = got.obj;
  const keys = Object.keys(det);
  const order = keys.filter(k => k === 'analysis').concat(keys.filter(k => k !== 'analysis'));
  p.appendChild(tree(det, order, 0));
  const raw = p.appendChild(el('details', 'rl-d-raw'));
  raw.appendChild(el('summary', '', 'as rocelab explain --json prints it'));
  // The page keeps < > & escaped so that no text can end its script; explain prints them as they are.
  const plain = got.text.replace(/(?<!\\)((?:\\\\)*)\\u00(3c|3e|26)/g,
    (m, bs, h) => bs + String.fromCharCode(parseInt(h, 16)));
  raw.appendChild(el('pre', '', plain)).id = d.prefix + 'rl-detail-json';
}

function tree(obj, keys, depth) {
  const dl = el('dl', 'rl-tree');
  for (const k of keys) {
    const v = obj[k];
    if (v instanceof Num) {
      dl.appendChild(el('dt', '', k));
      dl.appendChild(el('dd', '', v.text));
    } else if (v !== null && typeof v === 'object') {
      const det = dl.appendChild(el('details'));
      if (depth === 0 && k === 'analysis') det.open = true;
      det.appendChild(el('summary', '', k));
      det.appendChild(tree(v, Object.keys(v), depth + 1));
    } else {
      dl.appendChild(el('dt', '', k));
      dl.appendChild(el('dd', typeof v === 'string' ? 'rl-str' : '', String(v)));
    }
  }
  return dl;
}

function select(d, f) {
  const i = rowOf(d, f);
  if (i < 0) return;
  d.state.sel = i;
  for (const e of d.root.querySelectorAll('.rl-sel')) e.classList.remove('rl-sel');
  const lad = d.ladders[d.sec[i]];
  if (lad) {
    if (!lad.painted || lad.virtual) lad.paint();
    lad.reveal(i);
    const g = lad.svg.querySelector('[data-frame="' + f + '"]');
    if (g) g.classList.add('rl-sel');
  }
  showDetail(d, i);
}

// ---- graphs: PSN over time and throughput, for one flow ----

const GW = 900, GH = 270, PAD_L = 70, PAD_B = 24, PAD_T = 22;

function niceTicks(lo, hi, n, minStep) {
  const span = hi - lo || 1;
  const step0 = Math.max(span / n, minStep || 0);
  const mag = Math.pow(10, Math.floor(Math.log10(step0)));
  const step = [1, 2, 5, 10].map(m => m * mag).find(s => s >= step0);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) out.push(v);
  return out;
}

function Graphs(d, box) {
  this.d = d;
  const flows = d.flows.map((f, id) => ({ f, id })).filter(x => x.f.count > 0);
  const sec = box.appendChild(el('section', 'rl-graphs'));
  sec.appendChild(el('h3', '', 'Flows: PSN over time and throughput'));
  if (!flows.length) { sec.appendChild(el('p', '', 'no request flows')); return; }
  const bar = sec.appendChild(el('div', 'rl-bar'));
  this.pick = bar.appendChild(el('select'));
  flows.forEach(x => {
    const p = d.summary.pairs[x.f.sec - 1] || ['?', '?'];
    const [a, b] = x.f.dir ? p : [p[1], p[0]];
    const o = this.pick.appendChild(el('option', '', '[' + x.f.sec + '] ' + a + ' → ' + b +
      ' QP ' + x.f.qp + ' (' + x.f.count + ' frames)'));
    o.value = x.id;
  });
  const reset = bar.appendChild(el('button', '', 'show all time'));
  bar.appendChild(el('span', 'rl-hint', 'drag across a graph to zoom in, double-click to reset'));
  const lg = bar.appendChild(el('span', 'rl-glegend'));
  [['req', 'request'], ['resent', 'resent'], ['lostp', 'lost'], ['ackl', 'ACK line'],
    ['nakp', 'NAK'], ['cep', 'ECN-CE'], ['cnpp', 'CNP']].forEach(([c, t]) => {
    const k = lg.appendChild(el('span', 'rl-key rl-g-' + c));
    k.appendChild(el('i'));
    k.appendChild(document.createTextNode(t));
  });
  this.psnSvg = sec.appendChild(sv('svg', { class: 'rl-graph', viewBox: '0 0 ' + GW + ' ' + GH, width: GW, height: GH }));
  this.tpSvg = sec.appendChild(sv('svg', { class: 'rl-graph', viewBox: '0 0 ' + GW + ' ' + GH, width: GW, height: GH }));
  this.pick.addEventListener('change', () => this.setFlow(+this.pick.value));
  reset.addEventListener('click', () => this.zoom(null));
  [this.psnSvg, this.tpSvg].forEach(s => this.dragZoom(s));
  this.setFlow(flows[0].id);
}

Graphs.prototype.setFlow = function (id) {
  this.flow = this.d.flows[id];
  this.pick.value = id;
  this.zoom(null);
};

Graphs.prototype.zoom = function (range) {
  const f = this.flow;
  if (range && range[1] - range[0] > 0) this.range = range;
  else {
    const t0 = f.t[0], t1 = f.t[f.count - 1];
    this.range = [t0, t1 > t0 ? t1 : t0 + 1];
  }
  this.draw();
};

Graphs.prototype.xOf = function (t) {
  return PAD_L + (t - this.range[0]) / (this.range[1] - this.range[0]) * (GW - PAD_L - 10);
};

// Select a time range by dragging; the shaded band follows the pointer.
Graphs.prototype.dragZoom = function (svg) {
  let x0 = null, band = null;
  const toX = e => {
    const r = svg.getBoundingClientRect();
    return (e.clientX - r.left) * GW / r.width;
  };
  svg.addEventListener('mousedown', e => {
    x0 = toX(e);
    band = svg.appendChild(sv('rect', { class: 'rl-band', x: x0, y: PAD_T, width: 0, height: GH - PAD_T - PAD_B }));
    e.preventDefault();
  });
  svg.addEventListener('mousemove', e => {
    if (x0 === null) return;
    const x = toX(e);
    band.setAttribute('x', Math.min(x, x0));
    band.setAttribute('width', Math.abs(x - x0));
  });
  const end = e => {
    if (x0 === null) return;
    const x = toX(e);
    const a = Math.min(x, x0), b = Math.max(x, x0);
    x0 = null;
    if (band.parentNode) band.parentNode.removeChild(band);
    if (b - a < 4) return;
    const w = GW - PAD_L - 10, [t0, t1] = this.range;
    this.zoom([t0 + (a - PAD_L) / w * (t1 - t0), t0 + (b - PAD_L) / w * (t1 - t0)]);
  };
  svg.addEventListener('mouseup', end);
  svg.addEventListener('mouseleave', e => { if (x0 !== null) end(e); });
  svg.addEventListener('dblclick', () => this.zoom(null));
};

Graphs.prototype.draw = function () {
  const f = this.flow, d = this.d;
  const a = lowerBound(f.t, this.range[0], 0, f.count);
  const b = upperBound(f.t, this.range[1], a, f.count);
  this.drawPsn(f, d, a, b);
  this.drawThroughput(f, d, a, b);
};

function clear(svg) { while (svg.firstChild) svg.removeChild(svg.firstChild); }

function axes(svg, xr, yr, yfmt, ylabel, xOf, yOf, yInt) {
  const g = svg.appendChild(sv('g', { class: 'rl-axis' }));
  g.appendChild(sv('path', { d: 'M' + PAD_L + ',' + PAD_T + 'V' + (GH - PAD_B) + 'H' + (GW - 10) }));
  niceTicks(xr[0] - xr[0], xr[1] - xr[0], 6).forEach(v => {
    const x = xOf(v + xr[0]);
    g.appendChild(sv('path', { d: 'M' + x + ',' + (GH - PAD_B) + 'v4' }));
    g.appendChild(sv('text', { x, y: GH - 6, 'text-anchor': 'middle' }, '+' + fmtTime(v)));
  });
  niceTicks(yr[0], yr[1], 5, yInt ? 1 : 0).forEach(v => {
    const y = yOf(v);
    g.appendChild(sv('path', { d: 'M' + PAD_L + ',' + y + 'h-4' }));
    g.appendChild(sv('text', { x: PAD_L - 6, y: y + 4, 'text-anchor': 'end' }, yfmt(v)));
  });
  g.appendChild(sv('text', { x: 4, y: 13 }, ylabel));
  g.appendChild(sv('text', { x: GW - 10, y: 13, 'text-anchor': 'end' }, 'from ' + fmtSec(xr[0]) + ' s'));
}

Graphs.prototype.drawPsn = function (f, d, a, b) {
  const svg = this.psnSvg;
  clear(svg);
  let lo = Infinity, hi = -Infinity;
  for (let j = a; j < b; j++) {
    if (d.kind[f.rows[j]] > 3) continue;       // a CNP's PSN says nothing of the flow's
    const v = f.upsn[j];
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (lo === Infinity) { lo = 0; hi = 1; }
  if (hi === lo) { hi += 1; lo -= 1; }
  const pad = (hi - lo) * 0.04;      // keep marks off the axes
  lo -= pad; hi += pad;
  const yOf = v => GH - PAD_B - (v - lo) / (hi - lo) * (GH - PAD_B - PAD_T - 6);
  axes(svg, this.range, [lo, hi], v => String(((v % PSN_MOD) + PSN_MOD) % PSN_MOD), 'PSN',
    t => this.xOf(t), yOf, true);
  const every = b - a <= (GW - PAD_L) * 2;   // few enough to draw one by one
  const paths = { req: '', resent: '', lostp: '', nakp: '', ackl: '' };
  const seen = { req: new Map(), resent: new Map(), lostp: new Map(), nakp: new Map() };
  let ack = '', lastAx = null, lastAy = 0;
  // The line enters the view at the level of the last ACK before it.
  for (let j = a - 1; j >= 0 && j > a - 10000; j--) {
    const i = f.rows[j];
    if ((d.kind[i] === 1 || d.kind[i] === 2) && d.flags[i] & F.acks) {
      const v = Math.max(lo, f.upsn[j]);
      ack = 'M' + PAD_L + ',' + yOf(v).toFixed(1);
      lastAx = PAD_L; lastAy = yOf(v).toFixed(1);
      break;
    }
  }
  for (let j = a; j < b; j++) {
    const i = f.rows[j], k = d.kind[i], fl = d.flags[i];
    const x = this.xOf(f.t[j]), y = yOf(f.upsn[j]);
    let s = null;
    if (k === 0) s = fl & F.lost ? 'lostp' : fl & (F.resent | F.dup) ? 'resent' : 'req';
    else if (k === 3) s = 'nakp';
    if (s) {
      const x0 = (x - 2.5).toFixed(1), y0 = (y - 2.5).toFixed(1);
      if (!every) colMinMax(seen[s], x, y);
      else if (k === 3) paths[s] += 'M' + x0 + ',' + y0 + 'l5,5m0,-5l-5,5';   // a NAK: a cross
      else paths[s] += 'M' + x0 + ',' + y0 + 'h5v5h-5z';
    }
    if ((k === 1 || k === 2) && fl & F.acks) {
      // a step: the acknowledged PSN holds until the next ACK moves it
      const xs = x.toFixed(1), ys = y.toFixed(1);
      if (lastAx === null) ack += 'M' + xs + ',' + ys;
      else if (every || Math.abs(x - lastAx) >= 0.5 || ys !== lastAy) ack += 'H' + xs + 'V' + ys;
      lastAx = x; lastAy = ys;
    }
  }
  if (!every) for (const s in seen) paths[s] = colPath(seen[s]);
  if (lastAx !== null) ack += 'H' + (GW - 10);
  svg.appendChild(sv('path', { class: 'rl-g-ackl', d: ack || 'M0,0' }));
  // Resends last, on top: they are what go-back-N looks like.
  ['nakp', 'req', 'lostp', 'resent'].forEach(s => {
    if (!paths[s]) return;
    const p = svg.appendChild(sv('path', { class: 'rl-g-' + s, d: paths[s] }));
    if (!every) p.setAttribute('stroke-width', '1');
  });
  svg.appendChild(sv('text', { class: 'rl-g-note', x: GW - 10, y: GH - PAD_B - 6, 'text-anchor': 'end' },
    (b - a) + ' frames in view' + (every ? '' : ', drawn per pixel column')));
};

function colMinMax(map, x, y) {
  const c = Math.round(x);
  const m = map.get(c);
  if (!m) map.set(c, [y, y]);
  else { if (y < m[0]) m[0] = y; if (y > m[1]) m[1] = y; }
}

function colPath(map) {
  let p = '';
  map.forEach((m, c) => { p += 'M' + (c - 1) + ',' + (m[0] - 1).toFixed(1) + 'h2V' + (m[1] + 1).toFixed(1) + 'h-2z'; });
  return p;
}

// The median time between the data packets of flow f's rows a..b (at most 2000 gaps sampled); 0 if none.
function medianGap(f, d, a, b) {
  const gaps = [];
  const step = Math.max(1, Math.floor((b - a) / 2000));
  let last = -1;
  for (let j = a; j < b; j += step) {
    const k = d.kind[f.rows[j]];
    if (k !== 0 && k !== 1) continue;
    if (last >= 0 && f.t[j] > f.t[last]) gaps.push((f.t[j] - f.t[last]) / (j - last));
    last = j;
  }
  gaps.sort((x, y) => x - y);
  return gaps.length ? gaps[gaps.length >> 1] : 0;
}

Graphs.prototype.drawThroughput = function (f, d, a, b) {
  const svg = this.tpSvg;
  clear(svg);
  const [t0, t1] = this.range;
  // A bin spans a few packets' spacing at least: a rate is bytes over time, not one packet in its own slot.
  const gap = medianGap(f, d, a, b);
  let nb = Math.max(10, Math.min(200, Math.floor((GW - PAD_L) / 4)));
  if (gap > 0) nb = Math.max(1, Math.min(nb, Math.floor((t1 - t0) / (4 * gap))));
  const binNs = (t1 - t0) / nb || 1;
  const bytes = new Float64Array(nb);
  const ce = new Uint8Array(GW), cnp = new Uint8Array(GW);
  for (let j = a; j < b; j++) {
    const i = f.rows[j], k = d.kind[i];
    if (k === 0 || k === 1) bytes[Math.min(nb - 1, Math.floor((f.t[j] - t0) / binNs))] += d.len[i];
    const x = Math.round(this.xOf(f.t[j]));
    if (d.flags[i] & F.ce) ce[x] = 1;
    if (k === 4) cnp[x] = 1;
  }
  let max = 0;
  for (let q = 0; q < nb; q++) max = Math.max(max, bytes[q] * 8 / binNs);   // Gbit/s
  if (!max) max = 1;
  const yOf = v => GH - PAD_B - v / max * (GH - PAD_B - PAD_T - 14);
  axes(svg, this.range, [0, max], v => v.toPrecision(3), 'Gbit/s (' + fmtTime(binNs) + ' bins)',
    t => this.xOf(t), yOf);
  let p = '';
  const bw = (GW - PAD_L - 10) / nb;
  for (let q = 0; q < nb; q++) {
    if (!bytes[q]) continue;
    const y = yOf(bytes[q] * 8 / binNs);
    p += 'M' + (PAD_L + q * bw).toFixed(1) + ',' + (GH - PAD_B) + 'V' + y.toFixed(1) + 'h' + bw.toFixed(1) + 'V' + (GH - PAD_B);
  }
  svg.appendChild(sv('path', { class: 'rl-g-tp', d: p || 'M0,0' }));
  drawMarkColumns(svg, ce, cnp);
};

// ECN-CE ticks along the top and CNP triangles along the bottom of svg, at the pixel columns
// whose ce[x] and cnp[x] are set.
function drawMarkColumns(svg, ce, cnp) {
  let pc = '', pn = '';
  for (let x = 0; x < ce.length; x++) {
    if (ce[x]) pc += 'M' + x + ',' + (PAD_T - 2) + 'v8';
    if (cnp[x]) pn += 'M' + x + ',' + (GH - PAD_B) + 'l-4,8h8z';
  }
  if (pc) svg.appendChild(sv('path', { class: 'rl-g-cep', d: pc }));
  if (pn) svg.appendChild(sv('path', { class: 'rl-g-cnpp', d: pn }));
}

// ---- congestion: every flow's rate on one time axis, CE marks, CNPs, the switch queue ----

const RATE_FLOWS = 8;       // lines drawn at most: the flows with the most bytes, one colour each
const RATE_BINS = 150;      // bins across the view, fewer when packets are sparse

// Whether the Congestion section has something to add to the flow graphs: a switch queue's
// depth, or several flows with an ECN-CE mark or a CNP among them.
function congested(d) {
  if (d.nDepth) return true;
  if (d.flows.filter(f => f.count > 0).length < 2) return false;
  for (let i = 0; i < d.n; i++) if (d.kind[i] === 4 || d.flags[i] & F.ce) return true;
  return false;
}

// The data rows of flow f (requests and responses carrying data) that crossed the wire.
function isCarried(d, i) {
  return (d.kind[i] === 0 || d.kind[i] === 1) && !(d.flags[i] & F.lost);
}

function Congestion(d, box) {
  this.d = d;
  const bytesOf = f => { let b = 0; for (let j = 0; j < f.count; j++) if (isCarried(d, f.rows[j])) b += d.len[f.rows[j]]; return b; };
  const flows = d.flows.map(f => ({ f, bytes: bytesOf(f) })).filter(x => x.bytes > 0);
  flows.sort((x, y) => y.bytes - x.bytes);
  this.flows = flows.slice(0, RATE_FLOWS).map(x => x.f);
  const sec = box.appendChild(el('section', 'rl-graphs rl-cong'));
  sec.appendChild(el('h3', '', 'Congestion: every flow\'s rate, ECN-CE marks and CNPs' +
    (d.nDepth ? ', the switch queue' : '')));
  const bar = sec.appendChild(el('div', 'rl-bar'));
  const reset = bar.appendChild(el('button', '', 'show all time'));
  bar.appendChild(el('span', 'rl-hint', 'drag across a graph to zoom both in, double-click to reset'));
  const lg = bar.appendChild(el('span', 'rl-glegend rl-rate-legend'));
  this.flows.forEach((f, c) => {
    const p = d.summary.pairs[f.sec - 1] || ['?', '?'];
    const [a, b] = f.dir ? p : [p[1], p[0]];
    const k = lg.appendChild(el('span', 'rl-key rl-c' + c));
    k.appendChild(el('i'));
    k.appendChild(document.createTextNode('QP ' + f.qp + ' (' + a + ' → ' + b + ')'));
  });
  [['cep', 'ECN-CE'], ['cnpp', 'CNP']].forEach(([c, t]) => {
    const k = lg.appendChild(el('span', 'rl-key rl-g-' + c));
    k.appendChild(el('i'));
    k.appendChild(document.createTextNode(t));
  });
  if (flows.length > RATE_FLOWS)
    sec.appendChild(el('p', 'rl-hint', (flows.length - RATE_FLOWS) + ' flows with fewer bytes are not drawn'));
  this.rateSvg = sec.appendChild(sv('svg', { class: 'rl-graph rl-rates', viewBox: '0 0 ' + GW + ' ' + GH, width: GW, height: GH }));
  this.svgs = [this.rateSvg];
  if (d.nDepth) {
    this.depthSvg = sec.appendChild(sv('svg', { class: 'rl-graph rl-depth', viewBox: '0 0 ' + GW + ' ' + GH, width: GW, height: GH }));
    this.svgs.push(this.depthSvg);
  }
  reset.addEventListener('click', () => this.zoom(null));
  this.svgs.forEach(s => this.dragZoom(s));
  this.zoom(null);
}

Congestion.prototype.xOf = Graphs.prototype.xOf;
Congestion.prototype.dragZoom = Graphs.prototype.dragZoom;

Congestion.prototype.zoom = function (range) {
  const d = this.d;
  if (range && range[1] - range[0] > 0) this.range = range;
  else this.range = [d.t[0], d.t[d.n - 1] > d.t[0] ? d.t[d.n - 1] : d.t[0] + 1];
  this.drawRates();
  if (this.depthSvg) this.drawDepth();
};

// Every drawn flow's bytes per bin (Gbit/s: bits per nanosecond), steps in its colour; the
// bins and bytes stay on the elements (data-t0, data-bin-ns, data-bytes) for tests and readers.
Congestion.prototype.drawRates = function () {
  const d = this.d, svg = this.rateSvg, [t0, t1] = this.range;
  clear(svg);
  let nb = RATE_BINS;
  this.flows.forEach(f => {
    const a = lowerBound(f.t, t0, 0, f.count), b = upperBound(f.t, t1, a, f.count);
    const gap = medianGap(f, d, a, b);
    if (gap > 0) nb = Math.min(nb, Math.max(1, Math.floor((t1 - t0) / (4 * gap))));
  });
  const binNs = (t1 - t0) / nb;
  const bytes = this.flows.map(f => {
    const v = new Float64Array(nb);
    const a = lowerBound(f.t, t0, 0, f.count), b = upperBound(f.t, t1, a, f.count);
    for (let j = a; j < b; j++)
      if (isCarried(d, f.rows[j])) v[Math.min(nb - 1, Math.floor((f.t[j] - t0) / binNs))] += d.len[f.rows[j]];
    return v;
  });
  let max = 0;
  bytes.forEach(v => v.forEach(x => { max = Math.max(max, x * 8 / binNs); }));
  if (!max) max = 1;
  const yOf = v => GH - PAD_B - v / max * (GH - PAD_B - PAD_T - 14);
  axes(svg, this.range, [0, max], v => v.toPrecision(3), 'IB payload, Gbit/s per flow (' + fmtTime(binNs) + ' bins)',
    t => this.xOf(t), yOf);
  svg.setAttribute('data-t0', t0);
  svg.setAttribute('data-bin-ns', binNs);
  const bw = (GW - PAD_L - 10) / nb;
  bytes.forEach((v, c) => {
    const f = this.flows[c];
    let p = 'M' + PAD_L + ',' + yOf(v[0] * 8 / binNs).toFixed(1);
    for (let q = 0; q < nb; q++) p += 'V' + yOf(v[q] * 8 / binNs).toFixed(1) + 'H' + (PAD_L + (q + 1) * bw).toFixed(1);
    svg.appendChild(sv('path', { class: 'rl-rate rl-c' + c, d: p, 'data-sec': f.sec, 'data-dir': f.dir,
      'data-qp': f.qp, 'data-bytes': Array.from(v).join(' ') }));
  });
  this.drawMarks(svg);
};

// ECN-CE marks along the top, CNPs along the bottom, one per pixel column.
Congestion.prototype.drawMarks = function (svg) {
  const d = this.d, [t0, t1] = this.range;
  const a = lowerBound(d.t, t0, 0, d.n), b = upperBound(d.t, t1, a, d.n);
  const ce = new Uint8Array(GW + 1), cnp = new Uint8Array(GW + 1);
  for (let i = a; i < b; i++) {
    const x = Math.round(this.xOf(d.t[i]));
    if (d.flags[i] & F.ce) ce[x] = 1;
    if (d.kind[i] === 4) cnp[x] = 1;
  }
  drawMarkColumns(svg, ce, cnp);
};

// The bytes queued ahead of each frame that passed the switch, as its pcapng comment says:
// per pixel column the shallowest and deepest, joined. data-max: the deepest in view.
Congestion.prototype.drawDepth = function () {
  const d = this.d, svg = this.depthSvg, [t0, t1] = this.range;
  clear(svg);
  const a = lowerBound(d.t, t0, 0, d.n), b = upperBound(d.t, t1, a, d.n);
  const cols = new Map();
  let max = 0;
  for (let i = a; i < b; i++) {
    if (d.depth[i] < 0) continue;
    max = Math.max(max, d.depth[i]);
    colMinMax(cols, this.xOf(d.t[i]), d.depth[i]);
  }
  svg.setAttribute('data-max', max);
  const top = max || 1;
  const yOf = v => GH - PAD_B - v / top * (GH - PAD_B - PAD_T - 14);
  axes(svg, this.range, [0, top / 1024], v => v.toPrecision(3), 'switch queue, KB (1024 bytes)',
    t => this.xOf(t), v => yOf(v * 1024));
  let p = '';
  cols.forEach((m, c) => {
    p += (p ? 'L' : 'M') + c + ',' + yOf(m[0]).toFixed(1);
    if (m[1] !== m[0]) p += 'V' + yOf(m[1]).toFixed(1);
  });
  svg.appendChild(sv('path', { class: 'rl-qdepth', d: p || 'M0,0' }));
  this.drawMarks(svg);
};

// ---- one capture, and the page ----

function drawCapture(d, root) {
  d.root = root;
  d.state = { sel: -1 };
  drawSummary(d, root);
  drawLegend(root);
  const body = root.appendChild(el('div', 'rl-body'));
  const main = body.appendChild(el('div', 'rl-ladders'));
  d.panel = body.appendChild(el('aside', 'rl-detail'));
  d.panel.id = d.prefix + 'rl-detail';
  d.panel.appendChild(el('p', 'rl-hint', 'Click an arrow (or a finding) to see its fields and what the analyzer says of it.'));
  drawSections(d, main, d.state);
  d.graphs = new Graphs(d, root);
  if (congested(d)) d.congestion = new Congestion(d, root);
  root.addEventListener('click', e => {
    const g = e.target.closest('.rl-arrow');
    if (!g) return;
    const f = +g.getAttribute('data-frame');
    const h = '#' + d.prefix + 'frame-' + f;
    if (location.hash === h) select(d, f); else location.hash = h;
  });
}

function fromHash(caps) {
  const m = /^#(b-)?frame-(\d+)$/.exec(location.hash);
  if (!m) return;
  const d = caps[m[1] ? 1 : 0];
  if (d) select(d, +m[2]);
}

function main() {
  const app = document.getElementById('rl-app');
  if (!app) return;
  const caps = [loadCapture('')];
  if (app.classList.contains('rl-compare')) caps.push(loadCapture('-b'));
  caps.forEach(d => {
    if (!d) return;
    const root = app.appendChild(el('div', 'rl-cap'));
    drawCapture(d, root);
  });
  window.addEventListener('hashchange', () => fromHash(caps));
  fromHash(caps);
  document.documentElement.dataset.rlReady = '1';   // drawn: what tests/report waits for
}

main();
})();
