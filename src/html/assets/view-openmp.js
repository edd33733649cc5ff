// view-openmp.js - OpenMP: a heat map of threads × parallel regions coloured by each thread's
// wait in the region's closing barrier as a share of the region's time (the numbers on hover),
// the regions' imbalance and POP efficiencies, the threads' serial and parallel time and, for
// a hybrid MPI+OpenMP run, the hybrid efficiency table, as `perfscope report --openmp` gives
// them. Data: d.openmp (html-omp.c).
"use strict";
(function () {
  // A heat map row per OpenMP thread number (per rank and thread number in a hybrid run).
  const threadKey = (o, r, i) => {
    const reg = o.regions[o.row_region[i]];
    return o.hybrid ? `rank ${reg.rank} thread ${r.thread}` : `thread ${r.thread}`;
  };
  // The rows' labels, in order of rank then thread number, and per label and region its row.
  const grid = (o) => {
    const cells = new Map(), order = [];
    o.rows.forEach((r, i) => {
      const k = threadKey(o, r, i);
      if (!cells.has(k)) {
        cells.set(k, new Map());
        order.push({ k, rank: o.hybrid ? o.regions[o.row_region[i]].rank : 0, thread: r.thread });
      }
      cells.get(k).set(o.row_region[i], r);
    });
    order.sort((a, b) => a.rank - b.rank || a.thread - b.thread);
    return { labels: order.map((x) => x.k), cells };
  };
  // The share of region REG's time that row R waited in its closing barrier, in [0, 1].
  const share = (r, reg) => (reg.time_ns > 0 ? Math.min(1, r.barrier_ns / reg.time_ns) : 0);
  const tip = (r, reg) => `${reg.region}, thread ${r.thread}: barrier ${PSC.fmtNs(r.barrier_ns)} ` +
    `(${PSC.fmtPct(100 * share(r, reg))} of the region's ${PSC.fmtNs(reg.time_ns)}); ` +
    `work ${PSC.fmtNs(r.work_ns)}, time ${PSC.fmtNs(r.time_ns)}, ${r.calls} calls`;

  const heatmap = (o) => {
    const g = grid(o), t = PSC.el("table", { id: "openmp-heat", class: "omp-heat" });
    const head = PSC.el("tr", {}, PSC.el("th", {}, "thread"));
    o.regions.forEach((reg) => head.append(PSC.el("th", { title: reg.region }, reg.region)));
    const body = PSC.el("tbody");
    g.labels.forEach((k) => {
      const tr = PSC.el("tr", {}, PSC.el("td", {}, k));
      o.regions.forEach((reg, j) => {
        const r = g.cells.get(k).get(j);
        if (!r) { tr.append(PSC.el("td", { class: "na" }, "")); return; }
        const v = share(r, reg), rgb = PSC.heatRGB(v);
        tr.append(PSC.el("td", { title: tip(r, reg), "data-share": String(v),
                                 style: `background:${PSC.css(rgb)};color:${v > 0.6 ? "#fff" : "inherit"}` },
                         PSC.fmtPct(100 * v)));
      });
      body.append(tr);
    });
    t.append(PSC.el("thead", {}, head), body);
    return t;
  };

  const pct = (v) => PSC.fmtPct(v);
  const regionCols = (o) => (o.hybrid ? [["rank", (r) => r.rank]] : []).concat([
    ["region", (r) => r.region], ["calls", (r) => r.calls], ["threads", (r) => r.threads],
    ["time", (r) => r.time_ns, PSC.fmtNs], ["work", (r) => r.work_ns, PSC.fmtNs],
    ["barrier", (r) => r.barrier_ns, PSC.fmtNs], ["imbalance %", (r) => r.imbalance_pct, pct],
    ["load balance %", (r) => r.load_balance_pct, pct], ["region eff. %", (r) => r.region_eff_pct, pct],
  ]);
  const threadCols = (o) => (o.hybrid ? [["rank", (r) => r.rank]] : []).concat([
    ["pid", (r) => r.pid, String], ["tid", (r) => r.tid, String], ["role", (r) => r.role],
    ["span", (r) => r.span_ns, PSC.fmtNs], ["parallel", (r) => r.parallel_ns, PSC.fmtNs],
    ["serial", (r) => r.serial_ns, PSC.fmtNs], ["parallel %", (r) => r.parallel_pct, pct],
  ]);

  const frac = (v) => PSC.fmtPct(100 * v);
  const hybridCols = [
    ["rank", (r) => r.rank, String], ["MPI load balance", (r) => r.mpi_load_balance, frac],
    ["MPI comm. eff.", (r) => r.mpi_comm_eff, frac], ["OpenMP load balance", (r) => r.omp_load_balance, frac],
    ["OpenMP serial. eff.", (r) => r.omp_serial_eff, frac], ["parallel eff.", (r) => r.parallel_eff, frac],
  ];
  const hybrid = (o) => (!o.hybrid_efficiency ? [] : [
    PSC.el("h3", {}, "Hybrid efficiency"),
    PSC.el("p", {}, "POP hybrid model: MPI load balance = out / max out, MPI comm. eff. = max out / runtime " +
           "(out: a rank's initial thread outside MPI, from MPI_Init to MPI_Finalize); OpenMP load balance = " +
           "mean / max work of the rank's regions, serial. eff. = parallel / out; parallel eff. = their product"),
    PSC.table(hybridCols, o.hybrid_efficiency, { id: "openmp-hybrid" }),
  ]);

  PSC.view({
    id: "openmp", title: "OpenMP", order: 60,
    available: (d) => !!d.openmp && d.openmp.regions.length > 0,
    render(s, d) {
      const o = d.openmp;
      s.append(PSC.el("h2", {}, "OpenMP"),
               PSC.el("p", {}, `${o.regions.length} parallel region${o.regions.length === 1 ? "" : "s"}. ` +
                      "Each cell: the thread's wait in the region's closing barrier, as a share of the region's time " +
                      "(hover for the numbers)."),
               PSC.el("div", { class: "omp-scroll" }, heatmap(o)),
               PSC.el("h3", {}, "Parallel regions"),
               PSC.el("p", {}, "imbalance = (max − mean) / max of the threads' work; load balance = mean / max; " +
                      "region eff. = work / (team × elapsed time)"),
               PSC.table(regionCols(o), o.regions, { id: "openmp-regions", sortCol: o.hybrid ? 4 : 3 }),
               PSC.el("h3", {}, "Threads"),
               PSC.el("p", {}, "serial = span − parallel; the initial thread's parallel % is the serialisation efficiency"),
               PSC.table(threadCols(o), o.threads, { id: "openmp-threads" }), ...hybrid(o));
    },
    test(s, d, t) {
      const o = d.openmp, g = grid(o);
      const trs = Array.from(s.querySelectorAll("#openmp-heat tbody tr"));
      t.eq(trs.length, g.labels.length, "heat map: one row per thread");
      t.eq(s.querySelectorAll("#openmp-heat thead th").length, o.regions.length + 1,
           "heat map: one column per region");
      o.regions.forEach((reg, j) => t.eq(s.querySelectorAll("#openmp-heat thead th")[j + 1].textContent,
                                         reg.region, `heat map: region ${j}'s name`));
      o.rows.forEach((r, i) => {
        const reg = o.regions[o.row_region[i]], tr = trs[g.labels.indexOf(threadKey(o, r, i))];
        const td = tr && tr.cells[o.row_region[i] + 1];
        if (!t.ok(!!td, `heat map: a cell for row ${i}`)) return;
        t.eq(td.getAttribute("title"), tip(r, reg), `heat map: row ${i}'s numbers on hover`);
        t.eq(td.style.backgroundColor.replace(/ /g, ""), PSC.css(PSC.heatRGB(share(r, reg))), `heat map: row ${i}'s colour`);
      });
      t.eq(s.querySelectorAll("#openmp-regions tbody tr").length, o.regions.length, "one row per region");
      t.eq(s.querySelectorAll("#openmp-threads tbody tr").length, o.threads.length, "one row per thread");
      t.eq(s.querySelectorAll("#openmp-hybrid tbody tr").length,
           o.hybrid_efficiency ? o.hybrid_efficiency.length : 0, "hybrid: one row per rank and all");
    },
  });
})();
