#!/usr/bin/env bash
# `perfscope mpi`'s tables (the patterns and the load too) and `report --by scope` as views
# (issue 20), on the corpus's MPI experiments: every line of `--format long` is a cell of the
# CSV (each block of it: the traffic's pairs, then its unmatched ends; the patterns, then their
# call sites; the load's statistics, then its samples), and no cell is left out; --format
# csv/json are --csv/--json.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
require_cmd python3
. "$PSC_SOURCE/tests/corpus/corpus-lib.sh"
corpus_prepare "$T/work"
cd "$T/work"

long_check() {
	PSC_CHECKS=$((PSC_CHECKS + 1))
	python3 "$PSC_SOURCE/tests/e2e/long_vs_csv.py" --skip routine,kind,scope --allow-empty \
		"$T/csv.out" "$T/long.out" || fail "$1: --format long against --csv"
}

for exp in mpi ring; do
	for view in "" --waits --traffic --routines "--waits --all --relative wait" --patterns --load; do
		# shellcheck disable=SC2086 # VIEW are words
		run csv "$PERFSCOPE" mpi $exp $view --csv
		# shellcheck disable=SC2086
		run long "$PERFSCOPE" mpi $exp $view --format long
		expect_eq 0 "$RC" "mpi $exp $view --format long exit"
		long_check "mpi $exp $view"
		for f in csv json; do
			# shellcheck disable=SC2086
			run a "$PERFSCOPE" mpi $exp $view --$f
			# shellcheck disable=SC2086
			run b "$PERFSCOPE" mpi $exp $view --format $f
			PSC_CHECKS=$((PSC_CHECKS + 1))
			cmp -s "$T/a.out" "$T/b.out" || fail "mpi $exp $view: --format $f differs from --$f"
		done
	done
done
# report --by scope: the scopes and their MPI calls
for args in "--by scope" "--by scope,rank" "--categories --rank 1"; do
	# shellcheck disable=SC2086 # ARGS are words
	run csv "$PERFSCOPE" report ring $args --csv
	# shellcheck disable=SC2086
	run long "$PERFSCOPE" report ring $args --format long
	expect_eq 0 "$RC" "report ring $args --format long exit"
	long_check "report ring $args"
done

# the routines' long rows: one per rank (all first), routine and metric
run long "$PERFSCOPE" mpi mpi --routines --format long
expect_eq "rank,routine,metric,value" "$(head -1 "$T/long.out")" "the routines' long header"
expect_eq 1 "$(grep -cx "all,MPI_Init,calls,4" "$T/long.out")" "MPI_Init: 4 calls in all ranks"
# the patterns' and the load's long rows: the patterns of all ranks first, the hosts' busy share
run pat "$PERFSCOPE" mpi mpi --patterns --format long
expect_eq "pattern,rank,metric,value" "$(head -1 "$T/pat.out")" "the patterns' long header"
expect_eq 1 "$(grep -cx "late_sender,all,calls,[0-9]*" "$T/pat.out")" "late_sender: its calls"
run load "$PERFSCOPE" mpi mpi --load --format long
expect_eq "host,rank,pid,metric,value" "$(head -1 "$T/load.out")" "the load's long header"
expect_eq "host,rank,time_ns,metric,value" "$(awk 'p { print; exit } /^$/ { p = 1 }' "$T/load.out")" \
	"the samples' long header"
run both "$PERFSCOPE" mpi mpi --format long --csv
expect_eq 2 "$RC" "mpi --format with --csv exit"
finish
