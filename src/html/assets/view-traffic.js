// view-traffic.js - Traffic: the sender × receiver matrix animated over the run's time frames
// (a message counts in every frame its transfer overlaps), coloured by effective transmission
// rate, next to the whole run's matrix of mean rates. The gradient's limits are adjustable:
// a rate above the maximum is white, below the minimum black; cells without messages grey.
"use strict";
(function () {
  // tests read pixels back many times: the canvases say so, or Chromium warns on the console
  const CTX = PSC.testMode ? { willReadFrequently: true } : {};
  const EMPTY = [228, 228, 228];
  const S = {}; // the view's state, shared by render and test

  const fmtRate = (bps) => {
    if (bps === null || bps === undefined) return "";
    const u = ["bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"];
    let i = 0;
    while (Math.abs(bps) >= 1000 && i < u.length - 1) { bps /= 1000; i++; }
    return bps.toPrecision(3) + " " + u[i];
  };
  // The colour of a rate with the gradient [lo, hi]; null rate (no messages): grey.
  const rateRGB = (r, lo, hi) => {
    if (r === null || r === undefined) return EMPTY;
    if (r > hi) return [255, 255, 255];
    if (r < lo) return [0, 0, 0];
    return PSC.heatRGB(0.2 + 0.8 * (hi > lo ? (r - lo) / (hi - lo) : 1));
  };
  // Frame F's cells: {k: pair index, messages, bytes, rate}.
  const frameCells = (tr, f) => {
    const fr = tr.frames, out = [];
    for (let k = fr.first[f]; k < fr.first[f + 1]; k++)
      out.push({ k: fr.pair[k], messages: fr.messages[k], bytes: fr.bytes[k], rate: fr.rate[k] });
    return out;
  };
  const limits = (rates) => {
    const v = rates.filter((r) => r !== null && r !== undefined);
    if (!v.length) return [0, 1];
    let lo = v[0], hi = v[0];
    for (const r of v) { lo = Math.min(lo, r); hi = Math.max(hi, r); }
    return hi > lo ? [lo, hi] : [lo * 0.5, hi * 1.5 || 1];
  };
  const allRates = (tr) => tr.frames.rate.concat(tr.pairs.rate_mean);

  const geometry = (p, avail) => {
    const L = 56, T = 28, c = Math.max(2, Math.min(28, Math.floor((avail - L - 8) / p)));
    return { L, T, c, w: L + p * c + 8, h: T + p * c + 8, x: (j) => L + j * c, y: (i) => T + i * c };
  };
  // Draw matrix CELLS ([{src, dst, rate}]) on canvas CV.
  const drawMatrix = (cv, g, p, cells, title) => {
    const x = cv.getContext("2d", CTX);
    x.fillStyle = "#fff";
    x.fillRect(0, 0, cv.width, cv.height);
    x.fillStyle = PSC.css(EMPTY);
    x.fillRect(g.L, g.T, p * g.c, p * g.c);
    for (const cl of cells) {
      if (!inMatrix(cl, p)) continue;
      x.fillStyle = PSC.css(rateRGB(cl.rate, S.lo, S.hi));
      x.fillRect(g.x(cl.dst), g.y(cl.src), g.c, g.c);
    }
    x.fillStyle = "#333";
    x.font = "11px sans-serif";
    x.textBaseline = "bottom";
    x.textAlign = "left";
    x.fillText(title, 2, 12);
    const step = Math.max(1, Math.ceil(12 / g.c));
    x.textAlign = "right";
    x.textBaseline = "middle";
    for (let i = 0; i < p; i += step) x.fillText(String(i), g.L - 4, g.y(i) + g.c / 2);
    x.textAlign = "center";
    x.textBaseline = "bottom";
    for (let j = 0; j < p; j += step) x.fillText(String(j), g.x(j) + g.c / 2, g.T - 2);
  };
  // A cell of the p × p matrix: a receive from any source that nothing matched has src -1 (it
  // is listed in the tables, not drawn).
  const inMatrix = (c, p) => c.src >= 0 && c.src < p && c.dst >= 0 && c.dst < p;
  const runCells = (tr) => tr.pairs.src.map((src, k) => ({ src, dst: tr.pairs.dst[k], rate: tr.pairs.rate_mean[k] }));
  const cellsOf = (tr, f) => frameCells(tr, f).map((c) => ({ src: tr.pairs.src[c.k], dst: tr.pairs.dst[c.k], rate: c.rate,
                                                             messages: c.messages, bytes: c.bytes }));

  const frameTable = (cells) => PSC.table([
    ["sender", (c) => c.src], ["receiver", (c) => c.dst], ["messages", (c) => c.messages],
    ["bytes", (c) => c.bytes], ["rate", (c) => c.rate, fmtRate],
  ], cells, { id: "traffic-frame" });

  const draw = () => {
    const { tr, p, f } = S;
    const fr = tr.frames, cells = cellsOf(tr, f);
    drawMatrix(S.cv, S.g, p, cells, `frame ${f + 1} of ${fr.n}`);
    drawMatrix(S.runCv, S.g, p, runCells(tr), "whole run (mean rate)");
    S.slider.value = String(f);
    S.label.textContent = `${PSC.fmtNs(f * fr.dt_ns)} – ${PSC.fmtNs(Math.min((f + 1) * fr.dt_ns, S.run))}` +
      ` (${cells.length} pairs)`;
    S.loIn.value = String(+(S.lo / 1e6).toPrecision(6));
    S.hiIn.value = String(+(S.hi / 1e6).toPrecision(6));
    S.legendText.textContent = `black < ${fmtRate(S.lo)} ≤ … ≤ ${fmtRate(S.hi)} < white; grey: no messages`;
    S.frameTable.replaceChildren(frameTable(cells));
  };
  const setFrame = (f) => { S.f = Math.max(0, Math.min(S.tr.frames.n - 1, f)); draw(); };
  const setLimits = ([lo, hi]) => { S.lo = lo; S.hi = hi; draw(); };
  const play = (on) => {
    if (S.timer) clearInterval(S.timer);
    S.timer = null;
    if (on) S.timer = setInterval(() => (S.f + 1 < S.tr.frames.n ? setFrame(S.f + 1) : play(false)), 1000 / S.fps);
    S.playBtn.textContent = on ? "pause" : "play";
  };

  PSC.view({
    id: "traffic", title: "Traffic", order: 50,
    available: (d) => !!(d.mpi && d.mpi.traffic && d.mpi.traffic.pairs.src.length),
    render(s, d) {
      const tr = d.mpi.traffic, p = d.mpi.ranks;
      const g = geometry(p, Math.max(240, (PSC.width() - 16) / 2));
      const btn = (label, fn, id) => PSC.el("button", { id, onclick: fn }, label);
      Object.assign(S, {
        tr, p, g, f: 0, run: d.mpi.run_ns, fps: 10, timer: null,
        cv: PSC.canvas(g.w, g.h, { id: "traffic-canvas" }), runCv: PSC.canvas(g.w, g.h, { id: "traffic-run-canvas" }),
        slider: PSC.el("input", { id: "traffic-slider", type: "range", min: "0", max: String(tr.frames.n - 1), step: "1", value: "0" }),
        label: PSC.el("span", { id: "traffic-time" }),
        loIn: PSC.el("input", { id: "traffic-min", type: "number", step: "any", style: "width:110px" }),
        hiIn: PSC.el("input", { id: "traffic-max", type: "number", step: "any", style: "width:110px" }),
        legendText: PSC.el("span", { id: "traffic-legend" }), frameTable: PSC.el("div"),
      });
      S.playBtn = btn("play", () => play(!S.timer), "traffic-play");
      S.slider.oninput = () => setFrame(+S.slider.value);
      const typed = () => {
        const lo = parseFloat(S.loIn.value) * 1e6, hi = parseFloat(S.hiIn.value) * 1e6;
        if (Number.isFinite(lo) && Number.isFinite(hi)) setLimits([lo, hi]);
      };
      S.loIn.onchange = typed;
      S.hiIn.onchange = typed;
      const click = (ev) => {
        const i = Math.floor((ev.offsetY - g.T) / g.c), j = Math.floor((ev.offsetX - g.L) / g.c);
        if (i >= 0 && i < p && ev.offsetX < g.L) PSC.emit("rank", i);
        else if (j >= 0 && j < p && ev.offsetY < g.T) PSC.emit("rank", j);
        else if (i >= 0 && i < p && j >= 0 && j < p) PSC.emit("rank", i);
      };
      S.cv.addEventListener("click", click);
      S.runCv.addEventListener("click", click);
      const lg = PSC.canvas(200, 12);
      const lx = lg.getContext("2d", CTX);
      for (let k = 0; k < 200; k++) {
        lx.fillStyle = PSC.css(PSC.heatRGB(0.2 + (0.8 * k) / 199));
        lx.fillRect(k, 0, 1, 12);
      }
      const runTable = PSC.table([
        ["sender", (k) => tr.pairs.src[k]], ["receiver", (k) => tr.pairs.dst[k]],
        ["messages", (k) => tr.pairs.messages[k]], ["matched", (k) => tr.pairs.matched[k]],
        ["bytes", (k) => tr.pairs.bytes[k]], ["mean rate", (k) => tr.pairs.rate_mean[k], fmtRate],
        ["min rate", (k) => tr.pairs.rate_min[k], fmtRate], ["max rate", (k) => tr.pairs.rate_max[k], fmtRate],
      ], tr.pairs.src.map((_, k) => k), { id: "traffic-run" });
      s.append(PSC.el("h2", {}, "Traffic"),
        PSC.el("p", {}, `Row: sender, column: receiver. ${PSC.fmtNum(tr.messages)} messages, ${PSC.fmtBytes(tr.bytes)}; ` +
               `${tr.frames.n} frames of ${PSC.fmtNs(tr.frames.dt_ns)}. A message's effective rate is its bits over the ` +
               "time from the start of its send to the end of its receive; it counts in every frame that time overlaps."),
        PSC.el("div", { class: "controls" }, S.playBtn, btn("◀", () => setFrame(S.f - 1), "traffic-prev"),
               S.slider, btn("▶", () => setFrame(S.f + 1), "traffic-next"), S.label),
        PSC.el("div", { class: "controls" }, PSC.el("label", {}, "gradient Mbit/s: min"), S.loIn,
               PSC.el("label", {}, "max"), S.hiIn,
               btn("fit gradient to this frame", () => setLimits(limits(frameCells(tr, S.f).map((c) => c.rate))), "traffic-fit-frame"),
               btn("to the whole run", () => setLimits(limits(allRates(tr))), "traffic-fit-run")),
        PSC.el("div", { class: "legend" }, lg, S.legendText),
        PSC.el("div", { class: "row" }, S.cv, S.runCv),
        PSC.el("h3", {}, "This frame"), S.frameTable,
        PSC.el("h3", {}, "Whole run"), runTable);
      const [lo, hi] = limits(allRates(tr));
      S.lo = lo;
      S.hi = hi;
      // start on the first frame with messages
      let f0 = 0;
      while (f0 + 1 < tr.frames.n && tr.frames.first[f0] === tr.frames.first[f0 + 1]) f0++;
      S.f = f0;
      draw();
    },
    async test(s, d, t) {
      const { tr, p, g } = S;
      const checkFrame = (f, what) => {
        const cells = cellsOf(tr, f), at = new Map(cells.map((c) => [c.src * p + c.dst, c]));
        t.eq(S.f, f, `${what}: frame shown`);
        const step = Math.max(1, Math.floor(p / 16));
        for (let i = 0; i < p; i += step)
          for (let j = 0; j < p; j += step) {
            const c = at.get(i * p + j);
            t.pixel(S.cv, g.x(j) + g.c / 2, g.y(i) + g.c / 2, rateRGB(c ? c.rate : null, S.lo, S.hi),
                    `${what}: frame ${f} cell ${i}→${j}`, 2);
          }
        for (const c of cells)
          t.pixel(S.cv, g.x(c.dst) + g.c / 2, g.y(c.src) + g.c / 2, rateRGB(c.rate, S.lo, S.hi),
                  `${what}: frame ${f} pair ${c.src}→${c.dst}`, 2);
        t.eq(s.querySelectorAll("#traffic-frame tbody tr").length, cells.length, `${what}: frame table rows`);
      };
      const runCheck = (what) => runCells(tr).filter((c) => inMatrix(c, p)).forEach((c) =>
        t.pixel(S.runCv, g.x(c.dst) + g.c / 2, g.y(c.src) + g.c / 2, rateRGB(c.rate, S.lo, S.hi),
                `${what}: whole-run cell ${c.src}→${c.dst}`, 2));
      // whole-run fit: every rate inside the limits, none white or black
      s.querySelector("#traffic-fit-run").click();
      const [lo, hi] = limits(allRates(tr));
      t.eq(S.lo, lo, "fit to the run: min");
      t.eq(S.hi, hi, "fit to the run: max");
      runCheck("fit to run");
      // every frame with messages, stepped with the next button from the first
      setFrame(0);
      const busy = [];
      for (let f = 0; f < tr.frames.n; f++) if (tr.frames.first[f + 1] > tr.frames.first[f]) busy.push(f);
      t.ok(busy.length > 0, "some frame has messages");
      for (let f = 0; f < tr.frames.n; f++) {
        if (busy.includes(f) || f === 0) checkFrame(f, "step");
        if (f + 1 < tr.frames.n) s.querySelector("#traffic-next").click();
      }
      // fit to one frame: its extreme rates are the limits, rates of other frames outside
      // them are white or black
      if (busy.length) {
        setFrame(busy[0]);
        s.querySelector("#traffic-fit-frame").click();
        const fl = limits(frameCells(tr, busy[0]).map((c) => c.rate));
        t.eq(S.lo, fl[0], "fit to frame: min");
        t.eq(S.hi, fl[1], "fit to frame: max");
        checkFrame(busy[0], "fit to frame");
        runCheck("fit to frame");
      }
      // typed limits: everything above a tiny max is white
      S.loIn.value = "0";
      S.hiIn.value = "0.000001";
      S.hiIn.dispatchEvent(new Event("change"));
      if (busy.length) {
        const c = cellsOf(tr, S.f).find((c) => c.rate !== null);
        if (c) t.pixel(S.cv, g.x(c.dst) + g.c / 2, g.y(c.src) + g.c / 2, [255, 255, 255], "a rate above the typed max is white", 0);
      }
      // playing advances the frames in (virtual) time
      s.querySelector("#traffic-fit-run").click();
      setFrame(0);
      s.querySelector("#traffic-play").click();
      await new Promise((res) => setTimeout(res, 1000 / S.fps * 3.5));
      s.querySelector("#traffic-play").click();
      t.ok(S.f >= Math.min(2, tr.frames.n - 1), `playing advanced the frames (at ${S.f})`);
      checkFrame(S.f, "after playing");
      // clicking a sender's label emits its rank (last: it opens the detail)
      const got = [];
      PSC.on("rank", (r) => got.push(r));
      const box = S.cv.getBoundingClientRect();
      S.cv.dispatchEvent(new MouseEvent("click", { clientX: box.left + 1 + g.L - 10, clientY: box.top + 1 + g.y(p - 1) + g.c / 2 }));
      t.eq(got.join(","), String(p - 1), "rank emitted by a click on a sender's label");
    },
  });
})();
