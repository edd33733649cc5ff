#!/usr/bin/env bash
# ab_html.sh ROUNDS DIR PERFSCOPE... - `perfscope html DIR` of several builds compared on one
# experiment: ROUNDS rounds, each running every binary once in the order given (interleaved, so
# that a machine's slow spell hits them alike), `/usr/bin/time` around each. Prints per binary
# the median and minimum of CPU time (user + sys) and wall time, and the median peak RSS.
# The experiment is made beforehand, e.g. `python3 bench/gen_mpi_exp.py -p 64 -e 10000000 DIR`;
# each binary is a Release build, e.g. of `git archive COMMIT` (see bench/README.md).
# Environment: OUT (the report written, default /dev/shm/ab_html.html; overwritten).
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 ROUNDS DIR PERFSCOPE..." >&2; exit 2; }
rounds=$1 dir=$2
shift 2
out=${OUT:-/dev/shm/ab_html.html}
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
for ((i = 0; i < rounds; i++)); do
	for b in "$@"; do
		/usr/bin/time -f "$b %U %S %e %M" -o "$raw.t" "$b" html "$dir" -o "$out" --force >/dev/null 2>&1 ||
			{ echo "$b html $dir failed" >&2; exit 1; }
		cat "$raw.t" >>"$raw"
	done
done
rm -f "$raw.t"
python3 - "$raw" <<'PY'
import collections, statistics, sys
cpu, wall, rss = (collections.defaultdict(list) for _ in range(3))
order = []
for line in open(sys.argv[1]):
    b, u, s, e, m = line.split()
    if b not in order:
        order.append(b)
    cpu[b].append(float(u) + float(s))
    wall[b].append(float(e))
    rss[b].append(int(m))
for b in order:
    print(f"{b}: cpu median {statistics.median(cpu[b]):.3f} s min {min(cpu[b]):.3f}  "
          f"wall median {statistics.median(wall[b]):.3f} s min {min(wall[b]):.3f}  "
          f"peak RSS {statistics.median(rss[b]) / 1024:.0f} MiB ({len(cpu[b])} runs)")
PY
