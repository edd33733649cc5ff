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
# too, to show the split), `perfscope mpi --waits` (html_mpi's read of every stream looking
# for MPI records, which this experiment has none of), and Chromium (headless, --dump-dom of the report without #test):
# wall time to the dump, minus the median wall time of a tiny report (Chromium's own start),
# with the status it dumped. Medians.
#
# Environment: BUILD_DIR (build), REPS (5), EVENTS (100000000), THREADS (2), OUTER (1000),
# LEVELS (0), OUT_BASE
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
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR=$SRC/$BUILD_DIR ;; esac
PSC=$BUILD_DIR/perfscope

if [ "${1:-}" != --no-build ]; then
	cmake -S "$SRC" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
	make -C "$BUILD_DIR" -j2 perfscope_cli perfscope >/dev/null
fi
command -v chromium >/dev/null || { echo "chromium not found (scripts/install-deps.sh)" >&2; exit 1; }
[ -x "$PSC" ] || { echo "$PSC not built" >&2; exit 1; }

rm -rf "$OUT_BASE"
mkdir -p "$OUT_BASE"
trap '[ "${KEEP:-0}" = 1 ] || rm -rf "$OUT_BASE"' EXIT
cc -O2 -finstrument-functions "$HERE/html_calls.c" -o "$OUT_BASE/html_calls" -pthread
cc -O2 -finstrument-functions "$HERE/html_calls.c" -o "$OUT_BASE/html_small" -pthread

load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load average before: $load"
"$PSC" record --functions -o "$OUT_BASE/exp" -- "$OUT_BASE/html_calls" -c $((EVENTS / 2)) \
	-t "$THREADS" -o "$OUTER" -l "$LEVELS" >/dev/null
"$PSC" record --functions -o "$OUT_BASE/small" -- "$OUT_BASE/html_small" -c 1000 -o 10 >/dev/null
"$PSC" html "$OUT_BASE/small" -o "$OUT_BASE/small.html" 2>/dev/null
echo "trace: $(du -sh "$OUT_BASE/exp" | cut -f1)"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# time_of FILE CMD..: appends "wall_s peak_kib" of CMD to FILE
time_of() {
	local f=$1
	shift
	/usr/bin/time -f "%e %M" -a -o "$f" "$@" >/dev/null 2>/dev/null
}
chromium_dump() {
	local t0 t1
	t0=$(date +%s.%N)
	timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-extensions --user-data-dir="$OUT_BASE/profile" --dump-dom \
		"file://$1" >"$OUT_BASE/dump.html" 2>/dev/null
	t1=$(date +%s.%N)
	echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }'
}

rm -f "$OUT_BASE"/t.*
for ((i = 0; i < REPS; i++)); do
	time_of "$OUT_BASE/t.html" "$PSC" html "$OUT_BASE/exp" -o "$OUT_BASE/report.html" --force
	time_of "$OUT_BASE/t.report" "$PSC" report "$OUT_BASE/exp" --csv
	time_of "$OUT_BASE/t.mpi" "$PSC" mpi "$OUT_BASE/exp" --waits || true
	chromium_dump "$OUT_BASE/small.html" >>"$OUT_BASE/t.base"
	chromium_dump "$OUT_BASE/report.html" >>"$OUT_BASE/t.chromium"
	sed -n 's/.*data-perfscope-status="\([^"]*\)".*/\1/p' "$OUT_BASE/dump.html" | head -n 1 >>"$OUT_BASE/t.status"
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
mpi_s=$(grep -E '^[0-9.]+ [0-9]+$' "$OUT_BASE/t.mpi" | cut -d' ' -f1 | median)
chr_s=$(median <"$OUT_BASE/t.chromium")
base_s=$(median <"$OUT_BASE/t.base")
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
	-v z="$size" 'BEGIN {
	printf "perfscope html:           %6.3f s  %6.1f M events/s  peak %d MiB\n", h, e / h / 1e6, k / 1024
	printf "  of which profile pass:  %6.3f s  (perfscope report --csv: %.1f M events/s)\n", r, e / r / 1e6
	printf "  the views (html - report): %.3f s  %6.1f M events/s\n", h - r, e / (h - r) / 1e6
	printf "  of which looking for MPI records: %.3f s (perfscope mpi --waits, which finds none)\n", m
	printf "report size:              %6.1f MB (%d bytes)\n", z / 1e6, z
	printf "chromium to status:       %6.3f s wall, %6.3f s for a tiny report: %.3f s for this one\n", c, b, c - b
}'
echo "statuses dumped: $(sort "$OUT_BASE/t.status" | uniq -c | tr '\n' ' ')"
echo "raw: html $(cut -d' ' -f1 "$OUT_BASE/t.html" | tr '\n' ' ')| report $(cut -d' ' -f1 "$OUT_BASE/t.report" | tr '\n' ' ')| chromium $(tr '\n' ' ' <"$OUT_BASE/t.chromium")| base $(tr '\n' ' ' <"$OUT_BASE/t.base")"
