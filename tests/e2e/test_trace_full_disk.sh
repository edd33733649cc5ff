#!/usr/bin/env bash
# Recording onto a full disk: the traced program runs to its end with its normal output and
# exit status, recording stops, and the experiment says why and how much was lost (issue 3,
# "Bad input"). Also: an experiment directory the runtime cannot create leaves the program
# alone. The full disk is a 1 MiB tmpfs, so the test needs root (mount); it skips otherwise.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

[ "$(id -u)" -eq 0 ] || skip "mounting a small tmpfs needs root"
mkdir -p "$T/small"
mount -t tmpfs -o size=1m tmpfs "$T/small" 2>/dev/null || skip "cannot mount a tmpfs here"
trap 'umount "$T/small" 2>/dev/null || true; _psc_on_exit' EXIT

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

run rep "$PERFSCOPE" report "$d"
expect_eq 0 "$RC" "report of the experiment on a full disk"
expect_grep "writing a stream chunk: No space left on device" "$T/rep.out" "report: why"
expect_grep "bytes of chunks lost" "$T/rep.out" "report: how much"

# a directory the runtime cannot create: the program runs as if perfscope were absent
lib=$(ls "$PSC_BUILD"/libperfscope.so.0)
pre=$lib
[ "${PSC_SANITIZE:-OFF}" = ON ] && pre="$(${CC:-cc} -print-file-name=libasan.so):$lib"
run bare env PERFSCOPE_OUT=/proc/no/such/dir LD_PRELOAD="$pre" \
	ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 "$EX/fib" 20
expect_eq 0 "$RC" "fib with an uncreatable experiment directory: exit status"
expect_grep "fib(20) = 6765" "$T/bare.out" "fib's output without recording"
finish
