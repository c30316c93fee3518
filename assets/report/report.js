// ftl's explorable report: inflates the page's data block, then draws the timeline (Canvas 2D, culled per lane
// and merged per pixel, no frame left out of the data), the overview strip and the panels, and keeps the view in
// the URL fragment. Plain ES2017: no modules, workers or network. `#selftest` drives the page with DOM events and
// writes the result into <pre id="selftest">.
(function () {
  'use strict';

  const errors = [];
  const blocked = [];
  window.addEventListener('error', function (e) { errors.push(String(e.message)); });
  window.addEventListener('unhandledrejection', function (e) { errors.push(String(e.reason)); });
  document.addEventListener('securitypolicyviolation', function (e) {
    blocked.push(e.violatedDirective + ' ' + e.blockedURI);
  });

  // Flag bits of the frame columns (see src/output/html/trace_data.rs).
  const ON_TIME_FINISH = 1, GPU_COMPOSITION = 2, DROPPED = 4, JANKY = 8;
  const LABEL_W = 230;     // px of lane labels left of the plot
  const LANE_H = 18;       // px of a lane
  const STATE_H = 5;       // px of the thread-state band under a UI / RenderThread lane
  const AXIS_H = 18;       // px of the time axis
  const GAP = 6;           // px between groups

  const $ = function (id) { return document.getElementById(id); };
  const el = function (tag, attrs, text) {
    const e = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  };

  async function load() {
    const text = $('ftl-data').textContent.trim();
    const bin = atob(text);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return JSON.parse(await new Response(stream).text());
  }

  // ---- formatting -------------------------------------------------------------------------------------------
  const ms = function (ns, digits) {
    if (ns === null || ns === undefined) return '–';
    return (ns / 1e6).toFixed(digits === undefined ? 2 : digits) + ' ms';
  };
  const pct = function (v) { return v === null || v === undefined ? '–' : v.toFixed(1) + ' %'; };
  const yes = function (b) { return b ? 'yes' : 'no'; };
  function shortLayer(name) {
    // "TX - com.app/com.app.MainActivity#7" → "com.app/…MainActivity#7"
    let s = name.replace(/^TX - /, '');
    const m = s.match(/^([^/]+)\/(.+)$/);
    if (m && m[2].indexOf(m[1]) === 0) s = m[1] + '/…' + m[2].slice(m[1].length);
    return s;
  }

  // ---- the model --------------------------------------------------------------------------------------------
  let D, F, n, S;           // data, frame columns, frame count, strings
  let lanesAll = [];        // every lane, grouped
  let view = { t0: 0, t1: 1 }, full = { t0: 0, t1: 1 };
  const filter = { pid: '', layer: '', jank: '', janky: false };
  let pass;                 // Uint8Array: frame i passes the filters
  let highlight = null;     // function(i) → bool for frames highlighted from a panel
  let hovered = null, pinned = null;
  let mouse = { x: -1, y: -1 };
  let stats = { frames: 0 };
  let layout = [];          // drawn lanes with y
  let firstPaint = null;

  function frameEnd(i) { return F.actual_start[i] + Math.max(F.dur[i], 0); }

  // A lane: its items (frame or DisplayFrame indexes) sorted by start, their bounds and colours.
  function makeLane(kind, label, idx, start, end, colour, extra) {
    idx.sort(function (a, b) { return start(a) - start(b); });
    const st = new Float64Array(idx.length), en = new Float64Array(idx.length);
    let maxDur = 0;
    for (let k = 0; k < idx.length; k++) {
      st[k] = start(idx[k]); en[k] = Math.max(end(idx[k]), st[k]);
      maxDur = Math.max(maxDur, en[k] - st[k]);
    }
    const lane = Object.assign({ kind: kind, label: label, idx: Int32Array.from(idx), st: st, en: en, maxDur: maxDur,
      colour: colour, row: function () { return 0; } }, extra || {});
    lane.rows = 1;
    for (let k = 0; k < idx.length; k++) lane.rows = Math.max(lane.rows, lane.row(idx[k]) + 1);
    return lane;
  }

  function buildLanes() {
    const byLayer = D.layers.map(function () { return []; });
    for (let i = 0; i < n; i++) byLayer[F.layer[i]].push(i);
    const statesBy = {};
    const T = D.states;
    for (let k = 0; k < T.frame.length; k++) {
      const key = F.layer[T.frame[k]] + ':' + T.thread[k];
      (statesBy[key] = statesBy[key] || []).push(k);
    }
    lanesAll = [];
    D.layers.forEach(function (L, li) {
      const frames = byLayer[li];
      const group = { layer: li, pid: L.pid, lanes: [] };
      const name = shortLayer(L.layer_name);
      group.lanes.push(makeLane('expected', name + ' expected', frames.filter(function (i) {
        return F.expected_start[i] !== null;
      }), function (i) { return F.expected_start[i]; },
      function (i) { return F.expected_start[i] + F.expected_dur[i]; }, function () { return 0; }));
      group.lanes.push(makeLane('actual', name + (D.kind === 'capture' ? ' frames' : ' actual'), frames.slice(), function (i) { return F.actual_start[i]; },
        frameEnd, function (i) { return F.colour[i]; }, { row: function (i) { return F.row[i]; } }));
      const ui = frames.filter(function (i) { return F.ui_start[i] !== null; });
      const rt = frames.filter(function (i) { return F.rt_start[i] !== null; });
      const stageColour = stageColours();
      if (ui.length) {
        group.lanes.push(makeLane('ui', 'UI thread (doFrame)', ui, function (i) { return F.ui_start[i]; },
          function (i) { return F.ui_start[i] + (F.ui_dur[i] === null ? 0 : F.ui_dur[i]); }, stageColour,
          { states: stateLane(statesBy[li + ':0']), row: function (i) { return F.ui_row[i]; } }));
      }
      if (rt.length) {
        group.lanes.push(makeLane('rt', 'RenderThread (DrawFrame)', rt, function (i) { return F.rt_start[i]; },
          function (i) { return F.rt_end[i] === null ? F.rt_start[i] : F.rt_end[i]; }, stageColour,
          { states: stateLane(statesBy[li + ':1']), row: function (i) { return F.rt_row[i]; } }));
      }
        group.lanes = group.lanes.filter(function (l) { return l.idx.length > 0; });
      if (group.lanes.length) lanesAll.push(group);
    });
    const G = D.display_frames;
    if (G.actual_start.length) {
      const all = G.actual_start.map(function (_, i) { return i; });
      const group = { layer: -1, pid: null, lanes: [] };
      group.lanes.push(makeLane('df-expected', 'SurfaceFlinger expected', all.filter(function (i) {
        return G.expected_start[i] !== null;
      }), function (i) { return G.expected_start[i]; },
      function (i) { return G.expected_start[i] + G.expected_dur[i]; }, function () { return 0; }));
      group.lanes.push(makeLane('df-actual', 'SurfaceFlinger DisplayFrames', all.slice(),
        function (i) { return G.actual_start[i]; },
        function (i) { return G.present[i] === null ? G.actual_start[i] : G.present[i]; },
        function (i) { return G.colour[i]; }));
      lanesAll.push(group);
    }
  }

  function stateLane(list) {
    if (!list || !list.length) return null;
    const T = D.states;
    return makeLane('states', '', list, function (k) { return T.start[k]; }, function (k) { return T.end[k]; },
      function (k) { return T.colour[k]; }, { frameOf: function (k) { return T.frame[k]; } });
  }

  let stageIndex = null;
  function stageColours() {
    if (!stageIndex) {
      // Stage string → palette index, in stage_legend order (its first entry is "on time").
      stageIndex = {};
      const names = ['ui_thread', 'render_thread', 'gpu', 'app', 'surfaceflinger', 'stuffing'];
      names.forEach(function (s, k) { stageIndex[s] = D.stage_legend[k + 1][1]; });
    }
    return function (i) {
      const s = F.late_stage[i];
      return s === null ? D.stage_legend[0][1] : stageIndex[S[s]];
    };
  }

  function computePass() {
    pass = new Uint8Array(n);
    const jank = filter.jank === '' ? -1 : Number(filter.jank);
    for (let i = 0; i < n; i++) {
      const L = D.layers[F.layer[i]];
      let ok = (filter.pid === '' || String(L.pid) === filter.pid) &&
        (filter.layer === '' || String(F.layer[i]) === filter.layer) &&
        (jank < 0 || F.jank_type[i] === jank) && (!filter.janky || (F.flags[i] & JANKY));
      pass[i] = ok ? 1 : 0;
    }
  }

  function groupShown(g) {
    if (g.layer < 0) return filter.layer === '';
    const L = D.layers[g.layer];
    return (filter.pid === '' || String(L.pid) === filter.pid) &&
      (filter.layer === '' || String(g.layer) === filter.layer);
  }

  // ---- the timeline -----------------------------------------------------------------------------------------
  const tl = $('timeline');
  let ctx;

  // A canvas sized to its CSS width and `cssH` at the device's pixel ratio; resized only when that changes.
  function sizeCanvas(canvas, cssH) {
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth || 1200;
    const c = canvas.getContext('2d');
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(cssH * dpr)) {
      canvas.style.height = cssH + 'px';
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(cssH * dpr);
    }
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    return { c: c, w: w, h: cssH };
  }

  // The plot's width and the view's scale, fixed for one render (reading the layout per item is slow).
  let plotWidth = 1000, kx = 1e-6;
  function plotW() { return plotWidth; }
  function measure() {
    plotWidth = Math.max(50, tl.clientWidth - LABEL_W);
    kx = plotWidth / (view.t1 - view.t0);
  }
  function xOf(t) { return LABEL_W + (t - view.t0) * kx; }
  function tOf(x) { return view.t0 + (x - LABEL_W) / kx; }

  function laneHeight(lane) { return LANE_H + (lane.states ? STATE_H + 1 : 0); }

  function render() {
    measure();
    layout = [];
    let h = AXIS_H;
    lanesAll.forEach(function (g) {
      if (!groupShown(g)) return;
      g.lanes.forEach(function (lane) { layout.push({ lane: lane, group: g, y: h }); h += laneHeight(lane); });
      h += GAP;
    });
    const s = sizeCanvas(tl, Math.max(h, 60));
    ctx = s.c;
    const W = s.w;
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, W, s.h);
    drawGrid(s.h);
    stats = { frames: 0 };
    layout.forEach(function (row) { drawLane(row); });
    drawAxis(W);
    // Labels over everything left of the plot.
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, AXIS_H, LABEL_W - 2, s.h - AXIS_H);
    ctx.fillStyle = '#1f2328';
    ctx.font = '11px system-ui, "DejaVu Sans", sans-serif';
    ctx.textBaseline = 'middle';
    layout.forEach(function (row) {
      let text = row.lane.label;
      while (text.length > 4 && ctx.measureText(text).width > LABEL_W - 8) text = '…' + text.slice(2);
      ctx.fillText(text, 4, row.y + LANE_H / 2);
    });
    drawOverview();
    if (D.kind === 'capture') drawFrameTimes();
    writeHash();
    if (firstPaint === null) firstPaint = performance.now();
  }

  function drawGrid(h) {
    const pxPerNs = plotW() / (view.t1 - view.t0);
    ctx.strokeStyle = '#eef1f4';
    ctx.lineWidth = 1;
    ctx.beginPath();
    D.vsync.forEach(function (w, k) {
      const period = w[2];
      if (period <= 0 || period * pxPerNs < 3) return;
      const from = k === 0 ? view.t0 : Math.max(w[0], view.t0);
      const next = D.vsync[k + 1];
      const to = next ? Math.min(next[0], view.t1) : view.t1;
      let t = w[1] + Math.floor((from - w[1]) / period) * period;
      for (; t <= to; t += period) {
        if (t < from) continue;
        const x = Math.round(xOf(t)) + 0.5;
        ctx.moveTo(x, AXIS_H); ctx.lineTo(x, h);
      }
    });
    ctx.stroke();
  }

  function niceStep(span, px) {
    const raw = span / Math.max(1, px / 110);
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    const m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
  }

  function drawAxis(W) {
    ctx.fillStyle = '#f6f8fa';
    ctx.fillRect(LABEL_W, 0, W - LABEL_W, AXIS_H);
    const step = niceStep(view.t1 - view.t0, plotW());
    ctx.fillStyle = '#59636e';
    ctx.font = '10px system-ui, "DejaVu Sans", sans-serif';
    ctx.textBaseline = 'middle';
    for (let t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
      const x = xOf(t);
      ctx.fillRect(Math.round(x), AXIS_H - 5, 1, 5);
      const digits = step >= 1e6 ? 0 : step >= 1e5 ? 1 : step >= 1e4 ? 2 : 3;
      ctx.fillText((t / 1e6).toFixed(digits) + ' ms', x + 3, AXIS_H / 2);
    }
  }

  // Index of the first item of `lane` that can reach t (start ≥ t − maxDur).
  function firstFrom(lane, t) {
    let lo = 0, hi = lane.st.length;
    const from = t - lane.maxDur;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (lane.st[mid] < from) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  function isFrameLane(lane) { return lane.kind === 'actual' || lane.kind === 'expected' || lane.kind === 'ui' || lane.kind === 'rt'; }

  // The items of `lane` in view into the band [top, top + height) split in its sub-rows, each at least 1 px
  // (janky 2 px) wide. Items narrower than a pixel share it: one rectangle per pixel and sub-row, in the colour of
  // a janky one if any (levels of detail are drawing: every frame stays in the data). `shown(i)`: the filters;
  // `flags`: the janky bits (none for thread states); `each(k)`: called for every item drawn.
  function drawItems(lane, top, height, shown, flags, each) {
    const rows = lane.rows, rh = height / rows, gap = rows > 1 ? 1 : 0;
    // Per sub-row, the pixel waiting to be drawn: its x, colour and whether a janky item is in it.
    const pendPx = new Float64Array(rows).fill(-1), pendColour = new Int32Array(rows), pendJanky = new Uint8Array(rows);
    let style = -1;
    const fill = function (colour, x, w, r) {
      if (colour !== style) { ctx.fillStyle = D.palette[colour]; style = colour; }
      ctx.fillRect(x, top + r * rh, w, rh - gap);
    };
    const flush = function (r) {
      if (pendPx[r] >= 0) fill(pendColour[r], pendPx[r], pendJanky[r] ? 2 : 1, r);
      pendPx[r] = -1;
    };
    const t0 = view.t0, t1 = view.t1, st = lane.st, en = lane.en, idx = lane.idx;
    for (let k = firstFrom(lane, t0); k < st.length && st[k] <= t1; k++) {
      if (en[k] < t0) continue;
      const i = idx[k];
      if (!shown(i)) continue;
      const janky = flags !== null && (flags[i] & JANKY) !== 0;
      each(k);
      const x0 = LABEL_W + (st[k] - t0) * kx, x1 = LABEL_W + (en[k] - t0) * kx;
      const r = rows > 1 ? lane.row(i) : 0;
      const colour = lane.colour(i);
      if (x1 - x0 < (janky ? 2 : 1)) {
        const px = Math.floor(x0);
        if (px === pendPx[r]) {
          if (janky && !pendJanky[r]) { pendColour[r] = colour; pendJanky[r] = 1; }
          continue;
        }
        flush(r);
        pendPx[r] = px; pendColour[r] = colour; pendJanky[r] = janky ? 1 : 0;
        continue;
      }
      flush(r);
      const left = Math.max(x0, LABEL_W - 1);
      fill(colour, left, Math.max(x1 - left - (x1 - left > 3 ? 1 : 0), 1), r);
    }
    for (let r = 0; r < rows; r++) flush(r);
  }

  // One lane with its thread-state band, present ticks, causes and outlines. The actual lanes count the frames
  // drawn; a late frame's cause is written on its actual slice where the slice is wide enough to hold it.
  function drawLane(row) {
    const lane = row.lane, y = row.y;
    const frames = isFrameLane(lane);
    const actual = lane.kind === 'actual';
    const hl = [], labelled = [];
    const minLabelNs = 24 / kx;
    drawItems(lane, y + 1, LANE_H - 2, frames ? function (i) { return pass[i] === 1; } : function () { return true; },
      frames ? F.flags : D.display_frames.flags, function (k) {
        if (!frames) return;
        const i = lane.idx[k];
        if (actual) {
          stats.frames++;
          if (D.kind === 'trace' && F.cause[i] !== null && lane.en[k] - lane.st[k] >= minLabelNs) labelled.push(k);
        }
        if (highlight && highlight(i)) hl.push(k);
      });
    if (lane.states) {
      drawItems(lane.states, y + LANE_H, STATE_H, function (k) { return pass[lane.states.frameOf(k)] === 1; }, null,
        function () {});
    }
    if (actual) {
      drawCauses(lane, labelled, y);
      drawPresents(lane, y);
    }
    ctx.strokeStyle = '#1f2328';
    ctx.lineWidth = 1.5;
    hl.forEach(function (k) { outline(lane, k, y); });
    const sel = [hovered, pinned];
    sel.forEach(function (h) {
      if (!h || h.lane !== lane) return;
      ctx.strokeStyle = h === pinned ? '#0969da' : '#000';
      ctx.lineWidth = 2;
      outline(lane, h.k, y);
    });
  }

  // The causes of `items` (late frames of actual `lane` at least 24 px wide) on their slices, where they fit.
  function drawCauses(lane, items, y) {
    const rh = (LANE_H - 2) / lane.rows;
    if (rh < 9 || !items.length) return;
    ctx.font = '10px system-ui, "DejaVu Sans", sans-serif';
    ctx.textBaseline = 'middle';
    ctx.fillStyle = '#000';
    items.forEach(function (k) {
      const i = lane.idx[k];
      const x0 = Math.max(xOf(lane.st[k]), LABEL_W), x1 = xOf(lane.en[k]);
      const text = S[F.cause[i]];
      if (x1 - x0 < ctx.measureText(text).width + 6) return;
      ctx.fillText(text, x0 + 3, y + 1 + lane.row(i) * rh + rh / 2);
    });
  }

  function outline(lane, k, y) {
    const rh = (LANE_H - 2) / lane.rows, r = lane.row(lane.idx[k]);
    const x0 = xOf(lane.st[k]), x1 = Math.max(xOf(lane.en[k]), x0 + 2);
    ctx.strokeRect(x0, y + 1 + r * rh, x1 - x0, rh);
  }

  function drawPresents(lane, y) {
    // Ticks only where presents a vsync apart stand at least 3 px apart: at coarser zoom they would be a bar.
    if ((D.facts.vsync_period_ns || 16666667) * kx < 3) return;
    ctx.fillStyle = '#1f2328';
    let lastPx = -1;
    // Presents follow the frames' order closely; each is drawn as a tick at the lane's bottom.
    for (let k = firstFrom(lane, view.t0 - 1e9); k < lane.st.length && lane.st[k] <= view.t1; k++) {
      const i = lane.idx[k];
      const p = F.present[i];
      if (p === null || (F.flags[i] & DROPPED) || !pass[i] || p < view.t0 || p > view.t1) continue;
      const px = Math.round(xOf(p));
      if (px === lastPx) continue;
      lastPx = px;
      ctx.fillRect(px, y + LANE_H - 3, 1, 3);
    }
  }

  // ---- a capture's frame times over the timeline's view -----------------------------------------------------
  // Each present's interval from the previous present at its present time, ms, with guides at 1, 2 and 3 vsync
  // periods; per pixel column the longest interval is drawn, in its mark's colour.
  function drawFrameTimes() {
    const panel = $('frametimes-panel');
    panel.hidden = false;
    const s = sizeCanvas($('frametimes'), 160), c = s.c, W = s.w, H = s.h;
    c.fillStyle = '#fff'; c.fillRect(0, 0, W, H);
    const period = D.facts.vsync_period_ns || 16666667;
    const cols = Math.max(1, Math.floor(W - LABEL_W));
    const best = new Float64Array(cols).fill(-1), colour = new Int32Array(cols);
    let top = 4 * period;
    for (let i = 0; i < n; i++) {
      const p = F.present[i];
      if (p === null || !pass[i] || p < view.t0 || p > view.t1 || F.dur[i] <= 0) continue;
      const x = Math.floor((p - view.t0) * kx);
      if (x < 0 || x >= cols) continue;
      if (F.dur[i] > best[x]) { best[x] = F.dur[i]; colour[x] = F.colour[i]; }
      top = Math.max(top, F.dur[i]);
    }
    top = Math.min(top, 12 * period);
    const y = function (ns) { return 8 + (H - 24) * (1 - Math.min(ns, top) / top); };
    c.strokeStyle = '#d1d9e0'; c.setLineDash([4, 3]);
    c.fillStyle = '#59636e'; c.font = '10px system-ui, "DejaVu Sans", sans-serif'; c.textBaseline = 'middle';
    for (let k = 1; k <= 3; k++) {
      c.beginPath(); c.moveTo(LABEL_W, y(k * period)); c.lineTo(W, y(k * period)); c.stroke();
      c.fillText(k + ' vsync (' + ms(k * period, 1) + ')', LABEL_W - 100, y(k * period));
    }
    c.setLineDash([]);
    for (let x = 0; x < cols; x++) {
      if (best[x] < 0) continue;
      c.fillStyle = D.palette[colour[x]];
      c.fillRect(LABEL_W + x, y(best[x]), 1, H - 16 - y(best[x]));
    }
    $('frametimes-title').textContent = 'Frame times in the view (present-to-present, ms; the longest per pixel;' +
      ' capped at 12 vsyncs)';
  }

  // ---- overview strip ---------------------------------------------------------------------------------------
  const ov = $('overview');
  let ovDrag = null, ovBins = null;
  function drawOverview() {
    const s = sizeCanvas(ov, 36);
    const c = s.c, W = s.w;
    const bins = Math.max(1, Math.floor(W - LABEL_W));
    const span = full.t1 - full.t0;
    if (!ovBins || ovBins.pass !== pass || ovBins.all.length !== bins) {
      // Frames and janky frames per pixel of the whole input, counted again only when the filters change.
      ovBins = { pass: pass, all: new Uint32Array(bins), janky: new Uint32Array(bins) };
      for (let i = 0; i < n; i++) {
        if (!pass[i]) continue;
        const b = Math.min(bins - 1, Math.max(0, Math.floor((F.actual_start[i] - full.t0) / span * bins)));
        ovBins.all[b]++;
        if (F.flags[i] & JANKY) ovBins.janky[b]++;
      }
    }
    const all = ovBins.all, janky = ovBins.janky;
    let max = 1;
    for (let b = 0; b < bins; b++) max = Math.max(max, all[b]);
    c.fillStyle = '#fff'; c.fillRect(0, 0, W, 36);
    c.fillStyle = '#59636e';
    c.font = '11px system-ui, "DejaVu Sans", sans-serif';
    c.textBaseline = 'middle';
    c.fillText('whole input (frames, janky in red)', 4, 18);
    for (let b = 0; b < bins; b++) {
      if (!all[b]) continue;
      const h = 4 + 28 * all[b] / max;
      c.fillStyle = '#c8d1da'; c.fillRect(LABEL_W + b, 36 - h, 1, h);
      if (janky[b]) { c.fillStyle = '#e5533d'; c.fillRect(LABEL_W + b, 2, 1, 14); }
    }
    const x0 = LABEL_W + (view.t0 - full.t0) / span * bins, x1 = LABEL_W + (view.t1 - full.t0) / span * bins;
    c.fillStyle = 'rgba(9,105,218,.15)';
    c.fillRect(x0, 0, Math.max(2, x1 - x0), 36);
    c.strokeStyle = '#0969da';
    c.strokeRect(x0 + 0.5, 0.5, Math.max(2, x1 - x0) - 1, 35);
    if (ovDrag && ovDrag.x1 !== undefined) {
      c.fillStyle = 'rgba(0,0,0,.15)';
      c.fillRect(Math.min(ovDrag.x0, ovDrag.x1), 0, Math.abs(ovDrag.x1 - ovDrag.x0), 36);
    }
  }
  function ovTime(x) {
    return full.t0 + (x - LABEL_W) / Math.max(1, ov.clientWidth - LABEL_W) * (full.t1 - full.t0);
  }
  ov.addEventListener('mousedown', function (e) { ovDrag = { x0: e.offsetX }; });
  ov.addEventListener('mousemove', function (e) { if (ovDrag) { ovDrag.x1 = e.offsetX; drawOverview(); } });
  window.addEventListener('mouseup', function (e) {
    if (!ovDrag) return;
    const d = ovDrag; ovDrag = null;
    if (d.x1 === undefined || Math.abs(d.x1 - d.x0) < 3) {
      const t = ovTime(d.x0), half = (view.t1 - view.t0) / 2;
      setView(t - half, t + half);
    } else {
      setView(ovTime(Math.min(d.x0, d.x1)), ovTime(Math.max(d.x0, d.x1)));
    }
    if (e) render();
  });

  // ---- view changes -----------------------------------------------------------------------------------------
  function setView(t0, t1) {
    const minSpan = 1e5; // 0.1 ms
    if (t1 - t0 < minSpan) { const c = (t0 + t1) / 2; t0 = c - minSpan / 2; t1 = c + minSpan / 2; }
    const pad = (full.t1 - full.t0) * 0.05;
    const lo = full.t0 - pad, hi = full.t1 + pad;
    if (t1 - t0 > hi - lo) { t0 = lo; t1 = hi; }
    if (t0 < lo) { t1 += lo - t0; t0 = lo; }
    if (t1 > hi) { t0 -= t1 - hi; t1 = hi; }
    view = { t0: t0, t1: t1 };
  }
  function zoomAt(x, factor) {
    const t = x >= LABEL_W ? tOf(x) : (view.t0 + view.t1) / 2;
    setView(t - (t - view.t0) * factor, t + (view.t1 - t) * factor);
  }
  function pan(frac) {
    const d = (view.t1 - view.t0) * frac;
    setView(view.t0 + d, view.t1 + d);
  }

  tl.addEventListener('wheel', function (e) {
    e.preventDefault();
    const scale = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
    if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      pan((e.shiftKey ? e.deltaY : e.deltaX) * scale / plotW());
    } else {
      zoomAt(e.offsetX, Math.exp(e.deltaY * scale * 0.002));
    }
    render();
  }, { passive: false });

  let drag = null;
  tl.addEventListener('mousedown', function (e) {
    drag = { x: e.clientX, t0: view.t0, t1: view.t1, moved: false };
    tl.classList.add('dragging');
    tl.focus();
  });
  window.addEventListener('mousemove', function (e) {
    if (!drag) return;
    const dx = e.clientX - drag.x;
    if (Math.abs(dx) > 2) drag.moved = true;
    if (!drag.moved) return;
    const dt = -dx * (drag.t1 - drag.t0) / plotW();
    setView(drag.t0 + dt, drag.t1 + dt);
    hideCard();
    render();
  });
  window.addEventListener('mouseup', function () {
    if (!drag) return;
    const d = drag; drag = null;
    tl.classList.remove('dragging');
    if (!d.moved) { pinned = hovered; showDetails(); render(); }
  });
  tl.addEventListener('dblclick', function () { view = { t0: full.t0, t1: full.t1 }; render(); });
  // W/A/S/D anywhere on the page but in a form field, as in trace viewers.
  window.addEventListener('keydown', function (e) {
    if (!F || e.ctrlKey || e.metaKey || e.altKey || /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(e.target.tagName)) return;
    const x = mouse.x >= LABEL_W ? mouse.x : LABEL_W + plotW() / 2;
    const k = e.key.toLowerCase();
    if (k === 'w') zoomAt(x, 0.8);
    else if (k === 's') zoomAt(x, 1.25);
    else if (k === 'a') pan(-0.1);
    else if (k === 'd') pan(0.1);
    else return;
    e.preventDefault();
    render();
  });

  // ---- hover and details ------------------------------------------------------------------------------------
  function hit(x, y) {
    if (x < LABEL_W) return null;
    const row = layout.find(function (r) { return y >= r.y && y < r.y + laneHeight(r.lane); });
    if (!row) return null;
    const lane = row.lane;
    const t = tOf(x), tol = 3 * (view.t1 - view.t0) / plotW();
    const frames = isFrameLane(lane);
    const r = Math.max(0, Math.min(lane.rows - 1, Math.floor((y - row.y - 1) / ((LANE_H - 2) / lane.rows))));
    let best = null, bestD = Infinity;
    for (let k = firstFrom(lane, t - tol); k < lane.st.length && lane.st[k] <= t + tol; k++) {
      if (lane.en[k] < t - tol || lane.row(lane.idx[k]) !== r) continue;
      if (frames && !pass[lane.idx[k]]) continue;
      const d = t < lane.st[k] ? lane.st[k] - t : t > lane.en[k] ? t - lane.en[k] : 0;
      if (d < bestD || (d === 0 && bestD === 0)) { best = k; bestD = d; }
    }
    return best === null ? null : { lane: lane, k: best, i: lane.idx[best], frames: frames };
  }

  const card = $('card');
  function hideCard() { card.hidden = true; }
  tl.addEventListener('mousemove', function (e) {
    mouse = { x: e.offsetX, y: e.offsetY };
    if (drag && drag.moved) return;
    const h = hit(e.offsetX, e.offsetY);
    const changed = (h && h.i) !== (hovered && hovered.i) || (h && h.lane) !== (hovered && hovered.lane);
    hovered = h;
    if (!h) { hideCard(); if (changed) render(); return; }
    card.innerHTML = '';
    card.appendChild(h.frames ? frameInfo(h.i) : displayFrameInfo(h.i));
    card.hidden = false;
    const wrap = tl.getBoundingClientRect();
    const cw = card.offsetWidth, ch = card.offsetHeight;
    let left = e.offsetX + 14, top = e.offsetY + 14;
    if (left + cw > wrap.width) left = Math.max(0, e.offsetX - cw - 14);
    if (top + ch > wrap.height) top = Math.max(0, e.offsetY - ch - 14);
    card.style.left = left + 'px';
    card.style.top = top + 'px';
    if (changed) render();
  });
  tl.addEventListener('mouseleave', function () { mouse = { x: -1, y: -1 }; hideCard(); });

  function line(parent, parts) {
    const div = el('div', { class: 'row' });
    parts.forEach(function (p) {
      if (p[1] === null || p[1] === undefined) return;
      if (p.length === 3) {
        div.appendChild(el('span', { class: 'k' }, p[0] + ' '));
        div.appendChild(el('span', { 'data-k': p[2] }, String(p[1])));
        div.appendChild(document.createTextNode('  '));
      } else {
        div.appendChild(el('span', { class: 'k' }, p[0] + ' '));
        div.appendChild(document.createTextNode(String(p[1]) + '  '));
      }
    });
    parent.appendChild(div);
  }

  const STATE_WORDS = ['Running', 'R', 'R+', 'S', 'D (IO)', 'D'];
  function states(v) {
    if (!v) return null;
    return v.map(function (ns, k) { return ns > 0 ? STATE_WORDS[k] + ' ' + ms(ns) : null; })
      .filter(Boolean).join(', ') || 'none';
  }

  function frameInfo(i) {
    const L = D.layers[F.layer[i]];
    const box = el('div');
    const t = el('div', { class: 't' });
    t.appendChild(el('span', { 'data-k': 'layer_name' }, L.layer_name));
    box.appendChild(t);
    line(box, [['process', L.process_name + ' (' + L.pid + ')']]);
    line(box, [['token', F.surface_frame_token[i], 'surface_frame_token'],
      ['display frame token', F.display_frame_token[i], 'display_frame_token']]);
    const str = function (k) { return k === null ? null : S[k]; };
    const dur = F.dur[i];
    if (D.kind === 'capture') {
      line(box, [['frame', S[F.jank_type[i]], 'jank_type']]);
      line(box, [[F.present[i] === null ? 'skipped' : 'frame time', ms(dur)], ['dur_ns', dur, 'dur_ns']]);
      if (F.present[i] !== null) line(box, [['present at', ms(F.present[i], 3)]]);
      return box;
    }
    line(box, [['jank type', S[F.jank_type[i]], 'jank_type'], ['jank tag', str(F.jank_tag[i]), 'jank_tag']]);
    line(box, [['present type', str(F.present_type[i]), 'present_type'],
      ['on time finish', yes(F.flags[i] & ON_TIME_FINISH)], ['GPU composition', yes(F.flags[i] & GPU_COMPOSITION)]]);
    line(box, [['prediction type', str(F.prediction_type[i])]]);
    line(box, [['expected', ms(F.expected_dur[i])], ['actual', dur < 0 ? 'never ended' : ms(dur)],
      ['dur_ns', dur, 'dur_ns']]);
    const exEnd = F.expected_start[i] === null ? null : F.expected_start[i] + F.expected_dur[i];
    if (exEnd !== null && dur >= 0) line(box, [['overrun', ms(frameEnd(i) - exEnd)]]);
    if (F.present[i] !== null) {
      line(box, [['present at', ms(F.present[i], 3) + (F.flags[i] & DROPPED ? ' (dropped)' : '')],
        ['present interval', ms(F.present_interval[i])]]);
    }
    const stage = F.late_stage[i];
    if (stage !== null) line(box, [['late stage', S[stage], 'late_stage']]);
    if (F.ui_start[i] !== null || F.rt_start[i] !== null) {
      line(box, [['UI thread', ms(F.ui_dur[i])],
        ['RenderThread', F.rt_start[i] === null || F.rt_end[i] === null ? '–' : ms(F.rt_end[i] - F.rt_start[i])]]);
    }
    if (F.cause[i] !== null) {
      line(box, [['cause', S[F.cause[i]], 'cause'], ['share', pct(F.cause_share_pct[i])]]);
    }
    if (F.top_blocking_call[i] !== null) {
      line(box, [['top blocking call', S[F.top_blocking_call[i]] + ' ' + ms(F.top_blocking_call_ns[i])]]);
    }
    if (F.binder_ns[i] !== null) line(box, [['binder', ms(F.binder_ns[i])]]);
    const ui = states(F.ui_states_ns[i]), rt = states(F.rt_states_ns[i]);
    if (ui) line(box, [['UI thread states', ui]]);
    if (rt) line(box, [['RenderThread states', rt]]);
    return box;
  }

  function displayFrameInfo(i) {
    const G = D.display_frames;
    const box = el('div');
    box.appendChild(el('div', { class: 't' }, 'SurfaceFlinger DisplayFrame'));
    line(box, [['display frame token', G.display_frame_token[i], 'display_frame_token']]);
    line(box, [['jank type', S[G.jank_type[i]], 'jank_type'], ['present type', S[G.present_type[i]]]]);
    line(box, [['on time finish', yes(G.flags[i] & ON_TIME_FINISH)], ['GPU composition', yes(G.flags[i] & GPU_COMPOSITION)]]);
    line(box, [['expected', ms(G.expected_dur[i])],
      ['actual', G.present[i] === null ? '–' : ms(G.present[i] - G.actual_start[i])],
      ['SurfaceFrames', G.surface_frames[i]]]);
    return box;
  }

  function absNs(rel) { return (BigInt(D.origin_ns) + BigInt(Math.round(rel))).toString(); }

  function copyButton(parent, label, text) {
    const b = el('button', { type: 'button' }, label);
    b.addEventListener('click', function () {
      const done = function () { b.textContent = label + ' ✓'; };
      const fallback = function () {
        const area = el('textarea');
        area.value = text;
        document.body.appendChild(area);
        area.select();
        try { document.execCommand('copy'); done(); } catch (err) { /* the text stays selectable below */ }
        area.remove();
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(done, fallback);
      } else {
        fallback();
      }
    });
    parent.appendChild(b);
  }

  function showDetails() {
    const box = $('details');
    box.innerHTML = '';
    if (!pinned) { box.hidden = true; writeHash(); return; }
    box.hidden = false;
    const i = pinned.i;
    box.appendChild(el('h3', null, 'Pinned ' + (pinned.frames ? 'frame' : 'DisplayFrame')));
    if (!pinned.frames) { box.appendChild(displayFrameInfo(i)); writeHash(); return; }
    box.appendChild(frameInfo(i));
    const ts = absNs(F.actual_start[i]);
    const dur = String(F.dur[i]);
    const L = D.layers[F.layer[i]];
    const sql = 'SELECT * FROM actual_frame_timeline_slice WHERE ts = ' + ts + " AND name = '" +
      F.surface_frame_token[i] + "' AND layer_name = '" + L.layer_name.replace(/'/g, "''") + "';";
    const buttons = el('div');
    copyButton(buttons, 'Copy ts', ts);
    copyButton(buttons, 'Copy dur', dur);
    copyButton(buttons, 'Copy SQL', sql);
    if (D.trace_url) {
      const pad = Math.max(F.dur[i], 0) * 2 + 20e6;
      const start = BigInt(ts) - BigInt(Math.round(pad)), end = BigInt(ts) + BigInt(Math.max(F.dur[i], 0)) + BigInt(Math.round(pad));
      const href = 'https://ui.perfetto.dev/#!/?url=' + encodeURIComponent(D.trace_url) + '&visStart=' + start + '&visEnd=' + end;
      const a = el('a', { href: href, target: '_blank', rel: 'noopener noreferrer' }, 'Open in Perfetto UI');
      buttons.appendChild(a);
    }
    box.appendChild(buttons);
    box.appendChild(el('code', null, 'ts ' + ts + '  dur ' + dur + ' (trace clock, ns)\n' + sql));
    writeHash();
  }

  // ---- panels -----------------------------------------------------------------------------------------------
  let histBins = null, rateBins = null;
  function drawHistogram() {
    const s = sizeCanvas($('histogram'), 180);
    const c = s.c, W = s.w, H = s.h;
    const durs = [];
    for (let i = 0; i < n; i++) if (pass[i] && F.dur[i] >= 0 && !(F.flags[i] & DROPPED)) durs.push(i);
    c.fillStyle = '#fff'; c.fillRect(0, 0, W, H);
    const period = D.facts.vsync_period_ns || 16666667;
    let maxDur = 0;
    const sorted = durs.map(function (i) { return F.dur[i]; }).sort(function (a, b) { return a - b; });
    if (sorted.length) maxDur = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.995))];
    const top = Math.max(period * 3, maxDur * 1.1);
    const nb = 60, width = top / nb;
    const all = new Uint32Array(nb), janky = new Uint32Array(nb);
    durs.forEach(function (i) {
      const b = Math.min(nb - 1, Math.floor(F.dur[i] / width));
      all[b]++;
      if (F.flags[i] & JANKY) janky[b]++;
    });
    histBins = { width: width, nb: nb, left: 36, right: W - 8 };
    let max = 1;
    for (let b = 0; b < nb; b++) max = Math.max(max, all[b]);
    const plotH = H - 34, bw = (W - 44) / nb;
    for (let b = 0; b < nb; b++) {
      const h = all[b] / max * plotH, hj = janky[b] / max * plotH;
      c.fillStyle = '#8fb8de'; c.fillRect(36 + b * bw, 8 + plotH - h, Math.max(1, bw - 1), h);
      c.fillStyle = '#e5533d'; c.fillRect(36 + b * bw, 8 + plotH - hj, Math.max(1, bw - 1), hj);
    }
    const xd = 36 + period / width * bw;
    c.strokeStyle = '#1f2328'; c.setLineDash([4, 3]);
    c.beginPath(); c.moveTo(xd, 4); c.lineTo(xd, 8 + plotH); c.stroke(); c.setLineDash([]);
    c.fillStyle = '#59636e'; c.font = '10px system-ui, "DejaVu Sans", sans-serif'; c.textBaseline = 'top';
    c.fillText('deadline ' + ms(period), xd + 3, 4);
    for (let b = 0; b <= nb; b += 10) c.fillText((b * width / 1e6).toFixed(1), 36 + b * bw - 6, 12 + plotH);
    c.textAlign = 'right';
    c.fillText('ms; the last bin holds every longer frame', W - 8, 4);
    c.textAlign = 'left';
    c.fillText(String(max), 2, 8);
    $('histogram-title').textContent = 'Frame durations (' + durs.length + ' frames shown, janky in red)';
  }

  function drawRates() {
    const s = sizeCanvas($('rates'), 180);
    const c = s.c, W = s.w, H = s.h;
    c.fillStyle = '#fff'; c.fillRect(0, 0, W, H);
    const seconds = Math.max(1, Math.ceil(full.t1 / 1e9));
    const presents = new Uint32Array(seconds), janky = new Uint32Array(seconds);
    const seen = new Set();
    for (let i = 0; i < n; i++) {
      if (!pass[i]) continue;
      const p = F.present[i];
      if (F.flags[i] & JANKY) {
        const b = Math.floor(F.actual_start[i] / 1e9);
        if (b >= 0 && b < seconds) janky[b]++;
      }
      if (p === null || (F.flags[i] & DROPPED)) continue;
      const key = F.layer[i] + ':' + p;
      if (seen.has(key)) continue;
      seen.add(key);
      const b = Math.floor(p / 1e9);
      if (b >= 0 && b < seconds) presents[b]++;
    }
    rateBins = { seconds: seconds, left: 36, width: (W - 44) / seconds };
    const plotH = H - 34;
    let max = 1, maxJanky = 1;
    for (let b = 0; b < seconds; b++) { max = Math.max(max, presents[b]); maxJanky = Math.max(maxJanky, janky[b]); }
    const bw = rateBins.width;
    for (let b = 0; b < seconds; b++) {
      const h = janky[b] / maxJanky * plotH;
      c.fillStyle = '#e5533d'; c.fillRect(36 + b * bw + bw * 0.2, 8 + plotH - h, Math.max(1, bw * 0.6), h);
    }
    c.strokeStyle = '#0969da'; c.lineWidth = 1.5; c.beginPath();
    for (let b = 0; b < seconds; b++) {
      const x = 36 + (b + 0.5) * bw, y = 8 + plotH - presents[b] / max * plotH;
      if (b === 0) c.moveTo(x, y); else c.lineTo(x, y);
    }
    c.stroke();
    c.fillStyle = '#0969da';
    for (let b = 0; b < seconds; b++) c.fillRect(36 + (b + 0.5) * bw - 2, 8 + plotH - presents[b] / max * plotH - 2, 4, 4);
    c.fillStyle = '#59636e'; c.font = '10px system-ui, "DejaVu Sans", sans-serif'; c.textBaseline = 'top';
    c.fillText(String(max), 2, 8);
    c.fillStyle = '#e5533d';
    c.fillText(maxJanky + ' janky', W - 60, 8);
    c.fillStyle = '#59636e';
    const step = Math.max(1, Math.ceil(seconds / 10));
    for (let b = 0; b < seconds; b += step) c.fillText(b + ' s', 36 + b * bw, 12 + plotH);
    $('rates-title').textContent = 'Presents per second of the layers shown (line, left scale) and janky frames per' +
      ' second (bars, right scale); the last second may be partial';
  }

  function panelHover(canvas, binOf, title, describe) {
    canvas.addEventListener('mousemove', function (e) {
      const b = binOf(e.offsetX);
      if (b === null) return;
      highlight = describe(b);
      canvas.title = title(b);
      render();
    });
    canvas.addEventListener('mouseleave', function () { highlight = null; render(); });
  }

  // ---- per-layer table --------------------------------------------------------------------------------------
  const COLUMNS = [
    ['layer', function (L) { return L.layer_name; }],
    ['process', function (L) { return L.process_name + ' (' + L.pid + ')'; }],
    ['frames', function (L) { return L.frames; }],
    ['janky', function (L) { return L.janky_frames; }],
    ['janky %', function (L) { return L.janky_pct; }],
    ['p50 ms', function (L) { return L.frame_dur_ms_p50; }],
    ['p90 ms', function (L) { return L.frame_dur_ms_p90; }],
    ['p99 ms', function (L) { return L.frame_dur_ms_p99; }],
    ['fps', function (L) { return L.fps; }],
    ['avg_surface_fps', function (L) { return L.avg_surface_fps; }],
    ['PerfDog jank', function (L) { return L.perfdog_jank; }],
    ['big jank', function (L) { return L.perfdog_big_jank; }],
    ['fps 1% low', function (L) { return L.fps_1pct_low; }],
    ['sm', function (L) { return L.sm; }],
    ['JankTracker janky %', function (L) {
      const n = (L.jank_tracker || []).filter(function (j) { return j.numbers === 'recomputed'; })[0];
      return n ? n.janky_pct : null;
    }],
    ['top jank types', function (L) {
      return (L.top_jank_types || []).map(function (t) { return t[0] + ' ×' + t[1]; }).join(', ');
    }],
    ['late stages', function (L) {
      return Object.keys(L.late_stages || {}).map(function (k) { return k + ' ×' + L.late_stages[k]; }).join(', ');
    }],
    ['causes', function (L) {
      return Object.keys(L.late_causes || {}).map(function (k) { return k + ' ×' + L.late_causes[k]; }).join(', ');
    }]
  ];
  let layerSort = null;
  function drawTable() {
    const rows = D.layers.map(function (L, k) { return k; }).filter(function (k) {
      return filter.pid === '' || String(D.layers[k].pid) === filter.pid;
    });
    // Columns no layer has a value for (a trace's JankTracker, a capture's FrameTimeline counts) are left out.
    const columns = COLUMNS.filter(function (c) {
      return D.layers.some(function (L) { const v = c[1](L); return v !== null && v !== undefined && v !== ''; });
    });
    layerSort = layerSort || { col: columns.findIndex(function (c) { return c[0] === 'janky'; }), desc: true };
    sortableTable($('table'), 'Layers (click a row to filter, a header to sort)', columns.map(function (c) {
      return { name: c[0], value: function (k) { return c[1](D.layers[k]); } };
    }), rows, {
      sort: layerSort,
      selected: function (k) { return filter.layer === String(k); },
      click: function (k) { setFilter('layer', filter.layer === String(k) ? '' : String(k)); }
    });
  }

  // A value as a table cell shows it.
  function cellText(v) {
    if (v === null || v === undefined) return '–';
    if (typeof v !== 'number' || Number.isInteger(v)) return String(v);
    // Shares and times with one decimal; small numbers (p-values) with three significant digits.
    return Math.abs(v) < 1 ? String(Number(v.toPrecision(3))) : v.toFixed(1);
  }

  // A table of `rows` in `box` under `heading`, sorted by a clicked header (again: the other way; nulls last when
  // descending). Columns: `{name, value(row), node(row)?}` (node: a cell's content other than its text). `opts`:
  // `sort` (`{col, desc}`, kept across redraws), `selected(row)`, `click(row)`. Returns the rows shown.
  function sortableTable(box, heading, columns, rows, opts) {
    const sort = opts.sort || { col: -1, desc: true };
    const draw = function () {
      box.innerHTML = '';
      if (heading) box.appendChild(el('h3', null, heading));
      const table = el('table'), head = el('tr');
      columns.forEach(function (c, k) {
        const th = el('th', null, c.name + (sort.col === k ? (sort.desc ? ' ▼' : ' ▲') : ''));
        th.addEventListener('click', function () {
          sort.desc = sort.col === k ? !sort.desc : true;
          sort.col = k;
          draw();
        });
        head.appendChild(th);
      });
      const thead = el('thead'); thead.appendChild(head); table.appendChild(thead);
      const sorted = rows.slice();
      if (sort.col >= 0) {
        const get = columns[sort.col].value;
        sorted.sort(function (a, b) {
          const x = get(a), y = get(b);
          const c = (x === null || x === undefined) ? -1 : (y === null || y === undefined) ? 1 : x < y ? -1 : x > y ? 1 : 0;
          return sort.desc ? -c : c;
        });
      }
      const body = el('tbody');
      sorted.forEach(function (row) {
        const tr = el('tr');
        if (opts.selected && opts.selected(row)) tr.className = 'selected';
        columns.forEach(function (c) {
          const v = c.value(row);
          const td = el('td', { class: typeof v === 'number' ? 'num' : 'text' });
          if (c.node) td.appendChild(c.node(row)); else td.textContent = cellText(v);
          tr.appendChild(td);
        });
        if (opts.click) tr.addEventListener('click', function () { opts.click(row); });
        body.appendChild(tr);
      });
      table.appendChild(body);
      box.appendChild(table);
    };
    draw();
    return rows.length;
  }

  // ---- header, legend, filters ------------------------------------------------------------------------------
  function drawHeader() {
    const h = $('head');
    h.appendChild(el('h1', null, D.title));
    const v = el('div', { class: 'verdict' });
    D.verdict.forEach(function (l) { v.appendChild(el('div', null, l)); });
    h.appendChild(v);
    const f = D.facts, facts = el('div', { class: 'facts' });
    const add = function (t) { if (t) facts.appendChild(el('span', null, t)); };
    add(f.device ? 'device ' + f.device : null);
    add(f.android_sdk_version ? 'Android SDK ' + f.android_sdk_version : null);
    add(f.refresh_rate_hz ? f.refresh_rate_hz.toFixed(0) + ' Hz (vsync period ' + ms(f.vsync_period_ns) + ')' : 'refresh rate unknown');
    add(f.captured_with ? 'captured with ' + f.captured_with : null);
    add(f.span_ms !== null ? 'span ' + (f.span_ms / 1000).toFixed(2) + ' s' : null);
    if (D.kind === 'trace') {
      add(f.surface_frames + ' SurfaceFrames, ' + f.display_frames + ' DisplayFrames');
      add('times from the first FrameTimeline slice (' + D.origin_ns + ' ns, ' + f.trace_clock + ')');
    } else {
      add(n + ' frames; times from the first present (or log line); a frame spans the interval from the previous present');
    }
    add('ftl ' + D.ftl_version + ', report schema ' + D.schema);
    h.appendChild(facts);
  }

  function drawLegend() {
    const box = $('legend');
    const group = function (title, entries) {
      box.appendChild(el('span', { class: 'group' }, title));
      entries.forEach(function (e) {
        const s = el('span');
        const sw = el('span', { class: 'sw' });
        sw.style.background = D.palette[e[1]];
        s.appendChild(sw);
        s.appendChild(document.createTextNode(e[0]));
        box.appendChild(s);
      });
    };
    group('Frames:', D.legend);
    if (lanesAll.some(function (g) { return g.lanes.some(function (l) { return l.kind === 'ui' || l.kind === 'rt'; }); })) {
      group('App threads:', D.stage_legend);
    }
    if (D.states.frame.length) group('Thread states:', D.state_legend);
  }

  function select(label, key, options) {
    const l = el('label', null, label + ' ');
    const s = el('select', { id: 'filter-' + key });
    options.forEach(function (o) {
      const opt = el('option', { value: o[0] }, o[1]);
      s.appendChild(opt);
    });
    s.value = filter[key];
    s.addEventListener('change', function () { setFilter(key, s.value); });
    l.appendChild(s);
    return l;
  }

  function drawFilters() {
    const box = $('filters');
    box.innerHTML = '';
    const pids = [];
    D.layers.forEach(function (L) {
      if (!pids.some(function (p) { return p[0] === String(L.pid); })) pids.push([String(L.pid), L.process_name + ' (' + L.pid + ')']);
    });
    box.appendChild(select('Process', 'pid', [['', 'all processes']].concat(pids)));
    const layers = [['', 'all layers']];
    D.layers.forEach(function (L, k) {
      if (filter.pid === '' || String(L.pid) === filter.pid) layers.push([String(k), L.layer_name + ' (' + L.frames + ')']);
    });
    box.appendChild(select('Layer', 'layer', layers));
    const counts = {};
    for (let i = 0; i < n; i++) counts[F.jank_type[i]] = (counts[F.jank_type[i]] || 0) + 1;
    const types = Object.keys(counts).map(Number).sort(function (a, b) { return counts[b] - counts[a]; });
    box.appendChild(select('Jank type', 'jank', [['', 'all jank types']].concat(types.map(function (t) {
      return [String(t), S[t] + ' (' + counts[t] + ')'];
    }))));
    const l = el('label');
    const c = el('input', { type: 'checkbox', id: 'filter-janky' });
    c.checked = filter.janky;
    c.addEventListener('change', function () { setFilter('janky', c.checked); });
    l.appendChild(c);
    l.appendChild(document.createTextNode(' janky only'));
    box.appendChild(l);
  }

  function setFilter(key, value) {
    filter[key] = value;
    if (key === 'pid' && filter.layer !== '' && value !== '' && String(D.layers[Number(filter.layer)].pid) !== value) filter.layer = '';
    computePass();
    if (pinned && pinned.frames && !pass[pinned.i]) { pinned = null; showDetails(); }
    drawFilters();
    refresh();
  }

  function refresh() {
    render();
    drawHistogram();
    drawRates();
    drawTable();
  }

  // ---- the URL fragment -------------------------------------------------------------------------------------
  let hashTimer = null;
  function hashText() {
    const parts = ['t=' + Math.round(view.t0 / 1e3) + '..' + Math.round(view.t1 / 1e3)];
    if (filter.pid !== '') parts.push('pid=' + filter.pid);
    if (filter.layer !== '') parts.push('layer=' + filter.layer);
    if (filter.jank !== '') parts.push('jank=' + encodeURIComponent(S[Number(filter.jank)]));
    if (filter.janky) parts.push('janky=1');
    if (pinned && pinned.frames) parts.push('frame=' + pinned.i);
    if (selftesting) parts.push('selftest');
    return '#' + parts.join('&');
  }
  function writeHash() {
    if (hashTimer) return;
    hashTimer = setTimeout(function () {
      hashTimer = null;
      history.replaceState(null, '', hashText());
    }, 150);
  }
  function readHash() {
    const h = location.hash.replace(/^#/, '');
    const out = {};
    h.split('&').forEach(function (p) {
      const eq = p.indexOf('=');
      if (eq < 0) out[p] = true; else out[p.slice(0, eq)] = decodeURIComponent(p.slice(eq + 1));
    });
    if (out.pid !== undefined && D.layers.some(function (L) { return String(L.pid) === out.pid; })) filter.pid = out.pid;
    if (out.layer !== undefined && D.layers[Number(out.layer)]) filter.layer = out.layer;
    if (out.jank !== undefined) {
      const k = S.indexOf(out.jank);
      if (k >= 0) filter.jank = String(k);
    }
    filter.janky = out.janky === '1';
    const m = typeof out.t === 'string' && out.t.match(/^(-?\d+)\.\.(-?\d+)$/);
    if (m) setView(Number(m[1]) * 1e3, Number(m[2]) * 1e3);
    return out;
  }

  // ---- self-test --------------------------------------------------------------------------------------------
  let selftesting = false;
  function dispatch(target, type, x, y, extra) {
    const r = target.getBoundingClientRect();
    const init = Object.assign({ bubbles: true, cancelable: true, clientX: r.left + x, clientY: r.top + y }, extra || {});
    const e = type === 'wheel' ? new WheelEvent(type, init) : new MouseEvent(type, init);
    target.dispatchEvent(e);
  }

  function selftest() {
    const out = { layers: [], hover: null, filter: null, first_paint_ms: null, zoom_ms: null, errors: errors, blocked: blocked };
    const janky = D.layers.map(function () { return []; });
    const counts = D.layers.map(function () { return 0; });
    for (let i = 0; i < n; i++) {
      // A capture's frames are its presents (a logcat's skipped-frame lines are events, not frames).
      if (D.kind === 'capture' && F.present[i] === null) continue;
      counts[F.layer[i]]++;
      if (F.flags[i] & JANKY) janky[F.layer[i]].push(i);
    }
    out.layers = D.layers.map(function (L, k) {
      return { layer_name: L.layer_name, frames: counts[k], janky: janky[k].length };
    });
    out.first_paint_ms = Math.round(firstPaint * 10) / 10;
    // A trace: the first janky frame of the first layer with one; a capture: its slowest frame.
    let li = -1, i = -1;
    if (D.kind === 'capture') {
      for (let k = 0; k < n; k++) if (i < 0 || F.dur[k] > F.dur[i]) i = k;
      if (i >= 0) li = F.layer[i];
    } else {
      li = janky.findIndex(function (j) { return j.length > 0; });
      if (li >= 0) i = janky[li].reduce(function (a, b) { return F.actual_start[b] < F.actual_start[a] ? b : a; });
    }
    if (li >= 0) {
      const s = F.actual_start[i], e = frameEnd(i), d = Math.max(e - s, 1e6);
      setView(s - 4 * d, e + 4 * d);
      render();
      const row = layout.find(function (r) { return r.group.layer === li && r.lane.kind === 'actual'; });
      const rh = (LANE_H - 2) / row.lane.rows;
      dispatch(tl, 'mousemove', xOf((s + e) / 2), row.y + 1 + F.row[i] * rh + rh / 2);
      const read = function (k) { const x = card.querySelector('[data-k="' + k + '"]'); return x ? x.textContent : null; };
      out.hover = card.hidden ? null : {
        layer_name: read('layer_name'),
        surface_frame_token: read('surface_frame_token') === null ? null : Number(read('surface_frame_token')),
        jank_type: read('jank_type'), dur_ns: Number(read('dur_ns'))
      };
    }
    // Ten zoom steps at the centre of the plot, each timed from the event to the end of its redraw.
    view = { t0: full.t0, t1: full.t1 };
    render();
    const times = [];
    const cy = AXIS_H + 5;
    for (let k = 0; k < 10; k++) {
      const t0 = performance.now();
      dispatch(tl, 'wheel', LABEL_W + plotW() / 2, cy, { deltaY: -120, deltaMode: 0 });
      times.push(performance.now() - t0);
    }
    times.sort(function (a, b) { return a - b; });
    out.zoom_ms = Math.round((times[4] + times[5]) / 2 * 100) / 100;
    out.zoomed_ns = [Math.round(view.t0), Math.round(view.t1)];
    // Filter to the hovered layer (or the first), whole input.
    const target = li >= 0 ? li : 0;
    if (D.layers.length) {
      view = { t0: full.t0, t1: full.t1 };
      const s = $('filter-layer');
      s.value = String(target);
      s.dispatchEvent(new Event('change', { bubbles: true }));
      out.filter = { layer_name: D.layers[target].layer_name, frames_drawn: stats.frames };
    }
    out.errors = errors;
    out.blocked = blocked;
    $('selftest').textContent = JSON.stringify(out);
  }

  // ---- start ------------------------------------------------------------------------------------------------
  function fullSpan() {
    let t0 = Infinity, t1 = -Infinity;
    for (let i = 0; i < n; i++) {
      t0 = Math.min(t0, F.actual_start[i], F.expected_start[i] === null ? Infinity : F.expected_start[i]);
      t1 = Math.max(t1, frameEnd(i), F.present[i] === null ? -Infinity : F.present[i]);
    }
    const G = D.display_frames;
    for (let i = 0; i < G.actual_start.length; i++) {
      t0 = Math.min(t0, G.actual_start[i]);
      t1 = Math.max(t1, G.present[i] === null ? G.actual_start[i] : G.present[i]);
    }
    if (!isFinite(t0)) { t0 = 0; t1 = 1e9; }
    const pad = Math.max((t1 - t0) * 0.01, 1e6);
    return { t0: t0 - pad, t1: t1 + pad };
  }

  // Hides the trace page's timeline, legend, details and help (and the elements `more` names): the batch index
  // and the diff page show tables and panels only.
  function hideTimeline(more) {
    ['legend', 'timeline-wrap', 'details'].concat(more).forEach(function (id) { $(id).hidden = true; });
    document.querySelectorAll('.strip, .help').forEach(function (e) { e.hidden = true; });
  }

  // ---- batch index ------------------------------------------------------------------------------------------
  const BATCH_COLUMNS = ['trace', 'source', 'device', 'refresh_rate_hz', 'process_name', 'layer_name', 'frames',
    'janky_frames', 'janky_pct', 'top_cause', 'top_cause_pct', 'frame_dur_ms_p99', 'avg_surface_fps', 'fps_mean',
    'perfdog_jank', 'perfdog_big_jank', 'status'];

  function renderBatch() {
    hideTimeline(['filters', 'panels']);
    const head = $('head');
    head.appendChild(el('h1', null, D.title));
    const ok = D.rows.filter(function (r) { return r.status === 'ok'; }).length;
    head.appendChild(el('div', { class: 'facts' }, D.rows.length + ' rows, ' + ok + ' analysed; ranked as ftl batch ranked' +
      ' them; click a trace to open its report, a header to sort · ftl ' + D.ftl_version));
    const cols = BATCH_COLUMNS.filter(function (c) {
      return D.rows.some(function (r) { return r[c] !== null && r[c] !== undefined; });
    });
    const maxJanky = Math.max.apply(null, [1].concat(D.rows.map(function (r) { return r.janky_pct || 0; })));
    sortableTable($('table'), null, cols.map(function (c) {
      const column = { name: c, value: function (r) { return r[c]; } };
      if (c === 'trace') {
        column.node = function (r) {
          if (r.status !== 'ok') return document.createTextNode(r.trace);
          return el('a', { href: encodeURIComponent(r.trace) + '.html', 'data-trace': r.trace }, r.trace);
        };
      } else if (c === 'janky_pct') {
        // A bar as long as the row's share of the worst janky %, then the number.
        column.node = function (r) {
          const span = el('span');
          if (typeof r.janky_pct !== 'number') { span.textContent = '–'; return span; }
          const bar = el('span', { class: 'bar' });
          bar.style.width = Math.max(1, Math.round(60 * r.janky_pct / maxJanky)) + 'px';
          span.appendChild(bar);
          span.appendChild(document.createTextNode(' ' + r.janky_pct.toFixed(1)));
          return span;
        };
      }
      return column;
    }), D.rows, {});
    if (location.hash.indexOf('selftest') >= 0) {
      const links = Array.prototype.map.call(document.querySelectorAll('#table a[data-trace]'), function (a) {
        return a.getAttribute('href');
      });
      $('selftest').textContent = JSON.stringify({ rows: D.rows.length, links: links, errors: errors, blocked: blocked });
    }
  }

  // ---- diff -------------------------------------------------------------------------------------------------
  const DIFF_COLUMNS = ['level', 'process_name', 'layer_name', 'metric', 'base_value', 'new_value', 'delta_value',
    'delta_pct', 'test', 'adjusted_p_value', 'verdict'];

  function renderDiff() {
    hideTimeline([]);
    const d = D.diff;
    const head = $('head');
    head.appendChild(el('h1', null, D.title));
    head.appendChild(el('div', { class: 'verdict' }, 'Verdict: ' + d.verdict + ' — ' + d.regressed + ' regressed, ' +
      d.improved + ' improved of ' + d.tested + ' tested (' + d.mode + ', ' + d.base_runs + ' base / ' + d.new_runs +
      ' new runs, alpha ' + d.alpha + ', ' + d.correction + ')'));
    const notes = el('div', { class: 'facts' });
    (d.notes || []).forEach(function (t) { notes.appendChild(el('div', null, t)); });
    notes.appendChild(el('div', null, 'ftl ' + D.ftl_version));
    head.appendChild(notes);
    // Filters: level, verdict.
    const f = { level: '', verdict: '' };
    const box = $('filters');
    const choose = function (label, key, values) {
      const l = el('label', null, label + ' ');
      const sel = el('select', { id: 'filter-' + key });
      [''].concat(values).forEach(function (v) { sel.appendChild(el('option', { value: v }, v === '' ? 'all' : v)); });
      sel.addEventListener('change', function () { f[key] = sel.value; table(); });
      l.appendChild(sel);
      box.appendChild(l);
    };
    const distinct = function (k) {
      return d.rows.map(function (r) { return r[k]; }).filter(function (v, i, a) { return a.indexOf(v) === i; });
    };
    choose('Level', 'level', distinct('level'));
    choose('Verdict', 'verdict', distinct('verdict'));
    // CDFs.
    const h = sizeCanvas($('histogram'), 180), c = h.c;
    c.fillStyle = '#fff'; c.fillRect(0, 0, h.w, h.h);
    const all = D.base_quantiles_ms.concat(D.new_quantiles_ms);
    // The x axis ends past the 99.5th percentile of both sides (the slowest frames would squash the rest).
    const top = Math.max(1, 1.1 * Math.max(D.base_quantiles_ms[995] || 0, D.new_quantiles_ms[995] || 0));
    const plot = function (q, colour) {
      c.strokeStyle = colour; c.lineWidth = 1.5; c.beginPath();
      q.forEach(function (v, k) {
        const x = 36 + Math.min(v, top) / top * (h.w - 44), y = 8 + (h.h - 34) * (1 - k / (q.length - 1));
        if (k === 0) c.moveTo(x, y); else c.lineTo(x, y);
      });
      c.stroke();
    };
    plot(D.base_quantiles_ms, '#1976d2');
    plot(D.new_quantiles_ms, '#ff5722');
    c.fillStyle = '#59636e'; c.font = '10px system-ui, "DejaVu Sans", sans-serif'; c.textBaseline = 'top';
    c.fillText('0', 36, h.h - 22); c.fillText(top.toFixed(1) + ' ms', h.w - 60, h.h - 22);
    c.fillText('1', 4, 8); c.fillText('0', 4, h.h - 30);
    $('histogram-title').textContent = 'Frame durations, CDF: base (blue, ' + D.base_frames + ' frames) vs new (orange, ' +
      D.new_frames + ' frames)';
    // Janky % per matched layer.
    const r = sizeCanvas($('rates'), 180), g = r.c;
    g.fillStyle = '#fff'; g.fillRect(0, 0, r.w, r.h);
    const layers = D.layers.slice(0, 14);
    if (!layers.length) {
      g.fillStyle = '#59636e'; g.font = '12px system-ui, "DejaVu Sans", sans-serif';
      g.fillText('No layer is in both sides.', 12, 24);
    }
    const maxPct = Math.max.apply(null, [1].concat(layers.map(function (l) { return Math.max(l[1], l[2]); })));
    const rowH = (r.h - 8) / Math.max(1, layers.length);
    g.font = '10px system-ui, "DejaVu Sans", sans-serif'; g.textBaseline = 'middle';
    layers.forEach(function (l, k) {
      const y = 4 + k * rowH, w = r.w - 260;
      g.fillStyle = '#1f2328';
      let name = l[0];
      while (name.length > 4 && g.measureText(name).width > 180) name = '…' + name.slice(2);
      g.fillText(name, 4, y + rowH / 2);
      g.fillStyle = '#1976d2'; g.fillRect(190, y + 1, Math.max(1, l[1] / maxPct * w), rowH / 2 - 1);
      g.fillStyle = l[3] === 'regressed' ? '#d32f2f' : l[3] === 'improved' ? '#43a047' : '#ff5722';
      g.fillRect(190, y + rowH / 2, Math.max(1, l[2] / maxPct * w), rowH / 2 - 1);
      g.fillStyle = '#59636e';
      g.fillText(l[1].toFixed(1) + ' → ' + l[2].toFixed(1) + ' % ' + l[3], r.w - 66 - 60, y + rowH / 2);
    });
    $('rates-title').textContent = 'Janky % per matched layer: base (blue) → new';
    const table = function () {
      const rows = d.rows.filter(function (row) {
        return (f.level === '' || row.level === f.level) && (f.verdict === '' || row.verdict === f.verdict);
      });
      return sortableTable($('table'), null, DIFF_COLUMNS.map(function (c) {
        return { name: c, value: function (r) { return r[c]; } };
      }), rows, { sort: diffSort });
    };
    const diffSort = { col: -1, desc: true };
    const shown = table();
    if (location.hash.indexOf('selftest') >= 0) {
      const sel = $('filter-verdict');
      sel.value = 'regressed';
      sel.dispatchEvent(new Event('change', { bubbles: true }));
      const regressed = document.querySelectorAll('#table tbody tr').length;
      $('selftest').textContent = JSON.stringify({ verdict: d.verdict, rows: shown, regressed_rows: regressed,
        errors: errors, blocked: blocked });
    }
  }

  load().then(function (data) {
    D = data;
    if (D.kind === 'batch') { renderBatch(); return; }
    if (D.kind === 'diff') { renderDiff(); return; }
    F = D.frames; S = D.strings; n = F.layer.length;
    if (D.kind !== 'trace' && D.kind !== 'capture') throw new Error('unknown report kind ' + D.kind);
    full = fullSpan();
    view = { t0: full.t0, t1: full.t1 };
    buildLanes();
    const hash = readHash();
    selftesting = hash.selftest === true;
    drawHeader();
    drawLegend();
    computePass();
    drawFilters();
    if (hash.frame !== undefined && Number(hash.frame) < n) {
      const i = Number(hash.frame);
      const g = lanesAll.find(function (g) { return g.layer === F.layer[i]; });
      const lane = g && g.lanes.find(function (l) { return l.kind === 'actual'; });
      if (lane) { const k = Array.prototype.indexOf.call(lane.idx, i); pinned = { lane: lane, k: k, i: i, frames: true }; showDetails(); }
    }
    refresh();
    panelHover($('histogram'), function (x) {
      if (!histBins) return null;
      const b = Math.floor((x - 36) / ((histBins.right - 36) / histBins.nb));
      return b >= 0 && b < histBins.nb ? b : null;
    }, function (b) {
      return (b * histBins.width / 1e6).toFixed(1) + '–' + ((b + 1) * histBins.width / 1e6).toFixed(1) + ' ms';
    }, function (b) {
      const lo = b * histBins.width, hi = b === histBins.nb - 1 ? Infinity : (b + 1) * histBins.width;
      return function (i) { return F.dur[i] >= lo && F.dur[i] < hi; };
    });
    panelHover($('rates'), function (x) {
      if (!rateBins) return null;
      const b = Math.floor((x - 36) / rateBins.width);
      return b >= 0 && b < rateBins.seconds ? b : null;
    }, function (b) { return 'second ' + b; }, function (b) {
      const lo = b * 1e9, hi = lo + 1e9;
      return function (i) { return F.actual_start[i] >= lo && F.actual_start[i] < hi; };
    });
    $('rates').addEventListener('click', function (e) {
      const b = Math.floor((e.offsetX - 36) / rateBins.width);
      if (b >= 0 && b < rateBins.seconds) { setView(b * 1e9, (b + 1) * 1e9); render(); }
    });
    window.addEventListener('resize', function () { refresh(); });
    if (selftesting) selftest();
  }).catch(function (e) {
    errors.push(String(e && e.stack || e));
    $('head').textContent = 'This report could not be read: ' + e;
    if (location.hash.indexOf('selftest') >= 0) {
      $('selftest').textContent = JSON.stringify({ errors: errors, blocked: blocked });
    }
  });
})();
