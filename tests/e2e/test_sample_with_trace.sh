#!/usr/bin/env bash
# Sampling and function tracing in one experiment, on one time base: the report shows the
# traced functions by default and the samples with --by sample; the samples' CLOCK_MONOTONIC
# times fall inside the span of the function records (converted from TSC ticks by the
# process's clock fit); --callgraph stores caller addresses with the samples.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

d=$T/ft.exp
record_or_die rec "$d" --functions --sample=1000 --callgraph -- "$EX/fib" 29
expect_grep "samples" "$T/rec.err" "record says how many samples it took"
report_csv_or_die fn "$d"
expect_eq "name,thread,calls,incl_ns,excl_ns,min_ns,max_ns,file,line" "$(csv_header "$T/fn.out")" "traced functions by default"
expect_eq 1 "$(csv_get "$T/fn.out" calls name=main)" "main traced once"
report_csv_or_die smp "$d" --by sample
expect_eq "name,thread,samples,share,time_ns,file,line,incl_samples,incl_share,incl_ns" "$(csv_header "$T/smp.out")" "--by sample: the samples' view, with inclusive columns (call chains)"
sum=$(python3 -c 'import csv, sys; print(sum(int(r["samples"]) for r in csv.DictReader(open(sys.argv[1]))))' "$T/smp.out")
expect_eq "$(json_eval "$d/meta.json" 'd["sampling"]["samples"]')" "$sum" "the sample view's rows add up to the samples taken"
expect_cmp "$sum" ">=" 20 "samples over the traced run (at least 20 ms on CPU at 1 kHz)"

run dump "$PERFSCOPE" dump "$d"
expect_eq 0 "$RC" "dump exits 0"
chains=$(grep -c ' sample .* chain=' "$T/dump.out" || true)
expect_cmp "$chains" ">" 0 "samples with call chains"
# absolute CLOCK_MONOTONIC ns: samples carry them; stream records are start ns + the ns column
python3 - "$T/dump.out" >"$T/span.txt" <<'PY'
import re, sys
start = None
lo = hi = None
samples = []
for line in open(sys.argv[1]):
    m = re.match(r"# \S+stream\.\S+: .* = (\d+) ns", line)
    if m:
        start = int(m.group(1))
        continue
    if line.startswith("# "):
        start = None
        continue
    f = line.split()
    if len(f) >= 4 and f[3] in ("func-enter", "func-exit") and start is not None:
        t = start + int(f[2])
        lo = t if lo is None else min(lo, t)
        hi = t if hi is None else max(hi, t)
    elif len(f) >= 4 and f[3] == "sample":
        samples.append(int(f[1]))
inside = sum(1 for s in samples if lo <= s <= hi)
print(len(samples), inside)
PY
read -r total inside <"$T/span.txt"
expect_cmp "$total" ">" 0 "samples in the dump"
# (before main, the loader and a sanitizer runtime's start-up run untraced but sampled)
expect_cmp "$inside" ">=" "$((total * 3 / 4))" "samples inside the span of the function records ($inside of $total)"
finish
