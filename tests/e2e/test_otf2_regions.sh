#!/usr/bin/env bash
# perfscope regions on the thread's own OTF2 location: an MPI program (3 ranks, linked with
# -lperfscope) wraps its ring exchange (MPI_Send, MPI_Recv) in a region "exchange" and its
# MPI_Allreduce in "reduce", 3 times, and makes an MPI_Barrier outside any region. Exported
# with perfscope export --format otf2 and read back:
# - otf2-print shows no warning, and the regions' Enter events sit on the same locations as
#   the MPI calls (no location "regions of ...");
# - perfscope report --by scope --categories --csv on the archive gives the experiment's rows:
#   the same scopes (the regions and the barrier's enclosing scope) per rank with the same calls
#   and MPI calls, and the same MPI calls per scope and routine.
# - A traced program whose region "crossing" begins in f and ends in g, and whose region
#   "outer" begins in k and ends in main after k returned: on one location the events still
#   nest (otf2-print warns of nothing); crossing leaves before f returns and enters again,
#   g leaves before crossing ends and enters again, outer leaves before k returns and enters
#   again: exactly these Enter events, in this order.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
require_cmd otf2-print python3

# ---- regions crossing function calls ----
cat >"$T/cross.c" <<'C'
#include <perfscope.h>
__attribute__((noinline)) void f(void) { psc_region_begin("crossing"); }
__attribute__((noinline)) void g(void) { psc_region_end("crossing"); }
__attribute__((noinline)) void h(void)
{
	volatile int x = 0;
	for (int i = 0; i < 1000; i++)
		x += i;
}
__attribute__((noinline)) void k(void)
{
	psc_region_begin("outer");
	h();
}
int main(void)
{
	f();
	h();
	g();
	k();
	h();
	psc_region_end("outer");
	return 0;
}
C
cc=${CC:-cc}
san=()
[ "${PSC_SANITIZE:-OFF}" = ON ] && san=(-fsanitize=address,undefined)
"$cc" -O1 -g -finstrument-functions -DPERFSCOPE -I"$PSC_SOURCE/include" "$T/cross.c" -o "$T/cross" \
	-L"$PSC_BUILD" -lperfscope -Wl,-rpath,"$PSC_BUILD" -pthread "${san[@]}" >"$T/cross.cc.log" 2>&1 ||
	die "cannot build cross.c: $(cat "$T/cross.cc.log")"
record_or_die crossrec "$T/cross.exp" --functions -- "$T/cross"
run crossex "$PERFSCOPE" export "$T/cross.exp" --format otf2 -o "$T/cross.otf2"
expect_eq 0 "$RC" "cross: export" || show crossex
run crossprint otf2-print "$T/cross.otf2/traces.otf2"
expect_eq 0 "$(wc -c <"$T/crossprint.err" | tr -d ' ')" "cross: otf2-print says nothing on stderr"
expect_no_grep "WARNING" "$T/crossprint.out" "cross: otf2-print warnings"
expect_eq "main f crossing crossing h g g k outer h outer h" \
	"$(awk '$1 == "ENTER" { gsub(/"/, "", $(NF - 1)); printf "%s%s", n++ ? " " : "", $(NF - 1) } END { print "" }' "$T/crossprint.out")" \
	"cross: the Enter events in order"
expect_eq "crossing f h g crossing g h outer k h outer main" \
	"$(awk '$1 == "LEAVE" { gsub(/"/, "", $(NF - 1)); printf "%s%s", n++ ? " " : "", $(NF - 1) } END { print "" }' "$T/crossprint.out")" \
	"cross: the Leave events in order"

# ---- an MPI program ----
command -v mpicc >/dev/null 2>&1 || skip "mpicc is not installed"
np=3

cat >"$T/regmpi.c" <<'C'
#include <mpi.h>
#include <perfscope.h>

int main(int argc, char **argv)
{
	int rank, size;
	double v = 1, sum = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int i = 0; i < 3; i++) {
		int out = rank + i, in = -1;

		psc_region_begin("exchange");
		if (rank == 0) {
			MPI_Send(&out, 1, MPI_INT, 1 % size, 7, MPI_COMM_WORLD);
			MPI_Recv(&in, 1, MPI_INT, size - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&in, 1, MPI_INT, rank - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(&out, 1, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD);
		}
		psc_region_end("exchange");
		psc_region_begin("reduce");
		MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		psc_region_end("reduce");
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return sum == size ? 0 : 1;
}
C
CC=mpicc build_c regmpi "$T/regmpi.c"
mpi_record rec "$T/rm" "$np" -x ASAN_OPTIONS "$T/regmpi"
run ex "$PERFSCOPE" export "$T/rm" --format otf2 -o "$T/rm.otf2"
expect_eq 0 "$RC" "perfscope export --format otf2" || show ex
expect_grep " 18 regions" "$T/ex.err" "export summary: 6 regions on each of the 3 ranks"
anchor=$T/rm.otf2/traces.otf2

run print otf2-print "$anchor"
expect_eq 0 "$RC" "otf2-print exit status"
expect_eq 0 "$(wc -c <"$T/print.err" | tr -d ' ')" "otf2-print says nothing on stderr"
expect_no_grep "WARNING" "$T/print.out" "otf2-print warnings"
run defs otf2-print -G "$anchor"
expect_no_grep '"regions of ' "$T/defs.out" "no location of regions alone"
# every location with a region's Enter also has MPI calls
expect_eq "" "$(python3 - "$T/print.out" <<'PY'
import re, sys
regions, mpi = set(), set()
for line in open(sys.argv[1]):
    m = re.match(r'^ENTER\s+(\d+)\s+\d+\s+Region: "([^"]*)"', line)
    if m:
        (mpi if m.group(2).startswith("MPI_") else regions).add(m.group(1))
print(" ".join(sorted(regions - mpi)))
PY
)" "locations with regions but no MPI call"

# the scope view, experiment against archive
for src in rm anchor; do
	path=$T/rm
	[ "$src" = anchor ] && path=$anchor
	run "scope_$src" "$PERFSCOPE" report "$path" --by scope,rank --categories --csv
	expect_eq 0 "$RC" "report --by scope,rank --categories --csv on $src" || show "scope_$src"
done
# scope,kind,rank,calls,mpi_calls of the scopes table; scope,rank,routine,calls of the other
split_rows() {
	python3 - "$1" <<'PY'
import csv, io, sys
text = open(sys.argv[1]).read().split("\n\n")
scopes = list(csv.DictReader(io.StringIO(text[0])))
ops = list(csv.DictReader(io.StringIO(text[1]))) if len(text) > 1 else []
for r in sorted(scopes, key=lambda r: (r["scope"], r["rank"])):
    print("scope", r["scope"], r["kind"], r["rank"], r["calls"], r["mpi_calls"])
for r in sorted(ops, key=lambda r: (r["scope"], r["rank"], r["routine"])):
    print("op", r["scope"], r["rank"], r["routine"], r["calls"])
PY
}
split_rows "$T/scope_rm.out" >"$T/rows_exp"
split_rows "$T/scope_anchor.out" >"$T/rows_otf2"
PSC_CHECKS=$((PSC_CHECKS + 1))
diff "$T/rows_exp" "$T/rows_otf2" >"$T/rows.diff" ||
	fail "the archive's scopes differ from the experiment's: $(cat "$T/rows.diff")"
# the regions enclose their MPI calls: 3 x (MPI_Send + MPI_Recv) in exchange, 3 Allreduce in reduce
for r in 0 1 2; do
	expect_eq 3 "$(awk -v r="$r" '$1 == "op" && $2 == "exchange" && $3 == r && $4 == "MPI_Recv" { print $5 }' "$T/rows_otf2")" \
		"rank $r: exchange's MPI_Recv calls in the archive"
	expect_eq 3 "$(awk -v r="$r" '$1 == "op" && $2 == "exchange" && $3 == r && $4 == "MPI_Send" { print $5 }' "$T/rows_otf2")" \
		"rank $r: exchange's MPI_Send calls in the archive"
	expect_eq 3 "$(awk -v r="$r" '$1 == "op" && $2 == "reduce" && $3 == r && $4 == "MPI_Allreduce" { print $5 }' "$T/rows_otf2")" \
		"rank $r: reduce's MPI_Allreduce calls in the archive"
done
finish
