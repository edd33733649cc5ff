#!/usr/bin/env bash
# The stream reader under libFuzzer for a bounded time (PSC_FUZZ_SECONDS, default 20): no
# crash, no hang, no sanitizer report, and the reader's contract holds on every input (see
# tests/fuzz/fuzz_stream.c). The seeds of tests/fuzz/corpus/ run first. A failing input is kept
# in $PSC_BUILD/fuzz-artifacts/ for `$PSC_BUILD/fuzz/fuzz_stream FILE`. Skips without clang or
# libFuzzer (scripts/install-deps.sh installs both).
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
bin=$out/fuzz_stream

artifacts=$PSC_BUILD/fuzz-artifacts
mkdir -p "$artifacts"
# libFuzzer's default error exit code is 77, which ctest would read as a skip: use 1
common=(-error_exitcode=1 -timeout_exitcode=1 -timeout=10 -rss_limit_mb=2048
	-artifact_prefix="$artifacts/")

# every seed once: a regression input must never crash
run seeds "$bin" "${common[@]}" "$fuzz"/corpus/*
expect_eq 0 "$RC" "fuzz_stream on the seed corpus: exit status"
[ "$RC" -eq 0 ] || show seeds

# then fuzz from a copy of the seeds (the repository's corpus stays as committed)
mkdir "$T/corpus"
cp "$fuzz"/corpus/* "$T/corpus/"
run fuzz "$bin" "${common[@]}" -dict="$fuzz/stream.dict" -max_total_time="$secs" \
	-print_final_stats=1 "$T/corpus"
expect_eq 0 "$RC" "fuzz_stream for $secs s: exit status"
if [ "$RC" -ne 0 ]; then
	grep -E 'contract broken|ERROR|SUMMARY|runtime error|Test unit written' "$T/fuzz.err" >&2 || true
	echo "failing inputs are kept in $artifacts" >&2
else
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T/fuzz.err")
	note "$execs inputs in $secs s, no crash, hang or contract break"
	expect_cmp "${execs:-0}" '>' 0 "inputs executed"
fi

finish
