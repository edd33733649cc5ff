// view-timeline.js - Timeline: one row per thread (per rank with MPI), calls, regions and MPI
// routines as slices coloured by name at their nesting depth, what is shorter than the data's
// min_ns as bins (busiest name, height = busy share), MPI messages as arrows; slices' names
// drawn inside them when their lane is at least LABEL_LANE_H high; the wheel scrolls the rows,
// Ctrl+wheel (and a trackpad's pinch) zooms around the pointer, Shift+wheel pans in time;
// buttons zoom and pan, dragging pans, hover shows row, name and duration, a lane height
// control makes thin lanes readable (the rows then scroll), rank labels open the Process detail.
"use strict";
(function () {
  const AXIS = 20, LABEL_W = 150;
  // Rows taller than this in all are drawn through a window of the canvas' height that
  // scrolls over them (Chromium leaves a canvas above 32,767 px blank).
  const MAX_CANVAS_H = 4096;
  const ARROW_RGB = [25, 25, 25];
  // A slice's name is drawn in it when its lane is at least LABEL_LANE_H px high and at least
  // LABEL_MIN_W px of it are shown; row labels need a row of LABEL_LANE_H px too.
  const LABEL_LANE_H = 10, LABEL_MIN_W = 30;
  // The lane heights the user can choose (0: automatic).
  const LANE_CHOICES = [0, 3, 6, 10, 14, 20];
  // One wheel notch (100 px of delta) zooms by 2^(1/3); a pinch's smaller deltas zoom less.
  const ZOOM_PX = 300;

  // Lanes with absolute times: slices' starts and bins' indices are delta-encoded.
  const decode = (tl) => tl._lanes || (tl._lanes = tl.lanes.map((l) => {
    const start = new Float64Array(l.start.length), bin = new Float64Array(l.bin.length);
    let acc = 0;
    l.start.forEach((v, i) => { acc += v; start[i] = acc; });
    acc = 0;
    l.bin.forEach((v, i) => { acc += v; bin[i] = acc; });
    return { row: l.row, depth: l.depth, start, dur: l.dur, name: l.name, bin, bname: l.bname, busy: l.busy };
  }));

  // First index i of sorted array A with A[i] >= V.
  const lower = (a, v) => {
    let lo = 0, hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (a[mid] < v) lo = mid + 1; else hi = mid;
    }
    return lo;
  };

  const render = (s, d) => {
    const tl = d.timeline, lanes = decode(tl), rows = tl.rows;
    const names = tl.names, kinds = tl.kinds;
    const rgb = names.map((n) => PSC.colorRGB(n)), css = rgb.map((c) => PSC.css(c));
    const laneCount = rows.map((r) => Math.max(1, r.depth + (r.mpi ? 1 : 0)));
    const total = laneCount.reduce((a, b) => a + b, 0);
    const autoLaneH = Math.max(3, Math.min(14, Math.floor(2400 / Math.max(1, total))));
    const GAP = total > 1000 ? 2 : 6;
    const W = PSC.width() - LABEL_W;
    // the layout (relayout()): lane height, rows' tops in the rows' coordinates (y0 = 0: the
    // canvas shows the top), rows' height in all, canvas height
    let laneH = 0, rowY = [], H = 0, CH = 0;
    const canvas = PSC.canvas(W, 1, { id: "timeline-canvas", class: "tl-canvas" });
    canvas.style.position = "sticky";
    canvas.style.top = "0";
    const ctx = canvas.getContext("2d", { willReadFrequently: true }); // tests read pixels
    const laneY = (row, depth) => rowY[row] + (depth < 0 ? 0 : depth + (rows[row].mpi ? 1 : 0)) * laneH;
    // y0: the rows' coordinate at the canvas' top (vertical scroll); labels: slices' names
    const st = { t0: 0, t1: Math.max(1, tl.run_ns), arrows: true, labels: true, y0: 0, labelsDrawn: 0 };
    // the rows [first, last) on the canvas
    const visibleRows = () => {
      let lo = 0, hi = rows.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (rowY[mid] + laneCount[mid] * laneH <= st.y0 + AXIS) lo = mid + 1; else hi = mid;
      }
      let last = lo;
      while (last < rows.length && rowY[last] < st.y0 + CH) last++;
      return [lo, last];
    };
    const x = (t) => ((t - st.t0) / (st.t1 - st.t0)) * W;
    const tAt = (px) => st.t0 + (px / W) * (st.t1 - st.t0);

    const drawBins = (l, yy) => {
      const bn = tl.bin_ns, b = l.bin;
      let i = Math.max(0, lower(b, Math.floor(st.t0 / bn)));
      let curPx = -1, best = -1;
      const flush = () => {
        if (best < 0) return;
        const h = Math.max(1, Math.round(((laneH - 1) * l.busy[best]) / 1000));
        const x0 = x(b[best] * bn), x1 = x((b[best] + 1) * bn);
        ctx.fillStyle = css[l.bname[best]];
        ctx.fillRect(Math.floor(x0), yy + laneH - 1 - h, Math.max(1, Math.round(x1) - Math.floor(x0)), h);
      };
      for (; i < b.length && b[i] * bn <= st.t1; i++) {
        if (!l.busy[i]) continue;
        const px = Math.floor(x(b[i] * bn));
        if (px !== curPx) { flush(); curPx = px; best = i; } else if (l.busy[i] > l.busy[best]) best = i;
      }
      flush();
    };
    // the name of slice I of lane L (x0 to x1 on the canvas) inside it, clipped to it
    const drawLabel = (l, i, x0, x1, yy) => {
      const a = Math.max(0, x0), b = Math.min(W, x1);
      if (b - a < LABEL_MIN_W) return;
      const c = rgb[l.name[i]];
      ctx.save();
      ctx.beginPath();
      ctx.rect(a + 1, yy, b - a - 2, laneH - 1);
      ctx.clip();
      ctx.fillStyle = c[0] * 0.3 + c[1] * 0.59 + c[2] * 0.11 > 140 ? "#000" : "#fff";
      ctx.font = `${Math.min(12, laneH - 3)}px sans-serif`;
      ctx.textBaseline = "middle";
      ctx.fillText(names[l.name[i]], a + 3, yy + (laneH - 1) / 2);
      ctx.restore();
      st.labelsDrawn++;
    };
    const drawSlices = (l, yy) => {
      const a = l.start, named = st.labels && laneH >= LABEL_LANE_H;
      let i = Math.max(0, lower(a, st.t0) - 1), lastPx = -1;
      for (; i < a.length && a[i] <= st.t1; i++) {
        const e = a[i] + l.dur[i];
        if (e < st.t0) continue;
        const x0 = Math.floor(x(a[i])), x1 = Math.round(x(e));
        if (x1 <= lastPx) continue; // within a pixel already drawn
        ctx.fillStyle = css[l.name[i]];
        ctx.fillRect(x0, yy, Math.max(1, x1 - x0), laneH - 1);
        if (named) drawLabel(l, i, x0, x1, yy);
        lastPx = Math.max(x0 + 1, x1);
      }
    };
    const drawArrows = () => {
      const a = tl.arrows, y0 = st.y0;
      ctx.strokeStyle = PSC.css(ARROW_RGB);
      ctx.fillStyle = PSC.css(ARROW_RGB);
      ctx.lineWidth = 2;
      for (let i = 0; i < a.t0.length; i++) {
        if (a.t1[i] < st.t0 || a.t0[i] > st.t1) continue;
        const x0 = x(a.t0[i]), x1 = x(a.t1[i]);
        const ya = rowY[a.from[i]] + (laneCount[a.from[i]] * laneH) / 2 - y0;
        const yb = rowY[a.to[i]] + (laneCount[a.to[i]] * laneH) / 2 - y0;
        if ((ya < 0 && yb < 0) || (ya > CH && yb > CH)) continue;
        ctx.beginPath();
        ctx.moveTo(x0, ya);
        ctx.lineTo(x1, yb);
        ctx.stroke();
        const ang = Math.atan2(yb - ya, x1 - x0);
        ctx.beginPath();
        ctx.moveTo(x1, yb);
        ctx.lineTo(x1 - 7 * Math.cos(ang - 0.4), yb - 7 * Math.sin(ang - 0.4));
        ctx.lineTo(x1 - 7 * Math.cos(ang + 0.4), yb - 7 * Math.sin(ang + 0.4));
        ctx.fill();
      }
    };
    const drawAxis = () => {
      const span = st.t1 - st.t0;
      let step = Math.pow(10, Math.floor(Math.log10(span / 8)));
      if (span / step > 16) step *= 5; else if (span / step > 8) step *= 2;
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, W, AXIS);
      ctx.fillStyle = "#444";
      ctx.font = "11px sans-serif";
      for (let t = Math.ceil(st.t0 / step) * step; t <= st.t1; t += step) {
        const px = Math.round(x(t));
        ctx.fillRect(px, AXIS - 6, 1, 6);
        ctx.fillText(PSC.fmtNs(t), px + 2, AXIS - 8);
      }
    };
    const info = PSC.el("span", { class: "tl-span", id: "timeline-span" });
    const draw = () => {
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, W, CH);
      const [r0, r1] = visibleRows();
      for (let i = r0; i < r1; i++) {
        ctx.fillStyle = i % 2 ? "#f6f6f6" : "#fbfbfb";
        ctx.fillRect(0, rowY[i] - st.y0, W, laneCount[i] * laneH);
      }
      const shown = lanes.filter((l) => l.row >= r0 && l.row < r1);
      st.labelsDrawn = 0;
      for (const l of shown) drawBins(l, laneY(l.row, l.depth) - st.y0);
      for (const l of shown) drawSlices(l, laneY(l.row, l.depth) - st.y0);
      if (st.arrows) drawArrows();
      drawAxis();
      // for tests and other harnesses: the lane height and the names drawn
      canvas.dataset.laneH = String(laneH);
      canvas.dataset.labels = String(st.labelsDrawn);
      info.textContent = `${PSC.fmtNs(st.t0)} – ${PSC.fmtNs(st.t1)} (${PSC.fmtNs(st.t1 - st.t0)} shown)`;
    };
    // The span [a, b] within the run, at least 100 ns wide.
    const setSpan = (a, b) => {
      const run = Math.max(1, tl.run_ns);
      let w = Math.min(run, Math.max(100, b - a));
      a = Math.min(Math.max(0, a), run - w);
      st.t0 = a;
      st.t1 = a + w;
      draw();
    };
    const zoom = (f, at) => {
      at = at === undefined ? (st.t0 + st.t1) / 2 : at;
      setSpan(at - (at - st.t0) * f, at + (st.t1 - at) * f);
    };

    // controls
    const btn = (label, title, fn) => PSC.el("button", { class: "tl-btn", title, onclick: fn }, label);
    const arrowsBox = PSC.el("input", { type: "checkbox", id: "timeline-arrows" });
    arrowsBox.checked = true;
    arrowsBox.onchange = () => { st.arrows = arrowsBox.checked; draw(); };
    const namesBox = PSC.el("input", { type: "checkbox", id: "timeline-names" });
    namesBox.checked = true;
    namesBox.onchange = () => { st.labels = namesBox.checked; draw(); };
    const laneSel = PSC.el("select", { id: "timeline-lane-h", title: "the height of a lane" },
      ...LANE_CHOICES.map((h) => PSC.el("option", { value: String(h) }, h ? `${h} px` : `auto (${autoLaneH} px)`)));
    laneSel.onchange = () => setLaneH(Number(laneSel.value));
    const controls = PSC.el("div", { class: "tl-controls" },
      btn("+", "zoom in", () => zoom(0.5)), btn("−", "zoom out", () => zoom(2)),
      btn("←", "pan left", () => setSpan(st.t0 - (st.t1 - st.t0) / 4, st.t1 - (st.t1 - st.t0) / 4)),
      btn("→", "pan right", () => setSpan(st.t0 + (st.t1 - st.t0) / 4, st.t1 + (st.t1 - st.t0) / 4)),
      btn("reset", "the whole run", () => setSpan(0, tl.run_ns)),
      tl.arrows.t0.length ? PSC.el("label", {}, arrowsBox, " messages") : null,
      PSC.el("label", {}, namesBox, " names"), PSC.el("label", {}, "lanes ", laneSel), info);

    // row labels, clickable for ranks
    const labels = PSC.el("div", { class: "tl-labels", style: `width:${LABEL_W}px` });
    rows.forEach((r, i) => {
      const attrs = { class: "tl-label" + (r.rank >= 0 ? " rank" : ""), "data-row": String(i),
                      title: `${r.label}: pid ${r.pid}, thread ${r.tid} ${r.thread}` };
      if (r.rank >= 0) {
        attrs["data-rank"] = String(r.rank);
        attrs.onclick = () => PSC.emit("rank", r.rank);
      }
      labels.append(PSC.el("div", attrs, r.label));
    });

    // hover: the slice, else the bin, under the pointer
    const tip = PSC.el("div", { class: "tl-tip", id: "timeline-tip" });
    tip.hidden = true;
    // the row's label, then the slice's name and duration or the bin's busiest name and busy
    // share under canvas point (px, cy): the names thin lanes cannot show
    const hit = (px, cy) => {
      if (cy < AXIS) return null;
      const py = cy + st.y0, row = rowY.findIndex((ry, i) => py >= ry && py < ry + laneCount[i] * laneH);
      if (row < 0) return null;
      const t = tAt(px), tol = (st.t1 - st.t0) / W, who = rows[row].label + ": ";
      for (const l of lanes) {
        const ly = laneY(l.row, l.depth);
        if (l.row !== row || py < ly || py >= ly + laneH) continue;
        const i = lower(l.start, t + tol) - 1;
        if (i >= 0 && l.start[i] + l.dur[i] >= t - tol) {
          return who + `${names[l.name[i]]}: ${PSC.fmtNs(l.dur[i])}` + (kinds[l.name[i]] === 2 ? " (MPI)" : "");
        }
        const b = Math.floor(t / tl.bin_ns), j = lower(l.bin, b);
        if (j < l.bin.length && l.bin[j] === b) {
          return who + `${names[l.bname[j]]} (busiest): busy ${(l.busy[j] / 10).toFixed(1)} % of ${PSC.fmtNs(tl.bin_ns)}`;
        }
      }
      return null;
    };
    // an event's position on the canvas (from its client coordinates, as synthetic events
    // have them too)
    const pos = (ev) => {
      const b = canvas.getBoundingClientRect();
      return [ev.clientX - b.left, ev.clientY - b.top];
    };
    let drag = null;
    canvas.addEventListener("mousedown", (ev) => { drag = { x: pos(ev)[0], t0: st.t0, t1: st.t1 }; });
    window.addEventListener("mouseup", () => { drag = null; });
    canvas.addEventListener("mousemove", (ev) => {
      const [px, py] = pos(ev);
      if (drag) {
        const dt = ((px - drag.x) / W) * (drag.t1 - drag.t0);
        setSpan(drag.t0 - dt, drag.t1 - dt);
        return;
      }
      const text = hit(px, py);
      tip.hidden = !text;
      if (text) {
        tip.textContent = text;
        tip.style.left = px + LABEL_W + 12 + "px";
        tip.style.top = py + 12 + "px";
      }
    });
    canvas.addEventListener("mouseleave", () => { tip.hidden = true; });
    // the wheel scrolls the rows (the page once they are at an end, or when they fit);
    // Ctrl+wheel, which a trackpad's pinch also sends, zooms around the pointer; Shift+wheel
    // and a horizontal swipe pan in time
    canvas.addEventListener("wheel", (ev) => {
      const unit = ev.deltaMode === 1 ? 16 : ev.deltaMode === 2 ? CH : 1;
      const dx = ev.deltaX * unit, dy = ev.deltaY * unit;
      if (ev.ctrlKey || ev.metaKey) {
        ev.preventDefault();
        zoom(Math.min(2, Math.max(0.5, Math.pow(2, dy / ZOOM_PX))), tAt(pos(ev)[0]));
      } else if (ev.shiftKey || Math.abs(dx) > Math.abs(dy)) {
        // Chromium turns Shift+wheel into a horizontal delta on some systems
        const d = ev.shiftKey && !dx ? dy : dx, dt = (d / W) * (st.t1 - st.t0);
        ev.preventDefault();
        setSpan(st.t0 + dt, st.t1 + dt);
      } else {
        const y0 = Math.max(0, Math.min(H - CH, Math.round(st.y0 + dy)));
        if (y0 === st.y0) return;
        ev.preventDefault();
        scrollTo(y0);
      }
    }, { passive: false });

    // legend: names by time shown (slices and binned busy time)
    const tot = new Float64Array(names.length);
    for (const l of lanes) {
      l.dur.forEach((v, i) => { tot[l.name[i]] += v; });
      l.busy.forEach((v, i) => { tot[l.bname[i]] += (v * tl.bin_ns) / 1000; });
    }
    const order = names.map((n, i) => i).sort((a, b) => tot[b] - tot[a]).slice(0, 30);
    const kindName = ["", " (region)", " (MPI)"];
    const legend = PSC.el("div", { class: "tl-legend", id: "timeline-legend" });
    order.forEach((i) => legend.append(PSC.el("span", { class: "tl-key", "data-name": names[i] },
      PSC.el("span", { class: "tl-swatch", style: `background:${css[i]}` }), names[i] + kindName[kinds[i]])));

    const note = `${PSC.fmtNum(tl.calls)} calls; ${PSC.fmtNum(tl.slices)} drawn whole (≥ ${PSC.fmtNs(tl.min_ns)}), ` +
      `the shorter ones as bins of ${PSC.fmtNs(tl.bin_ns)} (busiest name, height = busy share)` +
      (tl.arrows.total ? `; ${PSC.fmtNum(tl.arrows.t0.length)} of ${PSC.fmtNum(tl.arrows.total)} messages as arrows` : "");
    // the rows scroll under the canvas, which stays at the top of the scroller (sticky) and
    // draws the rows from st.y0
    const column = PSC.el("div", { style: `position:relative;flex:none;width:${W}px` }, canvas);
    const inner = PSC.el("div", { style: "display:flex;align-items:flex-start" }, labels, column);
    const scroller = PSC.el("div", { class: "tl-scroll", id: "timeline-scroll", style: "overflow-x:hidden" }, inner);
    const rowsNote = PSC.el("span", { id: "timeline-rows-note" });
    // lay the rows out with lanes of LH px (0: automatic), the canvas a window over them
    const relayout = (lh) => {
      laneH = lh || autoLaneH;
      rowY = [];
      let y = AXIS;
      rows.forEach((r, i) => { rowY.push(y); y += laneCount[i] * laneH + GAP; });
      H = y;
      CH = H <= MAX_CANVAS_H ? H : Math.max(400, Math.min(1600, window.innerHeight - 80));
      canvas.height = CH;
      labels.style.height = column.style.height = inner.style.height = H + "px";
      scroller.style.height = CH + "px";
      scroller.style.overflowY = H > CH ? "auto" : "hidden";
      labels.childNodes.forEach((e, i) => {
        const h = laneCount[i] * laneH;
        e.style.top = rowY[i] + "px";
        e.style.height = h + "px";
        e.style.lineHeight = Math.min(14, h) + "px";
        e.classList.toggle("thin", h < LABEL_LANE_H); // unreadable: its title and the tooltip say it
      });
      rowsNote.textContent = H > CH ? `. ${PSC.fmtNum(rows.length)} rows: scroll them under the canvas.` : "";
      st.y0 = Math.max(0, Math.min(st.y0, H - CH));
    };
    // lanes of LH px (0: automatic), keeping the row at the canvas' top there
    const setLaneH = (lh) => {
      const top = rowY.length ? Math.max(0, rowY.findIndex((ry, i) => ry + laneCount[i] * laneH > st.y0 + AXIS)) : 0;
      relayout(lh);
      laneSel.value = String(lh);
      scrollTo(top > 0 ? rowY[top] - AXIS : 0);
    };
    const scrollTo = (y0) => {
      st.y0 = Math.max(0, Math.min(H - CH, Math.round(y0)));
      scroller.scrollTop = st.y0;
      draw();
    };
    scroller.addEventListener("scroll", () => {
      if (Math.round(scroller.scrollTop) === st.y0) return;
      st.y0 = Math.max(0, Math.min(H - CH, Math.round(scroller.scrollTop)));
      draw();
    });
    const help = PSC.el("p", { class: "note", id: "timeline-help" },
      "Wheel: scroll the rows · Ctrl+wheel or pinch: zoom around the pointer · Shift+wheel or drag: move in time · " +
      `hover: a slice's row, name and duration (names are drawn in slices when lanes are at least ${LABEL_LANE_H} px: ` +
      "choose taller lanes to read them; the rows then scroll)");
    s.append(PSC.el("h2", {}, "Timeline"), controls, PSC.el("p", { class: "note" }, note, rowsNote), help,
      PSC.el("div", { class: "tl-wrap" }, scroller, tip), legend);
    relayout(0);
    setSpan(0, tl.run_ns);
    // reveal(y): scroll so that the rows' coordinate Y is on the canvas, at its middle when
    // scrolling; cy(y): Y on the canvas
    const reveal = (yy) => { if (yy < st.y0 + AXIS || yy >= st.y0 + CH) scrollTo(yy - CH / 2); };
    const cy = (yy) => yy - st.y0;
    s._tl = { st, setSpan, zoom, x, tAt, laneY, canvas, lanes, draw, arrowsBox, namesBox, laneSel, scrollTo, reveal,
              cy, tip, W,
              get laneH() { return laneH; }, get rowY() { return rowY; }, get H() { return H; }, get CH() { return CH; } };
  };

  // The longest slice of the data: {lane, i}.
  const longest = (lanes) => {
    let best = null;
    lanes.forEach((l) => l.dur.forEach((v, i) => { if (!best || v > best.l.dur[best.i]) best = { l, i }; }));
    return best;
  };

  // The names in slices at several lane heights, the tooltip, and the wheel: checked, and
  // each outcome written as a line into the hidden #timeline-ui for harnesses to read.
  const uiChecks = (s, d, t) => {
    const tl = d.timeline, v = s._tl, names = tl.names, run = tl.run_ns, out = [];
    const b = longest(v.lanes);
    const setLane = (lh) => {
      v.laneSel.value = String(lh);
      v.laneSel.dispatchEvent(new Event("change"));
    };
    v.namesBox.checked = true;
    v.st.labels = true;
    if (b) {
      const row = b.l.row, name = names[b.l.name[b.i]], st0 = b.l.start[b.i], dur = b.l.dur[b.i];
      const tip = `${tl.rows[row].label}: ${name}: ${PSC.fmtNs(dur)}` + (tl.kinds[b.l.name[b.i]] === 2 ? " (MPI)" : "");
      for (const lh of [0, 3, 14]) {
        setLane(lh);
        const what = `lanes ${lh ? lh + " px" : "auto"}`;
        t.eq(v.canvas.dataset.laneH, String(v.laneH), `${what}: the canvas says its lane height`);
        t.ok(v.canvas.height <= 32767 && v.canvas.width * v.canvas.height <= (1 << 28), `${what}: the canvas within the limits`);
        // the longest slice over half the width: its name is drawn from its left edge when
        // the lane is tall enough (pixels there not of its colour), else not at all
        v.setSpan(Math.max(0, st0 - dur / 2), st0 + 1.5 * dur);
        const top = v.laneY(row, b.l.depth);
        v.reveal(top + v.laneH);
        v.reveal(top);
        const x0 = Math.max(0, Math.floor(v.x(st0))), rgb = PSC.colorRGB(name);
        let text = 0;
        for (let dx = 3; dx < 40; dx++) {
          for (let dy = 0; dy < v.laneH - 1; dy++) {
            const p = PSC.pixel(v.canvas, x0 + dx, v.cy(top + dy));
            if (rgb.some((c, k) => Math.abs(c - p[k]) > 40)) text++;
          }
        }
        const named = v.laneH >= 10;
        t.ok(named ? text > 0 && Number(v.canvas.dataset.labels) >= 1 : text === 0 && v.canvas.dataset.labels === "0",
             `${what} (${v.laneH} px): ${name}'s name ${named ? "drawn" : "not drawn"} (${text} text pixels, ` +
             `${v.canvas.dataset.labels} names)`);
        // hovering its middle names its row and itself
        const bb = v.canvas.getBoundingClientRect(), ym = v.cy(top + Math.floor((v.laneH - 1) / 2));
        v.canvas.dispatchEvent(new MouseEvent("mousemove", { clientX: bb.left + v.x(st0 + dur / 2), clientY: bb.top + ym }));
        t.eq(v.tip.hidden ? "" : v.tip.textContent, tip, `${what}: the tooltip of the longest slice`);
        out.push(`${what}: ${v.laneH} px, names ${text > 0 ? "drawn" : "not drawn"}, ` +
                 `tooltip ${v.tip.textContent === tip ? "names the slice" : "wrong"}, rows ${v.H > v.CH ? "scroll" : "fit"}`);
      }
      setLane(0);
      v.canvas.dispatchEvent(new MouseEvent("mouseleave"));
    }
    // the wheel: plain scrolls the rows (or leaves the page to scroll when they fit),
    // Ctrl+wheel zooms around the pointer, Shift+wheel pans in time
    const wheel = (px, o) => {
      const bb = v.canvas.getBoundingClientRect();
      const ev = new WheelEvent("wheel", Object.assign({ clientX: bb.left + px, clientY: bb.top + 25, deltaMode: 0,
                                                         cancelable: true, bubbles: true }, o));
      v.canvas.dispatchEvent(ev);
      return ev;
    };
    // where a pointer event at canvas x PX lands (the browser keeps client coordinates whole)
    const ptr = (px) => {
      const bb = v.canvas.getBoundingClientRect();
      return new MouseEvent("mousemove", { clientX: bb.left + px }).clientX - bb.left;
    };
    v.setSpan(run / 4, (3 * run) / 4);
    v.scrollTo(0);
    const span = () => v.st.t1 - v.st.t0, w0 = span(), t00 = v.st.t0;
    const ev = wheel(v.W / 2, { deltaY: 120 }), scrolls = v.H > v.CH;
    t.eq(v.st.y0, Math.min(120, v.H - v.CH), "the wheel scrolls the rows");
    t.eq(ev.defaultPrevented, scrolls, scrolls ? "and keeps the page still" : "the rows fit: the page scrolls");
    t.ok(v.st.t0 === t00 && span() === w0, "the wheel leaves the span");
    wheel(v.W / 2, { deltaY: -120 });
    t.eq(v.st.y0, 0, "the wheel up scrolls back");
    out.push(scrolls ? "wheel: scrolls the rows, the span stays" : "wheel: the rows fit, the page scrolls, the span stays");
    const at = v.tAt(ptr(v.W / 4));
    wheel(v.W / 4, { deltaY: -300, ctrlKey: true });
    const zin = span() / w0;
    t.near(zin, 0.5, 1e-9, "Ctrl+wheel (-300 px) halves the span");
    t.near(v.tAt(ptr(v.W / 4)), at, 1, "around the pointer");
    wheel(v.W / 4, { deltaY: 300, ctrlKey: true });
    const zout = span() / w0;
    t.near(zout, 1, 1e-9, "Ctrl+wheel (+300 px) doubles it back");
    t.near(v.tAt(ptr(v.W / 4)), at, 1, "still around the pointer");
    wheel(v.W / 4, { deltaY: -10, ctrlKey: true }); // a pinch's small steps
    const pinch = span() / w0;
    t.near(pinch, Math.pow(2, -10 / 300), 1e-9, "a pinch (Ctrl+wheel -10 px) zooms a little");
    t.eq(v.st.y0, 0, "zooming does not scroll the rows");
    out.push(`ctrl+wheel: span x${zin.toFixed(3)} then x${zout.toFixed(3)} around the pointer, pinch x${pinch.toFixed(3)}`);
    v.setSpan(run / 4, (3 * run) / 4);
    wheel(v.W / 2, { deltaY: 100, shiftKey: true });
    const moved = ((v.st.t0 - t00) / w0) * v.W;
    t.near(moved, 100, 1e-6, "Shift+wheel (100 px) moves the span by 100 px of time");
    wheel(v.W / 2, { deltaX: 100, shiftKey: true }); // as Chromium sends it on some systems
    const moved2 = ((v.st.t0 - t00) / w0) * v.W;
    t.near(moved2, 200, 1e-6, "Shift+wheel as a horizontal delta moves it as much");
    t.near(span(), w0, 1, "panning keeps the span (to 1 ns: times are doubles)");
    out.push(`shift+wheel: moves ${moved.toFixed(1)} px then ${moved2.toFixed(1)} px of time, the span stays`);
    v.setSpan(0, run);
    v.scrollTo(0);
    v.arrowsBox.checked = true;
    v.st.arrows = true;
    v.draw();
    let pre = s.querySelector("#timeline-ui");
    if (!pre) s.append((pre = PSC.el("pre", { id: "timeline-ui", hidden: "" })));
    pre.textContent = out.join("\n");
  };

  PSC.view({
    id: "timeline", title: "Timeline", order: 20,
    available: (d) => !!(d.timeline && d.timeline.rows && d.timeline.rows.length),
    render,
    test(s, d, t) {
      const tl = d.timeline, v = s._tl, names = tl.names;
      t.eq(s.querySelectorAll(".tl-label").length, tl.rows.length, "one label per row");
      v.arrowsBox.checked = false;
      v.st.arrows = false;
      v.namesBox.checked = false; // the pixel checks look at slices' middles, where names go
      v.st.labels = false;
      v.setSpan(0, tl.run_ns);
      // the middle of the longest slice has its name's colour, seen zoomed in so that it
      // spans half the width (a slice narrower than a pixel is blended at the full view)
      const b = longest(v.lanes);
      if (b) {
        const st0 = b.l.start[b.i], dur = b.l.dur[b.i], mid = st0 + dur / 2;
        v.setSpan(Math.max(0, st0 - dur / 2), st0 + 1.5 * dur);
        const ym = v.laneY(b.l.row, b.l.depth) + Math.floor((v.laneH - 1) / 2); // a slice is laneH - 1 high
        v.reveal(ym);
        t.pixel(v.canvas, v.x(mid), v.cy(ym),
                PSC.colorRGB(names[b.l.name[b.i]]), `middle of the longest slice (${names[b.l.name[b.i]]})`, 0);
        v.setSpan(0, tl.run_ns);
      }
      // a bin: zoomed in until it is 1/8 of the width, its bottom has its busiest name's colour
      let bin = null;
      v.lanes.forEach((l) => l.busy.forEach((u, i) => {
        if (u < 200 || (bin && u <= bin.l.busy[bin.i])) return;
        const t0 = l.bin[i] * tl.bin_ns, k = lower(l.start, t0 + tl.bin_ns) - 1;
        if (k < 0 || l.start[k] + l.dur[k] <= t0) bin = { l, i }; // no slice covers it
      }));
      if (bin) {
        const t0 = bin.l.bin[bin.i] * tl.bin_ns;
        v.setSpan(t0 - 3.5 * tl.bin_ns, t0 + 4.5 * tl.bin_ns);
        const yb = v.laneY(bin.l.row, bin.l.depth) + v.laneH - 2;
        v.reveal(yb);
        t.pixel(v.canvas, v.x(t0 + tl.bin_ns / 2), v.cy(yb), PSC.colorRGB(names[bin.l.bname[bin.i]]),
                `bottom of bin ${bin.l.bin[bin.i]} (${names[bin.l.bname[bin.i]]})`, 0);
        v.setSpan(0, tl.run_ns);
      }
      // zoom: one step in halves the span around its centre, one step out restores it
      const span0 = v.st.t1 - v.st.t0;
      v.setSpan(tl.run_ns / 4, (3 * tl.run_ns) / 4);
      const c = (v.st.t0 + v.st.t1) / 2, w = v.st.t1 - v.st.t0;
      s.querySelector('.tl-btn[title="zoom in"]').click();
      t.near(v.st.t1 - v.st.t0, w / 2, 1, "zoom in halves the span");
      t.near((v.st.t0 + v.st.t1) / 2, c, 1, "zoom keeps the centre");
      s.querySelector('.tl-btn[title="zoom out"]').click();
      t.near(v.st.t1 - v.st.t0, w, 1, "zoom out doubles it back");
      s.querySelector('.tl-btn[title="the whole run"]').click();
      t.near(v.st.t1 - v.st.t0, span0, 1, "reset shows the whole run");
      // messages: the longest arrow's middle is drawn
      const a = tl.arrows;
      if (a.t0.length) {
        v.arrowsBox.checked = true;
        v.st.arrows = true;
        v.draw();
        let k = 0;
        for (let i = 1; i < a.t0.length; i++) if (a.t1[i] - a.t0[i] > a.t1[k] - a.t0[k]) k = i;
        const lc = (r) => Math.max(1, tl.rows[r].depth + (tl.rows[r].mpi ? 1 : 0));
        const y0 = v.rowY[a.from[k]] + (lc(a.from[k]) * v.laneH) / 2;
        const y1 = v.rowY[a.to[k]] + (lc(a.to[k]) * v.laneH) / 2;
        // the line is anti-aliased: the closest pixel to its colour around the middle
        v.reveal((y0 + y1) / 2);
        const mx = (v.x(a.t0[k]) + v.x(a.t1[k])) / 2, my = v.cy((y0 + y1) / 2);
        let dist = 255;
        for (let dx = -1; dx <= 1; dx++) {
          for (let dy = -1; dy <= 1; dy++) {
            const p = PSC.pixel(v.canvas, mx + dx, my + dy);
            dist = Math.min(dist, Math.max(...ARROW_RGB.map((c, i) => Math.abs(c - p[i]))));
          }
        }
        t.ok(dist <= 24, `middle of the longest arrow (${Math.round(mx)},${Math.round(my)}) drawn: closest colour ${dist} away`);
      }
      // the canvas stays within Chromium's limits; with more rows than it holds, the last
      // row's longest slice is drawn once scrolled to
      t.ok(v.canvas.height <= 32767 && v.canvas.width * v.canvas.height <= (1 << 28),
           `the canvas (${v.canvas.width} × ${v.canvas.height} px) within the limits`);
      if (v.H > v.CH) {
        const lastRow = tl.rows.length - 1;
        const own = v.lanes.filter((l) => l.row === lastRow);
        const lb = longest(own);
        v.scrollTo(v.H);
        t.eq(v.st.y0, v.H - v.CH, "scrolled to the bottom");
        if (lb) {
          const s0 = lb.l.start[lb.i], du = lb.l.dur[lb.i], yy = v.laneY(lastRow, lb.l.depth) + Math.floor((v.laneH - 1) / 2);
          v.setSpan(Math.max(0, s0 - du / 2), s0 + 1.5 * du);
          t.ok(yy - v.st.y0 >= 0 && yy - v.st.y0 < v.CH, "the last row is on the canvas");
          t.pixel(v.canvas, v.x(s0 + du / 2), v.cy(yy), PSC.colorRGB(names[lb.l.name[lb.i]]),
                  `middle of the last row's longest slice (${names[lb.l.name[lb.i]]})`, 0);
          v.setSpan(0, tl.run_ns);
        }
        v.scrollTo(0);
      }
      uiChecks(s, d, t);
      // a rank's label opens its detail
      const lab = s.querySelector(".tl-label.rank");
      if (lab) {
        let got = null;
        PSC.on("rank", (r) => { got = r; });
        lab.click();
        t.eq(got, Number(lab.dataset.rank), "a rank label emits its rank");
        PSC.show("timeline");
      }
    },
  });
})();
