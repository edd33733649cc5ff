#!/usr/bin/env bash
# run_html.sh [--no-build] - the HTML report's speed and size (issue 7): report generation
# >= 10 M events/s (the whole `perfscope html` command), and a 10^8-event experiment gives
# <= 50 MB of HTML that Chromium renders to data-perfscope-status="ok" in < 5 s.
#
# The experiment: bench/html_calls.c built with -finstrument-functions and recorded with
# `perfscope record --functions` (EVENTS/2 tiny calls in THREADS threads, each inside one of
# OUTER outer calls per thread): EVENTS function events, counted back from the report's data.
# THREADS=2 OUTER=1000 LEVELS=0 (default): few slices, the tiny calls all bins. THREADS=2
# OUTER=60000 LEVELS=1: the dense case, 240,000 calls (outer and one wrap() inside each) of
# about run/60000, over the slice budget, and lanes of bins (LEVELS: wrap() calls nested in
# each outer call).
# Then, REPS times each, interleaved: `perfscope html` (wall time, peak RSS: events/s is
# EVENTS / median), `perfscope report --csv` (the profile pass that html's report_open makes
# too, to show the split), `perfscope mpi --waits` (the read of every stream looking for MPI
# records, which this experiment has none of: what html saves by reading no stream for them
# when no process names an MPI rank), and Chromium (headless, --dump-dom of the report without #test):
# wall time to the dump, minus the median wall time of a tiny report (Chromium's own start),
# with the status it dumped. Medians.
#
# Then `#test` mode: Chromium loading the report with #test (every view renders and runs its
# own test, with the virtual time of tests/e2e/html-lib.sh), wall time less the tiny report's,
# and the status it set.
# Then an MPI report: bench/gen_mpi_exp.py writes MPI_EVENTS MPI events of MPI_RANKS ranks (40
# bytes per event on OUT_BASE; `perfscope html` peaks at 55-62 bytes per event, the MPI
# model's ~50 and the views'), and the same figures: html's wall time, events/s, peak RSS,
# report size, Chromium's open time and #test time. MPI_REPS times each (3).
#
# For the MPI report also CPU time (user + sys, from /usr/bin/time): the wall time of a
# loaded machine says more about the others than about perfscope.
#
# Environment: BUILD_DIR (build), REPS (5), EVENTS (100000000; 0 skips the function trace),
# THREADS (2), OUTER (1000), LEVELS (0), MPI_EVENTS (1000000; 0 skips the MPI report,
# 100000000 is the big case: ~4 GB of streams, 5.1 GiB peak RSS, about 2 minutes), MPI_RANKS
# (64), MPI_REPS (3), CHROMIUM (1; 0 times `perfscope html` alone), OUT_BASE
# (/dev/shm/psc-html-bench: 16 bytes per event, 1.6 GB for 10^8; removed at the end unless
# KEEP=1).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(dirname "$HERE")
BUILD_DIR=${BUILD_DIR:-build}
REPS=${REPS:-5}
EVENTS=${EVENTS:-100000000}
THREADS=${THREADS:-2}
OUTER=${OUTER:-1000}
LEVELS=${LEVELS:-0}
OUT_BASE=${OUT_BASE:-/dev/shm/psc-html-bench}
MPI_EVENTS=${MPI_EVENTS:-1000000}
MPI_RANKS=${MPI_RANKS:-64}
MPI_REPS=${MPI_REPS:-3}
CHROMIUM=${CHROMIUM:-1}
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR=$SRC/$BUILD_DIR ;; esac
PSC=$BUILD_DIR/perfscope

if [ "${1:-}" != --no-build ]; then
	cmake -S "$SRC" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
	make -C "$BUILD_DIR" -j2 perfscope_cli perfscope >/dev/null
fi
[ "$CHROMIUM" = 0 ] || command -v chromium >/dev/null ||
	{ echo "chromium not found (scripts/install-deps.sh)" >&2; exit 1; }
[ -x "$PSC" ] || { echo "$PSC not built" >&2; exit 1; }

rm -rf "$OUT_BASE"
mkdir -p "$OUT_BASE"
trap '[ "${KEEP:-0}" = 1 ] || rm -rf "$OUT_BASE"' EXIT
cc -O2 -finstrument-functions "$HERE/html_calls.c" -o "$OUT_BASE/html_calls" -pthread
cc -O2 -finstrument-functions "$HERE/html_calls.c" -o "$OUT_BASE/html_small" -pthread

load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load average before: $load"
"$PSC" record --functions -o "$OUT_BASE/small" -- "$OUT_BASE/html_small" -c 1000 -o 10 >/dev/null
"$PSC" html "$OUT_BASE/small" -o "$OUT_BASE/small.html" 2>/dev/null
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# time_of FILE CMD..: appends "wall_s peak_kib user_s sys_s" of CMD to FILE
time_of() {
	local f=$1
	shift
	/usr/bin/time -f "%e %M %U %S" -a -o "$f" "$@" >/dev/null 2>/dev/null
}
# chromium_dump REPORT [#test]: wall seconds to Chromium's DOM dump of REPORT (with #test: the
# views' own tests, in virtual time as tests/e2e/html-lib.sh runs them)
chromium_dump() {
	local t0 t1 url="file://$1" vt=()
	if [ "$CHROMIUM" = 0 ]; then
		echo 0
		return
	fi
	if [ -n "${2:-}" ]; then
		url="$url#test"
		vt=(--virtual-time-budget=20000)
	fi
	t0=$(date +%s.%N)
	timeout 600 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-extensions --user-data-dir="$OUT_BASE/profile" "${vt[@]}" --dump-dom \
		"$url" >"$OUT_BASE/dump.html" 2>/dev/null
	t1=$(date +%s.%N)
	echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }'
}
status_of() {
	[ "$CHROMIUM" = 0 ] && echo "(not run)" && return
	sed -n 's/.*data-perfscope-status="\([^"]*\)".*/\1/p' "$OUT_BASE/dump.html" | head -n 1
}

# the function trace (EVENTS=0 leaves it out)
if [ "$EVENTS" -gt 0 ]; then
"$PSC" record --functions -o "$OUT_BASE/exp" -- "$OUT_BASE/html_calls" -c $((EVENTS / 2)) \
	-t "$THREADS" -o "$OUTER" -l "$LEVELS" >/dev/null
echo "trace: $(du -sh "$OUT_BASE/exp" | cut -f1)"
rm -f "$OUT_BASE"/t.*
for ((i = 0; i < REPS; i++)); do
	time_of "$OUT_BASE/t.html" "$PSC" html "$OUT_BASE/exp" -o "$OUT_BASE/report.html" --force
	time_of "$OUT_BASE/t.report" "$PSC" report "$OUT_BASE/exp" --csv
	time_of "$OUT_BASE/t.mpi" "$PSC" mpi "$OUT_BASE/exp" --waits || true
	chromium_dump "$OUT_BASE/small.html" >>"$OUT_BASE/t.base"
	chromium_dump "$OUT_BASE/report.html" >>"$OUT_BASE/t.chromium"
	status_of >>"$OUT_BASE/t.status"
	chromium_dump "$OUT_BASE/small.html" test >>"$OUT_BASE/t.tbase"
	chromium_dump "$OUT_BASE/report.html" test >>"$OUT_BASE/t.test"
	status_of | cut -c1-120 >>"$OUT_BASE/t.tstatus"
done

events=$(python3 - "$OUT_BASE/report.html" <<'EOF'
import json, re, sys
s = open(sys.argv[1]).read()
m = re.search(r'<script type="application/json" id="psc-data">(.*?)</script>', s, re.S)
print(2 * json.loads(m.group(1))["timeline"]["calls"])
EOF
)
html_s=$(cut -d' ' -f1 "$OUT_BASE/t.html" | median)
html_kib=$(cut -d' ' -f2 "$OUT_BASE/t.html" | median)
rep_s=$(cut -d' ' -f1 "$OUT_BASE/t.report" | median)
mpi_s=$(grep -E '^[0-9.]+ [0-9]+ [0-9.]+ [0-9.]+$' "$OUT_BASE/t.mpi" | cut -d' ' -f1 | median)
chr_s=$(median <"$OUT_BASE/t.chromium")
base_s=$(median <"$OUT_BASE/t.base")
test_s=$(median <"$OUT_BASE/t.test")
tbase_s=$(median <"$OUT_BASE/t.tbase")
size=$(stat -c %s "$OUT_BASE/report.html")
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "events: $events, $THREADS threads x $OUTER outer calls x $((LEVELS + 1)) levels (reps: $REPS, medians)"
python3 - "$OUT_BASE/report.html" <<'EOF'
import json, re, sys
s = open(sys.argv[1]).read()
m = re.search(r'<script type="application/json" id="psc-data">(.*?)</script>', s, re.S)
t = json.loads(m.group(1))["timeline"]
print(f"timeline: {t['slices']} slices kept (min_ns {t['min_ns']}), "
      f"{sum(len(l['bin']) for l in t['lanes'])} bins of {t['bin_ns']} ns, run {t['run_ns']} ns")
EOF
awk -v e="$events" -v h="$html_s" -v k="$html_kib" -v r="$rep_s" -v c="$chr_s" -v b="$base_s" -v m="$mpi_s" \
	-v z="$size" -v t="$test_s" -v tb="$tbase_s" 'BEGIN {
	printf "perfscope html:           %6.3f s  %6.1f M events/s  peak %d MiB\n", h, e / h / 1e6, k / 1024
	printf "  of which profile pass:  %6.3f s  (perfscope report --csv: %.1f M events/s)\n", r, e / r / 1e6
	printf "  the views (html - report): %.3f s  %6.1f M events/s\n", h - r, e / (h - r) / 1e6
	printf "  looking for MPI records (html skips it: no rank named): %.3f s (perfscope mpi --waits)\n", m
	printf "report size:              %6.1f MB (%d bytes)\n", z / 1e6, z
	printf "chromium to status:       %6.3f s wall, %6.3f s for a tiny report: %.3f s for this one\n", c, b, c - b
	printf "chromium #test mode:      %6.3f s wall, %6.3f s for a tiny report: %.3f s for this one\n", t, tb, t - tb
}'
echo "statuses dumped: $(sort "$OUT_BASE/t.status" | uniq -c | tr '\n' ' ')"
echo "#test statuses: $(sort "$OUT_BASE/t.tstatus" | uniq -c | tr '\n' ' ')"
echo "raw: html $(cut -d' ' -f1 "$OUT_BASE/t.html" | tr '\n' ' ')| report $(cut -d' ' -f1 "$OUT_BASE/t.report" | tr '\n' ' ')| chromium $(tr '\n' ' ' <"$OUT_BASE/t.chromium")| base $(tr '\n' ' ' <"$OUT_BASE/t.base")"
fi

# The MPI report: a synthetic experiment of MPI_EVENTS MPI events (enter and leave records)
[ "$MPI_EVENTS" -gt 0 ] || exit 0
rm -rf "$OUT_BASE/exp" "$OUT_BASE/report.html" # the function trace's space back first
gen_s=$( { /usr/bin/time -f "%e" python3 "$HERE/gen_mpi_exp.py" -e "$MPI_EVENTS" -p "$MPI_RANKS" \
	"$OUT_BASE/mpi" >"$OUT_BASE/gen.out"; } 2>&1 | tail -n 1)
echo "mpi trace: $(cat "$OUT_BASE/gen.out") ($(du -sh "$OUT_BASE/mpi" | cut -f1), written in $gen_s s)"
mev=$(sed -n 's/.* calls, \([0-9]*\) MPI events.*/\1/p' "$OUT_BASE/gen.out")
rm -f "$OUT_BASE"/m.*
for ((i = 0; i < MPI_REPS; i++)); do
	time_of "$OUT_BASE/m.html" "$PSC" html "$OUT_BASE/mpi" -o "$OUT_BASE/mpi.html" --force
	chromium_dump "$OUT_BASE/small.html" >>"$OUT_BASE/m.base"
	chromium_dump "$OUT_BASE/small.html" test >>"$OUT_BASE/m.tbase"
	chromium_dump "$OUT_BASE/mpi.html" >>"$OUT_BASE/m.chromium"
	status_of >>"$OUT_BASE/m.status"
	chromium_dump "$OUT_BASE/mpi.html" test >>"$OUT_BASE/m.test"
	status_of | cut -c1-120 >>"$OUT_BASE/m.tstatus"
done
awk -v e="$mev" -v h="$(cut -d' ' -f1 "$OUT_BASE/m.html" | median)" \
	-v k="$(cut -d' ' -f2 "$OUT_BASE/m.html" | median)" -v z="$(stat -c %s "$OUT_BASE/mpi.html")" \
	-v c="$(median <"$OUT_BASE/m.chromium")" -v t="$(median <"$OUT_BASE/m.test")" \
	-v b="$(median <"$OUT_BASE/m.base")" -v tb="$(median <"$OUT_BASE/m.tbase")" -v n="$MPI_RANKS" \
	-v u="$(awk '{ print $3 + $4 }' "$OUT_BASE/m.html" | median)" 'BEGIN {
	printf "mpi: %d MPI events, %d ranks (reps: '"$MPI_REPS"', medians)\n", e, n
	printf "perfscope html (mpi):     %6.3f s  %6.1f M events/s  peak %d MiB (%.0f bytes/event)\n", h, e / h / 1e6, k / 1024, k * 1024 / e
	printf "  CPU time (user + sys):  %6.3f s  %6.1f M events/s\n", u, e / u / 1e6
	printf "report size (mpi):        %6.1f MB (%d bytes)\n", z / 1e6, z
	printf "chromium to status (mpi): %6.3f s wall, %.3f s less the tiny report'"'"'s\n", c, c - b
	printf "chromium #test (mpi):     %6.3f s wall, %.3f s less the tiny report'"'"'s\n", t, t - tb
}'
echo "mpi statuses dumped: $(sort "$OUT_BASE/m.status" | uniq -c | tr '\n' ' ')"
echo "mpi #test statuses: $(sort "$OUT_BASE/m.tstatus" | uniq -c | tr '\n' ' ')"
echo "mpi raw: wall $(cut -d' ' -f1 "$OUT_BASE/m.html" | tr '\n' ' ')| cpu $(awk '{ printf "%.2f ", $3 + $4 }' "$OUT_BASE/m.html")"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
