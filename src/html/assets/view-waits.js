// view-waits.js - Waits: the p × p wait matrix (row i, column j: the time rank i waited for
// rank j, a late sender) as a heatmap with the collective and total columns, shown as % of
// each rank's execution time or of its total wait; cells under 0.1 % are blank. Clicking a
// rank (a row, a column or its label) opens the Process detail.
"use strict";
(function () {
  // tests read pixels back many times: the canvases say so, or Chromium warns on the console
  const CTX = PSC.testMode ? { willReadFrequently: true } : {};
  const W = {}; // the drawing's state, shared by render and test

  // The value of cell (i, col) in MODE: % of rank i's execution time ("exec") or of its total
  // wait ("wait"); col p is the collective column, p + 1 the total. null when blank.
  const cellNs = (wt, p, i, col) => (col < p ? wt.p2p[i * p + col] : col === p ? wt.coll[i] : wt.total[i]);
  const cellPct = (wt, p, i, col, mode) => {
    const ns = cellNs(wt, p, i, col), whole = mode === "wait" ? wt.total[i] : wt.exec_ns[i];
    if (ns <= 0 || whole <= 0) return null;
    const v = (100 * ns) / whole;
    return v < wt.hide_pct ? null : v;
  };
  // Cell geometry: columns 0..p-1 the peers, then a gap, the collective and the total column.
  const layout = (p) => {
    const L = 64, T = 60;
    const c = Math.max(3, Math.min(40, Math.floor((PSC.width() - L - 40) / (p + 3))));
    const gap = Math.max(4, Math.round(c / 2));
    const x = (col) => L + col * c + (col >= p ? gap : 0);
    return { L, T, c, gap, x, y: (i) => T + i * c, w: x(p + 2) + 8, h: T + p * c + 8 };
  };
  const scaleMax = (wt, p, mode) => {
    let m = 0;
    for (let i = 0; i < p; i++)
      for (let col = 0; col < p + 2; col++) m = Math.max(m, cellPct(wt, p, i, col, mode) || 0);
    return m || 1;
  };
  const cellRGB = (v, max) => (v === null ? [255, 255, 255] : PSC.heatRGB(v / max));
  // Which rank labels to write: every one when cells are tall enough, else every k-th.
  const labelStep = (c) => Math.max(1, Math.ceil(12 / c));

  const draw = () => {
    const { wt, p, cv, lg, mode } = W;
    const g = layout(p), max = scaleMax(wt, p, mode);
    W.g = g;
    W.max = max;
    const x = cv.getContext("2d", CTX);
    x.fillStyle = "#fff";
    x.fillRect(0, 0, cv.width, cv.height);
    for (let i = 0; i < p; i++)
      for (let col = 0; col < p + 2; col++) {
        const v = cellPct(wt, p, i, col, mode);
        if (v === null) continue;
        x.fillStyle = PSC.css(cellRGB(v, max));
        x.fillRect(g.x(col), g.y(i), g.c, g.c);
      }
    // frames of the matrix and of the two extra columns, outside the cells
    x.strokeStyle = "#999";
    x.strokeRect(g.L - 0.5, g.T - 0.5, p * g.c + 1, p * g.c + 1);
    x.strokeRect(g.x(p) - 0.5, g.T - 0.5, 2 * g.c + 1, p * g.c + 1);
    x.fillStyle = "#333";
    x.font = "11px sans-serif";
    x.textAlign = "right";
    x.textBaseline = "middle";
    const step = labelStep(g.c);
    for (let i = 0; i < p; i += step) x.fillText("rank " + i, g.L - 4, g.y(i) + g.c / 2);
    x.textAlign = "center";
    x.textBaseline = "bottom";
    for (let j = 0; j < p; j += step) x.fillText(String(j), g.x(j) + g.c / 2, g.T - 4);
    x.save();
    x.translate(g.x(p) + g.c / 2, g.T - 4);
    x.rotate(-Math.PI / 4);
    x.textAlign = "left";
    x.fillText("collective", 0, 0);
    x.restore();
    x.save();
    x.translate(g.x(p + 1) + g.c / 2, g.T - 4);
    x.rotate(-Math.PI / 4);
    x.textAlign = "left";
    x.fillText("total", 0, 0);
    x.restore();
    // legend: the gradient from 0.1 % to the largest cell
    const lx = lg.getContext("2d", CTX);
    for (let k = 0; k < lg.width; k++) {
      lx.fillStyle = PSC.css(PSC.heatRGB(k / (lg.width - 1)));
      lx.fillRect(k, 0, 1, lg.height);
    }
    W.legendText.textContent = `blank < ${wt.hide_pct} %; ` +
      [0, 0.25, 0.5, 0.75, 1].map((f) => PSC.fmtPct(f * max)).join(" · ") +
      (mode === "wait" ? " of the rank's total wait" : " of the rank's execution time");
    W.pctTable.replaceChildren(pctTable(wt, p, mode));
  };

  const colNames = (p) => Array.from({ length: p + 2 }, (_, c) => (c < p ? String(c) : c === p ? "collective" : "total"));
  const pctTable = (wt, p, mode) => {
    if (p > 64) return PSC.el("p", {}, "Tables are left out above 64 ranks: hover the cells.");
    const cols = [["rank", (i) => i]].concat(colNames(p).map((n, c) => [n, (i) => cellPct(wt, p, i, c, mode), PSC.fmtPct]));
    const t = PSC.table(cols, Array.from({ length: p }, (_, i) => i), { id: "waits-pct", sortCol: -1 });
    t.querySelectorAll("td.na").forEach((td) => { td.textContent = ""; td.className = "blank"; });
    return t;
  };

  // The rank and column under canvas position (X, Y), or null.
  const hit = (X, Y) => {
    const { g, p } = W;
    const i = Math.floor((Y - g.T) / g.c);
    let col = -1;
    for (let c = 0; c < p + 2; c++) if (X >= g.x(c) && X < g.x(c) + g.c) col = c;
    if (Y < g.T && col >= 0 && col < p) return { i: null, col };
    if (X < g.L && i >= 0 && i < p) return { i, col: null };
    return i >= 0 && i < p && col >= 0 ? { i, col } : null;
  };

  PSC.view({
    id: "waits", title: "Waits", order: 40,
    available: (d) => !!(d.mpi && d.mpi.waits),
    render(s, d) {
      const wt = d.mpi.waits, p = d.mpi.ranks;
      const g = layout(p);
      const cv = PSC.canvas(g.w, g.h, { id: "waits-canvas" });
      const lg = PSC.canvas(240, 12, { id: "waits-legend" });
      const modeSel = PSC.el("select", { id: "waits-mode" },
        PSC.el("option", { value: "exec" }, "% of execution time"),
        PSC.el("option", { value: "wait" }, "% of total wait"));
      Object.assign(W, { wt, p, cv, lg, mode: "exec", legendText: PSC.el("span", { id: "waits-legend-text" }),
                         pctTable: PSC.el("div") });
      modeSel.onchange = () => { W.mode = modeSel.value; draw(); };
      const tip = PSC.el("div", { id: "waits-tip", class: "tip" }, "Hover a cell; click a rank for its detail.");
      cv.addEventListener("mousemove", (ev) => {
        const h = hit(ev.offsetX, ev.offsetY);
        if (!h || h.i === null || h.col === null) return;
        const name = colNames(p)[h.col], v = cellPct(wt, p, h.i, h.col, W.mode);
        tip.textContent = `rank ${h.i} → ${h.col < p ? "rank " + name : name}: ` +
          `${PSC.fmtNs(cellNs(wt, p, h.i, h.col))}` + (v === null ? "" : ` (${PSC.fmtPct(v)})`);
      });
      cv.addEventListener("click", (ev) => {
        const h = hit(ev.offsetX, ev.offsetY);
        if (!h) return;
        PSC.emit("rank", h.i !== null ? h.i : h.col);
      });
      // the raw matrix in ns, for people who copy numbers and for tests
      let raw = null;
      if (p <= 64) {
        const cols = [["rank", (i) => i]].concat(colNames(p).map((n, c) => [n, (i) => cellNs(wt, p, i, c)]));
        cols.push(["execution", (i) => wt.exec_ns[i]]);
        raw = PSC.table(cols, Array.from({ length: p }, (_, i) => i), { id: "waits-ns" });
      }
      s.append(PSC.el("h2", {}, "Waits"),
        PSC.el("p", {}, "Row i, column j: time rank i waited for a late message from rank j; " +
               "collective: its waits in collective operations; total: both."),
        PSC.el("div", { class: "controls" }, PSC.el("label", {}, "cells as "), modeSel),
        cv, PSC.el("div", { class: "legend" }, lg, W.legendText), tip,
        PSC.el("h3", {}, "Values"), W.pctTable,
        raw ? PSC.el("details", {}, PSC.el("summary", {}, "in ns, with each rank's execution time"), raw) : null);
      draw();
    },
    test(s, d, t) {
      const { wt, p, cv } = W;
      const sel = s.querySelector("#waits-mode");
      const check = (mode) => {
        const g = W.g, max = scaleMax(wt, p, mode);
        t.eq(W.mode, mode, "mode switched");
        const step = Math.max(1, Math.floor(p / 16)); // every cell up to 16 ranks, a sample above
        for (let i = 0; i < p; i += step)
          for (let col = 0; col < p + 2; col++) {
            const v = cellPct(wt, p, i, col, mode);
            t.pixel(cv, g.x(col) + g.c / 2, g.y(i) + g.c / 2, cellRGB(v, max),
                    `${mode}: cell rank ${i} column ${colNames(p)[col]} (${v === null ? "blank" : v.toFixed(3) + " %"})`, 2);
          }
        t.ok(W.legendText.textContent.includes(PSC.fmtPct(max)), `${mode}: legend names the largest value ${PSC.fmtPct(max)}`);
        const rows = s.querySelectorAll("#waits-pct tbody tr");
        if (p <= 64) {
          t.eq(rows.length, p, `${mode}: one table row per rank`);
          const v = cellPct(wt, p, 0, p + 1, mode);
          t.eq(rows[0].children[p + 2].textContent, v === null ? "" : PSC.fmtPct(v), `${mode}: rank 0's total in the table`);
        }
      };
      check("exec");
      sel.value = "wait";
      sel.dispatchEvent(new Event("change"));
      check("wait");
      // a rank with any wait has a total of exactly 100 % of its total wait
      for (let i = 0; i < p; i++) if (wt.total[i] > 0) t.eq(cellPct(wt, p, i, p + 1, "wait"), 100, `rank ${i}: total is 100 % of its wait`);
      sel.value = "exec";
      sel.dispatchEvent(new Event("change"));
      t.eq(W.mode, "exec", "mode switched back");
      if (p <= 64) {
        const raw = s.querySelectorAll("#waits-ns tbody tr");
        t.eq(raw.length, p, "raw table rows");
        t.eq(raw[p - 1].children[p + 2].textContent, PSC.fmtNum(wt.total[p - 1]), "raw table: last rank's total");
      }
      // clicking a row label and a column label emits their ranks (last: it opens the detail)
      const got = [];
      PSC.on("rank", (r) => got.push(r));
      const g = W.g;
      const click = (x, y) => {
        PSC.show("waits"); // the previous click opened the detail
        const box = cv.getBoundingClientRect();
        cv.dispatchEvent(new MouseEvent("click", { clientX: box.left + 1 + x, clientY: box.top + 1 + y, bubbles: true }));
      };
      click(g.L - 20, g.y(p - 1) + g.c / 2);
      click(g.x(0) + g.c / 2, g.T - 6);
      t.eq(got.join(","), `${p - 1},0`, "ranks emitted by clicks on a row and a column label");
    },
  });
})();
