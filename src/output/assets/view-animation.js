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
  };
};

// The default frames per second of run time: about 200 frames over the run, rounded to 1, 2
// or 5 times a power of ten.
PSC.niceFps = (duration, frames) => {
  const f = (frames || 200) * 1e9 / Math.max(1, duration);
  const p = Math.pow(10, Math.floor(Math.log10(f)));
  return [1, 2, 5, 10].map((m) => m * p).find((v) => v >= f * 0.75) || 10 * p;
};

// A grid of N ranks as squares on a canvas, ROWS × COLS (changeable in the page), coloured by
// colorOf(rank) on draw(); clicking a square emits "rank". ID prefixes its elements' ids.
PSC.rankGrid = (id, n, rows, cols, colorOf, describe) => {
  const el = PSC.el;
  const wrap = el("div");
  const rowsIn = el("input", { type: "number", id: id + "-rows", min: "1", value: String(rows), style: "width: 64px" });
  const colsIn = el("input", { type: "number", id: id + "-cols", min: "1", value: String(cols), style: "width: 64px" });
  const msg = el("span", { id: id + "-grid-msg", class: "muted" });
  const g = { rows, cols, cell: 0, gap: 0, canvas: null };
  const layout = () => {
    const maxW = PSC.width(), maxH = 520;
    g.cell = Math.max(3, Math.min(48, Math.floor(Math.min(maxW / g.cols, maxH / g.rows))));
    g.gap = g.cell >= 8 ? 2 : 0;
    g.canvas = PSC.canvas(g.cols * g.cell, g.rows * g.cell, { id: id + "-canvas" });
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
    wrap.replaceChildren(g.canvas);
  };
  // The top-left corner of rank R's square.
  g.origin = (r) => [(r % g.cols) * g.cell, Math.floor(r / g.cols) * g.cell];
  g.rankAt = (x, y) => {
    const c = Math.floor(x / g.cell), r = Math.floor(y / g.cell);
    const k = r * g.cols + c;
    return c >= 0 && c < g.cols && r >= 0 && k < n ? k : -1;
  };
  g.draw = () => {
    const ctx = g.canvas.getContext("2d");
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, g.canvas.width, g.canvas.height);
    const label = g.cell >= 28;
    ctx.font = "10px sans-serif";
    for (let r = 0; r < n; r++) {
      const [x, y] = g.origin(r), rgb = colorOf(r);
      ctx.fillStyle = PSC.css(rgb);
      ctx.fillRect(x, y, g.cell - g.gap, g.cell - g.gap);
      if (label) {
        ctx.fillStyle = rgb[0] * 0.3 + rgb[1] * 0.59 + rgb[2] * 0.11 > 128 ? "#000" : "#fff";
        ctx.fillText(String(r), x + 4, y + g.cell - g.gap - 5);
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
  // The state of rank R at time T: the last change at or before T (binary search).
  const stateAt = (st, r, t) => {
    const ts = st.t[r];
    let lo = 0, hi = ts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ts[mid] <= t) lo = mid + 1;
      else hi = mid;
    }
    return st.s[r][Math.max(0, lo - 1)];
  };
  let ui = null; // the rendered view's parts, for its test

  PSC.view({
    id: "animation", title: "Process animation", order: 30,
    available: (d) => !!d.states && d.states.ranks > 0,
    render(s, d) {
      const st = d.states, colors = colorsOf(st);
      let now = 0;
      const grid = PSC.rankGrid("anim", st.ranks, st.grid[0], st.grid[1],
                                (r) => colors[stateAt(st, r, now)], (r) => st.names[stateAt(st, r, now)]);
      const counts = PSC.el("p", { id: "anim-counts" });
      const legend = PSC.el("div", { class: "legend", id: "anim-legend" });
      st.names.forEach((name, k) => legend.append(PSC.el("span", { "data-state": name },
        PSC.el("span", { class: "swatch", style: `background:${PSC.css(colors[k])}` }), name)));
      const update = (t) => {
        now = t;
        grid.draw();
        const c = new Map();
        for (let r = 0; r < st.ranks; r++) {
          const k = stateAt(st, r, t);
          c.set(k, (c.get(k) || 0) + 1);
        }
        counts.textContent = [...c.keys()].sort((a, b) => a - b).map((k) => `${st.names[k]} ${c.get(k)}`).join(", ");
      };
      const fps = PSC.niceFps(st.duration_ns, st.frame_ns ? Math.min(200, st.duration_ns / st.frame_ns) : 200);
      const player = PSC.player("anim", st.duration_ns, fps, update);
      const at = Number(PSC.params.get("at"));
      if (at > 0) player.set(Math.round(at / player.step));
      s.append(PSC.el("h2", {}, "Process animation"),
        PSC.el("p", {}, `${st.ranks} ranks; each square is a rank (row by row), coloured by its state. ` +
          (st.frame_ns ? `The run had too many changes: each frame of ${PSC.fmtNs(st.frame_ns)} shows the state that covered most of it.`
                       : "Every change of state is kept.") +
          " Waiting: the part of an MPI call spent waiting for another rank (late sender, collectives). Click a rank for its details."),
        player.el, grid.controls, grid.el, legend, counts);
      ui = { grid, player, colors, fps, initial: player.frame };
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
          const [x, y] = grid.origin(r), k = expect(r, time);
          if (!t.pixel(grid.canvas, x + 1, y + 1, colors[k], `${what}: rank ${r} at ${time} ns is ${st.names[k]}`, 2)) bad++;
        }
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
        // timers may fire a little late: each run is checked to within one frame
        const run = async (button, ms) => {
          const f = player.frame;
          click(button);
          await sleep(ms);
          click("pause");
          return player.frame - f;
        };
        t.near(await run("play", 5.5 * tick), 5, 1, "220 ms of playing at ×1: 5 frames");
        checkGrid("after playing");
        const f = player.frame;
        await sleep(3 * tick);
        t.eq(player.frame, f, "paused: the time stays");
        t.near(await run("fast", 6.5 * tick / 4), 6, 1, "65 ms of fast forward (×4): 6 frames");
        t.near(await run("slow", 2.5 * tick * 4), 2, 1, "400 ms of slow motion (×¼): 2 frames");
        t.near(await run("rewind", 3.5 * tick / 4), -3, 1, "35 ms of rewinding (×4 backwards): 3 frames back");
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
