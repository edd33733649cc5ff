#!/usr/bin/env bash
# On an MPI experiment, html builds the wait states and the MPI view in a second thread
# (src/html/html.c, the default on 2 CPUs or more; it names itself psc-views) while it
# builds the timeline and the animation's states: the report is the same byte for byte as when
# one CPU builds them in turn (pinned to the first CPU of the mask), caveats of every view in
# their order included. The experiment: 8
# generated ranks, one of them cut (the model's warnings, the MPI view's caveats about
# unmatched messages and missing ranks) and a grid too small for the ranks (the states view's
# caveat); then a whole one, for the views' data.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
require_cmd python3
require_cmd taskset
require_cmd strace

[ "$(nproc)" -ge 2 ] || skip "one CPU: html builds every view in turn, nothing to compare"
cpu0=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')

# caveats REPORT: the report's caveats, one per line
caveats() {
	python3 -c 'import re,sys,json; t=open(sys.argv[1]).read(); d=json.loads(re.search(r"id=\"psc-data\">(.*?)</script>", t, re.S).group(1)); print("\n".join(d["caveats"]))' "$1"
}

# same NAME DIR ARGS..: html of DIR on two CPUs and pinned to one, byte-identical
same() {
	local name=$1 dir=$2
	shift 2
	run "$name-2cpu" "$PERFSCOPE" html "$dir" -o "$T/$name-2cpu.html" "$@"
	expect_eq 0 "$RC" "$name: html"
	run "$name-1cpu" taskset -c "$cpu0" "$PERFSCOPE" html "$dir" -o "$T/$name-1cpu.html" "$@"
	expect_eq 0 "$RC" "$name: html pinned to one CPU"
	# the same runs again under strace, for the thread's name (LeakSanitizer cannot run
	# under ptrace: the runs above are the ones checked for leaks)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -e trace=prctl \
		-o "$T/$name.strace" "$PERFSCOPE" html "$dir" -o "$T/$name-st.html" "$@" >/dev/null 2>&1 ||
		die "$name: html under strace failed"
	expect_eq 1 "$(grep -c 'PR_SET_NAME, "psc-views"' "$T/$name.strace" || true)" \
		"$name: the views' thread ran"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -e trace=prctl \
		-o "$T/$name-1cpu.strace" taskset -c "$cpu0" "$PERFSCOPE" html "$dir" \
		-o "$T/$name-st1.html" "$@" >/dev/null 2>&1 || die "$name: pinned html under strace failed"
	expect_eq 0 "$(grep -c 'PR_SET_NAME, "psc-views"' "$T/$name-1cpu.strace" || true)" \
		"$name: no views' thread on one CPU"
	if cmp -s "$T/$name-2cpu.html" "$T/$name-1cpu.html"; then
		expect_eq same same "$name: the same report with the views' thread and without"
	else
		fail "$name: the reports differ with the views' thread and without"
		cmp "$T/$name-2cpu.html" "$T/$name-1cpu.html" >&2 || true
	fi
}

python3 "$PSC_SOURCE/bench/gen_mpi_exp.py" -p 8 -e 20000 "$T/cut" >/dev/null || die "gen_mpi_exp.py"
cp -r "$T/cut" "$T/whole"
s=$(ls "$T/cut"/stream.* | sed -n 3p)
truncate -s "$(($(stat -c %s "$s") / 2))" "$s"
same cut "$T/cut" --grid 2x3
caveats "$T/cut-2cpu.html" >"$T/cut.caveats"
expect_grep "receives not matched" "$T/cut.caveats" "the MPI view's caveat on unmatched messages"
expect_grep "Process animation: --grid 2x3 holds fewer than the 8 ranks" "$T/cut.caveats" \
	"the states view's caveat on the grid"
mpi_line=$(grep -n "not matched" "$T/cut.caveats" | cut -d: -f1)
grid_line=$(grep -n "Process animation: --grid" "$T/cut.caveats" | cut -d: -f1)
expect_cmp "$mpi_line" "<" "$grid_line" "the MPI view's caveats before the states view's, as the views come"
same whole "$T/whole"
expect_eq "" "$(caveats "$T/whole-2cpu.html")" "no caveats for the whole experiment"
finish
