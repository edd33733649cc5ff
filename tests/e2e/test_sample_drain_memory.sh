#!/usr/bin/env bash
# The drain's memory is bounded: record --period writes the samples while the program runs and
# keeps only what it has read and not yet written. A CPU-bound program (a fixed number of
# steps, so the samples follow its CPU time, not the machine's load) is sampled every 20000
# events of the leader twice: N steps, then enough more (at least 10 N) for the samples file to
# grow by about 20 MiB (at least 12 MiB). record's peak RSS (getrusage of its children: record;
# the program is smaller) grows by less than 4 MiB: a drain that kept the samples would hold
# 12 MiB or more. Losses are noted, not checked (a loaded machine can delay the drain); the
# test is skipped when they leave too few samples.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

cat >"$T/load.c" <<'EOF'
/* N steps of a dependent xorshift chain: CPU time proportional to N. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned long long n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1, x = 88172645463325252ull;

	for (unsigned long long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	printf("%llu\n", x);
	return 0;
}
EOF
build_c load "$T/load.c"
# under ASan, the memory glibc's qsort takes for each drained batch is freed into ASan's
# quarantine (up to 256 MiB), which would grow with the run: no quarantine here
if [ "${PSC_SANITIZE:-OFF}" = ON ]; then
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0
fi

# peak NAME STEPS: record the load of STEPS steps into $T/NAME; prints record's peak RSS (KiB)
peak() {
	python3 - "$PERFSCOPE" "$T/$1" "$T/load" "$2" "$T/$1" <<'PY'
import resource, subprocess, sys
exe, out, load, steps, log = sys.argv[1:]
with open(log + ".out", "w") as o, open(log + ".err", "w") as e:
    r = subprocess.run([exe, "record", "--period", "20000", "-o", out, "--", load, steps],
                       stdout=o, stderr=e)
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}

samples_bytes() { stat -c %s "$1"/samples.*; }

n=50000000
read -r rc rss1 < <(peak short "$n")
[ "$rc" = 0 ] || skip "record --period cannot sample here: $(cat "$T/short.err")"
b1=$(samples_bytes "$T/short")
# steps for about 20 MiB more, at the short run's bytes per step; at least 10 x as many
n2=$(python3 -c "import math; print(max(10 * $n, math.ceil((20 << 20) * $n / max($b1 - 4096, 1)) + $n))")
[ "$n2" -le $((200 * n)) ] || skip "too few samples here ($b1 bytes for $n steps) to tell"
read -r rc rss2 < <(peak long "$n2")
expect_eq 0 "$rc" "record of $n2 steps exits 0"
b2=$(samples_bytes "$T/long")
note "samples: $b1 and $b2 bytes; record's peak RSS: $rss1 and $rss2 KiB ($n and $n2 steps)"
lost=$(json_eval "$T/long/meta.json" 'd["sampling"]["lost"]')
if [ $((b2 - b1)) -lt $((12 << 20)) ] && [ "${lost:-0}" != 0 ]; then
	skip "the drain lost $lost samples here (a loaded machine): $b2 bytes written"
fi
expect_cmp $((b2 - b1)) ">=" $((12 << 20)) "the long run writes 12 MiB of samples more"
expect_cmp $((rss2 - rss1)) "<" 4096 "record's peak RSS grows by less than 4 MiB"
note "lost: $(json_eval "$T/long/meta.json" 'd["sampling"]["lost"]'), throttled: $(json_eval "$T/long/meta.json" 'd["sampling"]["throttled"]')"
finish
