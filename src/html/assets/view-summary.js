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
    // two spans that differ: the run as record saw it (launch to exit, meta.json) and the
    // records' (perfscope info's), which leave out the start and exit around the program
    const span = m.archive ? "duration (trace length)" : "duration (launch to exit)";
    add(span, m.duration_ns === undefined ? "unknown" : PSC.fmtNs(m.duration_ns));
    if (m.records_span_ns !== undefined) add("records span (first to last record)", PSC.fmtNs(m.records_span_ns));
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
    if (!d.meta.archive && d.meta.duration_ns !== undefined) {
      t.eq(dd("duration (launch to exit)"), PSC.fmtNs(d.meta.duration_ns), "launch to exit shown");
    }
    if (d.meta.records_span_ns !== undefined) {
      t.eq(dd("records span (first to last record)"), PSC.fmtNs(d.meta.records_span_ns), "records span shown");
    }
    t.eq(s.querySelectorAll("#summary-caveats li").length, (d.caveats || []).length, "every caveat listed");
  },
});
