// core.js - the report's framework: the data, helpers every view uses, the view registry and
// the test hook. Views (view-*.js) call PSC.view({...}); start.js renders them.
// Names from traces are only ever inserted as text (textContent), never as HTML.
"use strict";
const PSC = (function () {
  const data = JSON.parse(document.getElementById("psc-data").textContent);
  const params = new URLSearchParams(location.hash.slice(1));
  const testMode = params.has("test");
  const views = [];
  const listeners = {};

  // el("tag", {attr: value}, child, "text", ...): an element; strings become text nodes.
  const el = (tag, attrs, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    for (const k of kids) if (k !== null && k !== undefined) e.append(k);
    return e;
  };

  const fmtNs = (ns) => {
    const a = Math.abs(ns);
    if (a >= 1e9) return (ns / 1e9).toFixed(3) + " s";
    if (a >= 1e6) return (ns / 1e6).toPrecision(3) + " ms";
    if (a >= 1e3) return (ns / 1e3).toPrecision(3) + " µs";
    return Math.round(ns) + " ns";
  };
  const fmtNum = (v) => (Number.isInteger(v) ? v.toLocaleString("en-US") : Number(v).toPrecision(4));
  const fmtPct = (v) => (v === null || v === undefined ? "" : v.toFixed(v >= 10 ? 1 : 2) + " %");
  const fmtBytes = (b) => {
    const u = ["B", "KiB", "MiB", "GiB", "TiB"];
    let i = 0;
    while (b >= 1024 && i < u.length - 1) { b /= 1024; i++; }
    return (i ? b.toPrecision(3) : String(b)) + " " + u[i];
  };

  // A stable colour per name: a 20-colour palette indexed by a hash of the name, so the same
  // function has the same colour in every view. [r, g, b].
  const palette = [
    [78, 121, 167], [242, 142, 43], [89, 161, 79], [225, 87, 89], [118, 183, 178],
    [237, 201, 72], [176, 122, 161], [255, 157, 167], [156, 117, 95], [186, 176, 172],
    [31, 119, 180], [174, 199, 232], [152, 223, 138], [197, 176, 213], [140, 86, 75],
    [196, 156, 148], [227, 119, 194], [188, 189, 34], [23, 190, 207], [158, 218, 229],
  ];
  const hash = (s) => {
    let h = 2166136261;
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
    return h >>> 0;
  };
  const colorRGB = (name) => palette[hash(String(name)) % palette.length];
  const css = (rgb, a) => (a === undefined ? `rgb(${rgb[0]},${rgb[1]},${rgb[2]})`
                                           : `rgba(${rgb[0]},${rgb[1]},${rgb[2]},${a})`);
  const color = (name) => css(colorRGB(name));
  // Fixed colours of states that mean the same in every view.
  const stateRGB = { compute: [120, 190, 120], mpi: [230, 80, 70], wait: [160, 30, 30],
                     idle: [235, 235, 235] };

  // A value in [0, 1] on the report's heat gradient (white → yellow → red → dark red). [r, g, b].
  const heatRGB = (v) => {
    const stops = [[255, 255, 255], [255, 237, 160], [253, 141, 60], [189, 0, 38], [80, 0, 20]];
    v = Math.min(1, Math.max(0, v)) * (stops.length - 1);
    const i = Math.min(stops.length - 2, Math.floor(v)), f = v - i;
    return stops[i].map((c, k) => Math.round(c + (stops[i + 1][k] - c) * f));
  };

  // A canvas of W × H CSS pixels (one canvas pixel each, so tests read exact positions).
  const canvas = (w, h, attrs) => {
    const c = el("canvas", Object.assign({ width: String(Math.round(w)), height: String(Math.round(h)) },
                                         attrs || {}));
    // tests read pixels back: say so at the context's creation (Chromium warns otherwise)
    c.getContext("2d", { willReadFrequently: testMode });
    return c;
  };
  // The width a view can use: the main area's, so hidden views size like visible ones.
  const width = () => Math.max(600, document.querySelector("main").clientWidth - 48);

  // A table from COLS [[title, get(row), fmt?], ...] and ROWS, sortable by clicking a header.
  const table = (cols, rows, opts) => {
    opts = opts || {};
    const t = el("table", opts.id ? { id: opts.id } : {});
    let sortCol = opts.sortCol === undefined ? -1 : opts.sortCol, desc = true, shown = rows;
    const render = () => {
      const body = shown.slice();
      if (sortCol >= 0) {
        const key = cols[sortCol][1];
        body.sort((a, b) => {
          const x = key(a), y = key(b);
          const c = typeof x === "string" || typeof y === "string"
            ? String(x).localeCompare(String(y)) : (x ?? -Infinity) - (y ?? -Infinity);
          return desc ? -c : c;
        });
      }
      t.replaceChildren();
      const head = el("tr");
      cols.forEach(([name], i) => head.append(el("th", {
        onclick: () => { desc = i === sortCol ? !desc : true; sortCol = i; render(); },
      }, name + (i === sortCol ? (desc ? " ▼" : " ▲") : ""))));
      t.append(el("thead", {}, head));
      const tb = el("tbody");
      body.forEach((r) => {
        const tr = el("tr");
        cols.forEach(([, get, fmt]) => {
          const v = get(r);
          if (v === null || v === undefined) tr.append(el("td", { class: "na" }, "n/a"));
          else tr.append(el("td", {}, fmt ? fmt(v, r) : typeof v === "number" ? fmtNum(v) : String(v)));
        });
        tb.append(tr);
      });
      t.append(tb);
    };
    t.filter = (pred) => { shown = rows.filter(pred); render(); };
    render();
    return t;
  };

  // Register a view. SPEC: {id, title, order (position in the navigation), available(data),
  // render(section, data), test(section, data, t) (optional; may return a Promise)}.
  const view = (spec) => views.push(spec);

  const on = (ev, fn) => (listeners[ev] = listeners[ev] || []).push(fn);
  const emit = (ev, ...args) => (listeners[ev] || []).forEach((fn) => fn(...args));

  // Read one pixel of a canvas: [r, g, b, a].
  const pixel = (c, x, y) => Array.from(c.getContext("2d").getImageData(Math.round(x), Math.round(y), 1, 1).data);

  // What a view's test gets: checks that record failures instead of throwing.
  const tester = (name) => {
    const failures = [];
    let checks = 0;
    const t = {
      failures, get checks() { return checks; },
      ok(cond, msg) { checks++; if (!cond) failures.push(msg); return !!cond; },
      eq(a, b, msg) { return t.ok(a === b, `${msg}: got ${JSON.stringify(a)}, expected ${JSON.stringify(b)}`); },
      near(a, b, tol, msg) { return t.ok(Math.abs(a - b) <= tol, `${msg}: got ${a}, expected ${b} ± ${tol}`); },
      // the pixel at (x, y) of canvas C has colour RGB within TOL per channel
      pixel(c, x, y, rgb, msg, tol) {
        const p = pixel(c, x, y);
        tol = tol === undefined ? 8 : tol;
        return t.ok(rgb.every((v, i) => Math.abs(v - p[i]) <= tol),
                    `${msg}: pixel (${Math.round(x)},${Math.round(y)}) is ${p.slice(0, 3)}, expected ${rgb}`);
      },
      name,
    };
    return t;
  };

  return { data, params, testMode, views, el, fmtNs, fmtNum, fmtPct, fmtBytes,
           colorRGB, color, css, stateRGB, heatRGB, canvas, width, table, view, on, emit, pixel, tester };
})();
if (window.Chart) {
  Chart.defaults.animation = false; // reports render at once, and tests see the final state
  Chart.defaults.responsive = false;
}
