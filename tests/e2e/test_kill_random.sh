#!/usr/bin/env bash
# Fault injection: a traced program, the launcher of a sampled one, and one rank of an MPI job
# are killed with SIGKILL at random moments (a fixed seed, so that a failure can be replayed;
# PSC_KILL_TRIALS and PSC_KILL_SEED change them). Every experiment must be readable, and every
# call the program completed before the kill must be in it: the programs count their completed
# calls in a file they map shared, so after the kill the report must show that many calls, or
# one more (the call under way when it died). A killed sampler loses the samples it had not
# drained yet: its experiments must be read by every command, which say where the samples file
# stops (test_sample_kill.sh kills it after given amounts of work and counts the samples).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

build_traced kp "$PSC_SOURCE/tests/e2e/killed-prog.c"

trials=${PSC_KILL_TRIALS:-10}
RANDOM=${PSC_KILL_SEED:-4242}

# start WHAT NAME DIR MODE: perfscope record MODE -o DIR of the progress program in the
# background (REC its pid; the program's own pid in $T/pid, its count of completed calls in
# $T/done), then, once it runs, a random pause (DELAY ms)
start() {
	local what=$1 name=$2 d=$3 mode=$4
	rm -f "$T/done" "$T/pid"
	"$PERFSCOPE" record "$mode" -o "$d" -- sh -c 'echo $$ >"$1"; exec "$2" progress "$3"' \
		sh "$T/pid" "$T/kp" "$T/done" >"$T/$name.out" 2>"$T/$name.err" &
	rec=$!
	for _ in $(seq 600); do
		[ -s "$T/pid" ] && [ -s "$T/done" ] && break
		sleep 0.05
	done
	[ -s "$T/pid" ] && [ -s "$T/done" ] ||
		die "$what: the program did not start: $(cat "$T/$name.err")"
	delay=$((RANDOM % 500))
	sleep "$(printf '0.%03d' "$delay")"
}

for ((i = 1; i <= trials; i++)); do
	d=$T/exp$i
	start "trial $i" "rec$i" "$d" --functions
	kill -KILL "$(cat "$T/pid")"
	wait "$rec" || true
	done_calls=$(od -An -t u8 -N8 "$T/done" | tr -d ' ')
	run rep$i "$PERFSCOPE" report "$d" --csv
	expect_eq 0 "$RC" "trial $i (kill after ${delay} ms): report exit status"
	calls=$(csv_get "$T/rep$i.out" calls name=f)
	expect_cmp "$calls" ">=" "$done_calls" "trial $i: calls of f against the $done_calls completed"
	expect_cmp "$calls" "<=" "$((done_calls + 1))" "trial $i: calls of f against the $done_calls completed"
	run info$i "$PERFSCOPE" info "$d"
	expect_eq 0 "$RC" "trial $i: info exit status"
	if compgen -G "$d/live.*" >/dev/null; then
		fail "trial $i: live files left"
	fi
done

# sampling: record --sample killed at a random moment (the program is killed afterwards)
for ((i = 1; i <= (trials + 1) / 2; i++)); do
	d=$T/smp$i
	start "sampling trial $i" "srec$i" "$d" --sample
	kill -KILL "$rec"
	wait "$rec" || true
	kill -KILL "$(cat "$T/pid")" 2>/dev/null || true
	for c in report info timeline dump; do
		run "s$c$i" "$PERFSCOPE" "$c" "$d"
		expect_eq 0 "$RC" "sampling trial $i (launcher killed after ${delay} ms): $c exit status"
	done
	f=$(cd "$d" && echo samples.*)
	PSC_CHECKS=$((PSC_CHECKS + 1))
	grep -qE "$f: (cut at byte [0-9]+|nothing after its 64-byte header|no end record after byte [0-9]+)" \
		"$T/sreport$i.out" || fail "sampling trial $i: the report does not say where $f stops"
done

# MPI: rank 1 of 2 killed; mpirun then ends rank 0 (SIGTERM, or SIGKILL)
command -v mpicc >/dev/null && command -v mpirun >/dev/null || { note "no MPI: MPI trials skipped"; finish; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
mpicc -g -O1 "$PSC_SOURCE/tests/e2e/mpi-progress-prog.c" -o "$T/mpp" >"$T/mpicc.log" 2>&1 ||
	die "cannot build mpi-progress-prog.c: $(cat "$T/mpicc.log")"
for ((i = 1; i <= (trials + 1) / 2; i++)); do
	d=$T/mpi$i
	p=$T/progress$i
	mkdir "$p"
	timeout -k 5 60 "$PERFSCOPE" record --mpi -o "$d" -- mpirun -np 2 "$T/mpp" "$p" \
		>"$T/mrec$i.out" 2>"$T/mrec$i.err" &
	rec=$!
	# MPI may take a while to start on a loaded machine
	for _ in $(seq 1200); do
		[ -s "$p/progress.0" ] && [ -s "$p/progress.1" ] &&
			[ "$(od -An -t u8 -N8 "$p/progress.1" | tr -d ' ')" -gt 0 ] && break
		sleep 0.05
	done
	[ "$(od -An -t u8 -N8 "$p/progress.1" 2>/dev/null | tr -d ' ')" -gt 0 ] 2>/dev/null ||
		die "MPI trial $i: the ranks did not start: $(cat "$T/mrec$i.err")"
	delay=$((RANDOM % 500))
	sleep "$(printf '0.%03d' "$delay")"
	kill -KILL "$(od -An -t u8 -j8 -N8 "$p/progress.1" | tr -d ' ')"
	wait "$rec" || true
	run mpi$i "$PERFSCOPE" mpi "$d" --routines --csv
	expect_eq 0 "$RC" "MPI trial $i (rank 1 killed after ${delay} ms): perfscope mpi exit status"
	for r in 0 1; do
		done_calls=$(od -An -t u8 -N8 "$p/progress.$r" | tr -d ' ')
		calls=$(csv_get "$T/mpi$i.out" calls rank=$r routine=MPI_Sendrecv)
		expect_cmp "$calls" ">=" "$done_calls" "MPI trial $i: rank $r's calls of MPI_Sendrecv against the $done_calls completed"
		expect_cmp "$calls" "<=" "$((done_calls + 1))" "MPI trial $i: rank $r's calls of MPI_Sendrecv against the $done_calls completed"
	done
	if compgen -G "$d/live.*" >/dev/null; then
		fail "MPI trial $i: live files left"
	fi
done

finish
