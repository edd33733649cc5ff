#!/usr/bin/env bash
# Non-blocking collectives (examples/mpi/icoll.c): in each of 2 iterations rank 3 starts
# MPI_Iallreduce 40 ms after the others, which wait for it in MPI_Wait. Their waits are
# charged to the collective column as Wait at N x N, at the MPI_Wait: about 2 x 40 ms per
# waiting rank, matching the waits the program measured itself (its marks: the last rank's
# start of each Iallreduce - its own entry into MPI_Wait) within 10 % or 2 ms, and at least
# 75 % of the nominal 80 ms (a generous bound: a busy machine can only lengthen the late
# rank's sleep). Rank 3 waits for nobody at its MPI_Wait; no point-to-point cell has a wait.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
icoll=$(mpi_prog icoll)
np=4 iters=2 delay=40

mpi_record rec "$T/ic" "$np" "$icoll" -d "$delay" -n "$iters" -m "$T/ic.marks"
# RANK NS: the program's own wait of each rank in MPI_Wait for the last start, summed
_marks_cat "$T/ic.marks" "$np" | awk '
	$2 == "iallreduce" { if (!($3 in last) || $5 > last[$3]) last[$3] = $5 }
	$2 == "wait" { w[$1 " " $3] = $5; ranks[$1] }
	END {
		for (k in w) { split(k, f, " "); d = last[f[2]] - w[k]; sum[f[1]] += d > 0 ? d : 0 }
		for (r in ranks) printf "%s %.0f\n", r, sum[r]
	}' >"$T/measured"
mpi_waits waits "$T/ic"
run patterns "$PERFSCOPE" mpi "$T/ic" --patterns --csv
expect_eq 0 "$RC" "perfscope mpi --patterns --csv exit status"
awk 'NF == 0 { part++; next } { print > (FILENAME "." (part ? "sites" : "totals")) }' "$T/patterns.out"
totals=$T/patterns.out.totals sites=$T/patterns.out.sites
line=$(grep -n 'MPI_Wait(&req' "$PSC_SOURCE/examples/mpi/icoll.c" | cut -d: -f1)

for ((r = 0; r < np; r++)); do
	meas=$(awk -v r="$r" '$1 == r { print $2 }' "$T/measured")
	nxn=$(csv_get "$totals" wait_ns pattern=wait_nxn rank="$r" 2>/dev/null)
	nxn=${nxn:-0}
	for ((k = 0; k < np; k++)); do
		expect_eq 0 "$(wait_cell "$T/waits.out" "$r" "$k")" "wait of rank $r for rank $k (no messages)"
	done
	# the collective column holds the Iallreduce waits and the first barrier's
	expect_cmp "$nxn" "<=" "$(wait_cell "$T/waits.out" "$r" collective)" "rank $r: Wait at N x N within the collective column"
	if [ "$r" = 3 ]; then
		expect_eq 0 "$nxn" "the late rank waits for nobody in MPI_Wait"
		continue
	fi
	expect_wait "${meas:-0}" "$nxn" "rank $r's wait in MPI_Wait, against the program's own clock"
	expect_cmp "$nxn" ">=" $((iters * delay * 750000)) "rank $r's wait in MPI_Wait: at least 75 % of ${iters} x ${delay} ms"
	expect_eq MPI_Wait "$(csv_get "$sites" routine pattern=wait_nxn rank="$r")" "rank $r: the waiting call"
	expect_eq "$line" "$(csv_get "$sites" line pattern=wait_nxn rank="$r")" "rank $r: the MPI_Wait's line"
	expect_eq "$iters" "$(csv_get "$sites" calls pattern=wait_nxn rank="$r")" "rank $r: MPI_Waits that waited"
done
expect_eq $(((np - 1) * iters)) "$(csv_get "$totals" calls pattern=wait_nxn rank=all)" "calls that waited at N x N: every MPI_Wait but the late rank's"
expect_eq 0 "$(csv_get "$totals" wait_ns pattern=late_sender rank=all)" "no Late Sender"

finish
