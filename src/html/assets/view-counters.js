// view-counters.js - Counters over time: each sampled event's rate per interval (threads
// summed) as a line, with the program's start and end, exec/exit, throttling and region
// markers as vertical lines; and the share of the samples of the top functions per interval
// as stacked areas. Data: d.counters (html-counters.c: at most 1000 markers, the others
// counted in markers_dropped; region names with their counts in regions).
"use strict";
(function () {
  const MARK = { run: [40, 40, 40], exec: [40, 40, 40], exit: [40, 40, 40], throttled: [200, 0, 0],
                 unthrottled: [200, 0, 0], begin: [230, 120, 0], end: [120, 60, 160] };
  // Interval midpoints in s (x of every point).
  const mids = (c) => c.t_ns.slice(0, -1).map((t, i) => (t + c.t_ns[i + 1]) / 2e9);
  // The vertical lines: run start and end, then the data's markers. [{x (s), kind, label}]
  const markers = (c) => [{ x: 0, kind: "run", label: "start" }, { x: c.end_ns / 1e9, kind: "run", label: "end" }]
    .concat(c.markers.map((m) => ({ x: m.t_ns / 1e9, kind: m.kind,
                                    label: m.name ? `${m.name} ${m.kind}` : m.kind })));
  const swatch = (kind) => PSC.el("span", { class: "swatch", style: `background:${PSC.css(MARK[kind] || MARK.run)}` });
  // The markers' legend: the run's start and end, each other kind of marker once (with its
  // count when it occurs more than once), and each region name once with its begins and ends
  // in the whole run (c.regions: also those beyond the markers' budget).
  const legendOf = (c, marks) => {
    const legend = PSC.el("div", { class: "legend", id: "counters-markers" });
    const kinds = new Map();
    for (const m of marks) {
      if (m.kind === "begin" || m.kind === "end") continue;
      const key = m.kind === "run" ? m.label : m.kind;
      if (!kinds.has(key)) kinds.set(key, { kind: m.kind, first: m.x, n: 0 });
      kinds.get(key).n++;
    }
    for (const [key, k] of kinds) {
      legend.append(PSC.el("span", { "data-marker": key }, swatch(k.kind),
        k.n > 1 ? `${key} ×${PSC.fmtNum(k.n)} (first at ${PSC.fmtNs(k.first * 1e9)})` : `${key} at ${PSC.fmtNs(k.first * 1e9)}`));
    }
    for (const g of c.regions || []) {
      legend.append(PSC.el("span", { "data-region": g.name }, swatch("begin"), swatch("end"),
        `region ${g.name}: ${PSC.fmtNum(g.begins)} begins, ${PSC.fmtNum(g.ends)} ends`));
    }
    return legend;
  };
  // Share (%) of the samples of function F in each interval.
  const shares = (c) => c.fsamples.map((fs) => fs.map((v, i) => (c.samples[i] ? (100 * v) / c.samples[i] : 0)));

  // A Chart.js plugin drawing the markers as 1-pixel vertical lines over the plot area.
  const markerPlugin = (list) => ({
    id: "pscMarkers",
    afterDatasetsDraw(chart) {
      const { ctx, chartArea: a, scales } = chart;
      ctx.save();
      ctx.lineWidth = 1;
      for (const m of list) {
        const x = Math.round(scales.x.getPixelForValue(m.x)) + 0.5;
        if (x < a.left - 1 || x > a.right + 1) continue;
        ctx.strokeStyle = PSC.css(MARK[m.kind] || MARK.run);
        ctx.setLineDash(m.kind === "end" || m.kind === "unthrottled" ? [4, 3] : []);
        ctx.beginPath();
        ctx.moveTo(x, a.top);
        ctx.lineTo(x, a.bottom);
        ctx.stroke();
      }
      ctx.restore();
    },
  });
  const xAxis = (c) => ({ type: "linear", min: 0, max: c.end_ns / 1e9, title: { display: true, text: "time (s)" } });

  PSC.view({
    id: "counters", title: "Counters over time", order: 90,
    available: (d) => !!d.counters && d.counters.t_ns.length > 1,
    render(s, d) {
      const c = d.counters, w = PSC.width(), x = mids(c), marks = markers(c);
      s.append(PSC.el("h2", {}, "Counters over time"),
               PSC.el("p", {}, `${c.t_ns.length - 1} intervals of ${PSC.fmtNs(c.interval_ns)}; rates per second, threads summed. ` +
                      "Vertical lines: the run's start and end, exec and exit (dark), throttling (red), " +
                      "region begins (orange) and ends (purple, dashed)."));
      s.append(legendOf(c, marks));
      if (c.markers_dropped) {
        s.append(PSC.el("p", { class: "note", id: "counters-dropped" },
          `${PSC.fmtNum(c.markers_dropped)} later markers are not drawn: at most ${PSC.fmtNum(c.markers.length)} ` +
          "(the process markers, then the earliest region begins and ends)."));
      }
      c.events.forEach((ev, k) => {
        if (!c.rates[k]) {
          s.append(PSC.el("p", { class: "note" }, `${ev}: not counted on this machine`));
          return;
        }
        const cv = PSC.canvas(w, 260, { id: `counters-rate-${k}` });
        s.append(cv);
        new Chart(cv.getContext("2d"), {
          type: "line",
          data: { datasets: [{ label: `${ev} per second`, data: x.map((t, i) => ({ x: t, y: c.rates[k][i] })),
                               borderColor: PSC.css(PSC.colorRGB(ev)), pointRadius: 0, borderWidth: 1.5 }] },
          options: { parsing: false, scales: { x: xAxis(c), y: { beginAtZero: true } },
                     plugins: { title: { display: true, text: ev } } },
          plugins: [markerPlugin(marks)],
        });
      });
      const sh = shares(c);
      const cs = PSC.canvas(w, 320, { id: "counters-share" });
      s.append(PSC.el("h3", {}, "Share of the samples per interval"), cs);
      new Chart(cs.getContext("2d"), {
        type: "line",
        data: { datasets: c.functions.map((f, k) => ({
          label: f, data: x.map((t, i) => ({ x: t, y: sh[k][i] })), fill: k === 0 ? "origin" : "-1",
          backgroundColor: PSC.css(f === "other" ? [150, 150, 150] : PSC.colorRGB(f), 0.75),
          borderColor: PSC.css(f === "other" ? [150, 150, 150] : PSC.colorRGB(f)), pointRadius: 0, borderWidth: 1 })) },
        options: { parsing: false, scales: { x: xAxis(c), y: { stacked: true, min: 0, max: 100, title: { display: true, text: "% of samples" } } },
                   plugins: { legend: { position: "bottom" } } },
        plugins: [markerPlugin(marks)],
      });
    },
    test(s, d, t) {
      const c = d.counters, x = mids(c), n = c.t_ns.length - 1;
      const get = (id) => Chart.getChart(s.querySelector("#" + id));
      let lines = 0;
      c.events.forEach((ev, k) => {
        if (!c.rates[k]) {
          t.ok(!s.querySelector(`#counters-rate-${k}`), `${ev}: no chart for an event not counted`);
          return;
        }
        lines++;
        const ch = get(`counters-rate-${k}`);
        const pts = ch.data.datasets[0].data;
        t.eq(pts.length, n, `${ev}: one point per interval`);
        t.ok(pts.every((p, i) => p.x === x[i] && p.y === c.rates[k][i]), `${ev}: the points are the rates`);
        // the run's start marker: a dark vertical line at x = 0, half-way down the plot
        const a = ch.chartArea, px = Math.round(ch.scales.x.getPixelForValue(0));
        t.pixel(s.querySelector(`#counters-rate-${k}`), px, (a.top + a.bottom) / 2, MARK.run, `${ev}: start marker`, 40);
      });
      t.eq(s.querySelectorAll("canvas[id^=counters-rate-]").length, lines, "one rate chart per counted event");
      const cs = get("counters-share"), sh = shares(c);
      t.eq(cs.data.datasets.length, c.functions.length, "one stacked area per function (and other)");
      c.functions.forEach((f, k) => {
        t.eq(cs.data.datasets[k].label, f, `area ${k} is ${f}`);
        t.ok(cs.data.datasets[k].data.every((p, i) => p.x === x[i] && p.y === sh[k][i]), `${f}: its share per interval`);
      });
      // every interval with samples: the shares add up to 100 %
      c.samples.forEach((m, i) => {
        if (!m) return;
        const tot = sh.reduce((a, v) => a + v[i], 0);
        t.near(tot, 100, 1e-6, `interval ${i}: shares add up to 100 %`);
      });
      // the legend: start, end and each other kind of marker once, each region name once
      const kinds = new Set(c.markers.filter((m) => m.kind !== "begin" && m.kind !== "end").map((m) => m.kind));
      t.eq(s.querySelectorAll("#counters-markers > [data-marker]").length, kinds.size + 2, "each kind of marker once in the legend");
      const regs = [...s.querySelectorAll("#counters-markers > [data-region]")].map((e) => e.dataset.region);
      const named = new Set(c.markers.filter((m) => m.name).map((m) => m.name));
      t.eq(regs.length, new Set(regs).size, "each region name once in the legend");
      t.ok([...named].every((n) => regs.includes(n)), "every drawn region's name in the legend");
      t.eq(regs.join("\n"), (c.regions || []).map((g) => g.name).join("\n"), "the legend's regions are the data's");
      t.ok(c.markers.length <= 1000, `at most 1000 markers (${c.markers.length})`);
      const dropped = s.querySelector("#counters-dropped");
      t.eq(!!dropped, c.markers_dropped > 0, "a note when markers were left out");
      if (dropped) t.ok(dropped.textContent.startsWith(PSC.fmtNum(c.markers_dropped) + " "), "the note counts them");
    },
  });
})();
