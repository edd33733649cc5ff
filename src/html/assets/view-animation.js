// view-animation.js - Process animation: the ranks as squares on a rows × cols grid, each
// coloured by its state (computing, waiting, inside MPI routine X, idle) at the current time,
// with a player (play, pause, slow motion, fast forward, rewind, frame steps, slider, frames
// per second of run time). Data: d.states (html-anim.c). Also defines PSC.player and
// PSC.rankGrid, which the Load view (view-load.js) uses too.
"use strict";

// A player over [0, DURATION] ns in frames of 1e9 / fps ns. ID prefixes its elements' ids.
// onTime(t) is called whenever the time changes. Playing shows 25 frames per second of wall
// time at speed 1 (one per 40 ms / |speed|, counted from when play was pressed, so a slow
// timer skips frames rather than slowing down), negative speeds play backwards; playing
// stops at either end.
PSC.player = (id, duration, fps, onTime) => {
  const TICK_MS = 40;
  let frame = 0, step = 1, nframes = 1, speed = 0, timer = null, t0 = 0, f0 = 0, ticks = 0;
  const timeOf = (f) => Math.min(duration, f * step);
  const el = PSC.el;
  const timeLabel = el("span", { id: id + "-time", class: "time" });
  const speedLabel = el("span", { id: id + "-speed" });
  const slider = el("input", { type: "range", id: id + "-slider", min: "0", value: "0",
                               style: "width: 100%", oninput: () => set(Number(slider.value)) });
  const fpsInput = el("input", { type: "number", id: id + "-fps", min: "0.001", step: "any",
                                 style: "width: 90px", onchange: () => setFps(Number(fpsInput.value)) });
  const set = (f) => {
    frame = Math.max(0, Math.min(nframes, Math.round(f)));
    slider.value = String(frame);
    timeLabel.textContent = `t = ${PSC.fmtNs(timeOf(frame))} of ${PSC.fmtNs(duration)} (frame ${frame} of ${nframes})`;
    onTime(timeOf(frame));
  };
  const stop = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    speed = 0;
    speedLabel.textContent = "paused";
  };
  // Frames advance with the clock, so a late timer skips frames instead of slowing down. In
  // test mode each timer is one frame: Chromium's virtual time runs the timers exactly but
  // did not always advance performance.now() with them (CI under load saw 0 frames).
  const tick = () => {
    timer = null;
    ticks++;
    const elapsed = PSC.testMode ? ticks
                                 : Math.floor(((performance.now() - t0) * Math.abs(speed)) / TICK_MS);
    const next = f0 + Math.sign(speed) * elapsed;
    set(next);
    if (next <= 0 || next >= nframes) stop();
    else timer = setTimeout(tick, TICK_MS / Math.abs(speed));
  };
  const play = (s) => {
    stop();
    if ((s > 0 && frame >= nframes) || (s < 0 && frame <= 0)) set(s > 0 ? 0 : nframes);
    speed = s;
    t0 = performance.now();
    ticks = 0;
    f0 = frame;
    speedLabel.textContent = (s < 0 ? "rewinding ×" : "playing ×") + Math.abs(s);
    timer = setTimeout(tick, TICK_MS / Math.abs(s));
  };
  const setFps = (f) => {
    if (!(f > 0)) return;
    const t = timeOf(frame);
    step = Math.max(1, Math.round(1e9 / f));
    nframes = Math.max(1, Math.ceil(duration / step));
    fpsInput.value = String(f);
    slider.max = String(nframes);
    set(Math.round(t / step));
  };
  const button = (name, title, fn) => el("button", { id: `${id}-${name}`, title, onclick: fn }, title);
  const controls = el("div", { class: "controls" },
    button("start", "|◀ start", () => { stop(); set(0); }),
    button("rewind", "◀◀ rewind", () => play(-4)),
    button("back", "◀| frame", () => { stop(); set(frame - 1); }),
    button("play", "▶ play", () => play(1)),
    button("pause", "pause", stop),
    button("fwd", "|▶ frame", () => { stop(); set(frame + 1); }),
    button("slow", "▶ slow motion ×¼", () => play(0.25)),
    button("fast", "▶▶ fast forward ×4", () => play(4)),
    speedLabel,
    el("label", { for: id + "-fps" }, "frames per second of run time"), fpsInput);
  const box = el("div", {}, controls, slider, el("div", { class: "controls" }, timeLabel));
  stop();
  setFps(fps);
  return {
    el: box, set, play, pause: stop, setFps, tickMs: TICK_MS,
    get frame() { return frame; }, get nframes() { return nframes; }, get step() { return step; },
    get time() { return timeOf(frame); }, get playing() { return speed !== 0; },
    get speed() { return speed; }, get interval() { return speed ? TICK_MS / Math.abs(speed) : 0; },
  };
};

// The default frames per second of run time: about 200 frames over the run, rounded to 1, 2
// or 5 times a power of ten.
PSC.niceFps = (duration, frames) => {
  const f = (frames || 200) * 1e9 / Math.max(1, duration);
  const p = Math.pow(10, Math.floor(Math.log10(f)));
  return [1, 2, 5, 10].map((m) => m * p).find((v) => v >= f * 0.75) || 10 * p;
};

// Chromium draws nothing on a canvas with a side above 32,767 px or more than 2^28 pixels.
PSC.CANVAS_MAX_SIDE = 32767;
PSC.CANVAS_MAX_AREA = 1 << 28;

// The layout of N ranks on ROWS × COLS squares fitting MAXW × MAXH: cells of 3 to 48 px,
// smaller (down to 1 px) when the canvas would exceed the browser's limits; if even 1 px does
// not fit, the canvas is cut at the limits and the ranks beyond are not drawn.
// {cell, width, height, drawnRows, drawnCols, drawn (ranks on the canvas)}
PSC.gridLayout = (n, rows, cols, maxW, maxH) => {
  const SIDE = PSC.CANVAS_MAX_SIDE, AREA = PSC.CANVAS_MAX_AREA;
  let cell = Math.max(3, Math.min(48, Math.floor(Math.min(maxW / cols, maxH / rows))));
  const lim = Math.floor(Math.min(SIDE / cols, SIDE / rows, Math.sqrt(AREA / (cols * rows))));
  if (cell > lim) cell = Math.max(1, lim);
  const width = Math.min(cols * cell, SIDE);
  const height = Math.min(rows * cell, SIDE, Math.floor(AREA / width));
  const drawnCols = Math.floor(width / cell), drawnRows = Math.floor(height / cell);
  let drawn = 0;
  for (let r = 0; r < Math.min(rows, drawnRows); r++) drawn += Math.max(0, Math.min(drawnCols, n - r * cols));
  return { cell, width, height, drawnRows, drawnCols, drawn };
};

// A grid of N ranks as squares on a canvas, ROWS × COLS (changeable in the page), coloured by
// colorOf(rank) on draw(), with a bar across the bottom quarter of a square in markOf(rank)'s
// colour when it gives one (squares of at least 6 px); clicking a square emits "rank". ID
// prefixes its elements' ids.
PSC.rankGrid = (id, n, rows, cols, colorOf, describe, markOf) => {
  const el = PSC.el;
  const wrap = el("div");
  const rowsIn = el("input", { type: "number", id: id + "-rows", min: "1", value: String(rows), style: "width: 64px" });
  const colsIn = el("input", { type: "number", id: id + "-cols", min: "1", value: String(cols), style: "width: 64px" });
  const msg = el("span", { id: id + "-grid-msg", class: "muted" });
  const fitMsg = el("p", { id: id + "-grid-fit", class: "note" });
  const g = { rows, cols, cell: 0, gap: 0, canvas: null, layout: null };
  const layout = () => {
    g.layout = PSC.gridLayout(n, g.rows, g.cols, PSC.width(), 520);
    g.cell = g.layout.cell;
    g.gap = g.cell >= 8 ? 2 : 0;
    g.canvas = PSC.canvas(g.layout.width, g.layout.height, { id: id + "-canvas" });
    fitMsg.textContent = g.layout.drawn < n
      ? `Only ${g.layout.drawn} of ${n} ranks are drawn: a ${g.rows} × ${g.cols} grid of 1-pixel squares exceeds the ` +
        `browser's canvas limits (${PSC.CANVAS_MAX_SIDE} px a side); choose a grid nearer to square.`
      : "";
    fitMsg.hidden = !fitMsg.textContent;
    g.canvas.style.cursor = "pointer";
    g.canvas.getContext("2d", { willReadFrequently: true }); // tests read many pixels
    // the rank under a mouse event (canvas pixels from the border's inner edge)
    const under = (ev) => {
      const b = g.canvas.getBoundingClientRect();
      return g.rankAt(ev.clientX - b.left - g.canvas.clientLeft, ev.clientY - b.top - g.canvas.clientTop);
    };
    g.canvas.addEventListener("click", (ev) => {
      const r = under(ev);
      if (r >= 0) PSC.emit("rank", r);
    });
    g.canvas.addEventListener("mousemove", (ev) => {
      const r = under(ev);
      g.canvas.title = r >= 0 ? `rank ${r}: ${describe(r)}` : "";
    });
    wrap.replaceChildren(g.canvas, fitMsg);
  };
  // The top-left corner of rank R's square.
  g.origin = (r) => [(r % g.cols) * g.cell, Math.floor(r / g.cols) * g.cell];
  // Rank R's square is on the canvas.
  g.shown = (r) => r % g.cols < g.layout.drawnCols && Math.floor(r / g.cols) < g.layout.drawnRows;
  // A pixel of rank R's square showing its fill (above the mark bar).
  g.fillPoint = (r) => {
    const [x, y] = g.origin(r), off = g.cell - g.gap >= 3 ? 1 : 0;
    return [x + off, y + off];
  };
  // The height of the mark bar (0: squares too small for one).
  g.markH = () => (g.cell - g.gap >= 6 ? Math.max(2, Math.floor((g.cell - g.gap) / 4)) : 0);
  g.rankAt = (x, y) => {
    const c = Math.floor(x / g.cell), r = Math.floor(y / g.cell);
    const k = r * g.cols + c;
    return c >= 0 && c < g.cols && r >= 0 && k < n ? k : -1;
  };
  g.draw = () => {
    const ctx = g.canvas.getContext("2d");
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, g.canvas.width, g.canvas.height);
    const label = g.cell >= 28, mh = markOf ? g.markH() : 0, side = g.cell - g.gap;
    ctx.font = "10px sans-serif";
    for (let r = 0; r < n; r++) {
      if (!g.shown(r)) continue;
      const [x, y] = g.origin(r), rgb = colorOf(r);
      ctx.fillStyle = PSC.css(rgb);
      ctx.fillRect(x, y, side, side);
      const mark = mh ? markOf(r) : null;
      if (mark) {
        ctx.fillStyle = PSC.css(mark);
        ctx.fillRect(x, y + side - mh, side, mh);
      }
      if (label) {
        ctx.fillStyle = rgb[0] * 0.3 + rgb[1] * 0.59 + rgb[2] * 0.11 > 128 ? "#000" : "#fff";
        ctx.fillText(String(r), x + 4, y + side - 5 - mh);
      }
    }
  };
  // Use a grid of R × C; false (and a message) when it cannot hold every rank.
  g.resize = (r, c) => {
    if (!(r >= 1 && c >= 1) || r * c < n) {
      msg.textContent = `a ${r} × ${c} grid cannot hold ${n} ranks`;
      return false;
    }
    msg.textContent = "";
    g.rows = r;
    g.cols = c;
    rowsIn.value = String(r);
    colsIn.value = String(c);
    layout();
    g.draw();
    return true;
  };
  g.controls = el("div", { class: "controls" }, el("label", {}, "grid"), rowsIn, "×", colsIn,
    el("button", { id: id + "-grid-apply", onclick: () => g.resize(Number(rowsIn.value), Number(colsIn.value)) }, "apply"),
    msg);
  g.el = wrap;
  layout();
  return g;
};

(function () {
  const fixed = [PSC.stateRGB.idle, PSC.stateRGB.compute, PSC.stateRGB.wait];
  const colorsOf = (st) => st.names.map((name, k) => (k < 3 ? fixed[k] : PSC.colorRGB(name)));
  // A square is marked when MPI states (waiting or a routine) other than its colour took at
  // least this many thousandths of its frame; at most this many ranks in the shares table.
  const MARK_PM = 50, TABLE_MAX = 64;
  // The state of rank R at time T: the last change at or before T (binary search).
  const lastAtOrBefore = (ts, t) => {
    let lo = 0, hi = ts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ts[mid] <= t) lo = mid + 1;
      else hi = mid;
    }
    return Math.max(0, lo - 1);
  };
  const stateAt = (st, r, t) => st.s[r][lastAtOrBefore(st.t[r], t)];
  // st.mix (aggregated runs) decoded: per rank a Map frame → [[state, permille], …].
  const decodeMix = (st) => (st.mix || []).map((a) => {
    const m = new Map();
    let f = 0;
    for (let i = 0; i + 1 < a.length; i += 2 + 2 * a[i + 1]) {
      f += a[i];
      const list = [];
      for (let k = 0; k < a[i + 1]; k++) list.push([a[i + 2 + 2 * k], a[i + 3 + 2 * k]]);
      m.set(f, list);
    }
    return m;
  });
  // The shares of rank R's states over [A, B) from its exact changes, largest first (ties: the
  // lower state), in thousandths (rounded, at least 1); null when one state covers it.
  const sharesExact = (st, r, a, b) => {
    const ts = st.t[r], ss = st.s[r];
    b = Math.min(b, st.duration_ns);
    if (b <= a) return null;
    const acc = new Map();
    for (let i = lastAtOrBefore(ts, a); i < ts.length && ts[i] < b; i++) {
      const x0 = Math.max(a, ts[i]), x1 = Math.min(b, i + 1 < ts.length ? ts[i + 1] : st.duration_ns);
      if (x1 > x0) acc.set(ss[i], (acc.get(ss[i]) || 0) + x1 - x0);
    }
    if (acc.size < 2) return null;
    return [...acc].sort((p, q) => q[1] - p[1] || p[0] - q[0])
      .map(([k, v]) => [k, Math.max(1, Math.round((1000 * v) / (b - a)))]);
  };
  // The MPI state (waiting or a routine, not FILL) with the largest share of LIST, when such
  // states together took at least MARK_PM; else null.
  const markOfShares = (list, fill) => {
    if (!list) return null;
    const mpi = list.filter(([k]) => k >= 2 && k !== fill);
    return mpi.length && mpi.reduce((a, [, v]) => a + v, 0) >= MARK_PM ? mpi[0][0] : null;
  };
  const fmtShares = (st, list) => list.map(([k, v]) => `${st.names[k]} ${(v / 10).toFixed(1)} %`).join(", ");
  let ui = null; // the rendered view's parts, for its test

  PSC.view({
    id: "animation", title: "Process animation", order: 30,
    available: (d) => !!d.states && d.states.ranks > 0,
    render(s, d) {
      const st = d.states, colors = colorsOf(st), mix = decodeMix(st);
      let now = 0, player = null;
      // per rank at the shown time: [state, shares of its frame or null, mark state or null]
      let cur = [];
      // the frame a square summarises: the data's (aggregated runs), else the player's
      const frameOf = (t) => (st.frame_ns ? [Math.floor(t / st.frame_ns) * st.frame_ns, st.frame_ns]
                                          : [t, player ? player.step : 1]);
      const sharesAt = (r, t) => {
        if (st.frame_ns) return (mix[r] && mix[r].get(Math.floor(t / st.frame_ns))) || null;
        const [a, len] = frameOf(t);
        return sharesExact(st, r, a, a + len);
      };
      const describe = (r) => {
        const [k, list] = cur[r] || [stateAt(st, r, now), null];
        return st.names[k] + (list ? `; this frame: ${fmtShares(st, list)}` : "");
      };
      const grid = PSC.rankGrid("anim", st.ranks, st.grid[0], st.grid[1],
                                (r) => colors[cur[r][0]], describe,
                                (r) => (cur[r][2] === null ? null : colors[cur[r][2]]));
      const counts = PSC.el("p", { id: "anim-counts" });
      const legend = PSC.el("div", { class: "legend", id: "anim-legend" });
      st.names.forEach((name, k) => legend.append(PSC.el("span", { "data-state": name },
        PSC.el("span", { class: "swatch", style: `background:${PSC.css(colors[k])}` }), name)));
      const mixedNote = PSC.el("p", { id: "anim-mixed-note" });
      const mixedBox = PSC.el("div", { id: "anim-mixed-box" });
      const update = (t) => {
        now = t;
        cur = [];
        const c = new Map(), marked = [];
        for (let r = 0; r < st.ranks; r++) {
          const k = stateAt(st, r, t), list = sharesAt(r, t), m = markOfShares(list, k);
          cur.push([k, list, m]);
          c.set(k, (c.get(k) || 0) + 1);
          if (m !== null) marked.push(r);
        }
        grid.draw();
        counts.textContent = [...c.keys()].sort((a, b) => a - b).map((k) => `${st.names[k]} ${c.get(k)}`).join(", ");
        const [a, len] = frameOf(t);
        mixedNote.textContent = `${marked.length} of ${st.ranks} ranks spent at least ${MARK_PM / 10} % of the frame ` +
          `${PSC.fmtNs(a)} – ${PSC.fmtNs(a + len)} in MPI states other than their colour (a bar in the largest one's colour)` +
          (marked.length > TABLE_MAX ? `; the first ${TABLE_MAX}:` : marked.length ? ":" : ".");
        mixedBox.replaceChildren(marked.length ? PSC.table([
          ["rank", (r) => r], ["shown", (r) => st.names[cur[r][0]]], ["mark", (r) => st.names[cur[r][2]]],
          ["shares of the frame", (r) => fmtShares(st, cur[r][1])]], marked.slice(0, TABLE_MAX), { id: "anim-mixed" }) : "");
      };
      const fps = PSC.niceFps(st.duration_ns, st.frame_ns ? Math.min(200, st.duration_ns / st.frame_ns) : 200);
      player = PSC.player("anim", st.duration_ns, fps, update);
      update(player.time);
      const at = Number(PSC.params.get("at"));
      if (at > 0) player.set(Math.round(at / player.step));
      s.append(PSC.el("h2", {}, "Process animation"),
        PSC.el("p", {}, `${st.ranks} ranks; each square is a rank (row by row), coloured by its state. ` +
          (st.frame_ns ? `The run had too many changes: each frame of ${PSC.fmtNs(st.frame_ns)} shows the state that covered most of it.`
                       : "Every change of state is kept: a square shows the state at the shown time.") +
          ` A bar across the bottom of a square marks a frame in which other MPI states took at least ${MARK_PM / 10} %` +
          " (hover a square, or see the table below, for the shares)." +
          (st.mix_min_pm ? ` To keep the report small, the shares were kept only for the frames with at least ${st.mix_min_pm / 10} %` +
                           " outside their state (see the Summary's caveats): the others show no bar and no shares." : "") +
          " Waiting: the part of an MPI call spent waiting for another rank (late sender, collectives). Click a rank for its details."),
        player.el, grid.controls, grid.el, legend, counts, mixedNote, mixedBox);
      ui = { grid, player, colors, fps, initial: player.frame, describe, cur: () => cur };
    },
    async test(s, d, t) {
      const st = d.states, { grid, player, colors } = ui;
      const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
      // the expected state, found independently of the view (a linear scan)
      const expect = (r, time) => {
        let k = st.s[r][0];
        for (let i = 0; i < st.t[r].length && st.t[r][i] <= time; i++) k = st.s[r][i];
        return k;
      };
      const checkGrid = (what) => {
        const time = player.time;
        let bad = 0;
        for (let r = 0; r < st.ranks && bad < 3; r++) {
          if (!grid.shown(r)) continue;
          const [x, y] = grid.fillPoint(r), k = expect(r, time);
          if (!t.pixel(grid.canvas, x, y, colors[k], `${what}: rank ${r} at ${time} ns is ${st.names[k]}`, 2)) bad++;
        }
      };
      // the shares of rank R's frame at TIME, independently: the data's list for the frame
      // (a linear walk of st.mix), or every exact change overlapping the player's frame
      const expectShares = (r, time) => {
        if (st.frame_ns) {
          const a = st.mix[r], f = Math.floor(time / st.frame_ns);
          for (let i = 0, g = 0; i < a.length; i += 2 + 2 * a[i + 1]) {
            g += a[i];
            if (g === f) return Array.from({ length: a[i + 1] }, (_, k) => [a[i + 2 + 2 * k], a[i + 3 + 2 * k]]);
          }
          return null;
        }
        const lo = time, hi = Math.min(time + player.step, st.duration_ns), acc = {};
        st.t[r].forEach((x, i) => {
          const y = i + 1 < st.t[r].length ? st.t[r][i + 1] : st.duration_ns;
          const ov = Math.min(y, hi) - Math.max(x, lo);
          if (ov > 0) acc[st.s[r][i]] = (acc[st.s[r][i]] || 0) + ov;
        });
        const keys = Object.keys(acc).map(Number);
        if (keys.length < 2) return null;
        keys.sort((p, q) => acc[q] - acc[p] || p - q);
        return keys.map((k) => [k, Math.max(1, Math.round((acc[k] * 1000) / (hi - lo)))]);
      };
      // each square's mark bar (its bottom row) against the expected shares, the tooltip and
      // the table; returns the marks seen
      const checkMarks = (what) => {
        const time = player.time, mh = grid.markH();
        let marks = 0, bad = 0;
        for (let r = 0; r < st.ranks && bad < 3; r++) {
          const list = expectShares(r, time), k = expect(r, time);
          const mpi = (list || []).filter(([s]) => s >= 2 && s !== k);
          const m = mpi.length && mpi.reduce((a, [, v]) => a + v, 0) >= 50 ? mpi[0][0] : null;
          if (m !== null) marks++;
          const want = list ? `; this frame: ${list.map(([s, v]) => `${st.names[s]} ${(v / 10).toFixed(1)} %`).join(", ")}` : "";
          if (!t.eq(ui.describe(r), st.names[k] + want, `${what}: rank ${r}'s tooltip`)) bad++;
          if (!mh || !grid.shown(r)) continue;
          const [x, y] = grid.origin(r), side = grid.cell - grid.gap;
          if (!t.pixel(grid.canvas, x + side / 2, y + side - 1, colors[m === null ? k : m],
                       `${what}: rank ${r}'s bar ${m === null ? "absent" : st.names[m]}`, 2)) bad++;
        }
        t.eq(s.querySelectorAll("#anim-mixed tbody tr").length, Math.min(marks, 64), `${what}: a table row per marked rank`);
        return marks;
      };
      // the grid at instants spread over the run, and just after each of rank 0's first changes
      const instants = [];
      for (let i = 0; i <= 12; i++) instants.push(Math.round((st.duration_ns * i) / 12));
      st.t[0].slice(1, 8).forEach((x) => instants.push(x, x - 1));
      player.setFps(1e9); // frames of 1 ns: any instant is a frame
      t.eq(player.step, 1, "1e9 frames per second of run time: frames of 1 ns");
      for (const x of instants) {
        player.set(x);
        t.eq(player.time, Math.min(x, st.duration_ns), "slider to an instant");
        checkGrid(`t=${x}`);
      }

      // the frames' shares: aggregated runs at the data's frames with a mark (and some
      // others), exact runs at frames of the default length spread over the run
      let marks = 0, markable = false;
      if (st.frame_ns) {
        const frames = new Set();
        for (let f = 0; f * st.frame_ns < st.duration_ns && frames.size < 12; f += Math.max(1, Math.floor(st.duration_ns / st.frame_ns / 12))) frames.add(f);
        st.mix.forEach((a) => {
          for (let i = 0, g = 0; i < a.length && frames.size < 24; i += 2 + 2 * a[i + 1]) {
            g += a[i];
            let mpi = 0;
            for (let k = 1; k < a[i + 1]; k++) if (a[i + 2 + 2 * k] >= 2) mpi += a[i + 3 + 2 * k];
            if (a[i + 2] < 2 && mpi >= 50) { frames.add(g); markable = true; }
          }
        });
        for (const f of frames) {
          player.set(f * st.frame_ns + Math.floor(st.frame_ns / 2));
          marks += checkMarks(`frame ${f}`);
        }
      } else {
        player.setFps(ui.fps);
        const n = player.nframes, k = Math.min(n, 60);
        for (let i = 0; i < k; i++) {
          player.set(Math.floor((i * n) / k));
          marks += checkMarks(`frame ${player.frame}`);
        }
      }
      if (markable) t.ok(marks > 0, `frames with ≥ 5 % in MPI beside computing show bars (${marks})`);

      // the grid stays within the browser's canvas limits: smaller squares, at least 1 px
      const L = PSC.gridLayout, SIDE = PSC.CANVAS_MAX_SIDE, AREA = PSC.CANVAS_MAX_AREA;
      for (const [n, r, c] of [[10000, 100, 100], [10000, 1, 10000], [40000, 1, 40000], [20000, 20000, 20000], [100000, 317, 317]]) {
        const g = L(n, r, c, 1400, 520);
        t.ok(g.cell >= 1 && g.width <= SIDE && g.height <= SIDE && g.width * g.height <= AREA,
             `a ${r} × ${c} grid: ${g.width} × ${g.height} px of ${g.cell} px squares, within the limits`);
        t.eq(g.drawn, Math.min(n, Math.min(r, g.drawnRows) * Math.min(c, g.drawnCols)), `${r} × ${c}: the ranks drawn`);
      }
      t.eq(L(10000, 100, 100, 1400, 520).cell, 5, "100 × 100 ranks: squares of 5 px");
      t.eq(L(10000, 1, 10000, 1400, 520).cell, 3, "1 × 10000 ranks: squares of 3 px (30000 px wide)");
      t.eq(L(40000, 1, 40000, 1400, 520).drawn, SIDE, "1 × 40000 ranks: 1-px squares, the ranks up to the limit drawn");
      t.ok(grid.resize(2, 40000), "a 2 × 40000 grid");
      t.ok(grid.canvas.width <= SIDE && grid.cell === 1, `drawn on ${grid.canvas.width} px with 1-px squares`);
      player.setFps(1e9);
      player.set(Math.round(st.duration_ns / 3));
      checkGrid("2 × 40000 grid");
      grid.resize(st.grid[0], st.grid[1]);

      // frame steps and play speeds at 100 frames per second of run time (frames of 10 ms)
      player.setFps(100);
      t.eq(player.step, 1e7, "100 frames per second of run time: frames of 10 ms");
      const click = (name) => s.querySelector(`#anim-${name}`).click();
      player.set(3);
      click("fwd");
      t.eq(player.frame, 4, "frame step forward");
      t.eq(player.time, Math.min(st.duration_ns, 4e7), "time after a step forward");
      click("back");
      click("back");
      t.eq(player.frame, 2, "two frame steps back");
      player.set(0);
      const tick = player.tickMs;
      const room = player.nframes;
      if (room >= 12) {
        // Each button sets the speed and the timer's interval exactly. How many frames pass in
        // a wait is the machine's timing: a frame's timer is armed when the previous one
        // fires, so a loaded machine fires fewer, never more; the first fires before the wait
        // ends (armed before it, due earlier). So from 1 up to the whole frames the wait holds.
        const run = async (button, ms, speed, what) => {
          const f = player.frame;
          click(button);
          t.eq(player.speed, speed, `${what}: speed ${speed}`);
          t.eq(player.interval, tick / Math.abs(speed), `${what}: a frame every ${tick / Math.abs(speed)} ms`);
          await sleep(ms);
          click("pause");
          const d = (player.frame - f) * Math.sign(speed), most = Math.floor((ms * Math.abs(speed)) / tick);
          t.ok(d >= 1 && d <= most, `${what}: ${d} frames ${speed < 0 ? "back" : "on"}, 1 to ${most}`);
        };
        await run("play", 5.5 * tick, 1, "220 ms of playing at ×1");
        checkGrid("after playing");
        const f = player.frame;
        await sleep(3 * tick);
        t.eq(player.frame, f, "paused: the time stays");
        t.eq(player.interval, 0, "paused: no timer");
        await run("fast", (6.5 * tick) / 4, 4, "65 ms of fast forward (×4)");
        await run("slow", 2.5 * tick * 4, 0.25, "400 ms of slow motion (×¼)");
        await run("rewind", (3.5 * tick) / 4, -4, "35 ms of rewinding (×4 backwards)");
        checkGrid("after rewinding");
      } else {
        t.ok(room >= 1, "a run shorter than 12 frames at 100 fps still has a frame");
      }
      click("start");
      t.eq(player.frame, 0, "back to the start");
      // playing stops at the end
      player.set(player.nframes - 1);
      click("play");
      await sleep(3 * tick);
      t.eq(player.frame, player.nframes, "playing stops at the run's end");
      t.ok(!player.playing, "and pauses");

      // another grid: one row of every rank
      t.ok(grid.resize(1, st.ranks), "a 1 × N grid");
      player.set(Math.round(st.duration_ns / 2 / player.step));
      checkGrid("1 × N grid");
      t.ok(!grid.resize(1, st.ranks - 1) || st.ranks === 0, "a grid too small is refused");
      t.ok(/cannot hold/.test(s.querySelector("#anim-grid-msg").textContent), "and says why");
      grid.resize(st.grid[0], st.grid[1]);

      // clicking a square emits its rank (caught here, so other views keep their state)
      let got = -1;
      const emit = PSC.emit;
      PSC.emit = (ev, ...args) => (ev === "rank" ? (got = args[0]) : emit(ev, ...args));
      const last = st.ranks - 1, [x, y] = grid.origin(last);
      const rect = grid.canvas.getBoundingClientRect(), c = grid.canvas;
      c.dispatchEvent(new MouseEvent("click", { clientX: rect.left + c.clientLeft + x + 2,
                                                clientY: rect.top + c.clientTop + y + 2, bubbles: true }));
      PSC.emit = emit;
      t.eq(got, last, "clicking the last rank's square emits its rank");

      // the legend names every state; the counts add up to the ranks
      t.eq(s.querySelectorAll("#anim-legend [data-state]").length, st.names.length, "a legend entry per state");
      const sum = s.querySelector("#anim-counts").textContent.split(", ").reduce((a, p) => a + Number(p.split(" ").pop()), 0);
      t.eq(sum, st.ranks, "the state counts add up to the ranks");
      player.setFps(ui.fps);
      player.set(ui.initial);
      const at = Number(PSC.params.get("at"));
      if (at > 0) player.set(Math.round(at / player.step));
    },
  });
})();
