// view-profile.js - Profile: the regions with calls, inclusive and exclusive time, counters
// and derived metrics; sortable by any column and filtered by name.
"use strict";
PSC.view({
  id: "profile", title: "Profile", order: 10,
  available: (d) => d.profile && d.profile.regions && d.profile.regions.length > 0,
  render(s, d) {
    const p = d.profile;
    const cols = [
      ["region", (r) => r.name], ["thread", (r) => String(r.thread)], ["calls", (r) => r.calls],
      ["inclusive", (r) => r.incl_ns, PSC.fmtNs], ["exclusive", (r) => r.excl_ns, PSC.fmtNs],
    ];
    p.events.forEach((ev) => cols.push([ev, (r) => (r.counters[ev] ? r.counters[ev].value : null)]));
    const metricNames = p.regions.length ? Object.keys(p.regions[0].metrics) : [];
    metricNames.forEach((m) => cols.push([m, (r) => r.metrics[m]]));
    const table = PSC.table(cols, p.regions, { id: "profile-table", sortCol: 3 });
    const filter = PSC.el("input", { class: "filter", placeholder: "filter regions" });
    filter.oninput = () => {
      const q = filter.value.toLowerCase();
      table.filter((r) => r.name.toLowerCase().includes(q));
    };
    s.append(PSC.el("h2", {}, "Regions"), filter, table);
  },
  test(s, d, t) {
    const rows = s.querySelectorAll("#profile-table tbody tr");
    t.eq(rows.length, d.profile.regions.length, "one row per region");
    const names = Array.from(rows, (r) => r.firstChild.textContent);
    d.profile.regions.forEach((r) => t.ok(names.includes(r.name), `region ${r.name} shown as text`));
  },
});
