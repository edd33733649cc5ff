#!/usr/bin/env bash
# MPI call sites after the program was rebuilt: `perfscope mpi --patterns` names each call
# site's function from the build that ran (the build-id cache record filled), not from the
# rebuilt file, whose functions moved; with the cache emptied the sites have no name, and one
# caveat names the file. Rank 1 sleeps 20 ms before each barrier, so rank 0 waits at the
# barriers of both functions (how many of the 3 and 5 calls count as waits is up to timing).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
command -v mpicc >/dev/null 2>&1 || skip "mpicc is not installed"

cat >"$T/sites.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#ifdef MOVED
__attribute__((noinline)) int added_first(int r)
{
	return r > 0 ? added_first(r - 1) * 3 + 1 : 1;
}
#endif
__attribute__((noinline)) void site_a(int rank)
{
	if (rank == 1)
		usleep(20000);
	MPI_Barrier(MPI_COMM_WORLD);
}
__attribute__((noinline)) void site_b(int rank)
{
	if (rank == 1)
		usleep(20000);
	MPI_Barrier(MPI_COMM_WORLD);
}
int main(int argc, char **argv)
{
	int rank;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int i = 0; i < 3; i++)
		site_a(rank);
	for (int i = 0; i < 5; i++)
		site_b(rank);
	MPI_Finalize();
	return 0;
}
C
mkdir "$T/bin"
mpicc -g -O1 "$T/sites.c" -o "$T/bin/sites" >"$T/cc.log" 2>&1 || die "cannot build sites: $(cat "$T/cc.log")"
mpicc -g -O1 -DMOVED "$T/sites.c" -o "$T/moved" >"$T/cc2.log" 2>&1 || die "cannot build the rebuild: $(cat "$T/cc2.log")"
mpi_record rec "$T/e" 2 "$T/bin/sites"

# the functions of rank 0's Wait at Barrier sites, sorted
sites() { # NAME
	run "$1" "$PERFSCOPE" mpi "$T/e" --patterns --csv --top 5
	expect_eq 0 "$RC" "$1: perfscope mpi --patterns exit status"
	awk 'NF == 0 { part++; next } part' "$T/$1.out" >"$T/$1.sites"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["pattern"] == "wait_barrier" && $c["rank"] == 0 { print "[" $c["function"] "]" }' \
		"$T/$1.sites" | sort | paste -sd, -
}
expect_eq "[site_a],[site_b]" "$(sites before)" "the sites of the build that ran"
cp "$T/moved" "$T/bin/sites"
expect_eq "[site_a],[site_b]" "$(sites moved)" "after a rebuild that moves the functions: from the cache"
expect_no_grep "added_first" "$T/moved.out" "no name of the new build"
rm -rf "$T/cache"
got=$(sites bare)
expect_no_grep "site_a" "$T/bare.sites" "without the cache: no name of the new build"
expect_no_grep "added_first" "$T/bare.sites" "without the cache: no name of the new build"
expect_eq "[],[]" "$got" "without the cache: both sites, unnamed"
run baret "$PERFSCOPE" mpi "$T/e" --patterns
expect_eq 1 "$(grep -c "$T/bin/sites was rebuilt after the recording" "$T/baret.out" || true)" \
	"one caveat names the rebuilt program"
finish
