#!/usr/bin/env bash
# Killing `perfscope record --sample` (issue "Trust"): the launcher writes the samples as it
# drains them, so a SIGKILL loses only the last moments, and every command reads what was
# written and names the samples file and where it stops. A worker program counts units of a
# fixed amount of work into a file; the test kills at given unit counts (not times): the
# launcher alone (the worker runs on and is killed afterwards), or the whole process group.
# Every experiment: info, report (text, CSV, JSON), timeline (text, CSV), dump, html and export
# exit 0, say where samples.<pid> stops, and after 16 units (more than 0.3 s of CPU on any
# machine) the report has samples of the worker.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

require_cmd setsid

cat >"$T/worker.c" <<'EOF'
/* worker PROGRESS MAX: MAX units of 2^24 xorshift steps; the count done is written to
 * PROGRESS after each unit, and the pid to PROGRESS.pid first. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long long x = 88172645463325252ull;
	char buf[64], path[4096];
	int fd, max = argc > 2 ? atoi(argv[2]) : 1;

	if (argc < 3)
		return 2;
	snprintf(path, sizeof(path), "%s.pid", argv[1]);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || dprintf(fd, "%d\n", (int)getpid()) < 0 || close(fd))
		return 1;
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	for (int u = 1; u <= max; u++) {
		for (unsigned long i = 0; i < (1ul << 24); i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		int n = snprintf(buf, sizeof(buf), "%d\n", u);
		if (pwrite(fd, buf, (size_t)n, 0) != n)
			return 1;
	}
	printf("%llu\n", x);
	return 0;
}
EOF
build_c worker "$T/worker.c"

# sampling must work here at all
run probe "$PERFSCOPE" record --sample -o "$T/probe" -- "$T/worker" "$T/probe.progress" 1
[ "$RC" = 0 ] || skip "record --sample cannot sample here: $(head -c 300 "$T/probe.err")"

# units NAME: the units the worker of trial NAME has done (0 before its first)
units() { cat "$T/$1.progress" 2>/dev/null | tr -dc 0-9 || true; }

# trial NAME MODE UNITS: record the worker (at most 2000 units), wait until it has done UNITS
# (0: until it runs), then SIGKILL the launcher (MODE self) or its process group (MODE group)
trial() {
	local name=$1 mode=$2 want=$3 pid u i
	setsid "$PERFSCOPE" record --sample -o "$T/$name" -- "$T/worker" "$T/$name.progress" 2000 \
		>"$T/$name.rec.out" 2>"$T/$name.rec.err" &
	pid=$!
	for ((i = 0; i < 60000; i++)); do
		u=$(units "$name")
		if [ -n "$u" ] && [ "$u" -ge "$want" ]; then
			break
		fi
		kill -0 "$pid" 2>/dev/null || die "$name: record ended before the kill: $(cat "$T/$name.rec.err")"
		sleep 0.01
	done
	if [ "$mode" = group ]; then
		kill -KILL -- "-$pid"
	else
		kill -KILL "$pid"
	fi
	wait "$pid" 2>/dev/null || true
	# the worker of a launcher killed alone runs on: stop it
	kill -KILL "$(cat "$T/$name.progress.pid")" 2>/dev/null || true
	note "$name: killed ($mode) after $(units "$name") units"
}

# says_stop FILE SAMPLES WHAT: FILE says where the samples file SAMPLES stops
says_stop() {
	PSC_CHECKS=$((PSC_CHECKS + 1))
	grep -qE "$2: (cut at byte [0-9]+|nothing after its 64-byte header|no end record after byte [0-9]+)" "$1" ||
		fail "$3: no line saying where $2 stops in $(basename "$1"): $(head -c 1500 "$1")"
}

# check NAME MIN: every command reads the experiment of trial NAME; with MIN 1, it has samples
check() {
	local name=$1 min=$2 d=$T/$1 c n f
	f=$(cd "$d" && echo samples.*)
	[ -f "$d/$f" ] || die "$name: no samples file in $d"
	for c in info report timeline dump; do
		run "$name.$c" "$PERFSCOPE" "$c" "$d"
		expect_eq 0 "$RC" "$name: $c exit status ($(head -c 300 "$T/$name.$c.err"))"
		says_stop "$T/$name.$c.out" "$f" "$name: $c"
	done
	for c in "report --csv" "timeline --csv" "report --json"; do
		run "$name.${c// /}" "$PERFSCOPE" $c "$d"
		expect_eq 0 "$RC" "$name: $c exit status ($(head -c 300 "$T/$name.${c// /}.err"))"
	done
	says_stop "$T/$name.report--csv.err" "$f" "$name: report --csv"
	says_stop "$T/$name.timeline--csv.err" "$f" "$name: timeline --csv"
	run "$name.html" "$PERFSCOPE" html -o "$T/$name.html" "$d"
	expect_eq 0 "$RC" "$name: html exit status ($(head -c 300 "$T/$name.html.err"))"
	says_stop "$T/$name.html" "$f" "$name: html"
	run "$name.export" "$PERFSCOPE" export --format chrome -o "$T/$name.json" "$d"
	expect_eq 0 "$RC" "$name: export exit status ($(head -c 300 "$T/$name.export.err"))"
	says_stop "$T/$name.export.err" "$f" "$name: export"
	n=$(json_eval "$T/$name.report--json.out" 'd["sampling"]["samples"]')
	note "$name: $n samples read"
	if [ "$min" = 1 ]; then
		expect_cmp "$n" ">" 0 "$name: samples of the run before the kill"
		expect_cmp "$(json_eval "$T/$name.report--json.out" \
			'sum(f["samples"] for f in d["functions"] if f["name"] == "main")')" ">" 0 \
			"$name: samples in the worker's main"
	fi
}

for mode in self group; do
	for want in 0 1 4 16; do
		trial "$mode$want" "$mode" "$want"
		check "$mode$want" $((want >= 16))
	done
done
finish
