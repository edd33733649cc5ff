// start.js - renders every view whose data exists, builds the navigation, runs the views'
// tests when the address ends in #test, and states the outcome on <body>:
// data-perfscope-status="ok" or "error: VIEW: what", data-perfscope-views="id,id,...".
// #view=ID opens that view first (for screenshots). data-perfscope-ms is the time from the
// navigation's start to that verdict (performance.now()), for the benchmark.
"use strict";
(function () {
  const errors = [];
  window.addEventListener("error", (ev) => errors.push("uncaught: " + ev.message));
  window.addEventListener("unhandledrejection", (ev) => errors.push("unhandled: " + ev.reason));
  const nav = document.querySelector("nav"), main = document.querySelector("main");
  const shown = [];
  const select = (id) => {
    for (const v of shown) {
      const on = v.id === id;
      v.button.classList.toggle("active", on);
      v.section.classList.toggle("active", on);
    }
    PSC.emit("show", id);
  };
  PSC.show = select;
  const cmd = (PSC.data.meta.command || []).join(" ");
  document.getElementById("title").textContent = "perfscope: " + (cmd || PSC.data.meta.dir || "report");
  document.getElementById("cmd").textContent = PSC.data.meta.host ? "on " + PSC.data.meta.host : "";

  PSC.views.sort((a, b) => a.order - b.order);
  for (const v of PSC.views) {
    let avail = false;
    try {
      avail = v.available(PSC.data);
    } catch (e) {
      errors.push(`${v.id}: available: ${e.message}`);
    }
    if (!avail) continue;
    const section = PSC.el("section", { id: "view-" + v.id });
    const button = PSC.el("button", { "data-view": v.id, onclick: () => select(v.id) }, v.title);
    nav.append(button);
    main.append(section);
    try {
      v.render(section, PSC.data);
    } catch (e) {
      errors.push(`${v.id}: ${e.message}`);
      section.append(PSC.el("p", { class: "error" }, "This view failed: " + e.message));
    }
    shown.push({ id: v.id, spec: v, section, button });
  }
  const first = PSC.params.get("view");
  select(shown.some((v) => v.id === first) ? first : shown.length ? shown[0].id : "");
  document.body.setAttribute("data-perfscope-views", shown.map((v) => v.id).join(","));

  const finish = (lines) => {
    const out = PSC.el("pre", { id: "psc-test" }, lines.join("\n"));
    if (!PSC.testMode) out.hidden = true;
    document.body.append(out);
    const bad = errors.concat(lines.filter((l) => !/: ok \(/.test(l)));
    document.body.setAttribute("data-perfscope-ms", String(Math.round(performance.now())));
    document.body.setAttribute("data-perfscope-status", bad.length ? "error: " + bad[0] : "ok");
  };
  if (!PSC.testMode) {
    finish([]);
    return;
  }
  // Views are tested one after the other, each shown while it is tested.
  (async () => {
    const lines = [];
    for (const v of shown) {
      if (!v.spec.test) {
        lines.push(`${v.id}: ok (no test)`);
        continue;
      }
      select(v.id);
      const t = PSC.tester(v.id);
      try {
        await v.spec.test(v.section, PSC.data, t);
      } catch (e) {
        t.failures.push("exception: " + e.message);
      }
      if (!t.checks) t.failures.push("the test checked nothing");
      lines.push(t.failures.length ? `${v.id}: FAIL ${t.failures.join("; ")}`
                                   : `${v.id}: ok (${t.checks} checks)`);
    }
    select(shown.some((v) => v.id === first) ? first : shown.length ? shown[0].id : "");
    finish(lines);
  })();
})();
