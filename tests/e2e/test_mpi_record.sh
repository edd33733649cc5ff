#!/usr/bin/env bash
# test_mpi_record.sh - libperfscope-mpi.so records what an MPI program did, exactly.
#
# examples/mpi/calls_mpi (C) runs on 4 ranks under LD_PRELOAD of libperfscope.so and
# libperfscope-mpi.so; examples/mpi/calls_mpi_f (Fortran, use mpi) under perfscope record --mpi.
# From `perfscope dump`: the number of calls of every routine per rank (enter and leave
# records alike), the messages' peers (world ranks), tags and sizes (from the statuses the
# wrappers substituted for MPI_STATUS(ES)_IGNORE), request ids tying every completion to its
# Isend, Irecv or Start, collectives' roots and bytes, the split communicator's members and a
# key identical in its members, the ranks in proc.<pid>.json and the clock records.
# examples/mpi/calls_more (C): every other completion routine, synchronous, buffered (with
# Buffer_attach) and ready sends, Sendrecv_replace, a cancelled receive, Startall, v/w
# collectives, Reduce_scatter_block, Ialltoallw, Ireduce_scatter, Iexscan, every communicator constructor and an unwrapped one.
. "$(dirname "$0")/lib.sh"
psc_init
require_cmd mpirun
lib=$PSC_BUILD/libperfscope-mpi.so
[ -f "$lib" ] || skip "libperfscope-mpi.so was not built (no MPI at configure time)"
[ -x "$EX/mpi/calls_mpi" ] && [ -x "$EX/mpi/calls_more" ] || skip "examples/mpi/calls_* were not built"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
unset PERFSCOPE_TEST_CLOCK_SKEW PERFSCOPE_MPI_LOAD

pre=$PSC_BUILD/libperfscope.so:$lib
xenv=()
if [ "${PSC_SANITIZE:-OFF}" = ON ]; then
	# the sanitized runtime needs the ASan runtime first in the (unsanitized) program
	pre="$(${CC:-cc} -print-file-name=libasan.so):$pre"
	export ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0
	xenv=(-x ASAN_OPTIONS)
fi

# leaves DIR NAME: one line per MPI record of DIR's streams into $T/NAME.mpi:
#   RANK leave ROUTINE ITEMS..   |   RANK enter ROUTINE   |   RANK comm INDEX KEY MEMBERS
#   RANK init RANK SIZE          |   RANK clock PHASE
leaves() {
	run "$2.dump" "$PERFSCOPE" dump "$1"
	if [ "$RC" -ne 0 ]; then
		show "$2.dump"
		die "perfscope dump $1 exited $RC"
	fi
	awk '
	/^# / { r = "?"; if (match($0, / rank -?[0-9]+;/)) r = substr($0, RSTART + 6, RLENGTH - 7) }
	$4 == "mpi-enter" { print r, "enter", $5 }
	$4 == "mpi-leave" { s = $0; sub(/.*site=0x[0-9a-f]+ ?/, "", s); print r, "leave", $5, s }
	$4 == "mpi-comm" { print r, "comm", $5, $6, $NF }
	$4 == "mpi-init" { print r, "init", $5, $6 }
	$4 == "mpi-clock" { print r, "clock", $5 }
	' "$T/$2.dump.out" >"$T/$2.mpi"
}

# count NAME RANK WHAT ROUTINE: records of RANK of kind WHAT (enter, leave) of ROUTINE
count() {
	awk -v r="$2" -v w="$3" -v f="$4" '$1 == r && $2 == w && $3 == f { n++ } END { print n + 0 }' \
		"$T/$1.mpi"
}

# items NAME RANK ROUTINE: the items of RANK's leaves of ROUTINE, one call per line
items() {
	awk -v r="$2" -v f="$3" '$1 == r && $2 == "leave" && $3 == f { $1 = $2 = $3 = ""; sub(/^ +/, ""); print }' \
		"$T/$1.mpi"
}

# req IDS FIELD...: the req= values of a line
reqs() {
	grep -o 'req=[0-9]*' | cut -d= -f2 | tr '\n' ' ' | sed 's/ $//'
}

check_counts() { # NAME RANK ROUTINE=N...
	local name=$1 r=$2 kv f n
	shift 2
	for kv in "$@"; do
		f=${kv%=*} n=${kv#*=}
		expect_eq "$n" "$(count "$name" "$r" leave "MPI_$f")" "$name rank $r: MPI_$f leaves"
		expect_eq "$n" "$(count "$name" "$r" enter "MPI_$f")" "$name rank $r: MPI_$f enters"
	done
}

# ---- C: calls_mpi under LD_PRELOAD with PERFSCOPE_OUT
run c mpirun -np 4 -x PERFSCOPE_OUT="$T/c" -x LD_PRELOAD="$pre" "${xenv[@]}" "$EX/mpi/calls_mpi"
if [ "$RC" -ne 0 ]; then
	show c
	die "mpirun -np 4 calls_mpi under libperfscope-mpi.so exited $RC"
fi
leaves "$T/c" c

ranks=$(for f in "$T"/c/proc.*.json; do json_eval "$f" 'd["rank"]'; done | sort | tr '\n' ' ')
expect_eq "0 1 2 3 " "$ranks" "ranks in proc.<pid>.json"
sizes=$(for f in "$T"/c/proc.*.json; do json_eval "$f" 'd["world_size"]'; done | sort -u | tr '\n' ' ')
expect_eq "4 " "$sizes" "world_size in proc.<pid>.json"

for r in 0 1 2 3; do
	left=$(((r + 3) % 4)) right=$(((r + 1) % 4))
	# Send: even ranks 3 to r+1, ranks 0 and 1 one more on the half communicator
	sends=$((r % 2 == 0 ? 3 : 0)) recvs=$((r % 2 == 1 ? 3 : 0))
	[ "$r" -lt 2 ] && sends=$((sends + 1)) || recvs=$((recvs + 1))
	check_counts c "$r" Init=1 Send=$sends Recv=$recvs Irecv=2 Isend=2 Waitall=1 Sendrecv=1 \
		Bcast=1 Allreduce=2 Barrier=2 Comm_split=1 Comm_free=1 \
		Send_init=$((1 - r % 2)) Recv_init=$((r % 2)) Start=2 Wait=2 Request_free=1 Finalize=1 \
		Ssend=0 Waitany=0 Test=0 Cancel=0
	expect_eq "$r 4" "$(awk -v r="$r" '$1 == r && $2 == "init" { sub("rank=", "", $3);
		sub("size=", "", $4); print $3, $4 }' "$T/c.mpi")" "rank $r: MPI init record"
	expect_eq "phase=init phase=finalize" "$(awk -v r="$r" '$1 == r && $2 == "clock" { printf "%s%s",
		n++ ? " " : "", $3 }' "$T/c.mpi")" "rank $r: clock records"

	# 1. statuses substituted for MPI_STATUS_IGNORE: the real source, tag and size
	if [ $((r % 2)) = 1 ]; then
		expect_eq "[recv comm=0 peer=$left tag=10 bytes=8 req=0]
[recv comm=0 peer=$left tag=11 bytes=16 req=0]
[recv comm=0 peer=$left tag=12 bytes=24 req=0]" "$(items c "$r" MPI_Recv | grep 'comm=0')" \
			"rank $r: Recv items"
	else
		expect_eq "[send comm=0 peer=$right tag=10 bytes=8]
[send comm=0 peer=$right tag=11 bytes=16]
[send comm=0 peer=$right tag=12 bytes=24]" "$(items c "$r" MPI_Send | grep 'comm=0')" \
			"rank $r: Send items"
	fi

	# 2. Irecv/Isend ids, completed by the Waitall with MPI_STATUSES_IGNORE
	irecv=$(items c "$r" MPI_Irecv | reqs)
	isend=$(items c "$r" MPI_Isend | reqs)
	wall=$(items c "$r" MPI_Waitall)
	expect_eq "[irecv comm=0 peer=any tag=20 bytes=64 req=${irecv%% *}]
[irecv comm=0 peer=$left tag=21 bytes=64 req=${irecv##* }]" "$(items c "$r" MPI_Irecv)" \
		"rank $r: Irecv items"
	expect_eq "[isend comm=0 peer=$right tag=20 bytes=16 req=${isend%% *}]
[isend comm=0 peer=$right tag=21 bytes=32 req=${isend##* }]" "$(items c "$r" MPI_Isend)" \
		"rank $r: Isend items"
	expect_eq "[recv comm=0 peer=$left tag=20 bytes=16 req=${irecv%% *}] [recv comm=0 peer=$left tag=21 bytes=32 req=${irecv##* }] [isend-done comm=0 req=${isend%% *}] [isend-done comm=0 req=${isend##* }]" \
		"$wall" "rank $r: Waitall completes the 4 requests by id"

	# 3. Sendrecv, 4. collectives
	expect_eq "[send comm=0 peer=$right tag=30 bytes=8] [recv comm=0 peer=$left tag=30 bytes=8 req=0]" \
		"$(items c "$r" MPI_Sendrecv)" "rank $r: Sendrecv items"
	if [ "$r" = 0 ]; then b="sent=16 received=0"; else b="sent=0 received=16"; fi
	expect_eq "[coll comm=0 root=0 $b]" "$(items c "$r" MPI_Bcast)" "rank $r: Bcast item"
	expect_eq "[coll comm=0 root=any sent=8 received=8]
[coll comm=2 root=any sent=4 received=4]" "$(items c "$r" MPI_Allreduce)" "rank $r: Allreduce items"
	expect_eq "2" "$(items c "$r" MPI_Barrier | grep -c '^\[coll comm=0 root=any sent=0 received=0\]$')" \
		"rank $r: Barrier items"

	# 5. the half communicator: index 2, members as world ranks, peers translated
	expect_eq "2 $((r % 2)),$((r % 2 + 2))" "$(awk -v r="$r" '$1 == r && $2 == "comm" && $3 == "index=2" {
		sub("members=", "", $5); print 2, $5 }' "$T/c.mpi")" "rank $r: communicator 2 members"
	case $r in
	0) expect_eq "[send comm=2 peer=2 tag=40 bytes=4]" "$(items c 0 MPI_Send | grep comm=2)" "rank 0: Send on the half communicator" ;;
	1) expect_eq "[send comm=2 peer=3 tag=40 bytes=4]" "$(items c 1 MPI_Send | grep comm=2)" "rank 1: Send on the half communicator" ;;
	2) expect_eq "[recv comm=2 peer=0 tag=40 bytes=4 req=0]" "$(items c 2 MPI_Recv | grep comm=2)" "rank 2: Recv on the half communicator" ;;
	3) expect_eq "[recv comm=2 peer=1 tag=40 bytes=4 req=0]" "$(items c 3 MPI_Recv | grep comm=2)" "rank 3: Recv on the half communicator" ;;
	esac

	# 6. persistent: a fresh id at every Start, completed by the Wait that follows
	starts=$(items c "$r" MPI_Start | reqs)
	waits=$(items c "$r" MPI_Wait | reqs)
	expect_eq "$starts" "$waits" "rank $r: persistent request ids of Start and Wait"
	expect_ne "${starts%% *}" "${starts##* }" "rank $r: the two Starts' ids"
	if [ $((r % 2)) = 0 ]; then
		expect_eq "2" "$(items c "$r" MPI_Wait | grep -c '^\[isend-done comm=0 req=[1-9][0-9]*\]$')" \
			"rank $r: Wait completes the persistent send"
	else
		expect_eq "2" "$(items c "$r" MPI_Wait | grep -c "^\[recv comm=0 peer=$left tag=50 bytes=8 req=[1-9][0-9]*\]$")" \
			"rank $r: Wait completes the persistent receive with its status"
	fi
	expect_eq "" "$(items c "$r" MPI_Request_free)" "rank $r: freeing an inactive request"
	# every id of the rank is distinct and not 0
	all=$(echo "$irecv $isend $starts" | tr ' ' '\n' | sort -u | grep -vc '^0$')
	expect_eq 6 "$all" "rank $r: distinct request ids"
done

# the key of a communicator is the same in its members and differs between the two halves
k0=$(awk '$1 == 0 && $3 == "index=2" { print $4 }' "$T/c.mpi")
k2=$(awk '$1 == 2 && $3 == "index=2" { print $4 }' "$T/c.mpi")
k1=$(awk '$1 == 1 && $3 == "index=2" { print $4 }' "$T/c.mpi")
k3=$(awk '$1 == 3 && $3 == "index=2" { print $4 }' "$T/c.mpi")
expect_eq "$k0" "$k2" "key of ranks 0 and 2's communicator"
expect_eq "$k1" "$k3" "key of ranks 1 and 3's communicator"
expect_ne "$k0" "$k1" "keys of the two halves"
expect_eq 4 "$(awk '$2 == "comm" && $3 == "index=0" && $4 == "key=0x0000000000000000"' "$T/c.mpi" | wc -l)" \
	"MPI_COMM_WORLD recorded by every rank with key 0"

# ---- C: calls_more, the other completion routines, collectives and communicators
run more mpirun -np 4 -x PERFSCOPE_OUT="$T/more" -x LD_PRELOAD="$pre" "${xenv[@]}" "$EX/mpi/calls_more"
if [ "$RC" -ne 0 ]; then
	show more
	die "mpirun -np 4 calls_more under libperfscope-mpi.so exited $RC"
fi
leaves "$T/more" more
# 31 messages per rank around the ring, one more on the communicator without rank 0
expect_eq 125 "$(grep -o '\[i\?send comm=[0-9]* peer=' "$T/more.mpi" | wc -l)" "messages sent"
expect_eq 125 "$(grep -o '\[recv comm=' "$T/more.mpi" | wc -l)" "messages received"
for r in 0 1 2 3; do
	left=$(((r + 3) % 4)) right=$(((r + 1) % 4))
	# buffered, ready and in-place sends: one call each, exact items
	check_counts more "$r" Bsend=1 Rsend=1 Ibsend=1 Irsend=1 Sendrecv_replace=1 Reduce_scatter_block=1
	expect_eq "[send comm=0 peer=$right tag=100 bytes=12]" "$(items more "$r" MPI_Bsend)" "calls_more rank $r: Bsend"
	expect_eq "[send comm=0 peer=$right tag=101 bytes=13]" "$(items more "$r" MPI_Rsend)" "calls_more rank $r: Rsend"
	expect_eq "[isend comm=0 peer=$right tag=102 bytes=14 req=" "$(items more "$r" MPI_Ibsend | sed 's/req=.*/req=/')" \
		"calls_more rank $r: Ibsend"
	expect_eq "[isend comm=0 peer=$right tag=103 bytes=15 req=" "$(items more "$r" MPI_Irsend | sed 's/req=.*/req=/')" \
		"calls_more rank $r: Irsend"
	expect_eq "[recv comm=0 peer=$left tag=100 bytes=12 req=0]" "$(items more "$r" MPI_Recv | grep 'tag=100 ')" \
		"calls_more rank $r: the Bsend's receive"
	expect_eq "[isend-done comm=0] [isend-done comm=0] [recv comm=0 peer=$left tag=101 bytes=13] [recv comm=0 peer=$left tag=102 bytes=14] [recv comm=0 peer=$left tag=103 bytes=15]" \
		"$(items more "$r" MPI_Waitall | grep 'tag=101 ' | grep -o '\[[^]]*\]' | sed 's/ req=[0-9]*//' | sort | tr '\n' ' ' | sed 's/ $//')" \
		"calls_more rank $r: the Waitall of the ready and buffered sends and receives"
	expect_eq "[send comm=0 peer=$right tag=104 bytes=6] [recv comm=0 peer=$left tag=104 bytes=6 req=0]" \
		"$(items more "$r" MPI_Sendrecv_replace)" "calls_more rank $r: Sendrecv_replace"
	expect_eq "[coll comm=0 root=any sent=32 received=8]" "$(items more "$r" MPI_Reduce_scatter_block)" \
		"calls_more rank $r: Reduce_scatter_block"
	# the non-blocking twins of Alltoallw, Reduce_scatter and Exscan: the blocking ones' bytes,
	# and a request each that the Waitall after them completes by id
	check_counts more "$r" Ialltoallw=1 Ireduce_scatter=1 Iexscan=1
	ib=""
	for f in Ialltoallw:"sent=32 received=32" Ireduce_scatter:"sent=32 received=8" Iexscan:"sent=12 received=12"; do
		id=$(items more "$r" "MPI_${f%%:*}" | reqs)
		expect_eq "[coll comm=0 root=any ${f#*:}] [coll-req comm=0 req=$id]" "$(items more "$r" "MPI_${f%%:*}")" \
			"calls_more rank $r: MPI_${f%%:*}"
		ib="$ib${ib:+ }[coll-req comm=0 req=$id]"
	done
	expect_eq 1 "$(items more "$r" MPI_Waitall | grep -cxF "$ib")" \
		"calls_more rank $r: one Waitall completes Ialltoallw, Ireduce_scatter and Iexscan"
	# every request started once is completed once, by id, but the cancelled one
	started=$(awk -v r="$r" '$1 == r' "$T/more.mpi" | grep -o '\[i\(send\|recv\) [^]]*' | reqs)
	finished=$(awk -v r="$r" '$1 == r' "$T/more.mpi" | grep -o '\[\(recv\|isend-done\|cancel\) [^]]*req=[1-9][0-9]*' | reqs)
	expect_eq "$(echo "$started" | tr ' ' '\n' | sort -n | tr '\n' ' ')" \
		"$(echo "$finished" | tr ' ' '\n' | sort -n | tr '\n' ' ')" "calls_more rank $r: completed ids"
	cancelled=$(items more "$r" MPI_Irecv | grep 'tag=999' | reqs)
	# the cancellation is said by the Wait that confirms it, not by MPI_Cancel
	expect_eq "" "$(items more "$r" MPI_Cancel)" "calls_more rank $r: Cancel items"
	expect_eq "[cancel comm=0 req=$cancelled]" "$(items more "$r" MPI_Wait)" \
		"calls_more rank $r: the cancelled receive's Wait"
	expect_eq 4 "$(items more "$r" MPI_Ssend | grep -c 'sync\]$')" "calls_more rank $r: Ssend items"
	expect_eq 4 "$(items more "$r" MPI_Waitsome | grep -o 'isend-done comm=0 req=[0-9]* sync' | wc -l)" \
		"calls_more rank $r: Issend completions"
	expect_eq 4 "$(count more "$r" leave MPI_Waitany)" "calls_more rank $r: Waitany calls"
	expect_eq 1 "$(items more "$r" MPI_Testall | grep -c .)" "calls_more rank $r: one Testall with items"
	if [ "$r" = 1 ]; then g="sent=8 received=32"; else g="sent=8 received=0"; fi
	expect_eq "[coll comm=0 root=1 $g]" "$(items more "$r" MPI_Gatherv)" "calls_more rank $r: Gatherv"
	expect_eq "[coll comm=0 root=any sent=32 received=32]" "$(items more "$r" MPI_Alltoallw)" \
		"calls_more rank $r: Alltoallw"
	expect_eq "[coll comm=0 root=any sent=32 received=8]" "$(items more "$r" MPI_Reduce_scatter)" \
		"calls_more rank $r: Reduce_scatter"
	expect_eq "[coll comm=0 root=any sent=8 received=32]" "$(items more "$r" MPI_Allgather)" \
		"calls_more rank $r: Allgather in place"
done
# communicators (indices differ between ranks: each counts only its own): a key is recorded
# once by each of its members, with the same member list; rank 0 is not in the split one; the
# Cart_sub one (not wrapped) gets a members' hash key, the same everywhere
expect_eq "" "$(awk '$2 == "comm" && $4 !~ /^key=0x00000001/ { n[$4]++; m[$4] = $5; if (s[$4] != "" && s[$4] != $5) bad[$4] = 1; s[$4] = $5 }
	END { for (k in n) { c = split(m[k], x, ","); if (n[k] != c || bad[k]) print k, n[k], m[k] } }' "$T/more.mpi")" \
	"calls_more: every communicator's key in each of its members, with the same members"
expect_eq "8" "$(awk '$2 == "comm" && $4 !~ /^key=0x00000001/ { print $4 }' "$T/more.mpi" | sort -u | wc -l)" \
	"calls_more: communicators (world, dup, create, create_group, cart, split_type, split, cart_sub)"
expect_eq "1 2 3" "$(awk '$2 == "comm" && $5 == "members=1,2,3" { printf "%s%s", n++ ? " " : "", $1 }' \
	"$T/more.mpi")" "calls_more: the split communicator, recorded by its members only"
expect_eq "[send comm=7 peer=2 tag=0 bytes=1]" "$(items more 1 MPI_Send | grep comm=7)" \
	"calls_more: Send on the split communicator"
expect_eq "1" "$(awk '$2 == "comm" && $4 ~ /^key=0x[89a-f]/' "$T/more.mpi" | awk '{ print $4, $5 }' |
	sort -u | wc -l)" "calls_more: one key for the Cart_sub communicator"
expect_eq "4" "$(awk '$2 == "comm" && $4 ~ /^key=0x[89a-f]/' "$T/more.mpi" | wc -l)" \
	"calls_more: the Cart_sub communicator in every rank"

# ---- Fortran: calls_mpi_f under perfscope record --mpi
if [ "${PSC_FORTRAN:-OFF}" != ON ] || [ ! -x "$EX/mpi/calls_mpi_f" ]; then
	note "no Fortran MPI example: the Fortran wrappers are not tested"
	finish
fi
run f "$PERFSCOPE" record --mpi --load=0 -o "$T/f" -- mpirun -np 4 "$EX/mpi/calls_mpi_f"
if [ "$RC" -ne 0 ]; then
	show f
	die "perfscope record --mpi -- mpirun -np 4 calls_mpi_f exited $RC"
fi
leaves "$T/f" f
for r in 0 1 2 3; do
	left=$(((r + 3) % 4)) right=$(((r + 1) % 4))
	check_counts f "$r" Init=1 Send=$((r % 2 == 0 ? 2 : 0)) Recv=$((2 * (r % 2))) \
		Irecv=1 Isend=1 Waitall=1 Bcast=1 Allreduce=2 Barrier=1 Comm_split=1 Comm_free=1 \
		Send_init=$((1 - r % 2)) Recv_init=$((r % 2)) Start=2 Wait=2 Request_free=1 Finalize=1
	if [ $((r % 2)) = 1 ]; then
		expect_eq "[recv comm=0 peer=$left tag=10 bytes=8 req=0]
[recv comm=0 peer=$left tag=10 bytes=16 req=0]" "$(items f "$r" MPI_Recv)" \
			"Fortran rank $r: Recv items from substituted statuses"
	fi
	irecv=$(items f "$r" MPI_Irecv | reqs)
	isend=$(items f "$r" MPI_Isend | reqs)
	expect_eq "[recv comm=0 peer=$left tag=20 bytes=16 req=$irecv] [isend-done comm=0 req=$isend]" \
		"$(items f "$r" MPI_Waitall)" "Fortran rank $r: Waitall completes its requests by id"
	expect_eq "[coll comm=2 root=any sent=4 received=4]" "$(items f "$r" MPI_Allreduce | grep comm=2)" \
		"Fortran rank $r: Allreduce on the split communicator"
	expect_eq "$(items f "$r" MPI_Start | reqs)" "$(items f "$r" MPI_Wait | reqs)" \
		"Fortran rank $r: persistent ids of Start and Wait"
done
finish
