// view-profile.js - Profile: traced functions (merged over threads or per thread), regions
// with counters and derived metrics, sampled functions, and energy columns when the run had
// power; each table sortable by any column, all filtered by name.
"use strict";
(function () {
  const base = (p) => (p ? p.slice(p.lastIndexOf("/") + 1) : "");
  const src = (r) => (r.file ? `${base(r.file)}:${r.line}` : "");
  const fmtJ = (j) => (Math.abs(j) >= 1 ? j.toFixed(3) + " J" : Math.abs(j) >= 1e-3 ? (j * 1e3).toPrecision(4) + " mJ"
                                                           : (j * 1e6).toPrecision(4) + " µJ");
  const fmtW = (w) => w.toPrecision(4) + " W";
  // A counter cell: its value, and a note when it was scaled from a running ratio below 1.
  const fmtCounter = (c) => PSC.fmtNum(c.value) +
    (c.scaled ? ` (scaled, ${(100 * c.running_ratio).toFixed(1)} % running)` : "");
  // The energy of a merged function row by name and module (d.energy.functions), or null.
  const energyIndex = (d) => {
    const m = new Map();
    if (d.energy) d.energy.functions.forEach((f) => m.set(f.name + "\u0000" + f.module, f));
    return m;
  };

  // Column definitions, shared by render and test: [title, get(row), fmt?].
  const functionCols = (d, perThread) => {
    const en = energyIndex(d), total = d.energy ? d.energy.total_j : 0;
    const ef = (r) => (perThread ? null : en.get(r.name + "\u0000" + r.module) || null);
    const cols = [
      ["function", (r) => r.name], ["thread", (r) => String(r.thread)], ["calls", (r) => r.calls],
      ["inclusive", (r) => r.incl_ns, PSC.fmtNs], ["exclusive", (r) => r.excl_ns, PSC.fmtNs],
      ["% excl", (r) => r.excl_pct, PSC.fmtPct], ["mean", (r) => r.mean_ns, PSC.fmtNs],
      ["min", (r) => r.min_ns, PSC.fmtNs], ["max", (r) => r.max_ns, PSC.fmtNs],
    ];
    // the load imbalance over threads and ranks, merged over two threads or more
    if (!perThread && (d.profile.functions || []).some((r) => r.imbalance_pct !== undefined))
      cols.push(["imbalance", (r) => (r.imbalance_pct === undefined ? null : r.imbalance_pct), PSC.fmtPct]);
    if (d.energy) {
      cols.push(["energy", (r) => (ef(r) ? ef(r).excl_j : null), fmtJ],
                ["power", (r) => (ef(r) ? ef(r).power_w : null), fmtW],
                ["% energy", (r) => (ef(r) && total > 0 ? (100 * ef(r).excl_j) / total : null), PSC.fmtPct]);
    }
    cols.push(["source", src]);
    return cols;
  };
  const regionCols = (p) => {
    const cols = [
      ["region", (r) => r.name], ["thread", (r) => String(r.thread)], ["calls", (r) => r.calls],
      ["inclusive", (r) => r.incl_ns, PSC.fmtNs], ["exclusive", (r) => r.excl_ns, PSC.fmtNs],
      ["min", (r) => r.min_ns, PSC.fmtNs], ["max", (r) => r.max_ns, PSC.fmtNs],
    ];
    p.events.forEach((ev) => cols.push([ev, (r) => r.counters[ev] || null, fmtCounter]));
    (p.metrics || []).forEach((m) => cols.push([m, (r) => r.metrics[m]]));
    // the counter columns sort by value
    cols.forEach((c, i) => {
      if (i >= 7 && i < 7 + p.events.length) {
        const get = c[1];
        c[1] = (r) => (get(r) ? get(r).value : null);
        c[2] = (v, r) => fmtCounter(get(r));
      }
    });
    return cols;
  };
  const sampleCols = (s) => {
    const cols = [
      ["function", (r) => r.name], ["thread", (r) => String(r.thread)], ["samples", (r) => r.samples],
      ["share", (r) => r.share, PSC.fmtPct],
    ];
    if (s.call_chains) cols.push(["children", (r) => r.incl_share, PSC.fmtPct]);
    cols.push(["est. time", (r) => r.time_ns, PSC.fmtNs]);
    s.events.forEach((ev, k) => cols.push([ev, (r) => r.counts[k]]));
    cols.push(["source", src]);
    return cols;
  };

  PSC.profileCols = { functionCols, regionCols, sampleCols, fmtJ, fmtW, fmtCounter };

  PSC.view({
    id: "profile", title: "Profile", order: 10,
    available: (d) => !!d.profile && ((d.profile.regions || []).length > 0 ||
                                      (d.profile.functions || []).length > 0 ||
                                      (d.profile.samples && d.profile.samples.functions.length > 0)),
    render(s, d) {
      const p = d.profile, tables = [];
      let drawFunctions = null;
      const filter = PSC.el("input", { class: "filter", id: "profile-filter", placeholder: "filter by name" });
      s.append(PSC.el("h2", {}, "Profile"), filter);
      if ((p.functions || []).length) {
        const holder = PSC.el("div");
        const box = PSC.el("input", { type: "checkbox", id: "profile-per-thread" });
        const draw = () => {
          const rows = box.checked ? p.functions_by_thread : p.functions;
          const t = PSC.table(functionCols(d, box.checked), rows, { id: "profile-functions", sortCol: 4 });
          holder.replaceChildren(t);
          tables[0] = t;
          apply();
        };
        box.onchange = draw;
        s.append(PSC.el("h3", {}, "Functions"),
                 PSC.el("div", { class: "controls" }, PSC.el("label", {}, box, " per thread"),
                        PSC.el("span", { class: "note" }, `traced time ${PSC.fmtNs(p.traced_ns)} over all threads` +
                               (d.energy ? `; energy: exclusive, ${d.energy.channel} (${d.energy.source})` : ""))),
                 holder);
        tables[0] = null;
        drawFunctions = draw;
      }
      if ((p.regions || []).length) {
        const t = PSC.table(regionCols(p), p.regions, { id: "profile-table", sortCol: 3 });
        tables.push(t);
        s.append(PSC.el("h3", {}, "Regions"), t);
      }
      if (p.samples && p.samples.functions.length) {
        const t = PSC.table(sampleCols(p.samples), p.samples.functions,
          { id: "profile-samples", sortCol: p.samples.call_chains ? 5 : 4 });
        tables.push(t);
        s.append(PSC.el("h3", {}, `Sampled functions (${PSC.fmtNum(p.samples.samples)} samples)`), t);
      }
      const apply = () => {
        const q = filter.value.toLowerCase();
        tables.forEach((t) => t && t.filter((r) => r.name.toLowerCase().includes(q)));
      };
      filter.oninput = apply;
      if (drawFunctions) drawFunctions();
    },
    test(s, d, t) {
      const p = d.profile;
      // the table with ID against ROWS: one row each, every cell as its column formats it.
      // Rows are compared as whole lines, so two functions of one name (a libc function and
      // a sanitizer's interceptor of it) are told apart by their other cells.
      const check = (id, cols, rows) => {
        const trs = Array.from(s.querySelectorAll(`#${id} tbody tr`));
        t.eq(trs.length, rows.length, `${id}: one row per entry`);
        const shown = new Map();
        trs.forEach((tr) => {
          const line = Array.from(tr.cells, (c) => c.textContent).join("\u0001");
          shown.set(line, (shown.get(line) || 0) + 1);
        });
        rows.forEach((r) => {
          const want = cols.map(([, get, fmt]) => {
            const v = get(r);
            return v === null || v === undefined ? "n/a"
              : fmt ? fmt(v, r) : typeof v === "number" ? PSC.fmtNum(v) : String(v);
          }).join("\u0001");
          const n = shown.get(want) || 0;
          if (t.ok(n > 0, `${id}: ${r.name} (thread ${r.thread}) shown with every cell as the data says`))
            shown.set(want, n - 1);
        });
      };
      // clicking the header of "calls" (not the sorted column) sorts the rows by calls, most first
      if ((p.functions || []).length) {
        check("profile-functions", functionCols(d, false), p.functions);
        const th = Array.from(s.querySelectorAll("#profile-functions thead th")).find((h) => h.textContent === "calls");
        th.click();
        const calls = Array.from(s.querySelectorAll("#profile-functions tbody tr"),
                                 (tr) => Number(tr.cells[th.cellIndex].textContent.replace(/,/g, "")));
        const want = p.functions.map((r) => r.calls).sort((a, b) => b - a);
        t.eq(calls.join(" "), want.join(" "), "functions sorted by calls, most first");
        const box = s.querySelector("#profile-per-thread");
        box.checked = true;
        box.dispatchEvent(new Event("change"));
        check("profile-functions", functionCols(d, true), p.functions_by_thread);
        box.checked = false;
        box.dispatchEvent(new Event("change"));
        if (d.energy) {
          const sum = d.energy.functions.reduce((a, f) => a + f.excl_j, 0) + d.energy.outside_j;
          t.near(sum, d.energy.total_j, 1e-9 * Math.max(1, d.energy.total_j), "functions' energy + outside = total");
        }
      }
      if ((p.regions || []).length) check("profile-table", regionCols(p), p.regions);
      if (p.samples && p.samples.functions.length) {
        check("profile-samples", sampleCols(p.samples), p.samples.functions);
        const sum = p.samples.functions.reduce((a, f) => a + f.samples, 0);
        t.eq(sum, p.samples.samples, "sampled functions add up to the samples");
      }
      // the filter keeps the rows whose name contains the text, in every table
      const all = [].concat(p.functions || [], p.regions || [], p.samples ? p.samples.functions : []);
      const q = all[0].name;
      const f = s.querySelector("#profile-filter");
      f.value = q;
      f.dispatchEvent(new Event("input"));
      const shown = s.querySelectorAll("table tbody tr").length;
      const want = (p.functions || []).filter((r) => r.name.toLowerCase().includes(q.toLowerCase())).length +
                   (p.regions || []).filter((r) => r.name.toLowerCase().includes(q.toLowerCase())).length +
                   (p.samples ? p.samples.functions : []).filter((r) => r.name.toLowerCase().includes(q.toLowerCase())).length;
      t.eq(shown, want, `filter "${q}" keeps the matching rows`);
      f.value = "";
      f.dispatchEvent(new Event("input"));
    },
  });
})();
