#!/usr/bin/env bash
# perfscope report and mpi out of memory: under address-space limits (ulimit -v) from the
# lowest at which the program loads up to one where the output is printed, every run either
# prints it (exit 0) or says it ran out of memory in one line and exits 1, as html does:
# running out of memory is not a usage or input error. Before, both exited 2 there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
[ "${PSC_SANITIZE:-OFF}" = ON ] && skip "address-space limits (ulimit -v) do not work under ASan"
mpi_init

# an MPI run with its functions traced: every view of report has data to read
d="$T/exp"
run rec timeout -k 5 "$MPI_TIMEOUT" "$PERFSCOPE" record --mpi --functions -o "$d" -- \
	mpirun -np 4 "$(mpi_prog calls_mpi)"
[ "$RC" -eq 0 ] && [ -f "$d/meta.json" ] || { show rec; die "record --mpi --functions exited $RC"; }

# limited KB CMD ARGS..: perfscope CMD on the experiment under ulimit -v KB
limited() {
	local kb=$1 cmd=$2
	shift 2
	RC=0
	(
		ulimit -v "$kb"
		exec "$PERFSCOPE" "$cmd" "$d" "$@"
	) >"$T/lim.out" 2>"$T/lim.err" || RC=$?
}

for args in "report" "report --by thread" "report --by region" \
	"report --by scope --categories" "mpi --waits" "mpi --routines"; do
	low=4000
	while :; do
		# shellcheck disable=SC2086
		limited "$low" $args
		grep -q "error while loading shared libraries" "$T/lim.err" || break
		low=$((low + 1000))
		[ "$low" -lt 200000 ] || die "perfscope does not load under ulimit -v 200000"
	done
	oom=0 ok=0
	for ((kb = low; kb < low + 40000 && ok < 2; kb += 500)); do
		# shellcheck disable=SC2086
		limited "$kb" $args
		if grep -q "out of memory" "$T/lim.err"; then
			oom=$((oom + 1))
			expect_eq 1 "$RC" "$args under ulimit -v $kb: out of memory exits 1"
			expect_eq 1 "$(wc -l <"$T/lim.err")" "$args under ulimit -v $kb: one line"
		elif [ "$RC" = 0 ]; then
			ok=$((ok + 1))
		fi
	done
	note "$args from ulimit -v $low: $oom runs out of memory, then $ok printed"
	[ "$oom" -gt 0 ] || fail "$args: no limit from $low KB on ran out of memory"
done

finish
