#!/usr/bin/env bash
# perfscope info on an MPI experiment: examples/mpi/calls_mpi on 4 ranks makes 25 MPI calls per
# rank (test_mpi_record.sh counts them routine by routine). info counts every MPI record kind in
# its own column and key, none of them as lost records, and reads the whole experiment without
# undefined behaviour (the sanitizer build stops at the first).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init

mpi_record rec "$T/calls" 4 "$(mpi_prog calls_mpi)"

run info "$PERFSCOPE" info "$T/calls"
expect_eq 0 "$RC" "perfscope info on an MPI experiment: exit status"
expect_eq "" "$(cat "$T/info.err")" "perfscope info on an MPI experiment: nothing on stderr"
run json "$PERFSCOPE" info --json "$T/calls"
expect_eq 0 "$RC" "perfscope info --json on an MPI experiment: exit status"
json_ok "$T/json.out" || fail "perfscope info --json: not JSON: $(head -c 300 "$T/json.out")"

j=$T/json.out
# the ranks' streams, as "rank mpi-init mpi-enter mpi-leave mpi-clock lost" per rank
per_rank=$(json_eval "$j" '"\n".join("%d %d %d %d %d %d" % (r,
	sum(s["by_kind"]["mpi-init"] for s in d["streams"] if s["rank"] == r),
	sum(s["by_kind"]["mpi-enter"] for s in d["streams"] if s["rank"] == r),
	sum(s["by_kind"]["mpi-leave"] for s in d["streams"] if s["rank"] == r),
	sum(s["by_kind"]["mpi-clock"] for s in d["streams"] if s["rank"] == r),
	sum(s["lost_records"] for s in d["streams"] if s["rank"] == r)) for r in range(4))')
expect_eq "0 1 25 25 2 0
1 1 25 25 2 0
2 1 25 25 2 0
3 1 25 25 2 0" "$per_rank" "per rank: 1 init, 25 enters, 25 leaves, 2 clock records, 0 lost"
expect_eq 0 "$(json_eval "$j" 'sum(p["lost_records"] for p in d["processes"])')" \
	"no process counts lost records"
expect_eq "" "$(json_eval "$j" '" ".join(k for k in d["streams"][0]["by_kind"] if k in ("sample", "switch", "task"))')" \
	"by_kind has no samples-only kinds"
# the text's stream table: every lost cell 0, and a column per MPI kind
expect_eq "0 0 0 0" "$(awk '/^streams:/ { s = 1; next } s && /^ *stream\./ { printf "%s%s", n++ ? " " : "", $(NF - 1) }
	/^ *\(first/ { s = 0 }' "$T/info.out")" "text: the lost column of the 4 streams"
expect_grep "mpi-init  mpi-enter  mpi-leave  mpi-comm  mpi-clock" "$T/info.out" "text: the MPI kinds' columns"

finish
