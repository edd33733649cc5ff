#!/usr/bin/env bash
# The report's MPI views (Waits, Traffic, Process detail) in Chromium on real MPI runs with
# known waits. A ring of late senders (examples/mpi/ring.c, 4 ranks, rank k sends 64 KiB to
# k+1 after T_k = 10 (k+1) ms): the report's own tests check the heatmaps' pixels, the mode
# switch, frame stepping and playing, and the detail's charts for a clicked rank; here its
# tables must hold exactly what `perfscope mpi --waits/--traffic` computes, rank k+1's wait for
# k must be T_k (10 % or 2 ms, when the machine let the program keep to it) and the other
# ranks' cells under 2 ms. A barrier run (examples/mpi/barrier.c) puts 3 x (3 - r) x 20 ms in
# rank r's collective column. Screenshots of the three views.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
. "$(dirname "$0")/html-lib.sh"
ring=$(mpi_prog ring)
barrier=$(mpi_prog barrier)
np=4
bytes=65536

# ring_clean: the program's own waits are its T_k
ring_clean() {
	local k j exp got ok=0
	marks_p2p "$T/ring.marks" "$np" >"$T/ring.measured"
	for ((k = 0; k < np; k++)); do
		j=$(((k + 1) % np))
		exp=$(printed_ns rec "expected wait of rank $j for rank $k")
		got=$(awk -v j="$j" -v k="$k" '$1 == j && $2 == k { print $3 }' "$T/ring.measured")
		within "$exp" "${got:-0}" || ok=1
	done
	return "$ok"
}
mpi_record_clean rec "$T/ring" "$np" ring_clean "$ring" -b 10 -s "$bytes" -m "$T/ring.marks"
mpi_waits waits "$T/ring"
run traffic "$PERFSCOPE" mpi "$T/ring" --traffic --csv
expect_eq 0 "$RC" "perfscope mpi --traffic --csv"
run html "$PERFSCOPE" html "$T/ring"
expect_eq 0 "$RC" "perfscope html on the MPI run"

html_render "$T/ring/report.html" waits waits
html_expect_ok waits
views=$(html_dom waits --views | tr '\n' ' ')
for v in waits traffic detail; do
	case " $views" in *" $v "*) ;; *) fail "view $v not shown (views: $views)" ;; esac
done
html_dom waits --tests >"$T/verdicts"
for v in waits traffic detail; do
	expect_eq 1 "$(grep -Ec "^$v: ok \([0-9]+ checks\)" "$T/verdicts")" "$v view's own test passed"
done

# the wait matrix in ns: the report's table equals perfscope mpi --waits, cell by cell
html_dom waits --table waits-ns >"$T/waits-ns.csv"
# compare TABLE CSV: every cell (rank, peer) of the table against the CSV's wait_ns (0 when
# the CSV leaves a cell out); prints "rank peer table csv" for the differences, then "cells N"
cmp_waits() {
	python3 - "$1" "$2" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head, body = rows[0], rows[1:]
ref = {}
for r in csv.DictReader(open(sys.argv[2])):
    ref[(r["rank"], r["peer"])] = int(r["wait_ns"])
n = 0
for row in body:
    for col, name in enumerate(head[1:-1], 1):
        v = int(row[col].replace(",", "") or 0)
        n += 1
        if v != ref.get((row[0], name), 0):
            print(row[0], name, v, ref.get((row[0], name), 0))
print("cells", n)
PY
}
cmp_waits "$T/waits-ns.csv" "$T/waits.out" >"$T/cmp"
expect_eq "cells $((np * (np + 2)))" "$(tail -n 1 "$T/cmp")" "cells in the report's wait table"
expect_eq 1 "$(wc -l <"$T/cmp")" "cells that differ from perfscope mpi --waits ($(head -n 3 "$T/cmp" | tr '\n' ';'))"
cell() { # RANK COLUMN: the table's value in ns
	python3 -c 'import csv,sys
rows = list(csv.reader(open(sys.argv[1]))); c = rows[0].index(sys.argv[3])
print(next(int(r[c].replace(",", "") or 0) for r in rows[1:] if r[0] == sys.argv[2]))' "$T/waits-ns.csv" "$1" "$2"
}
for ((k = 0; k < np; k++)); do
	j=$(((k + 1) % np))
	exp=$(printed_ns rec "expected wait of rank $j for rank $k")
	expect_eq $((10000000 * (k + 1))) "$exp" "ring's own expectation for rank $j"
	got=$(cell "$j" "$k")
	meas=$(awk -v j="$j" -v k="$k" '$1 == j && $2 == k { print $3 }' "$T/ring.measured")
	expect_wait "${meas:-0}" "$got" "report: wait of rank $j for rank $k, against the program's own clock"
	[ "$MPI_CLEAN" = 1 ] && expect_wait "$exp" "$got" "report: wait of rank $j for rank $k"
	for ((i = 0; i < np; i++)); do
		[ "$i" -eq "$k" ] && continue
		expect_near 0 "$(cell "$j" "$i")" 2000000 "report: wait of rank $j for rank $i (not its sender)"
	done
done

# traffic: one message of $bytes per ring pair, as perfscope mpi --traffic counts them
html_dom waits --table traffic-run >"$T/traffic-run.csv"
expect_eq $((np + 1)) "$(wc -l <"$T/traffic-run.csv")" "whole-run traffic rows: header and one per ring pair"
for ((k = 0; k < np; k++)); do
	j=$(((k + 1) % np))
	row=$(python3 -c 'import csv,sys
for r in csv.reader(open(sys.argv[1])):
    if r[:2] == sys.argv[2:4]: print(r[2].replace(",", ""), r[4].replace(",", ""))' "$T/traffic-run.csv" "$k" "$j")
	expect_eq "1 $bytes" "$row" "report: messages and bytes from rank $k to rank $j"
	expect_eq "$(csv_get "$T/traffic.out" bytes sender="$k" receiver="$j")" "${row#* }" "report's bytes $k -> $j equal perfscope mpi --traffic's"
done

# Process detail: the view's test leaves rank 0 selected; its routines table
html_dom waits --table detail-routines >"$T/detail.csv"
for r in MPI_Send MPI_Recv MPI_Init MPI_Finalize; do
	expect_eq 1 "$(python3 -c 'import csv,sys
print(next((r[1] for r in csv.reader(open(sys.argv[1])) if r[0] == sys.argv[2]), "missing"))' "$T/detail.csv" "$r")" "detail of rank 0: calls of $r"
done
expect_eq "Rank 0 on $(hostname)" "$(html_dom waits --text detail-title)" "detail title (each rank says its host)"

html_render "$T/ring/report.html" traffic traffic
html_expect_ok traffic
html_render "$T/ring/report.html" detail detail
html_expect_ok detail

# barrier: rank r enters each of 3 barriers (3 - r) x 20 ms before the last one
barrier_clean() {
	local r exp got ok=0
	marks_barrier "$T/bar.marks" "$np" >"$T/bar.measured"
	for ((r = 0; r < np; r++)); do
		exp=$(printed_ns bar "expected barrier wait of rank $r")
		got=$(awk -v r="$r" '$1 == r { print $2 }' "$T/bar.measured")
		within "$exp" "${got:-0}" || ok=1
	done
	return "$ok"
}
mpi_record_clean bar "$T/bar" "$np" barrier_clean "$barrier" -d 20 -n 3 -m "$T/bar.marks"
mpi_waits bwaits "$T/bar"
run bhtml "$PERFSCOPE" html "$T/bar"
expect_eq 0 "$RC" "perfscope html on the barrier run"
html_render "$T/bar/report.html" barrier waits
html_expect_ok barrier
html_dom barrier --table waits-ns >"$T/waits-ns.csv"
cmp_waits "$T/waits-ns.csv" "$T/bwaits.out" >"$T/cmp"
expect_eq 1 "$(wc -l <"$T/cmp")" "barrier: cells that differ from perfscope mpi --waits ($(head -n 3 "$T/cmp" | tr '\n' ';'))"
for ((r = 0; r < np; r++)); do
	got=$(cell "$r" collective)
	meas=$(awk -v r="$r" '$1 == r { print $2 }' "$T/bar.measured")
	expect_wait "${meas:-0}" "$got" "barrier: rank $r's collective wait, against the program's own clock"
	[ "$MPI_CLEAN" = 1 ] && expect_wait $((3 * (np - 1 - r) * 20000000)) "$got" "barrier: rank $r's collective wait"
	expect_eq "$got" "$(cell "$r" total)" "barrier: rank $r's total is its collective wait"
done
case " $(html_dom barrier --views | tr '\n' ' ')" in *" traffic "*) fail "traffic view shown for a run without messages" ;; esac
finish
