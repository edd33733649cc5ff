// view-energy.js - Energy: the energy charged to each function (bars, shares as a pie, a
// table), and per interval the stacked energy next to the stacked share of time, as in a
// per-function energy study. Data: d.energy (html-energy.c).
"use strict";
(function () {
  const OUTSIDE = "[outside traced functions]", OTHER = "[other functions]";
  const TOP_BARS = 15, TOP_PIE = 8;
  const rgbOf = (name) => (name === OUTSIDE ? [200, 200, 200] : name === OTHER ? [140, 140, 140]
                                                                : PSC.colorRGB(name));
  const fmtJ = (j) => PSC.profileCols.fmtJ(j);

  // Bars and pie: the functions by exclusive energy, then the time outside traced functions.
  const barItems = (e) => e.functions.slice(0, TOP_BARS).map((f) => [f.name, f.excl_j])
    .concat([[OUTSIDE, e.outside_j]]);
  const pieItems = (e) => {
    const items = e.functions.slice(0, TOP_PIE).map((f) => [f.name, f.excl_j]);
    const rest = e.functions.slice(TOP_PIE).reduce((a, f) => a + f.excl_j, 0);
    if (e.functions.length > TOP_PIE) items.push([OTHER, rest]);
    items.push([OUTSIDE, e.outside_j]);
    return items;
  };
  // Per interval: each series' energy (J) and its share of the interval's time (%): its
  // exclusive time over the sum of every series' time (threads in traced code and idle time).
  const shares = (iv) => {
    const n = iv.energy_j.length;
    const tot = Array.from({ length: n }, (_, i) => iv.series.reduce((a, s) => a + s.ns[i], 0));
    return iv.series.map((s) => s.ns.map((v, i) => (tot[i] > 0 ? (100 * v) / tot[i] : 0)));
  };
  const labels = (iv) => iv.edges_ns.slice(0, -1).map((t) => (t / 1e9).toFixed(3));

  const chart = (c, cfg) => new Chart(c.getContext("2d"), cfg);
  const stacked = (title, unit, max) => ({
    plugins: { title: { display: true, text: title }, legend: { position: "bottom" } },
    scales: { x: { stacked: true, title: { display: true, text: "interval start (s)" } },
              y: { stacked: true, beginAtZero: true, max, title: { display: true, text: unit } } },
  });

  PSC.view({
    id: "energy", title: "Energy", order: 80,
    available: (d) => !!d.energy && d.energy.functions.length > 0,
    render(s, d) {
      const e = d.energy, w = PSC.width();
      s.append(PSC.el("h2", {}, "Energy"),
               PSC.el("p", { id: "energy-total" },
                      `${fmtJ(e.total_j)} over ${PSC.fmtNs(e.cover_to_ns - e.cover_from_ns)} of power samples ` +
                      `(${e.channel}, ${e.source}, ${e.method}); ${fmtJ(e.outside_j)} while no thread was in a traced function. ` +
                      "Each function is charged the power while it is on top of a thread's stack (exclusive)."));
      const bars = barItems(e), pie = pieItems(e);
      const cb = PSC.canvas(Math.round(w * 0.6), 360, { id: "energy-bars" });
      const cp = PSC.canvas(Math.round(w * 0.36), 360, { id: "energy-pie" });
      s.append(PSC.el("div", { class: "row" }, cb, cp));
      chart(cb, {
        type: "bar",
        data: { labels: bars.map((b) => b[0]),
                datasets: [{ label: "energy (J)", data: bars.map((b) => b[1]),
                             backgroundColor: bars.map((b) => PSC.css(rgbOf(b[0]))) }] },
        options: { indexAxis: "y", plugins: { legend: { display: false },
                                              title: { display: true, text: "Energy per function (J)" } } },
      });
      chart(cp, {
        type: "pie",
        data: { labels: pie.map((p) => p[0]),
                datasets: [{ data: pie.map((p) => p[1]), backgroundColor: pie.map((p) => PSC.css(rgbOf(p[0]))) }] },
        options: { plugins: { legend: { position: "bottom" }, title: { display: true, text: "Share of the energy" } } },
      });
      const rows = e.functions.concat([{ name: OUTSIDE, calls: null, excl_ns: e.outside_ns, excl_j: e.outside_j,
                                         power_w: e.outside_ns > 0 ? e.outside_j / (e.outside_ns * 1e-9) : 0 }]);
      const run = e.cover_to_ns - e.cover_from_ns;
      s.append(PSC.el("h3", {}, "Functions"), PSC.table([
        ["function", (r) => r.name], ["calls", (r) => r.calls], ["time", (r) => r.excl_ns, PSC.fmtNs],
        ["energy", (r) => r.excl_j, fmtJ], ["power", (r) => r.power_w, PSC.profileCols.fmtW],
        ["% energy", (r) => (e.total_j > 0 ? (100 * r.excl_j) / e.total_j : 0), PSC.fmtPct],
        ["% time", (r) => (run > 0 ? (100 * r.excl_ns) / run : 0), PSC.fmtPct],
      ], rows, { id: "energy-table", sortCol: 3 }));
      const iv = e.intervals;
      const ci = PSC.canvas(Math.round(w * 0.49), 380, { id: "energy-intervals" });
      const ct = PSC.canvas(Math.round(w * 0.49), 380, { id: "energy-time-share" });
      s.append(PSC.el("h3", {}, `Per interval (${iv.energy_j.length} intervals of ${PSC.fmtNs(iv.edges_ns[1] - iv.edges_ns[0])})`),
               PSC.el("div", { class: "row" }, ci, ct));
      const sh = shares(iv);
      chart(ci, {
        type: "bar",
        data: { labels: labels(iv), datasets: iv.series.map((sr) => ({
          label: sr.name, data: sr.j, backgroundColor: PSC.css(rgbOf(sr.name)) })) },
        options: stacked("Energy per interval", "J"),
      });
      chart(ct, {
        type: "bar",
        data: { labels: labels(iv), datasets: iv.series.map((sr, k) => ({
          label: sr.name, data: sh[k], backgroundColor: PSC.css(rgbOf(sr.name)) })) },
        options: stacked("Share of time per interval", "%", 100),
      });
    },
    test(s, d, t) {
      const e = d.energy, iv = e.intervals;
      const get = (id) => Chart.getChart(s.querySelector("#" + id));
      const same = (a, b, what) => {
        t.eq(a.length, b.length, what + ": count");
        t.ok(a.every((v, i) => v === b[i]), what + ": values");
      };
      const bars = barItems(e), pie = pieItems(e);
      const cb = get("energy-bars"), cp = get("energy-pie");
      same(cb.data.labels, bars.map((b) => b[0]), "bar labels");
      same(cb.data.datasets[0].data, bars.map((b) => b[1]), "bar energies");
      same(cp.data.labels, pie.map((p) => p[0]), "pie labels");
      same(cp.data.datasets[0].data, pie.map((p) => p[1]), "pie energies");
      t.near(pie.reduce((a, p) => a + p[1], 0), e.total_j, 1e-9 * Math.max(1, e.total_j), "pie adds up to the total");
      // the table: a row per function and one for the time outside, energy as formatted
      const trs = Array.from(s.querySelectorAll("#energy-table tbody tr"));
      t.eq(trs.length, e.functions.length + 1, "energy table: one row per function and one outside");
      const cell = new Map(trs.map((tr) => [tr.cells[0].textContent, tr.cells[3].textContent]));
      e.functions.forEach((f) => t.eq(cell.get(f.name), fmtJ(f.excl_j), `energy table: ${f.name}`));
      // per interval: the stacked datasets hold each series' values; they add up to the
      // interval's energy, the shares to 100 %
      const ci = get("energy-intervals"), ct = get("energy-time-share"), sh = shares(iv);
      t.eq(ci.data.datasets.length, iv.series.length, "energy per interval: one dataset per series");
      t.eq(ct.data.datasets.length, iv.series.length, "time share per interval: one dataset per series");
      iv.series.forEach((sr, k) => {
        same(ci.data.datasets[k].data, sr.j, `energy per interval of ${sr.name}`);
        same(ct.data.datasets[k].data, sh[k], `time share per interval of ${sr.name}`);
        t.eq(ci.data.datasets[k].label, sr.name, `dataset ${k} label`);
      });
      t.eq(ci.data.labels.length, iv.energy_j.length, "one bar per interval");
      iv.energy_j.forEach((j, i) => {
        const sum = iv.series.reduce((a, sr) => a + sr.j[i], 0);
        t.near(sum, j, 1e-9 * Math.max(1e-3, Math.abs(j)), `interval ${i}: the series add up to its energy`);
        const pct = sh.reduce((a, v) => a + v[i], 0);
        t.ok(pct === 0 || Math.abs(pct - 100) < 1e-6, `interval ${i}: shares add up to 100 % (${pct})`);
      });
    },
  });
})();
