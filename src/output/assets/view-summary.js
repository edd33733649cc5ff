// view-summary.js - Summary: the command, host, CPU, duration, what was measured, and every
// caveat the analyses found.
"use strict";
PSC.view({
  id: "summary", title: "Summary", order: 0,
  available: () => true,
  render(s, d) {
    const m = d.meta;
    const facts = PSC.el("dl", { class: "facts", id: "summary-facts" });
    const add = (k, v) => facts.append(PSC.el("dt", {}, k), PSC.el("dd", { "data-key": k }, String(v)));
    add("command", (m.command || []).join(" ") || "?");
    add("host", m.host || "?");
    add("CPU", m.cpu || "?");
    add("clock", m.clock || "?");
    if (m.start_unix_ns) add("started", new Date(m.start_unix_ns / 1e6).toISOString());
    add("duration", m.duration_ns === undefined ? "unknown" : PSC.fmtNs(m.duration_ns));
    add("exit status", m.exit_status === undefined ? "unknown" : m.exit_status);
    add("processes", m.processes);
    add("threads", m.threads);
    if (m.archive) {
      const a = m.archive;
      add("OTF2 archive", `${a.anchor} (${a.creator || "creator unknown"}, OTF2 ${a.version}, ` +
          `${a.locations} locations, ${a.events.toLocaleString("en-US")} events)`);
    }
    const measured = [];
    if (m.events.length) measured.push("counters: " + m.events.join(", "));
    if (d.profile && d.profile.regions && d.profile.regions.length) measured.push("regions");
    if (d.profile && d.profile.functions && d.profile.functions.length) measured.push("function calls");
    if (m.sampling) {
      measured.push(`samples: ${m.sampling.samples.toLocaleString("en-US")} of ${m.sampling.events.join(", ")}` +
                    (m.sampling.frequency ? ` at ${m.sampling.frequency} Hz` : ` every ${m.sampling.period}`));
    }
    if (d.mpi) measured.push(`MPI: ${d.mpi.ranks} ranks`);
    if (m.power) measured.push("power: " + m.power);
    add("measured", measured.join("; ") || "nothing");
    s.append(PSC.el("h2", {}, "Summary"), facts);
    const cav = d.caveats || [];
    s.append(PSC.el("h3", {}, cav.length ? `Caveats (${cav.length})` : "No caveats"));
    const ul = PSC.el("ul", { class: "caveats", id: "summary-caveats" });
    cav.forEach((c) => ul.append(PSC.el("li", {}, c)));
    s.append(ul);
  },
  test(s, d, t) {
    const dd = (k) => s.querySelector(`dd[data-key="${k}"]`).textContent;
    t.eq(dd("command"), (d.meta.command || []).join(" ") || "?", "command shown");
    t.eq(dd("threads"), String(d.meta.threads), "thread count shown");
    t.eq(s.querySelectorAll("#summary-caveats li").length, (d.caveats || []).length, "every caveat listed");
  },
});
