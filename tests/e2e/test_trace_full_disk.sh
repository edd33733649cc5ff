#!/usr/bin/env bash
# Recording onto a full disk: the traced program runs to its end with its normal output and
# exit status, recording stops, and the experiment says why and how much was lost (issue 3,
# "Bad input"); record says it too when the run ends (it said nothing but "experiment in
# DIR"), and neither blames a kill, _exit or the program's build for what the disk lost.
# Also: an experiment directory the runtime cannot create leaves the program alone. The full disk is a 1 MiB tmpfs, so the test needs root (mount); it skips otherwise.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

[ "$(id -u)" -eq 0 ] || skip "mounting a small tmpfs needs root"
mkdir -p "$T/small"
mkdir -p "$T/small2" "$T/small3"
mount -t tmpfs -o size=1m tmpfs "$T/small" 2>/dev/null || skip "cannot mount a tmpfs here"
trap 'umount "$T/small" "$T/small2" "$T/small3" 2>/dev/null || true; _psc_on_exit' EXIT

# fib(27): 635,621 calls, about 20 MB of records: twenty times the room
d=$T/small/exp
run rec "$PERFSCOPE" record --functions -o "$d" -- "$EX/fib" 27
expect_eq 0 "$RC" "record on a full disk: exit status of fib"
expect_grep "fib(27) = 196418" "$T/rec.out" "fib's own output"
expect_eq exited "$(json_eval "$d"/proc.*.json 'd["state"]')" "proc state"
expect_grep "No space left on device" "$(ls "$d"/proc.*.json)" "proc error"
lost=$(json_eval "$d"/proc.*.json 'd["lost_bytes"]')
# everything beyond the first chunks is lost: at least 8 MB of the 10
expect_cmp "$lost" ">=" 8000000 "bytes lost on the full disk"
pid=$(json_eval "$d"/proc.*.json 'd["pid"]')
expect_grep "perfscope record: warning: process $pid: writing a stream chunk: No space left on device" \
	"$T/rec.err" "record says the runtime could not write, and why"
expect_grep "perfscope record: warning: process $pid: $(python3 -c "print(f'{$lost:,}')") bytes of trace lost" \
	"$T/rec.err" "record says how much was lost"
expect_no_grep "No such file or directory" "$T/rec.err" "record: no stale errno for a short write"
expect_no_grep "killed processes" "$T/rec.err" "record: no kill blamed"

run rep "$PERFSCOPE" report "$d"
expect_eq 0 "$RC" "report of the experiment on a full disk"
expect_grep "writing a stream chunk: No space left on device" "$T/rep.out" "report: why"
expect_grep "bytes of chunks lost" "$T/rep.out" "report: how much"
expect_no_grep "build it with -finstrument-functions" "$T/rep.out" "report: the build is not blamed"
expect_no_grep "killed by SIGKILL" "$T/rep.out" "report: no kill blamed"

# no room for a whole chunk, nor for completing the stream from its buffer at the end: no
# call is kept, and the report says they were lost, not that the program was built without
# -finstrument-functions; the buffer that could not be added is blamed on the disk (a short
# write left a stale errno: "No such file or directory")
mount -t tmpfs -o size=3m tmpfs "$T/small2"
dd if=/dev/zero of="$T/small2/filler" bs=4k count=200 2>/dev/null
d2=$T/small2/exp
run rec2 "$PERFSCOPE" record --functions -o "$d2" -- "$EX/fib" 27
expect_eq 0 "$RC" "record on a fuller disk: exit status of fib"
expect_grep "No space left on device" "$T/rec2.err" "record on a fuller disk: why"
expect_no_grep "No such file or directory" "$T/rec2.err" "record: no stale errno after a short write"
run rep2 "$PERFSCOPE" report "$d2"
expect_grep "no region and no function call could be read (the caveats below say what was lost)" \
	"$T/rep2.out" "report of a trace lost to the disk"
expect_no_grep "build it with -finstrument-functions" "$T/rep2.out" \
	"report of a trace lost to the disk: the build is not blamed"

# the stream left open by the failed writes, completed from its buffer (by record, or by the
# report once the filler is gone: which one depends on how far the runtime got): the report
# blames the failed writes for it, not a kill or _exit
mount -t tmpfs -o size=6m tmpfs "$T/small3"
dd if=/dev/zero of="$T/small3/filler" bs=4k count=200 2>/dev/null
d3=$T/small3/exp
run rec3 "$PERFSCOPE" record --functions -o "$d3" -- "$EX/fib" 27
expect_eq 0 "$RC" "record on the third disk: exit status of fib"
rm "$T/small3/filler"
run rep3 "$PERFSCOPE" report "$d3"
expect_grep "did not end cleanly: its last records could not be written" "$T/rep3.out" \
	"report: the stream left open is blamed on the failed writes"
expect_no_grep "killed by SIGKILL" "$T/rep3.out" "report: no kill blamed for the stream left open"

# a directory the runtime cannot create: the program runs as if perfscope were absent
lib=$(ls "$PSC_BUILD"/libperfscope.so.0)
pre=$lib
[ "${PSC_SANITIZE:-OFF}" = ON ] && pre="$(${CC:-cc} -print-file-name=libasan.so):$lib"
run bare env PERFSCOPE_OUT=/proc/no/such/dir LD_PRELOAD="$pre" \
	ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 "$EX/fib" 20
expect_eq 0 "$RC" "fib with an uncreatable experiment directory: exit status"
expect_grep "fib(20) = 6765" "$T/bare.out" "fib's output without recording"
finish
