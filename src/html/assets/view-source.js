// view-source.js - Source: the source files that carry cost, each line shaded by its cost in
// the chosen metric (time, samples or energy; the darkest line is the costliest of the file),
// and a gutter of scope bars (functions, regions): a bar spans the scope's lines, its left
// part shaded by the scope's inclusive cost (nested scopes included), its right part split
// into computation, MPI and MPI waiting (top to bottom) in proportion to their time. A click
// on a bar opens the scope's profile per rank (MPI runs) or per thread. Text only: source
// code holds '<'.
"use strict";
(function () {
  const LH = 16, BAR = 16, HEAT = 9, CAT = 5; // line height, gutter column, bar parts (px)
  const CATS = [["computation", "compute"], ["MPI", "mpi"], ["MPI wait", "wait"]];

  // The cost per line (index line - 1) of file F in metric M.
  const lineCosts = (f, m) => {
    const v = new Float64Array(f.lines.length), c = f.cost[m] || [];
    for (let i = 0; i + 1 < c.length; i += 2) v[c[i] - 1] = c[i + 1];
    return v;
  };
  const fmtMetric = (m, v) => (m === "time" ? PSC.fmtNs(v) : m === "energy" ? v.toPrecision(4) + " J"
                                                            : PSC.fmtNum(v));
  // A scope's categories: [comp, mpi, wait] ns; without MPI all of its time is computation.
  const cats = (sc) => sc.cat || [sc.incl.time || 0, 0, 0];
  // Heights of the category parts of a bar H px high (rounded so they add up to H).
  const catHeights = (c, h) => {
    const sum = c[0] + c[1] + c[2];
    if (sum <= 0) return [h, 0, 0];
    const a = Math.round((h * c[0]) / sum), b = Math.round((h * (c[0] + c[1])) / sum) - a;
    return [a, b, h - a - b];
  };
  const baseName = (p) => p.slice(p.lastIndexOf("/") + 1);

  let state = null; // {file, metric} for the test

  PSC.view({
    id: "source", title: "Source", order: 110,
    available: (d) => !!(d.source && d.source.files && d.source.files.length),
    render(s, d) {
      const src = d.source;
      const fileSel = PSC.el("select", { id: "source-file" });
      src.files.forEach((f, i) => {
        const t = src.metrics[0], tot = src.total[t] || 0;
        const own = (f.cost[t] || []).reduce((a, v, k) => (k % 2 ? a + v : a), 0);
        fileSel.append(PSC.el("option", { value: String(i) },
                              `${baseName(f.path)} (${PSC.fmtPct(tot ? (100 * own) / tot : 0)})`));
      });
      const metricSel = PSC.el("select", { id: "source-metric" });
      src.metrics.forEach((m) => metricSel.append(PSC.el("option", { value: m }, m)));
      const note = PSC.el("p", { class: "note" },
        src.time_from === "samples" ? "Time per line: the on-CPU time of the samples on it."
                                    : "Time per line: each traced function's exclusive time on its first line.");
      const legend = PSC.el("p", { class: "note" }, "Scope bars: shade = inclusive cost; right part: ",
        ...CATS.map(([n, k]) => PSC.el("span", { class: "src-key", style: `background:${PSC.css(PSC.stateRGB[k])}` }, n)));
      const panel = PSC.el("div", { id: "source-panel", hidden: "" });
      const path = PSC.el("div", { id: "source-path", class: "note" });
      const code = PSC.el("div", { id: "source-code", class: "src-code" });
      s.append(PSC.el("h2", {}, "Source"),
               PSC.el("div", { class: "controls" }, "file ", fileSel, " metric ", metricSel),
               note, legend, panel, path, code);

      const showScope = (f, sc) => {
        panel.hidden = false;
        panel.replaceChildren(PSC.el("h3", {}, `${sc.kind} ${sc.name}`),
          PSC.el("p", { class: "note" }, `${baseName(f.path)}:${sc.first}-${sc.last}, ` +
            src.metrics.map((m) => `${m} ${fmtMetric(m, sc.incl[m] || 0)}`).join(", ")));
        if (sc.ranks) {
          const rows = sc.ranks.comp.map((c, r) => ({ rank: r, comp: c, mpi: sc.ranks.mpi[r], wait: sc.ranks.wait[r] }));
          const t = PSC.table([["rank", (r) => r.rank], ["computation", (r) => r.comp, PSC.fmtNs],
                               ["MPI", (r) => r.mpi, PSC.fmtNs], ["MPI wait", (r) => r.wait, PSC.fmtNs]],
                              rows, { id: "source-ranks" });
          t.addEventListener("click", (ev) => {
            const tr = ev.target.closest("tbody tr");
            if (tr) PSC.emit("rank", Number(tr.firstChild.textContent));
          });
          const c = PSC.canvas(Math.min(PSC.width(), 120 + 40 * rows.length), 260, { id: "source-ranks-chart" });
          panel.append(c, t);
          if (window.Chart) {
            new Chart(c, {
              type: "bar",
              data: {
                labels: rows.map((r) => "rank " + r.rank),
                datasets: CATS.map(([n, k], i) => ({
                  label: n, backgroundColor: PSC.css(PSC.stateRGB[k]),
                  data: rows.map((r) => [r.comp, r.mpi, r.wait][i] / 1e6),
                })),
              },
              options: { scales: { x: { stacked: true }, y: { stacked: true, title: { display: true, text: "ms" } } },
                         onClick: (ev, els) => { if (els.length) PSC.emit("rank", rows[els[0].index].rank); } },
            });
          }
        } else if (sc.threads) {
          panel.append(PSC.table([["thread", (r) => r[0]], ["calls", (r) => r[1]],
                                  ["inclusive", (r) => r[2], PSC.fmtNs], ["exclusive", (r) => r[3], PSC.fmtNs]],
                                 sc.threads, { id: "source-threads" }));
        }
      };

      const draw = () => {
        const f = src.files[Number(fileSel.value)], m = metricSel.value;
        state = { file: Number(fileSel.value), metric: m };
        const v = lineCosts(f, m), max = v.reduce((a, x) => Math.max(a, x), 0), tot = src.total[m] || 0;
        const depth = f.scopes.reduce((a, sc) => Math.max(a, sc.depth + 1), 0);
        const gutter = PSC.el("div", { class: "src-gutter",
          style: `width:${depth * BAR}px;height:${f.lines.length * LH}px` });
        const smax = f.scopes.reduce((a, sc) => Math.max(a, sc.incl[m] || 0), 0);
        f.scopes.forEach((sc, i) => {
          const h = (sc.last - sc.first + 1) * LH, ch = catHeights(cats(sc), h);
          const heat = PSC.css(PSC.heatRGB(smax ? (sc.incl[m] || 0) / smax : 0));
          const catDiv = PSC.el("div", { class: "src-bar-cat", style: `width:${CAT}px;height:${h}px` },
            ...CATS.map(([, k], j) => PSC.el("div", { "data-cat": k,
              style: `height:${ch[j]}px;background:${PSC.css(PSC.stateRGB[k])}` })));
          const share = tot ? PSC.fmtPct((100 * (sc.incl[m] || 0)) / tot) : "";
          gutter.append(PSC.el("div", {
            class: "src-bar", "data-scope": String(i),
            title: `${sc.kind} ${sc.name}: ${fmtMetric(m, sc.incl[m] || 0)} ${share}`,
            style: `left:${sc.depth * BAR}px;top:${(sc.first - 1) * LH}px;height:${h}px;width:${HEAT + CAT}px`,
            onclick: () => showScope(f, sc),
          }, PSC.el("div", { class: "src-bar-heat", style: `width:${HEAT}px;height:${h}px;background:${heat}` }), catDiv));
        });
        const lines = PSC.el("div", { class: "src-lines" });
        f.lines.forEach((text, i) => {
          const attrs = { class: "src-line", "data-line": String(i + 1), style: `height:${LH}px;line-height:${LH}px` };
          if (v[i] > 0) {
            attrs.style += `;background:${PSC.css(PSC.heatRGB(v[i] / max))}${v[i] / max > 0.6 ? ";color:#fff" : ""}`;
            attrs.title = `${fmtMetric(m, v[i])}${tot ? ", " + PSC.fmtPct((100 * v[i]) / tot) : ""}`;
          }
          lines.append(PSC.el("div", attrs, PSC.el("span", { class: "src-no" }, String(i + 1)),
                              PSC.el("span", { class: "src-pct" }, v[i] > 0 && tot ? PSC.fmtPct((100 * v[i]) / tot) : ""),
                              PSC.el("span", { class: "src-text" }, text)));
        });
        path.textContent = f.path;
        code.replaceChildren(gutter, lines);
      };
      fileSel.onchange = draw;
      metricSel.onchange = draw;
      draw();
    },

    async test(s, d, t) {
      const src = d.source, fileSel = s.querySelector("#source-file"), metricSel = s.querySelector("#source-metric");
      const rgb = (e) => (getComputedStyle(e).backgroundColor.match(/\d+/g) || []).slice(0, 3).map(Number);
      const set = (sel, v) => { sel.value = String(v); sel.dispatchEvent(new Event("change")); };
      // the file holding the costliest line of the first metric
      let fi = 0, best = -1;
      src.files.forEach((f, i) => lineCosts(f, src.metrics[0]).forEach((x) => { if (x > best) { best = x; fi = i; } }));
      set(fileSel, fi);
      const f = src.files[fi];
      const shades = {};
      for (const m of src.metrics) {
        set(metricSel, m);
        t.eq(state.metric, m, "the metric selector redraws");
        const rows = s.querySelectorAll("#source-code .src-line");
        t.eq(rows.length, f.lines.length, `${m}: one row per line of ${baseName(f.path)}`);
        const v = lineCosts(f, m), max = v.reduce((a, x) => Math.max(a, x), 0);
        let darkest = -1, dsum = Infinity, bad = 0;
        rows.forEach((r, i) => {
          const c = rgb(r), sum = c[0] + c[1] + c[2];
          const want = v[i] > 0 ? PSC.heatRGB(v[i] / max) : null;
          if (want && want.some((x, k) => Math.abs(x - c[k]) > 2)) bad++;
          if (v[i] > 0 && sum < dsum) { dsum = sum; darkest = i; }
        });
        t.eq(bad, 0, `${m}: lines whose shade differs from their cost`);
        // lines of nearly equal cost share the darkest shade: the costliest is among them
        const top = v.indexOf(max), tc = rgb(rows[top]);
        t.eq(tc[0] + tc[1] + tc[2], dsum,
          `${m}: the costliest line (${top + 1}) is as dark as the darkest (${darkest + 1})`);
        shades[m] = Array.from(rows, (r) => rgb(r).join(","));
        t.eq(rows[top].querySelector(".src-text").textContent, f.lines[top], `${m}: line ${top + 1}'s text`);
        // scope bars: one per scope, categories split in proportion
        const bars = s.querySelectorAll("#source-code .src-bar");
        t.eq(bars.length, f.scopes.length, `${m}: one bar per scope`);
        bars.forEach((b) => {
          const sc = f.scopes[Number(b.dataset.scope)];
          const h = b.getBoundingClientRect().height;
          t.near(h, (sc.last - sc.first + 1) * LH, 0.5, `${sc.name}: bar height spans its lines`);
          const c = cats(sc), sum = c[0] + c[1] + c[2];
          b.querySelectorAll(".src-bar-cat > div").forEach((p, j) => {
            if (sum > 0) t.near(p.getBoundingClientRect().height, (h * c[j]) / sum, 1, `${sc.name}: ${CATS[j][0]} part`);
          });
        });
      }
      if (src.metrics.length > 1) {
        const [a, b] = src.metrics, va = lineCosts(f, a), vb = lineCosts(f, b);
        const ma = Math.max(...va), mb = Math.max(...vb);
        const differ = va.some((x, i) => Math.abs(x / ma - vb[i] / mb) > 0.02);
        if (differ) t.ok(shades[a].some((x, i) => x !== shades[b][i]), `switching ${a} → ${b} changes shades`);
      }
      // a click on the costliest scope opens its profile
      if (f.scopes.length) {
        set(metricSel, src.metrics[0]);
        let k = 0;
        f.scopes.forEach((sc, i) => { if ((sc.incl[src.metrics[0]] || 0) > (f.scopes[k].incl[src.metrics[0]] || 0)) k = i; });
        s.querySelector(`#source-code .src-bar[data-scope="${k}"]`).click();
        const panel = s.querySelector("#source-panel");
        t.ok(!panel.hidden, "a click on a bar opens the scope's panel");
        const sc = f.scopes[k];
        if (sc.ranks) {
          const rows = panel.querySelectorAll("#source-ranks tbody tr");
          t.eq(rows.length, src.ranks, `${sc.name}: one row per rank`);
          rows.forEach((r) => {
            const rank = Number(r.firstChild.textContent);
            t.eq(r.children[3].textContent, PSC.fmtNs(sc.ranks.wait[rank]), `${sc.name}: rank ${rank}'s wait`);
          });
        } else if (sc.threads) {
          t.eq(panel.querySelectorAll("#source-threads tbody tr").length, sc.threads.length, `${sc.name}: one row per thread`);
        }
      }
    },
  });
})();
