#!/usr/bin/env bash
# The page-fault time series of a sampled run, against numbers known in advance: pagewalk -n N
# -s MS spins MS ms in region "spin", takes exactly N page faults in region "walk", then spins
# again. The samples give what the main thread counted on a CPU between two of its samples
# there, and the switch records the spans it was on that CPU in between: the timeline spreads a
# delta over those spans only. So the one thing not knowable is where, inside the spans of a
# sample that began before the walk and ended in it (or began in it and ended after it), its
# faults fell (likewise for the faults before the first spin and after the last: start-up and
# exit, many under a sanitizer). The test rebuilds those spans from `perfscope dump` and
# requires exactly 0 faults in every 20 ms interval wholly inside a spin region that none of
# them touches (spread over wall time, a starved thread's deltas land far from the walk); the
# series around the walk sums to N within 5 %; over the run it matches the exact count of the
# same event within 5 % (report --accuracy). The spins and the walk run in the main thread: its series is the one
# checked (the runtime's writer thread may fault pages of its own).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

n=20000
d=$T/pw.exp
record_or_die rec "$d" --sample=1000 -e page-faults -- "$EX/pagewalk" -n $n -s 300
expect_grep "expected page faults in region walk: $n" "$T/rec.out" "pagewalk announces its count"
run tl "$PERFSCOPE" timeline "$d" --interval 20ms --json
expect_eq 0 "$RC" "timeline --json exits 0"
run dump "$PERFSCOPE" dump "$d"
expect_eq 0 "$RC" "dump exits 0"

python3 - "$T/tl.out" "$T/dump.out" >"$T/series.txt" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
k = d["events"].index("page-faults")
main = [i for i, t in enumerate(d["threads"]) if t["pid"] == t["tid"]][0]
mtid = d["threads"][main]["tid"]
spins, walk, open_ = [], None, {}
for r in d["regions"]:
    if r["kind"] == "begin":
        open_[r["name"]] = r["t_ns"]
    elif r["name"] in open_:
        span = (open_.pop(r["name"]), r["t_ns"])
        if r["name"] == "spin":
            spins.append(span)
        else:
            walk = span
# The main thread's on-CPU spans per sample, per CPU, from its samples and switch records
# (times relative to the timeline's start). A span whose start is unknown (the thread was on
# the CPU before any record said so) starts at the CPU's previous record: wider, never narrower.
# Faults happen in the walk, and also before the first spin (loader, runtime, sanitizer start)
# and after the last one (exit): a sample whose spans cover one of those times may carry its
# faults, spread over all its spans.
start = d["start_ns"]
busy = ([(float("-inf"), spins[0][0])] if spins else []) + ([walk] if walk else []) + \
    ([(spins[-1][1], float("inf"))] if spins else [])
since, last, done = {}, {}, {}
ambiguous = []  # on-CPU spans, outside those times, of samples whose spans also cover them
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) < 5 or f[3] not in ("sample", "switch") or f" tid={mtid} " not in line + " ":
        continue
    if f[3] == "sample" and "group=0 " not in line:
        continue
    t = int(f[1]) - start
    cpu = int(re.search(r"cpu=(\d+)", line).group(1))
    if f[3] == "switch" and f[4] == "in":
        since[cpu] = t
    elif f[3] == "switch":
        done.setdefault(cpu, []).append((since.pop(cpu, last.get(cpu, 0)), t))
    else:
        spans = done.pop(cpu, []) + [(since.pop(cpu, last.get(cpu, 0)), t)]
        since[cpu] = t
        for w0, w1 in busy:
            if any(a < w1 and b > w0 for a, b in spans):
                for a, b in spans:
                    if a < w0:
                        ambiguous.append((a, min(b, w0)))
                    if b > w1:
                        ambiguous.append((max(a, w1), b))
    last[cpu] = t
quiet = around = total = leaked = skipped = 0
bad = []
for iv in d["intervals"]:
    lo, hi = iv["t_start_ns"], iv["t_end_ns"]
    total += sum(t["values"][k] for t in iv["threads"])
    v = iv["threads"][main]["values"][k]
    if any(a <= lo and hi <= b for a, b in spins):
        if any(a < hi and b > lo for a, b in ambiguous):
            skipped += 1
            continue
        quiet += 1
        if abs(v) > 1e-6:
            bad.append(f"{lo}:{v:.3f}")
            leaked += v
    if walk and hi > walk[0] - 20e6 and lo < walk[1] + 20e6:
        around += v
print("spins", len(spins), "walk", walk is not None)
print("quiet", quiet, round(leaked), skipped, "bad", " ".join(bad) or "none")
print("ambiguous", " ".join(f"{a}-{b}" for a, b in ambiguous) or "none")
print("around", round(around))
print("total", round(total))
PY
read -r _ nspins _ haswalk < <(grep '^spins' "$T/series.txt")
expect_eq 2 "$nspins" "spin regions seen in the timeline"
expect_eq True "$haswalk" "walk region seen in the timeline"
read -r _ quiet leaked skipped _ bad < <(grep '^quiet' "$T/series.txt")
expect_cmp "$quiet" ">=" 20 "whole 20 ms intervals inside the spin regions, clear of ambiguous spans"
note "intervals skipped: $skipped; spans where faults of the walk, start-up or exit may be (ns): $(grep '^ambiguous' "$T/series.txt" | cut -d' ' -f2-)"
note "intervals inside a spin region with page faults (start:faults): $bad"
expect_eq 0 "$leaked" "page faults in the intervals inside the spin regions that no ambiguous span touches"
around=$(awk '/^around/ {print $2}' "$T/series.txt")
expect_within 5 "$around" "$n" "page faults in the series around the walk against the known count"

run acc "$PERFSCOPE" report "$d" --accuracy --csv
expect_eq 0 "$RC" "report --accuracy --csv exits 0"
est=$(csv_get "$T/acc.out" estimated event=page-faults)
exact=$(csv_get "$T/acc.out" exact event=page-faults)
expect_cmp "$exact" ">=" $n "exact page faults include the walk's"
total=$(awk '/^total/ {print $2}' "$T/series.txt")
expect_within 5 "$total" "$exact" "the series summed over the run against the exact count"
expect_eq "$est" "$total" "report's estimate and the timeline's sum agree"
finish
