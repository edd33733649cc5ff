#!/usr/bin/env bash
# export --format chrome carries the model (issue 20): on an MPI run of ring (3 ranks, 4
# iterations, each rank sending one message per iteration), the export has as many MPI_Send
# slices as the ranks noted MPI_Sends (their marks), one MPI_Recv slice per MPI_Recv, one flow start
# per message sent and one flow end per message received, the two ends of every flow with the
# same id, the start inside its MPI_Send slice and the end inside its MPI_Recv slice; on a
# sampled run, as many sample instants as perfscope report counts samples. The JSON parses.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"

# check_mpi JSON MARKS NP: the counts of the export against the marks of the NP ranks
check_mpi() {
	python3 - "$1" "$2" "$3" <<'EOF'
import json, sys
trace, marks, np = sys.argv[1], sys.argv[2], int(sys.argv[3])
ev = json.load(open(trace))["traceEvents"]
bad = []
slices = {}  # (pid, tid) -> [(begin, end, name)]
stack = {}
for e in ev:
    if e.get("cat") == "mpi" and e["ph"] == "B":
        stack.setdefault((e["pid"], e["tid"]), []).append(e)
for e in ev:
    if e["ph"] == "E" and "bytes" in e.get("args", {}):
        b = stack[(e["pid"], e["tid"])].pop(0)
        slices.setdefault((e["pid"], e["tid"]), []).append((b["ts"], e["ts"], b["name"]))
nsend = nrecv = 0
for r in range(np):
    words = open("%s.%d" % (marks, r)).read().split()
    nsend += sum(1 for w in words if w == "send")
    nrecv += sum(1 for w in words if w == "recv")
mine = [s for l in slices.values() for s in l]
got = (sum(1 for s in mine if s[2] == "MPI_Send"), sum(1 for s in mine if s[2] == "MPI_Recv"),
       sum(1 for e in ev if e["ph"] == "s"), sum(1 for e in ev if e["ph"] == "f"))
if nsend == 0 or got != (nsend, nrecv, nsend, nrecv):
    bad.append("MPI_Send %d, MPI_Recv %d, flow starts %d, flow ends %d; the program sent %d "
               "and received %d" % (got + (nsend, nrecv)))
starts = {e["id"]: e for e in ev if e["ph"] == "s"}
ends = {e["id"]: e for e in ev if e["ph"] == "f"}
if sorted(starts) != sorted(ends) or len(starts) != sum(1 for e in ev if e["ph"] == "s"):
    bad.append("flow ids: %d starts, %d ends, not pairwise equal" % (len(starts), len(ends)))
def inside(e, name):
    return any(b <= e["ts"] <= x and n == name for b, x, n in slices.get((e["pid"], e["tid"]), []))
for i, s in starts.items():
    f = ends.get(i)
    if not inside(s, "MPI_Send") or not f or not inside(f, "MPI_Recv") or f.get("bp") != "e":
        bad.append("flow %d is not from an MPI_Send slice to an MPI_Recv slice" % i)
        break
print("\n".join(bad))
EOF
}

mpi_init
ring=$(mpi_prog ring)
np=3
mpi_record rec "$T/ring" "$np" "$ring" -n 4 -t 1 -m "$T/ring.marks"
run chrome "$PERFSCOPE" export "$T/ring" --format chrome -o "$T/ring.json"
expect_eq 0 "$RC" "export --format chrome of the MPI run"
json_ok "$T/ring.json" || fail "the MPI run's export is not JSON"
problems=$(check_mpi "$T/ring.json" "$T/ring.marks" "$np")
[ -z "$problems" ] || fail "$problems"
expect_grep "MPI calls (12 messages as flows)" "$T/chrome.err" "the summary counts the messages"

# --- samples: as many in the export as in the report
phases=$PSC_BUILD/examples/phases
[ -x "$phases" ] || die "$phases was not built"
run srec "$PERFSCOPE" record --sample=500 -o "$T/s" -- "$phases"
if [ "$RC" -ne 0 ]; then
	note "record --sample is not possible here: $(head -n 2 "$T/srec.err")"
	finish
fi
run srep "$PERFSCOPE" report "$T/s"
expect_eq 0 "$RC" "report of the sampled run"
want=$(sed -n 's/.*: \([0-9][0-9]*\) samples standing for.*/\1/p' "$T/srep.out" | head -n 1)
run schrome "$PERFSCOPE" export "$T/s" --format chrome -o "$T/s.json"
expect_eq 0 "$RC" "export --format chrome of the sampled run"
json_ok "$T/s.json" || fail "the sampled run's export is not JSON"
got=$(json_eval "$T/s.json" 'sum(1 for e in d["traceEvents"] if e["ph"] == "i" and e.get("cat") == "sample")')
[ -n "$want" ] || fail "report printed no sample count: $(head -n 3 "$T/srep.out")"
expect_eq "$want" "$got" "sample instants in the export = samples in the report"
expect_grep ", $want samples" "$T/schrome.err" "the summary counts the samples"
finish
