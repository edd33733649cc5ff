// perfscope report: renders the views from the embedded JSON. Names from traces are only
// ever inserted as text (textContent), never as HTML.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("psc-data").textContent);
  const el = (tag, attrs, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    for (const k of kids) e.append(k);
    return e;
  };
  const fmtNs = (ns) => {
    if (ns >= 1e9) return (ns / 1e9).toFixed(3) + " s";
    if (ns >= 1e6) return (ns / 1e6).toPrecision(3) + " ms";
    if (ns >= 1e3) return (ns / 1e3).toPrecision(3) + " µs";
    return Math.round(ns) + " ns";
  };
  const fmtNum = (v) => (Number.isInteger(v) ? v.toLocaleString("en-US") : v.toPrecision(4));

  function summary() {
    const s = el("section", { id: "view-summary" });
    const m = data.meta;
    const facts = el("dl", { class: "facts" });
    const add = (k, v) => facts.append(el("dt", {}, k), el("dd", {}, String(v)));
    add("host", m.host || "?");
    add("CPU", (m.cpu && m.cpu.brand) || "?");
    add("clock", m.clock || "?");
    add("events", (data.profile.events || []).join(", ") || "none");
    add("exit status", m.exit_status === undefined ? "unknown" : m.exit_status);
    s.append(el("h2", {}, "Summary"), facts);
    const cav = data.profile.caveats || [];
    s.append(el("h3", {}, cav.length ? "Caveats" : "No caveats"));
    const ul = el("ul", { class: "caveats" });
    cav.forEach((c) => ul.append(el("li", {}, c)));
    s.append(ul);
    return s;
  }

  function profile() {
    const p = data.profile;
    const s = el("section", { id: "view-profile" });
    const cols = [
      ["region", (r) => r.name], ["thread", (r) => String(r.thread)], ["calls", (r) => r.calls],
      ["inclusive", (r) => r.incl_ns, fmtNs], ["exclusive", (r) => r.excl_ns, fmtNs],
    ];
    p.events.forEach((ev) => cols.push([ev, (r) => (r.counters[ev] ? r.counters[ev].value : null)]));
    const metricNames = p.regions.length ? Object.keys(p.regions[0].metrics) : [];
    metricNames.forEach((m) => cols.push([m, (r) => r.metrics[m]]));
    let rows = p.regions.slice(), sortCol = 3, sortDesc = true;
    const filter = el("input", { class: "filter", placeholder: "filter regions" });
    const table = el("table", { id: "profile-table" });
    function render() {
      const q = filter.value.toLowerCase();
      const body = rows.filter((r) => r.name.toLowerCase().includes(q));
      const key = cols[sortCol][1];
      body.sort((a, b) => {
        const x = key(a), y = key(b);
        const c = typeof x === "string" ? String(x).localeCompare(String(y)) : (x ?? -1) - (y ?? -1);
        return sortDesc ? -c : c;
      });
      table.replaceChildren();
      const head = el("tr");
      cols.forEach(([name], i) => {
        const th = el("th", {}, name + (i === sortCol ? (sortDesc ? " ▼" : " ▲") : ""));
        th.onclick = () => { sortDesc = i === sortCol ? !sortDesc : true; sortCol = i; render(); };
        head.append(th);
      });
      table.append(head);
      body.forEach((r) => {
        const tr = el("tr");
        cols.forEach(([, get, fmt]) => {
          const v = get(r);
          if (v === null || v === undefined) tr.append(el("td", { class: "na" }, "n/a"));
          else tr.append(el("td", {}, fmt ? fmt(v) : typeof v === "number" ? fmtNum(v) : String(v)));
        });
        table.append(tr);
      });
    }
    filter.oninput = render;
    render();
    s.append(el("h2", {}, "Regions"), filter, table);
    return s;
  }

  const views = [["Summary", summary()]];
  if (data.profile.regions.length) views.push(["Profile", profile()]);
  const nav = document.querySelector("nav"), main = document.querySelector("main");
  views.forEach(([name, sec], i) => {
    const b = el("button", { "data-view": name }, name);
    b.onclick = () => {
      document.querySelectorAll("nav button, main section").forEach((x) => x.classList.remove("active"));
      b.classList.add("active");
      sec.classList.add("active");
    };
    nav.append(b);
    main.append(sec);
    if (i === 0) b.click();
  });
  document.getElementById("title").textContent = "perfscope: " + (data.meta.command || []).join(" ");
  document.body.setAttribute("data-perfscope-status", "ok");
})();
