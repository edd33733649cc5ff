// view-load.js - Load: each rank's CPU share (1 = one CPU busy) from the load logs, animated on
// the rank grid (colour on the heat gradient, 0 to 1 CPU and above), its host's busy share at
// the shown time, beside it each rank's run averages as share bars (its host's busy share and
// the rank's own CPU share, both of the host's CPUs), and the run averages per rank (bar
// chart and table) and per host. Data: d.load (html-anim.c); the player and grid come from
// view-animation.js.
"use strict";
(function () {
  const UNKNOWN = [150, 150, 150]; // no sample covers the time, or the share was not known
  const fmt3 = (v) => v.toFixed(3);
  const pct = (v) => (v * 100).toFixed(1) + " %";
  // The sample of HOST covering time T: sample i covers (t[i-1], t[i]] (the first a period
  // before t[0]); -1 when none does.
  const sampleAt = (host, t) => {
    const ts = host.t;
    let lo = 0, hi = ts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ts[mid] < t) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= ts.length) return -1;
    return lo > 0 || t > ts[0] - host.period_ns ? lo : -1;
  };
  const valueAt = (ld, rk, t) => {
    const i = sampleAt(ld.hosts[rk.host], t);
    return i < 0 ? null : rk.share[i];
  };
  const colorOfValue = (v) => (v === null || v === undefined ? UNKNOWN : PSC.heatRGB(Math.min(1, v)));
  // The share bars: a row per rank (LABEL_W px of label, BAR_W of bar from 0 to 100 % of the
  // host's CPUs, TEXT_W of values), rows of 2 to 18 px filling at least the grid's height.
  const BARS = { LABEL_W: 64, BAR_W: 200, TEXT_W: 170, HEAD: 18, TRACK: [242, 242, 242],
                 HOST: [170, 190, 215], OWN: [189, 0, 38] };
  BARS.W = BARS.LABEL_W + BARS.BAR_W + BARS.TEXT_W;
  const clamp01 = (v) => Math.min(1, Math.max(0, v));
  // The bars' geometry for N ranks beside a grid of GRIDH px: row height, gap, drawn ranks.
  const barsLayout = (n, gridH) => {
    const rh = Math.max(2, Math.min(18, Math.floor(Math.max(260, gridH) / Math.max(1, n))));
    const drawn = Math.min(n, Math.floor((PSC.CANVAS_MAX_SIDE - BARS.HEAD) / rh));
    const gap = rh >= 6 ? 2 : 0, barH = rh - gap, q = barH >= 4 ? Math.floor(barH / 4) : 0;
    return { rh, gap, barH, q, drawn, height: BARS.HEAD + drawn * rh };
  };
  // The host's busy share (null: not known) and the rank's own share of the host's CPUs.
  const barValues = (ld, rk) => {
    const h = ld.hosts[rk.host];
    return { busy: h.busy.mean, own: rk.mean === null ? null : rk.mean / Math.max(1, h.cpus), h };
  };
  const runLength = (ld) => Math.max(ld.duration_ns || 0, ...ld.hosts.map((h) => (h.t.length ? h.t[h.t.length - 1] : 0)));
  let ui = null;

  PSC.view({
    id: "load", title: "Load", order: 70,
    available: (d) => !!d.load && d.load.rank.length > 0,
    render(s, d) {
      const ld = d.load, byRank = new Map(ld.rank.map((r) => [r.rank, r]));
      let now = 0;
      const value = (r) => (byRank.has(r) ? valueAt(ld, byRank.get(r), now) : null);
      const grid = PSC.rankGrid("load", ld.ranks, ld.grid[0], ld.grid[1], (r) => colorOfValue(value(r)),
        (r) => { const v = value(r); return v === null ? "not known" : `${fmt3(v)} CPUs`; });
      const hostsNow = PSC.el("p", { id: "load-now" });
      const update = (t) => {
        now = t;
        grid.draw();
        hostsNow.textContent = ld.hosts.map((h) => {
          const i = sampleAt(h, t), b = i < 0 ? null : h.busy_over_time[i];
          return `${h.host}: ` + (b === null ? "busy not known" : `${pct(b)} of ${h.cpus} CPUs busy`);
        }).join("; ");
      };
      const period = ld.hosts[0].period_ns || 1e8, duration = runLength(ld);
      const fps = 1e9 / period;
      const player = PSC.player("load", duration, fps, update);
      const first = Math.min(...ld.hosts.map((h) => (h.t.length ? h.t[0] : duration)));
      player.set(Math.ceil(first / player.step)); // the first sample, not the time before it
      // the gradient's legend
      const leg = PSC.el("div", { class: "legend", id: "load-legend" });
      [0, 0.25, 0.5, 0.75, 1].forEach((v) => leg.append(PSC.el("span", {},
        PSC.el("span", { class: "swatch", style: `background:${PSC.css(PSC.heatRGB(v))}` }), v === 1 ? "≥ 1 CPU" : `${v} CPU`)));
      leg.append(PSC.el("span", {}, PSC.el("span", { class: "swatch", style: `background:${PSC.css(UNKNOWN)}` }), "not known"));

      // run averages: a bar per rank, a table of ranks and one of hosts
      const cols = [["rank", (r) => r.rank], ["host", (r) => ld.hosts[r.host].host], ["pid", (r) => String(r.pid)],
        ["samples", (r) => r.samples], ["mean CPUs", (r) => r.mean, fmt3], ["min", (r) => r.min, fmt3],
        ["max", (r) => r.max, fmt3]];
      const table = PSC.table(cols, ld.rank, { id: "load-averages" });
      table.addEventListener("click", (ev) => {
        const tr = ev.target.closest("tbody tr");
        if (tr) PSC.emit("rank", Number(tr.firstChild.textContent));
      });
      const hcols = [["host", (h) => h.host], ["CPUs", (h) => h.cpus], ["samples", (h) => h.busy.samples],
        ["busy mean", (h) => h.busy.mean, pct], ["min", (h) => h.busy.min, pct], ["max", (h) => h.busy.max, pct],
        ["every", (h) => h.period_ns, PSC.fmtNs]];
      const htable = PSC.table(hcols, ld.hosts, { id: "load-hosts" });
      // share bars beside the grid: per rank, its host's busy share (all processes) and its
      // own CPU share, both of the host's CPUs
      const L = barsLayout(ld.rank.length, grid.canvas.height);
      const bars = PSC.canvas(BARS.W, L.height, { id: "load-bars" });
      bars.getContext("2d", { willReadFrequently: true }); // tests read pixels
      const barsData = PSC.el("pre", { id: "load-bars-data", hidden: "" });
      const drawBars = () => {
        const ctx = bars.getContext("2d"), x0 = BARS.LABEL_W, bw = BARS.BAR_W;
        ctx.fillStyle = "#fff";
        ctx.fillRect(0, 0, bars.width, bars.height);
        ctx.font = "11px sans-serif";
        ctx.textBaseline = "middle";
        ctx.fillStyle = "#444";
        for (const f of [0, 0.5, 1]) {
          ctx.fillRect(x0 + Math.min(bw - 1, Math.round(f * bw)), BARS.HEAD - 5, 1, 5);
          ctx.fillText(`${f * 100} %`, x0 + Math.min(bw - 28, Math.round(f * bw)) + 2, BARS.HEAD / 2 - 2);
        }
        const lines = [];
        ld.rank.forEach((rk, i) => {
          const { busy, own, h } = barValues(ld, rk);
          lines.push(`rank ${rk.rank}: host ${h.host} busy ${busy === null ? "n/a" : busy.toFixed(4)}, ` +
                     `own ${rk.mean === null ? "n/a" : rk.mean.toFixed(4)} CPUs of ${h.cpus}`);
          if (i >= L.drawn) return;
          const y = BARS.HEAD + i * L.rh + L.gap / 2;
          ctx.fillStyle = PSC.css(BARS.TRACK);
          ctx.fillRect(x0, y, bw, L.barH);
          if (busy !== null) {
            ctx.fillStyle = PSC.css(BARS.HOST);
            ctx.fillRect(x0, y, Math.round(clamp01(busy) * bw), L.barH);
          }
          if (own !== null) {
            ctx.fillStyle = PSC.css(BARS.OWN);
            ctx.fillRect(x0, y + L.q, Math.round(clamp01(own) * bw), L.barH - 2 * L.q);
          }
          if (L.rh >= 10) {
            ctx.fillStyle = "#222";
            ctx.fillText(`rank ${rk.rank}`, 2, y + L.barH / 2);
            ctx.fillText(`${busy === null ? "n/a" : pct(busy)} · ${rk.mean === null ? "n/a" : fmt3(rk.mean)} CPU`,
                         x0 + bw + 6, y + L.barH / 2);
          }
        });
        barsData.textContent = lines.join("\n");
      };
      bars.style.cursor = "pointer";
      bars.addEventListener("click", (ev) => {
        const b = bars.getBoundingClientRect(), i = Math.floor((ev.clientY - b.top - bars.clientTop - BARS.HEAD) / L.rh);
        if (i >= 0 && i < L.drawn) PSC.emit("rank", ld.rank[i].rank);
      });
      bars.addEventListener("mousemove", (ev) => {
        const b = bars.getBoundingClientRect(), i = Math.floor((ev.clientY - b.top - bars.clientTop - BARS.HEAD) / L.rh);
        const rk = i >= 0 && i < L.drawn ? ld.rank[i] : null, v = rk && barValues(ld, rk);
        bars.title = rk ? `rank ${rk.rank}: host ${v.h.host} ${v.busy === null ? "busy not known" : pct(v.busy) + " busy"}` +
          ` (all processes); this rank ${rk.mean === null ? "not known" : `${fmt3(rk.mean)} CPUs = ${pct(v.own)}`} of its ${v.h.cpus} CPUs` : "";
      });
      drawBars();
      const barsKey = PSC.el("div", { class: "legend" },
        PSC.el("span", {}, PSC.el("span", { class: "swatch", style: `background:${PSC.css(BARS.HOST)}` }), "host busy (all processes)"),
        PSC.el("span", {}, PSC.el("span", { class: "swatch", style: `background:${PSC.css(BARS.OWN)}` }), "the rank's own CPU share"));
      const barsBox = PSC.el("div", { id: "load-bars-box" },
        PSC.el("div", { class: "note" }, "Run averages, % of the host's CPUs"), bars, barsKey, barsData,
        L.drawn < ld.rank.length ? PSC.el("p", { class: "note" }, `The first ${L.drawn} of ${ld.rank.length} ranks are drawn.`) : null);
      const chartCanvas = PSC.canvas(Math.min(PSC.width(), 60 + 28 * ld.rank.length), 260, { id: "load-chart" });
      s.append(PSC.el("h2", {}, "Load"),
        PSC.el("p", {}, `The CPU share of each rank over time (1 = one CPU busy all the time), sampled every ${PSC.fmtNs(period)}: ` +
          "a square shows the sample covering the shown time. Click a rank for its details."),
        player.el, grid.controls,
        PSC.el("div", { style: "display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start" }, grid.el, barsBox),
        leg, hostsNow,
        PSC.el("h3", {}, "Run averages"), chartCanvas, table, PSC.el("h3", {}, "Hosts"), htable);
      const chart = new Chart(chartCanvas.getContext("2d"), {
        type: "bar",
        data: {
          labels: ld.rank.map((r) => "rank " + r.rank),
          datasets: [{ label: "mean CPUs in use", data: ld.rank.map((r) => r.mean),
                       backgroundColor: ld.rank.map((r) => PSC.css(colorOfValue(r.mean))), borderColor: "#555", borderWidth: 1 }],
        },
        options: { scales: { y: { beginAtZero: true, title: { display: true, text: "CPUs" } } },
                   onClick: (ev, els) => { if (els.length) PSC.emit("rank", ld.rank[els[0].index].rank); } },
      });
      ui = { grid, player, chart, fps, byRank, initial: player.frame, bars, L };
    },
    async test(s, d, t) {
      const ld = d.load, { grid, player, chart, byRank } = ui;
      const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
      // expected value, found by a linear scan of the host's samples
      const expect = (r, time) => {
        const rk = byRank.get(r);
        if (!rk) return null;
        const h = ld.hosts[rk.host];
        for (let i = 0; i < h.t.length; i++) {
          if (time <= h.t[i]) return i > 0 || time > h.t[0] - h.period_ns ? rk.share[i] : null;
        }
        return null;
      };
      const checkGrid = (what) => {
        const time = player.time;
        let bad = 0;
        for (let r = 0; r < ld.ranks && bad < 3; r++) {
          if (!grid.shown(r)) continue;
          const [x, y] = grid.fillPoint(r), v = expect(r, time);
          if (!t.pixel(grid.canvas, x, y, colorOfValue(v),
                       `${what}: rank ${r} at ${time} ns: ${v === null ? "not known" : v + " CPUs"}`, 2)) bad++;
        }
      };
      // at sample times of the first host, just before them, and after the last sample
      const h0 = ld.hosts[0], n = h0.t.length, picks = new Set();
      for (let k = 0; k < Math.min(n, 16); k++) picks.add(Math.floor((k * (n - 1)) / Math.max(1, Math.min(n, 16) - 1)));
      player.setFps(1e9); // 1 ns frames
      for (const i of picks) {
        for (const x of [h0.t[i], h0.t[i] - Math.floor(h0.period_ns / 2)]) {
          if (x < 0) continue;
          player.set(x);
          checkGrid(`sample ${i}`);
        }
      }
      if (player.nframes > h0.t[n - 1]) {
        player.set(player.nframes);
        checkGrid("after the last sample");
      }
      // one frame per sample period: a step moves by one period
      player.setFps(ui.fps);
      t.eq(player.step, Math.round(h0.period_ns), "a frame per sample period");
      player.set(2);
      s.querySelector("#load-fwd").click();
      t.eq(player.time, Math.min(runLength(ld), 3 * player.step), "a step forward: one period");
      s.querySelector("#load-back").click();
      t.eq(player.frame, 2, "a step back");
      if (player.nframes > 6) {
        player.set(0);
        s.querySelector("#load-play").click();
        await sleep(3 * player.tickMs + player.tickMs / 2);
        s.querySelector("#load-pause").click();
        t.near(player.frame, 3, 1, "140 ms of playing: 3 frames (timers may fire late: within one)");
        checkGrid("after playing");
      }
      // the averages: the table and the bars hold the data's means
      const rows = s.querySelectorAll("#load-averages tbody tr");
      t.eq(rows.length, ld.rank.length, "a row per rank");
      rows.forEach((tr) => {
        const c = [...tr.children].map((td) => td.textContent), rk = byRank.get(Number(c[0]));
        t.ok(!!rk, `row of rank ${c[0]} is a rank of the data`);
        if (!rk) return;
        t.eq(c[3], PSC.fmtNum(rk.samples), `rank ${rk.rank} samples`);
        t.eq(c[4], rk.mean === null ? "n/a" : fmt3(rk.mean), `rank ${rk.rank} mean`);
        t.eq(c[6], rk.max === null ? "n/a" : fmt3(rk.max), `rank ${rk.rank} max`);
      });
      t.eq(JSON.stringify(chart.data.datasets[0].data), JSON.stringify(ld.rank.map((r) => r.mean)), "a bar per rank at its mean");
      t.eq(s.querySelectorAll("#load-hosts tbody tr").length, ld.hosts.length, "a row per host");
      // the share bars: a line of values per rank, and each bar ends where its share says
      // (the host's in the row's top quarter, the rank's own in its middle)
      const { bars, L } = ui, bx0 = BARS.LABEL_W, bw = BARS.BAR_W;
      const lines = s.querySelector("#load-bars-data").textContent.split("\n");
      t.eq(lines.length, ld.rank.length, "a share bar's values per rank");
      const near = (a, b) => a.every((c, k) => Math.abs(c - b[k]) <= 2);
      ld.rank.slice(0, Math.min(L.drawn, 64)).forEach((rk, i) => {
        const h = ld.hosts[rk.host], busy = h.busy.mean, own = rk.mean === null ? null : rk.mean / Math.max(1, h.cpus);
        const f4 = (v) => (v === null ? "n/a" : v.toFixed(4));
        t.eq(lines[i], `rank ${rk.rank}: host ${h.host} busy ${f4(busy)}, own ${f4(rk.mean)} CPUs of ${h.cpus}`, `rank ${rk.rank}'s bar values`);
        if (L.barH < 8) return;
        const y = BARS.HEAD + i * L.rh + L.gap / 2, ytop = y, ymid = y + Math.floor(L.barH / 2);
        const pix = (x, yy) => PSC.pixel(bars, x, yy).slice(0, 3);
        const ends = (v, yy, rgb, what) => {
          if (v === null) return;
          const e = bx0 + Math.round(clamp01(v) * bw);
          if (e - bx0 >= 2) t.ok(near(pix(e - 1, yy), rgb), `rank ${rk.rank}: the ${what} bar reaches ${e - 1} (${v.toFixed(4)})`);
          if (e + 1 < bx0 + bw) t.ok(!near(pix(e + 1, yy), rgb), `rank ${rk.rank}: the ${what} bar ends before ${e + 1}`);
        };
        ends(busy, ytop, BARS.HOST, "host busy");
        ends(own, ymid, BARS.OWN, "own share");
      });
      {
        // a click on the last drawn rank's bar emits its rank
        let got = -1;
        const emit = PSC.emit, i = L.drawn - 1, b = bars.getBoundingClientRect();
        PSC.emit = (ev, ...args) => (ev === "rank" ? (got = args[0]) : emit(ev, ...args));
        bars.dispatchEvent(new MouseEvent("click", { clientX: b.left + bx0 + 2,
          clientY: b.top + bars.clientTop + BARS.HEAD + i * L.rh + L.rh / 2 }));
        PSC.emit = emit;
        t.eq(got, ld.rank[i].rank, "clicking a share bar emits its rank");
      }
      // clicking a square emits its rank (caught here, so other views keep their state)
      let got = -1;
      const emit = PSC.emit;
      PSC.emit = (ev, ...args) => (ev === "rank" ? (got = args[0]) : emit(ev, ...args));
      const last = ld.ranks - 1, [x, y] = grid.origin(last), c = grid.canvas, b = c.getBoundingClientRect();
      c.dispatchEvent(new MouseEvent("click", { clientX: b.left + c.clientLeft + x + 2, clientY: b.top + c.clientTop + y + 2 }));
      PSC.emit = emit;
      t.eq(got, last, "clicking the last rank's square emits its rank");
      player.set(ui.initial);
    },
  });
})();
