#!/usr/bin/env bash
# MPICH (Debian's mpich 4.0, Hydra's mpiexec.mpich) traced by libperfscope-mpich.so, which
# record --mpi picks for a program linked with libmpich.so.12. Registered only when the build
# made libperfscope-mpich.so (tests/CMakeLists.txt; scripts/install-deps.sh installs MPICH).
#  1. perfscope record --mpi -- mpiexec.mpich -n 4 ring_mpich -b 10 (examples/mpi/ring.c linked
#     with MPICH): the ranks load libperfscope-mpich.so and not Open MPI's wrappers; traffic
#     exactly one message of 8 bytes from every rank k to k+1 and nothing else; rank k+1 waited
#     for rank k as long as the program's own clock says (10 % or 2 ms), other pairs under 2 ms;
#     every rank's clock offset measured at MPI_Init and MPI_Finalize, clocks aligned.
#  2. mpiexec.mpich -n 3 perfscope record --mpi -- ring_mpich: every rank's record (Hydra gives
#     PMI_RANK and no job id) writes into one experiment of 3 ranks, 3 messages.
#  3. Fortran through `use mpi` (ring_f.f90 built by mpifort.mpich): MPICH's Fortran bindings
#     call the C MPI_Send, so the C wrappers see them, each exactly once (3 Send, 3 Recv per
#     rank on 4 ranks, 3 rounds), and the traffic is 3 messages of 4 bytes per pair.
#     Fortran 2008 (use mpi_f08, ring_f08.f90 built by mpifort.mpich): every routine's calls
#     and bytes per rank exactly as test_mpi_fortran08.sh expects of Open MPI, 20 routines, and
#     the traffic (MPICH 4.0's f08 procedures without a buffer call PMPI_X: the library's
#     mpi_x_f08_ take them over).
#  4. The choice: an Open MPI program still gets libperfscope-mpi.so; a command whose MPI
#     cannot be told gets a warning naming PERFSCOPE_MPI_IMPL; a bad PERFSCOPE_MPI_IMPL is a
#     usage error.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
[ -f "$PSC_BUILD/libperfscope-mpich.so.0" ] ||
	die "libperfscope-mpich.so.0 was not built although this test is registered for it"
command -v mpiexec.mpich >/dev/null 2>&1 ||
	die "mpiexec.mpich is missing (scripts/install-deps.sh installs the mpich package)"
ring=$(mpi_prog ring_mpich)

# mpich_record NAME DIR NP PROG..: perfscope record --mpi -o DIR -- mpiexec.mpich -n NP PROG..
mpich_record() {
	local name=$1 dir=$2 np=$3
	shift 3
	run "$name" timeout -k 5 "$MPI_TIMEOUT" "$PERFSCOPE" record --mpi -o "$dir" -- \
		mpiexec.mpich -n "$np" "$@"
	if [ "$RC" -ne 0 ] || [ ! -f "$dir/meta.json" ]; then
		show "$name"
		die "perfscope record --mpi -o $dir -- mpiexec.mpich -n $np $* exited $RC"
	fi
}

# traffic_rows NAME DIR: the --traffic CSV of DIR into $T/NAME.out
traffic_rows() {
	run "$1" "$PERFSCOPE" mpi "$2" --traffic --csv
	[ "$RC" -eq 0 ] || { show "$1" && die "perfscope mpi $2 --traffic --csv exited $RC"; }
}

# the wrapper library the ranks of DIR loaded: "mpich", "openmpi" or both
loaded_wrappers() {
	local w=""
	grep -q '/libperfscope-mpich\.so' "$1"/maps.* && w="mpich"
	grep -q '/libperfscope-mpi\.so' "$1"/maps.* && w="${w:+$w+}openmpi"
	printf '%s\n' "${w:-none}"
}

# sites_check NAME DIR SOURCE: the worst call sites of `perfscope mpi DIR --patterns --csv` are
# in the Fortran program SOURCE and not in libmpichfort, whose bindings call the C wrappers:
# each row names SOURCE's main program (MAIN__), SOURCE, and a line of SOURCE that calls the
# row's routine. At least MIN rows.
sites_check() {
	local name=$1 dir=$2 src=$3 min=$4 got
	run "$name" "$PERFSCOPE" mpi "$dir" --patterns --csv
	expect_eq 0 "$RC" "$name: perfscope mpi --patterns --csv exit status"
	PSC_CHECKS=$((PSC_CHECKS + 1))
	got=$(python3 - "$T/$name.out" "$src" "$min" <<'P'
import csv, io, os, re, sys
out, src, least = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(src).read().split("\n")
# the call-site table: the CSV block whose header names file and line
blocks = open(out).read().strip().split("\n\n")
rows = [r for b in blocks for r in csv.DictReader(io.StringIO(b)) if "file" in r]
bad = []
for r in rows:
    call = re.compile(r"call\s+%s\s*\(" % re.escape(r["routine"]), re.I)
    n = int(r["line"]) if r["line"].isdigit() else 0
    same = os.path.isfile(r["file"]) and os.path.samefile(r["file"], src)
    if r["function"] != "MAIN__" or not same or not (0 < n <= len(lines)) or \
            not call.search(lines[n - 1]):
        bad.append("%s %s %s:%s %s" % (r["pattern"], r["function"], r["file"], r["line"], r["routine"]))
if len(rows) < least:
    bad.append("fewer than %d rows" % least)
print("%d rows" % len(rows) + (", bad: " + "; ".join(bad) if bad else ""))
P
)
	case $got in
	*bad*) fail "$name: call sites not in $src: $got" ;;
	*) note "$name: call sites: $got" ;;
	esac
}

# 1. the ring through record --mpi -- mpiexec.mpich
np=4
mpich_record rec "$T/ring" "$np" "$ring" -b 10 -m "$T/ring.marks"
expect_grep "expected wait of rank 1 for rank 0: 10000000 ns" "$T/rec.out" "ring ran with -b 10"
expect_no_grep "cannot tell which MPI" "$T/rec.err" "record found the program's MPI"
expect_eq mpich "$(loaded_wrappers "$T/ring")" "wrapper library the ranks loaded"

traffic_rows traffic "$T/ring"
# the pairs' rows: up to the blank line before the unmatched messages
expect_eq "$np" "$(awk 'NR > 1 && $0 == "" { exit } NR > 1 { n++ } END { print n + 0 }' "$T/traffic.out")" \
	"traffic rows (one per ring pair)"
expect_eq 0 "$(csv_get "$T/traffic.out" unmatched_sends sender=0 receiver=1)" "unmatched sends 0 -> 1"
for ((k = 0; k < np; k++)); do
	j=$(((k + 1) % np))
	expect_eq 1 "$(csv_get "$T/traffic.out" messages sender="$k" receiver="$j")" "messages $k -> $j"
	expect_eq 1 "$(csv_get "$T/traffic.out" matched sender="$k" receiver="$j")" "matched $k -> $j"
	expect_eq 8 "$(csv_get "$T/traffic.out" bytes sender="$k" receiver="$j")" "bytes $k -> $j"
done

marks_p2p "$T/ring.marks" "$np" >"$T/ring.measured"
mpi_waits waits "$T/ring"
for ((j = 0; j < np; j++)); do
	prev=$(((j + np - 1) % np))
	for ((i = 0; i < np; i++)); do
		got=$(wait_cell "$T/waits.out" "$j" "$i")
		if [ "$i" -eq "$prev" ]; then
			meas=$(awk -v j="$j" -v k="$i" '$1 == j && $2 == k { print $3 }' "$T/ring.measured")
			expect_wait "${meas:-0}" "$got" "wait of rank $j for rank $i, against the program's own clock"
		else
			expect_near 0 "$got" 2000000 "wait of rank $j for rank $i (not its sender)"
		fi
	done
done

run dump "$PERFSCOPE" dump "$T/ring"
expect_eq 0 "$RC" "perfscope dump exit status"
expect_eq $((2 * np)) "$(grep -c 'mpi-clock' "$T/dump.out")" "clock measurements (Init and Finalize per rank)"
run json "$PERFSCOPE" mpi "$T/ring" --json
expect_eq 0 "$RC" "perfscope mpi --json exit status"
expect_eq true "$(json_eval "$T/json.out" 'd["clock_aligned"]')" "clocks aligned"
expect_eq "$np" "$(json_eval "$T/json.out" 'd["world_size"]')" "world size"

# 2. every rank runs its own record
run rank-rec timeout -k 5 "$MPI_TIMEOUT" mpiexec.mpich -n 3 "$PERFSCOPE" record --mpi -o "$T/ranks" -- "$ring" -b 5
expect_eq 0 "$RC" "mpiexec.mpich -n 3 perfscope record --mpi exit status"
[ "$RC" -eq 0 ] || show rank-rec
traffic_rows traffic-ranks "$T/ranks"
for ((k = 0; k < 3; k++)); do
	expect_eq 1 "$(csv_get "$T/traffic-ranks.out" matched sender="$k" receiver=$(((k + 1) % 3)))" \
		"record per rank: matched $k -> $(((k + 1) % 3))"
done
expect_eq mpich "$(loaded_wrappers "$T/ranks")" "record per rank: wrapper library"

# 3. Fortran (use mpi) through MPICH's bindings
if [ "$PSC_FORTRAN" = ON ]; then
	ring_f=$(mpi_prog ring_f_mpich)
	mpich_record rec-f "$T/rf" 4 "$ring_f" 3
	expect_grep "expected messages: 12" "$T/rec-f.out" "ring_f_mpich ran 3 rounds on 4 ranks"
	traffic_rows traffic-f "$T/rf"
	run routines-f "$PERFSCOPE" mpi "$T/rf" --routines --csv
	expect_eq 0 "$RC" "perfscope mpi --routines --csv exit status (Fortran)"
	for ((k = 0; k < 4; k++)); do
		j=$(((k + 1) % 4))
		expect_eq 3 "$(csv_get "$T/traffic-f.out" messages sender="$k" receiver="$j")" "Fortran: messages $k -> $j"
		expect_eq 12 "$(csv_get "$T/traffic-f.out" bytes sender="$k" receiver="$j")" "Fortran: bytes $k -> $j"
		for r in MPI_Send:3 MPI_Recv:3 MPI_Allreduce:1 MPI_Barrier:1 MPI_Init:1 MPI_Finalize:1; do
			expect_eq "${r#*:}" "$(csv_get "$T/routines-f.out" calls rank="$k" routine="${r%:*}")" \
				"Fortran: rank $k: ${r%:*} calls"
		done
	done
	# every rank but the first to hold the token waits in MPI_Recv: its site is ring_f.f90's
	sites_check sites-f "$T/rf" "$PSC_SOURCE/examples/mpi/ring_f.f90" 1

	# 3b. Fortran 2008 (use mpi_f08, ring_f08.f90): MPICH 4.0's procedures with a buffer
	# (mpi_send_f08ts_) call the C MPI_Send, the others (mpi_init_f08_, mpi_wait_f08_ ...)
	# PMPI_X, which libperfscope-mpich.so's mpi_x_f08_ take over. Every routine exactly once
	# per call: the counts and bytes test_mpi_fortran08.sh expects of Open MPI.
	f08=$(mpi_prog ring_f08_mpich)
	np=3 rounds=3 b=64
	mpich_record rec-f08 "$T/f08" "$np" "$f08" "$rounds" 40
	expect_grep "expected messages: $((9 * np * rounds + 1))" "$T/rec-f08.out" "ring_f08_mpich ran"
	run routines-f08 "$PERFSCOPE" mpi "$T/f08" --routines --csv
	expect_eq 0 "$RC" "perfscope mpi --routines --csv exit status (Fortran 2008)"
	row() { # RANK ROUTINE CALLS BYTES
		expect_eq "$3" "$(csv_get "$T/routines-f08.out" calls rank="$1" routine="$2")" "f08: rank $1: $2 calls"
		expect_eq "$4" "$(csv_get "$T/routines-f08.out" bytes rank="$1" routine="$2")" "f08: rank $1: $2 bytes"
	}
	for ((k = 0; k < np; k++)); do
		s=$rounds r=$rounds
		[ "$k" -eq 1 ] && s=$((rounds + 1))
		[ "$k" -eq 0 ] && r=$((rounds + 1))
		row "$k" MPI_Send "$s" $((s * b))
		row "$k" MPI_Recv "$r" $((r * b))
		row "$k" MPI_Isend $((6 * rounds)) $((6 * rounds * b))
		row "$k" MPI_Irecv $((6 * rounds)) 0
		row "$k" MPI_Waitall $((3 * rounds)) $((3 * rounds * b))
		row "$k" MPI_Wait $((2 * rounds)) $((rounds * b))
		row "$k" MPI_Waitany $((2 * rounds)) $((rounds * b))
		for p in MPI_Test MPI_Testall MPI_Waitsome; do
			n=$(sed -n "s/^rank $k: .*$p \([0-9][0-9]*\).*/\1/p" "$T/rec-f08.out" | head -n 1)
			[ -n "$n" ] || die "ring_f08_mpich did not print rank $k's $p count"
			row "$k" "$p" "$n" $((rounds * b))
		done
		row "$k" MPI_Send_init 1 0
		row "$k" MPI_Recv_init 1 0
		row "$k" MPI_Start $((2 * rounds)) $((rounds * b))
		row "$k" MPI_Startall "$rounds" $((rounds * b))
		row "$k" MPI_Request_free 2 0
		row "$k" MPI_Barrier 3 0
		row "$k" MPI_Allreduce 1 8
		row "$k" MPI_Bcast 1 "$b"
		row "$k" MPI_Init 1 0
		row "$k" MPI_Finalize 1 0
		expect_eq 20 "$(awk -F, -v k="$k" '$1 == k' "$T/routines-f08.out" | wc -l)" "f08: rank $k: routines recorded"
	done
	traffic_rows traffic-f08 "$T/f08"
	for ((k = 0; k < np; k++)); do
		j=$(((k + 1) % np))
		expect_eq $((9 * rounds)) "$(csv_get "$T/traffic-f08.out" matched sender="$k" receiver="$j")" "f08: matched $k -> $j"
		expect_eq $((9 * rounds * b)) "$(csv_get "$T/traffic-f08.out" bytes sender="$k" receiver="$j")" "f08: bytes $k -> $j"
	done
	expect_eq 1 "$(csv_get "$T/traffic-f08.out" matched sender=1 receiver=0)" "f08: matched 1 -> 0"
	sites_check sites-f08 "$T/f08" "$PSC_SOURCE/examples/mpi/ring_f08.f90" 1

	# 3c. the call site's cache (src/mpi-rt/sites.c): 3000 MPI_Test calls from one line through
	# libmpichfort's mpi_test_ all get that line's return address, in the program's mapping
	cat >"$T/tl.f90" <<'F'
program tl
  use mpi
  implicit none
  integer :: ierr, req, i
  integer :: status(MPI_STATUS_SIZE)
  logical :: flag
  call MPI_Init(ierr)
  req = MPI_REQUEST_NULL
  do i = 1, 3000
    call MPI_Test(req, flag, status, ierr)
  end do
  call MPI_Finalize(ierr)
end program
F
	mpifort.mpich -g -o "$T/tl" "$T/tl.f90" >"$T/tl.cc.log" 2>&1 || die "cannot build tl.f90: $(cat "$T/tl.cc.log")"
	mpich_record rec-tl "$T/tl.exp" 1 "$T/tl"
	run dump-tl "$PERFSCOPE" dump "$T/tl.exp"
	expect_eq 0 "$RC" "tl: perfscope dump exit status"
	got=$(python3 - "$T/dump-tl.out" "$T/tl.exp" "$T/tl" <<'P'
import collections, glob, os, re, sys
dump, exp, prog = sys.argv[1:]
sites = collections.Counter(int(m.group(1), 16) for m in
                            re.finditer(r"mpi-leave\s+MPI_Test site=0x([0-9a-f]+)", open(dump).read()))
maps = [l.split() for f in glob.glob(exp + "/maps.*") for l in open(f) if not l.startswith("#")]
def where(a):
    for m in maps:
        lo, hi = (int(x, 16) for x in m[0].split("-"))
        if lo <= a < hi and len(m) > 5:
            return os.path.basename(m[5])
    return "?"
print(" ".join("%d@%s" % (n, where(a)) for a, n in sites.items()))
P
)
	expect_eq "3000@tl" "$got" "tl: MPI_Test call sites (calls@object)"
else
	note "Fortran support is off in this build: MPICH's Fortran bindings not checked"
fi

# 4. the choice of the wrapper library
mpi_record rec-ompi "$T/ompi" 2 "$(mpi_prog ring)" -b 1
expect_eq openmpi "$(loaded_wrappers "$T/ompi")" "an Open MPI program's wrapper library"
run guess "$PERFSCOPE" record --mpi -o "$T/guess" -- sh -c true
expect_grep "cannot tell which MPI sh uses" "$T/guess.err" "record says it cannot tell the MPI"
expect_grep "PERFSCOPE_MPI_IMPL=mpich" "$T/guess.err" "record names the variable that tells it"
PERFSCOPE_MPI_IMPL=lam run bad "$PERFSCOPE" record --mpi -o "$T/bad" -- "$ring"
expect_eq 2 "$RC" "record --mpi with PERFSCOPE_MPI_IMPL=lam: exit status"
expect_grep "PERFSCOPE_MPI_IMPL=lam: give openmpi or mpich" "$T/bad.err" "the bad PERFSCOPE_MPI_IMPL is named"

finish
