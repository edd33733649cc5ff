// view-detail.js - Process detail: one rank's wait for each other rank and in collectives
// (bars), and its time per MPI routine (pie). Opened by clicking a rank in any view
// (PSC.emit("rank", r)) or chosen in its own selector.
"use strict";
(function () {
  const D = {}; // the view's state, shared by render and test

  // What the charts show for rank R: its wait row in ms and its routines with time.
  const rankData = (m, r) => {
    const p = m.ranks, wt = m.waits, ro = m.routines, nr = ro.names.length;
    const waits = [];
    for (let j = 0; j < p; j++) waits.push(wt.p2p[r * p + j] / 1e6);
    waits.push(wt.coll[r] / 1e6);
    const routines = [];
    for (let k = 0; k < nr; k++)
      if (ro.calls[r * nr + k] > 0)
        routines.push({ name: ro.names[k], calls: ro.calls[r * nr + k], ns: ro.time_ns[r * nr + k], bytes: ro.bytes[r * nr + k] });
    routines.sort((a, b) => b.ns - a.ns);
    return { waits, routines };
  };

  const show = (r) => {
    const m = D.m, p = m.ranks;
    r = Math.max(0, Math.min(p - 1, r | 0));
    D.rank = r;
    D.sel.value = String(r);
    const { waits, routines } = rankData(m, r);
    D.title.textContent = `Rank ${r}` + (m.hosts[r] ? ` on ${m.hosts[r]}` : "") + (m.present[r] ? "" : " (no data)");
    D.facts.replaceChildren(...[
      ["execution", PSC.fmtNs(m.waits.exec_ns[r])], ["in MPI", PSC.fmtNs(m.routines.mpi_ns[r])],
      ["waiting", PSC.fmtNs(m.waits.total[r])], ["of which in collectives", PSC.fmtNs(m.waits.coll[r])],
    ].flatMap(([k, v]) => [PSC.el("dt", {}, k), PSC.el("dd", { "data-key": k }, v)]));
    D.bars.data.datasets[0].data = waits;
    D.bars.data.datasets[0].backgroundColor = waits.map((_, j) => (j < p ? PSC.css(PSC.stateRGB.wait) : PSC.css(PSC.stateRGB.mpi)));
    D.bars.update();
    D.pie.data.labels = routines.map((x) => x.name);
    D.pie.data.datasets[0].data = routines.map((x) => x.ns / 1e6);
    D.pie.data.datasets[0].backgroundColor = routines.map((x) => PSC.color(x.name));
    D.pie.update();
    D.table.replaceChildren(PSC.table([
      ["routine", (x) => x.name], ["calls", (x) => x.calls], ["time", (x) => x.ns, PSC.fmtNs],
      ["% of execution", (x) => (m.waits.exec_ns[r] > 0 ? (100 * x.ns) / m.waits.exec_ns[r] : null), PSC.fmtPct],
      ["bytes", (x) => x.bytes, PSC.fmtBytes],
    ], routines, { id: "detail-routines" }));
  };

  PSC.view({
    id: "detail", title: "Process detail", order: 70,
    available: (d) => !!(d.mpi && d.mpi.waits && d.mpi.routines),
    render(s, d) {
      const m = d.mpi, p = m.ranks;
      D.m = m;
      D.sel = PSC.el("select", { id: "detail-rank" });
      for (let r = 0; r < p; r++) D.sel.append(PSC.el("option", { value: String(r) }, "rank " + r));
      D.sel.onchange = () => show(+D.sel.value);
      D.title = PSC.el("h2", { id: "detail-title" });
      D.facts = PSC.el("dl", { class: "facts", id: "detail-facts" });
      D.table = PSC.el("div");
      const w = Math.max(300, Math.min(PSC.width() - 340, 80 + 24 * (p + 1)));
      const barCv = PSC.canvas(w, 300, { id: "detail-waits" }), pieCv = PSC.canvas(320, 300, { id: "detail-pie" });
      const labels = Array.from({ length: p }, (_, j) => "rank " + j).concat(["collective"]);
      D.bars = new Chart(barCv, {
        type: "bar",
        data: { labels, datasets: [{ label: "wait (ms)", data: [] }] },
        options: {
          plugins: { legend: { display: false }, title: { display: true, text: "waiting for each rank and in collectives (ms)" } },
          scales: { y: { beginAtZero: true, title: { display: true, text: "ms" } } },
          onClick: (ev, els) => { if (els.length && els[0].index < p) PSC.emit("rank", els[0].index); },
        },
      });
      D.pie = new Chart(pieCv, {
        type: "pie",
        data: { labels: [], datasets: [{ data: [] }] },
        options: { plugins: { legend: { position: "bottom" }, title: { display: true, text: "time per MPI routine (ms)" } } },
      });
      s.append(PSC.el("div", { class: "controls" }, PSC.el("label", {}, "rank"), D.sel), D.title, D.facts,
        PSC.el("div", { class: "row" }, barCv, pieCv), PSC.el("h3", {}, "MPI routines"), D.table);
      PSC.on("rank", (r) => { show(r); PSC.show("detail"); });
      show(0);
    },
    test(s, d, t) {
      const m = d.mpi, p = m.ranks, r = p > 1 ? 1 : 0;
      // a rank clicked elsewhere: the view shows itself with that rank
      PSC.show("summary");
      PSC.emit("rank", r);
      t.ok(s.classList.contains("active"), "the rank event shows the detail");
      t.eq(D.sel.value, String(r), "selector follows the event");
      t.eq(s.querySelector("#detail-title").textContent.startsWith(`Rank ${r}`), true, "title names the rank");
      const bars = Chart.getChart(s.querySelector("#detail-waits")), pie = Chart.getChart(s.querySelector("#detail-pie"));
      const exp = rankData(m, r);
      t.eq(bars.data.datasets[0].data.length, p + 1, "a bar per rank and one for collectives");
      for (let j = 0; j < p; j++) t.eq(bars.data.datasets[0].data[j], m.waits.p2p[r * p + j] / 1e6, `bar: wait of rank ${r} for rank ${j}`);
      t.eq(bars.data.datasets[0].data[p], m.waits.coll[r] / 1e6, `bar: rank ${r}'s collective wait`);
      t.eq(pie.data.labels.join(","), exp.routines.map((x) => x.name).join(","), "pie: the rank's routines");
      t.eq(pie.data.datasets[0].data.join(","), exp.routines.map((x) => x.ns / 1e6).join(","), "pie: their time");
      t.eq(s.querySelectorAll("#detail-routines tbody tr").length, exp.routines.length, "routines table rows");
      t.eq(s.querySelector('#detail-facts dd[data-key="waiting"]').textContent, PSC.fmtNs(m.waits.total[r]), "total wait text");
      // the pie's slices have the routines' colours
      exp.routines.forEach((x, k) => t.eq(pie.data.datasets[0].backgroundColor[k], PSC.color(x.name), `colour of ${x.name}`));
      // the selector: rank 0
      D.sel.value = "0";
      D.sel.dispatchEvent(new Event("change"));
      t.eq(bars.data.datasets[0].data[p], m.waits.coll[0] / 1e6, "selector: rank 0's collective wait");
      t.ok(s.querySelector("#detail-title").textContent.startsWith("Rank 0"), "selector: title");
    },
  });
})();
