#!/usr/bin/env bash
# The stream reader under libFuzzer for a bounded time (PSC_FUZZ_SECONDS in all, default 20):
# no crash, no hang, no sanitizer report, and the reader's contract holds on every input (see
# tests/fuzz/fuzz_stream.c); then the region analysis of `perfscope report` on what the reader
# accepts (tests/fuzz/fuzz_profile.c); and the power meter file reader
# (tests/fuzz/fuzz_powerfile.c, seeds in tests/fuzz/corpus-powerfile/) and the power log reader
# (tests/fuzz/fuzz_powerlog.c, seeds in tests/fuzz/corpus-powerlog/); and the MPI model with
# the analyses of `perfscope mpi` on a rank's stream (tests/fuzz/fuzz_mpi.c, whose regression
# seeds are tests/fuzz/corpus/regress-mpi-*). The seeds of tests/fuzz/corpus/ run first. A failing
# input is kept in $PSC_BUILD/fuzz-artifacts/ for `$PSC_BUILD/fuzz/fuzz_stream FILE`. Skips
# without clang or libFuzzer (scripts/install-deps.sh installs both).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

secs=${PSC_FUZZ_SECONDS:-20}
[[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -gt 0 ] || die "PSC_FUZZ_SECONDS=$secs: expected a number of seconds above 0"
fuzz=$PSC_SOURCE/tests/fuzz
out=$PSC_BUILD/fuzz

rc=0
bash "$fuzz/build.sh" "$out" >"$T/build.log" 2>&1 || rc=$?
[ "$rc" -eq 77 ] && skip "$(tail -n 1 "$T/build.log")"
[ "$rc" -eq 0 ] || die "building the fuzz target failed: $(cat "$T/build.log")"

artifacts=$PSC_BUILD/fuzz-artifacts
mkdir -p "$artifacts"
# libFuzzer's default error exit code is 77, which ctest would read as a skip: use 1
common=(-error_exitcode=1 -timeout_exitcode=1 -timeout=10 -rss_limit_mb=2048
	-artifact_prefix="$artifacts/")

# fuzz_once TARGET SECONDS [CORPUS DICT]: the seeds once (a regression input must never crash),
# then fuzzing from a copy of them (the repository's corpus stays as committed)
fuzz_once() {
	local target=$1 t=$2 bin=$out/$1 corpus=${3:-$fuzz/corpus} dict=${4:-$fuzz/stream.dict}
	run "$target-seeds" "$bin" "${common[@]}" "$corpus"/*
	expect_eq 0 "$RC" "$target on the seed corpus: exit status"
	[ "$RC" -eq 0 ] || show "$target-seeds"
	mkdir "$T/$target"
	cp "$corpus"/* "$T/$target/"
	run "$target" "$bin" "${common[@]}" -dict="$dict" -max_total_time="$t" \
		-print_final_stats=1 "$T/$target"
	expect_eq 0 "$RC" "$target for $t s: exit status"
	if [ "$RC" -ne 0 ]; then
		grep -E -e 'contract broken|fuzz_profile:|fuzz_mpi:|fuzz_powerfile:|fuzz_powerlog:|ERROR|SUMMARY|runtime error' \
			-e 'Test unit written' \
			"$T/$target.err" >&2 || true
		echo "failing inputs are kept in $artifacts" >&2
		return 0
	fi
	local execs
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T/$target.err")
	note "$target: $execs inputs in $t s, no crash, hang or contract break"
	expect_cmp "${execs:-0}" '>' 0 "$target: inputs executed"
}

# a quarter of the time for the region analysis on top of the stream reader, a quarter for the
# MPI model, an eighth for each power reader, the rest for the stream reader itself
profile_secs=$((secs / 4 > 0 ? secs / 4 : 1))
mpi_secs=$profile_secs
power_secs=$((secs / 8 > 0 ? secs / 8 : 1))
stream_secs=$((secs - profile_secs - mpi_secs - 2 * power_secs))
fuzz_once fuzz_stream $((stream_secs > 0 ? stream_secs : 1))
fuzz_once fuzz_profile "$profile_secs"
fuzz_once fuzz_mpi "$mpi_secs"
fuzz_once fuzz_powerfile "$power_secs" "$fuzz/corpus-powerfile" "$fuzz/powerfile.dict"
fuzz_once fuzz_powerlog "$power_secs" "$fuzz/corpus-powerlog" "$fuzz/powerlog.dict"

finish
