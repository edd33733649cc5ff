#!/usr/bin/env bash
# The hybrid efficiency table of `report --openmp` against a program that measures its own
# truth: examples/mpi/hybrid_eff (2 ranks x 2 threads, oversubscribed) runs serial parts, an
# imbalanced OpenMP region and an MPI_Allreduce per round, measures its MPI, parallel and
# work times and prints the efficiencies expected (analysis/openmp/omp-hybrid.h); every cell
# of perfscope's table, per rank and "all", must be within 0.02 of them, in CSV; the long CSV
# and the JSON give the same cells, and the HTML OpenMP view shows the table (its data the
# JSON's, a table row per rank and "all", the view's own test passing in Chromium).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
[ -x "$MEX/hybrid_eff" ] || skip "examples/mpi/hybrid_eff was not built (no OpenMP with MPI)"
np=2 nt=2 iters=4
cols="mpi_load_balance mpi_comm_eff omp_load_balance omp_serial_eff parallel_eff"

# the hybrid table of the CSV report: from its header to the end
hybrid_table() {
	awk '/^rank,mpi_load_balance,/ { on = 1 } on' "$T/omp.out" >"$T/hyb.csv"
}

# within: every expected cell within 0.02 of perfscope's
within() {
	awk 'NR == FNR { if ($1 == "expected") for (i = 4; i < NF; i += 2) own[$3 "," $i] = $(i + 1)
		next }
		FNR == 1 { for (i = 2; i <= NF; i++) key[i] = $i; next }
		{ for (i = 2; i <= NF; i++) { k = $1 "," key[i]; n++
			d = own[k] - $i; if (d < 0) d = -d; if (!(k in own) || d > 0.02) bad = 1 } }
		END { exit bad || n != 3 * 5 }' FS=' ' "$T/rec.out" FS=, "$T/hyb.csv"
}

# recorded up to 3 times: a thread held off the CPU between its own clock reading and the
# record perfscope makes (4 threads on 2 CPUs) shifts one; the last try is checked regardless
for try in 1 2 3; do
	rm -rf "$T/hyb"
	OMP_NUM_THREADS=$nt mpi_record rec "$T/hyb" "$np" "$MEX/hybrid_eff" -n "$iters"
	run omp "$PERFSCOPE" report "$T/hyb" --openmp --csv
	[ "$RC" -eq 0 ] || { show omp; die "report --openmp exited $RC"; }
	hybrid_table
	within && break
	note "try $try: a cell off by more than 0.02"
done
expect_grep "ranks $np threads $nt iters $iters" "$T/rec.out" "the program ran $np x $nt"
expect_eq "rank,$(echo $cols | tr ' ' ,)" "$(head -1 "$T/hyb.csv")" "the hybrid table's header"
expect_eq $((np + 1)) "$(($(wc -l <"$T/hyb.csv") - 1))" "a row per rank and an all row"
for r in 0 1 all; do
	for c in $cols; do
		own=$(awk -v r="$r" -v c="$c" '$1 == "expected" && $3 == r {
			for (i = 4; i < NF; i += 2) if ($i == c) print $(i + 1) }' "$T/rec.out")
		got=$(csv_get "$T/hyb.csv" "$c" rank="$r")
		expect_near "$own" "$got" 0.02 "rank $r: $c against the program's own"
	done
done
run long "$PERFSCOPE" report "$T/hyb" --openmp --format long
[ "$RC" -eq 0 ] || { show long; die "report --openmp --format long exited $RC"; }
for r in 0 all; do
	expect_eq "$(csv_get "$T/hyb.csv" parallel_eff rank="$r")" \
		"$(awk -F, -v r="$r" '$1 == r && $2 == "parallel_eff" { print $3 }' "$T/long.out")" \
		"long CSV: rank $r's parallel_eff"
done
run txt "$PERFSCOPE" report "$T/hyb" --openmp
expect_grep "Hybrid efficiency" "$T/txt.out" "the text report has the hybrid table"
run json "$PERFSCOPE" report "$T/hyb" --openmp --json
expect_eq 0 "$RC" "report --openmp --json"
expect_eq "$(csv_get "$T/hyb.csv" parallel_eff rank=all)" \
	"$(json_eval "$T/json.out" '"%.6f" % d["hybrid_efficiency"][-1]["parallel_eff"]')" \
	"JSON: the all row's parallel_eff"

# the HTML OpenMP view
. "$(dirname "$0")/html-lib.sh"
run html "$PERFSCOPE" html "$T/hyb"
expect_eq 0 "$RC" "html of the hybrid run"
python3 -c 'import re,sys; t=open(sys.argv[1]).read(); print(re.search(r"<script type=\"application/json\" id=\"psc-data\">(.*?)</script>", t, re.S).group(1))' \
	"$T/hyb/report.html" >"$T/data.json"
expect_eq True "$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["openmp"]["hybrid_efficiency"] ==
      json.load(open(sys.argv[2]))["hybrid_efficiency"])' "$T/data.json" "$T/json.out")" \
	"the view's data is report --openmp's table"
html_render "$T/hyb/report.html" hyb openmp
html_expect_ok hyb
html_dom hyb --table openmp-hybrid >"$T/hyb-html.csv"
expect_eq $((np + 2)) "$(wc -l <"$T/hyb-html.csv")" "HTML: a header and a row per rank and all"
finish
