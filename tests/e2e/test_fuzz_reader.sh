#!/usr/bin/env bash
# Every reader under libFuzzer for a bounded time (PSC_FUZZ_SECONDS in all, default 38, shared by
# the targets below by weight): no crash, no hang, no sanitizer report, and each target's
# contract holds on every input (see the target's header in tests/fuzz/):
#   fuzz_stream      the stream reader (seeds: tests/fuzz/corpus/)
#   fuzz_profile     the region analysis of `perfscope report` and info/dump on a stream
#   fuzz_mpi         the MPI model and the analyses of `perfscope mpi` on a rank's stream (its
#                    regression seeds are tests/fuzz/corpus/regress-mpi-*)
#   fuzz_powerfile   power meter files (tests/fuzz/corpus-powerfile/)
#   fuzz_powerlog    power logs, power.rapl and power.perf (tests/fuzz/corpus-powerlog/)
#   fuzz_experiment  meta.json and proc.<pid>.json, then info/dump (corpus-experiment/)
#   fuzz_otf2        the OTF2 import, one file of an archive replaced (corpus-otf2/)
#   fuzz_maps        maps.<pid> files (corpus-maps/)
#   fuzz_kallsyms    the kallsyms copy (corpus-kallsyms/)
#   fuzz_metrics     metric group files and their formulas (corpus-metrics/)
#   fuzz_loadlog     load logs (corpus-loadlog/)
# Each target's seeds run first (a regression input must never fail again). A failing input is
# kept in $PSC_BUILD/fuzz-artifacts/ for `$PSC_BUILD/fuzz/TARGET FILE`. Skips without clang or
# libFuzzer (scripts/install-deps.sh installs both).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

secs=${PSC_FUZZ_SECONDS:-38}
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
	local target=$1 t=$2 bin=$out/$1 corpus=${3:-$fuzz/corpus} dict=${4-$fuzz/stream.dict}
	local dictarg=()
	[ -n "$dict" ] && dictarg=(-dict="$dict")
	run "$target-seeds" "$bin" "${common[@]}" "$corpus"/*
	expect_eq 0 "$RC" "$target on the seed corpus: exit status"
	[ "$RC" -eq 0 ] || show "$target-seeds"
	mkdir "$T/$target"
	cp "$corpus"/* "$T/$target/"
	run "$target" "$bin" "${common[@]}" "${dictarg[@]}" -max_total_time="$t" \
		-print_final_stats=1 "$T/$target"
	expect_eq 0 "$RC" "$target for $t s: exit status"
	if [ "$RC" -ne 0 ]; then
		grep -E -e 'contract broken|fuzz_[a-z0-9]*:|ERROR|SUMMARY|runtime error' \
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

# each target's share of the time: its weight in 38 (at least 1 s); OTF2's reader opens three
# archives an input and runs the slowest
share() { local t=$((secs * $1 / 38)); echo $((t > 0 ? t : 1)); }
fuzz_once fuzz_stream "$(share 8)"
fuzz_once fuzz_profile "$(share 5)"
fuzz_once fuzz_mpi "$(share 5)"
fuzz_once fuzz_powerfile "$(share 2)" "$fuzz/corpus-powerfile" "$fuzz/powerfile.dict"
fuzz_once fuzz_powerlog "$(share 2)" "$fuzz/corpus-powerlog" "$fuzz/powerlog.dict"
fuzz_once fuzz_experiment "$(share 4)" "$fuzz/corpus-experiment" "$fuzz/experiment.dict"
fuzz_once fuzz_otf2 "$(share 4)" "$fuzz/corpus-otf2" ""
fuzz_once fuzz_maps "$(share 2)" "$fuzz/corpus-maps" "$fuzz/maps.dict"
fuzz_once fuzz_kallsyms "$(share 2)" "$fuzz/corpus-kallsyms" "$fuzz/kallsyms.dict"
fuzz_once fuzz_metrics "$(share 2)" "$fuzz/corpus-metrics" "$fuzz/metrics.dict"
fuzz_once fuzz_loadlog "$(share 2)" "$fuzz/corpus-loadlog" "$fuzz/loadlog.dict"

finish
