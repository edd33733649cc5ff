#!/usr/bin/env bash
# Damaged input and what the commands say about it, on copies of one recording of the threads
# example (one process, 2 streams) changed by hand:
#  - numbers outside their type (meta.json start_ns 1e308, a proc file's image -1, a
#    calibration pair past 2^63 ns, a stream header's start time 2^63 at byte 48): exit 2, one
#    line naming the file and the key or byte, no undefined behaviour (the sanitizer build
#    stops at the first) and no leak (report --by scope --categories freed nothing on that
#    error path);
#  - a clock pair 3.4e5 times off the others': left out, said per process, the fit plausible;
#  - meta.json without exit_status and end_ns (record was killed): said as such;
#  - a proc file still "running": outlived the command when its records end after the
#    command's end (meta.json end_ns moved before them), else killed or still running;
#  - "lost_threads": 3 in a proc file: 3 threads not recorded, the records lost unchanged;
#  - with mpirun: a run recorded with --mpi whose ranks were killed before MPI_Init, and one
#    whose processes never called MPI: why there are no MPI records, not "record with --mpi".
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

prog=$EX/threads
[ -x "$prog" ] || die "$prog was not built"
d=$T/thr
record_or_die rec "$d" -- "$prog"
pid=$(json_eval "$(ls "$d"/proc.*.json | head -n 1)" 'd["pid"]')
[ -n "$pid" ] || die "no pid in $d's proc file"
proc=proc.$pid.json
main=stream.$pid.$pid

# copy NAME PYTHON: $T/NAME, a copy of $d whose FILE (JSON) PYTHON changes (d is its object)
copy() {
	rm -rf "${T:?}/$1"
	cp -a "$d" "$T/$1"
}
edit_json() { # FILE PYTHON
	python3 - "$1" "$2" <<'EOF'
import json, sys
p, code = sys.argv[1], sys.argv[2]
d = json.load(open(p))
exec(code)
open(p, "w").write(json.dumps(d))
EOF
}

# one_line NAME WHAT: the run NAME exited 2 with one line on stderr and nothing else
refused() { # NAME PATTERN WHAT
	expect_eq 2 "$RC" "$3: exit status"
	expect_eq 1 "$(wc -l <"$T/$1.err")" "$3: one line on stderr (no sanitizer report): $(head -c 400 "$T/$1.err")"
	expect_grep "$2" "$T/$1.err" "$3: the message"
}

# ---- numbers outside their type
copy start && edit_json "$T/start/meta.json" 'd["start_ns"] = 1e308'
copy image && edit_json "$T/image/$proc" 'd["image"] = -1'
t0=$(json_eval "$d/$proc" 'd["calibration"][0][0]')
copy pair && edit_json "$T/pair/$proc" 'd["calibration"][0][1] = "9223372036854775808"'
copy hdr
printf '\x00\x00\x00\x00\x00\x00\x00\x80' | dd of="$T/hdr/$main" bs=1 seek=48 conv=notrunc 2>/dev/null
for c in "info" "report" "report --by scope --categories" "html -o $T/x.html" "dump"; do
	# shellcheck disable=SC2086 # the command's words
	run n "$PERFSCOPE" $c "$T/start"
	refused n "start/meta.json: \"start_ns\" is 1e+308, not a time from 0 to 2^63 ns" "$c: meta.json start_ns 1e308"
	# shellcheck disable=SC2086
	run n "$PERFSCOPE" $c "$T/image"
	refused n "image/$proc: \"image\" is -1, not an unsigned 32-bit integer" "$c: a proc file's image -1"
	# shellcheck disable=SC2086
	run n "$PERFSCOPE" $c "$T/pair"
	refused n "pair/$proc: \"calibration\": pair 1 ($t0, 9223372036854775808) is past 2^62 ticks or 2^63 ns" "$c: a calibration pair at 2^63 ns"
done
run n "$PERFSCOPE" info "$T/hdr"
refused n "hdr/$main: byte 48: start time 9223372036854775808 ns past 2^63" "info: a stream header's start time 2^63"

# ---- a clock pair 3.4e5 times off: the proc file's end pair's ns moved 3.4e5 times as far from
# the start pair's; the start pair and the clock-sync pair of each stream's one chunk stay on
# their line, so 1 of 2 + 2 pairs is left out
copy clock
edit_json "$T/clock/$proc" '
t0, n0 = (int(x) for x in d["calibration"][0]); t1, n1 = (int(x) for x in d["calibration"][1])
d["calibration"][1][1] = str(n0 + (n1 - n0) * 340000)'
t1=$(json_eval "$T/clock/$proc" 'd["calibration"][1][0]')
n1=$(json_eval "$T/clock/$proc" 'd["calibration"][1][1]')
run info "$PERFSCOPE" info "$T/clock" --json
expect_eq 0 "$RC" "info on a clock pair 3.4e5 times off: exit status"
expect_grep "1 of 4 clock pairs disagree with the others (ticks $t1 with ns $n1 is " "$T/info.out" \
	"info: the pair left out is said"
tick=$(json_eval "$T/info.out" 'd["processes"][0]["ns_per_tick"]')
run good "$PERFSCOPE" info "$d" --json
expect_near "$(json_eval "$T/good.out" 'd["processes"][0]["ns_per_tick"]')" "$tick" 0.001 \
	"the fit without the bad pair: the rate of the undamaged experiment"
run rep "$PERFSCOPE" report "$T/clock" --by region
expect_grep "! process $pid: 1 of 4 clock pairs disagree with the others (ticks $t1 with ns $n1 is " \
	"$T/rep.out" "report: the clock caveat names the process and the pair"

# ---- record killed: meta.json as record writes it before the command starts
copy cut && edit_json "$T/cut/meta.json" 'd.pop("exit_status"); d.pop("start_ns"); d.pop("end_ns")'
run rep "$PERFSCOPE" report "$T/cut" --by region
expect_eq 0 "$RC" "report on a recording whose recorder was killed: exit status"
expect_grep "! the recording was cut: perfscope record was killed (or is still running), meta.json has no exit status" \
	"$T/rep.out" "report: a killed recorder is said"
run info "$PERFSCOPE" info "$T/cut"
expect_grep "exit status  - (the recording was cut: perfscope record was killed, or is still running)" \
	"$T/info.out" "info: a killed recorder is said"

# ---- a process still "running": its records end after the command's end, or before it
copy bg && edit_json "$T/bg/$proc" 'd["state"] = "running"; d["calibration"] = d["calibration"][:1]'
cp -a "$T/bg" "$T/killed"
edit_json "$T/bg/meta.json" 'd["end_ns"] = d["start_ns"] + 1'
run info "$PERFSCOPE" info "$T/bg"
expect_grep "running (outlived the command: still running when record ended)" "$T/info.out" \
	"info: records after the command's end: the process outlived it"
expect_no_grep "killed" "$T/info.out" "info: a process that outlived the command is not called killed"
run info "$PERFSCOPE" info "$T/killed"
expect_grep "running (did not end cleanly: killed, or still running when record ended)" "$T/info.out" \
	"info: no record after the command's end: killed or still running"

# ---- threads not recorded at all
copy lost && edit_json "$T/lost/$proc" 'd["lost_threads"] = 3'
run info "$PERFSCOPE" info "$T/lost" --json
expect_eq 3 "$(json_eval "$T/info.out" 'd["processes"][0]["lost_threads"]')" "info --json: lost_threads"
expect_eq 0 "$(json_eval "$T/info.out" 'd["processes"][0]["lost_records"]')" "info --json: no records lost"
run info "$PERFSCOPE" info "$T/lost"
expect_grep "pid $pid image 0: 3 threads not recorded (the runtime could not record them at all)" "$T/info.out" \
	"info: threads not recorded"
run rep "$PERFSCOPE" report "$T/lost" --by region
expect_grep "! process $pid: 3 threads not recorded" "$T/rep.out" "report: threads not recorded"
expect_no_grep "records and" "$T/rep.out" "report: no records said lost for threads not recorded"

# ---- MPI runs without MPI records
if command -v mpirun >/dev/null 2>&1 && [ -f "$PSC_BUILD/libperfscope-mpi.so" ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
	# every rank kills itself before MPI_Init: mpirun fails, record keeps the experiment
	run dead timeout -k 5 60 "$PERFSCOPE" record --mpi -o "$T/dead" -- mpirun -np 2 sh -c 'kill -9 $$'
	[ -f "$T/dead/meta.json" ] || die "record --mpi of ranks that kill themselves left no meta.json: $(tail -n 3 "$T/dead.err")"
	run n "$PERFSCOPE" mpi "$T/dead"
	refused n "no MPI records, although recorded with --mpi: 2 of " "mpi: ranks killed before MPI_Init"
	expect_grep "processes were killed or crashed (pid " "$T/n.err" "mpi: ranks killed: killed or crashed"
	expect_grep "sh, did not end cleanly) before their ranks' MPI_Init records reached the files" "$T/n.err" \
		"mpi: ranks killed: before their MPI_Init records reached the files"
	expect_no_grep "record with perfscope record --mpi" "$T/n.err" "mpi: ranks killed: not told to record with --mpi"
	run dead2 timeout -k 5 60 "$PERFSCOPE" record --mpi -o "$T/nompi" -- mpirun -np 2 "$prog"
	[ -f "$T/nompi/meta.json" ] || die "record --mpi of a program without MPI left no meta.json"
	run n "$PERFSCOPE" report "$T/nompi" --by scope --categories
	refused n "no MPI records, although recorded with --mpi: none of the " \
		"report --categories: a program without MPI recorded with --mpi"
	expect_grep " processes called MPI_Init through perfscope's MPI wrappers" "$T/n.err" \
		"report --categories: no process called MPI_Init"
fi
run n "$PERFSCOPE" mpi "$d"
refused n "thr: no MPI records (record with perfscope record --mpi)" "mpi: recorded without --mpi"

finish
