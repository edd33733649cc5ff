#!/usr/bin/env bash
# Bad input to sampling: each gets one line naming the cause and the fix, and exit status 2;
# a frequency above the kernel's limit is clamped with a warning naming the limit; sampling
# not permitted is one line with the fix, and the command does not run.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

run bad "$PERFSCOPE" record --sample=fast -o "$T/x" -- true
expect_eq 2 "$RC" "--sample=fast exits 2"
expect_grep "give a frequency in Hz" "$T/bad.err" "--sample=fast says what to give"
expect_no_file "$T/x" "nothing is created for a usage error"

run p0 "$PERFSCOPE" record --period 0 -o "$T/x" -- true
expect_eq 2 "$RC" "--period 0 exits 2"
expect_grep "give the number of leader events" "$T/p0.err" "--period 0 says what to give"

run cg "$PERFSCOPE" record --callgraph -o "$T/x" -- true
expect_eq 2 "$RC" "--callgraph alone exits 2"
expect_grep "needs --sample" "$T/cg.err" "--callgraph says what it needs"

# a fake procfs whose kernel.perf_event_max_sample_rate is 500: 2000 Hz is clamped to 500
mkdir -p "$T/proc/sys/kernel"
echo 500 >"$T/proc/sys/kernel/perf_event_max_sample_rate"
cp /proc/sys/kernel/perf_event_paranoid "$T/proc/sys/kernel/" 2>/dev/null || echo 2 >"$T/proc/sys/kernel/perf_event_paranoid"
PERFSCOPE_PROCFS_ROOT=$T/proc run clamp "$PERFSCOPE" record --sample=2000 -o "$T/c.exp" -- "$EX/phases" -a 100 -b 100
expect_eq 0 "$RC" "a clamped frequency still records"
expect_grep "kernel.perf_event_max_sample_rate=500" "$T/clamp.err" "the warning names the limit"
expect_eq 1 "$(grep -c "sampling at 500 Hz" "$T/clamp.err")" "one warning, with the frequency used"
expect_eq 500 "$(json_eval "$T/c.exp/meta.json" 'd["sampling"]["frequency"]')" "meta.json has the frequency used"

# --period: a sample every 500000 ns of cpu-clock. Never more samples than whole periods in the
# run's exact cpu-clock count C. Fewer by what is knowable from the run's own records:
# - each (thread, CPU) pair has an event of its own (inherited, per CPU), whose last partial
#   period gives no sample: one sample per pair;
# - the kernel's cpu-clock counts the time of a context switch that its sampling timer does not
#   see (the timer is stopped at switch-out and restarted with what it had left at switch-in):
#   each switch-in moves the count ahead of the timer by some microseconds (6.5 us median on
#   the development VM; 1 to 5 samples fewer at load 15, one per ~200 switches). That skew is
#   measured: the count between two samples of a pair with switch-ins between them, above one
#   period; switch-ins before a pair's first or after its last sample get the largest skew per
#   switch-in measured;
# - a timer that fires late (a busy host: CI saw 41 periods of 456 missing) takes one sample and
#   skips the periods it missed: the count between two samples without a switch-in between,
#   above one period; no sample record is lost (asserted), and the late timers may skip at most
#   a fifth of the periods (more would be samples lost, not a busy host);
# - one period more for the timer's latency at the samples bounding those spans (tens of us).
record_or_die per "$T/per.exp" --period 500000 -- "$EX/phases" -a 100 -b 100
expect_eq 500000 "$(json_eval "$T/per.exp/meta.json" 'd["sampling"]["period"]')" "meta.json has the period"
expect_eq 0 "$(json_eval "$T/per.exp/meta.json" 'd["sampling"]["frequency"]')" "no frequency with --period"
nper=$(json_eval "$T/per.exp/meta.json" 'd["sampling"]["samples"]')
expect_eq 0 "$(json_eval "$T/per.exp/meta.json" 'd["sampling"]["lost"]')" "--period: no sample record lost"
run peracc "$PERFSCOPE" report "$T/per.exp" --accuracy --csv
cpu=$(csv_get "$T/peracc.out" exact event=cpu-clock)
run perdump "$PERFSCOPE" dump "$T/per.exp"
expect_eq 0 "$RC" "dump of the --period run"
read -r pairs skew late < <(python3 - "$T/perdump.out" 500000 <<'PY'
import re, sys
P = int(sys.argv[2])
ev = []
for l in open(sys.argv[1]):
    m = re.search(r"^\s*\d+\s+(\d+)\s+\S+\s+sample .* tid=(\d+) .*cpu=(\d+) .*values=(\d+)", l)
    if m:
        ev.append((int(m.group(1)), "s", (m.group(2), m.group(3)), int(m.group(4))))
        continue
    m = re.search(r"^\s*\d+\s+(\d+)\s+\S+\s+switch\s+in .* tid=(\d+) cpu=(\d+)", l)
    if m:
        ev.append((int(m.group(1)), "i", (m.group(2), m.group(3)), 0))
ev.sort(key=lambda e: e[0])
last, pending, pairs = {}, {}, set()
outside = skew = late = per_switch = 0
for t, kind, pair, v in ev:
    pairs.add(pair)
    if kind == "i":
        pending[pair] = pending.get(pair, 0) + 1
        continue
    n = pending.pop(pair, 0)
    if pair not in last:
        outside += n
    elif n:
        above = max(0, v - last[pair] - P)
        skew += above
        per_switch = max(per_switch, above / n)
    else:
        late += max(0, v - last[pair] - P)
    last[pair] = v
outside += sum(pending.values())
print(len(pairs), int(skew + outside * per_switch), late)
PY
)
expect_cmp "$nper" "<=" "$((cpu / 500000))" "samples at most one per 0.5 ms of CPU time ($cpu ns)"
# a late timer skips some periods; a fifth of them would be samples lost, not a busy host
expect_cmp "$late" "<=" "$((cpu / 5))" "late timers skipped at most a fifth of the periods ($late of $cpu ns)"
expect_cmp "$nper" ">=" "$(((cpu - skew - late) / 500000 - pairs - 1))" \
	"samples one per 0.5 ms of CPU time ($cpu ns) but the $pairs thread-CPU pairs' last, $skew ns of switch skew and $late ns of late timers"

# an unsupported member event is said and sampling goes on without it
run hw "$PERFSCOPE" record --sample -e page-faults,r0000 -o "$T/hw.exp" -- "$EX/phases" -a 50 -b 50
if [ "$RC" -eq 0 ] && grep -q "r0000" "$T/hw.err"; then
	said=$(grep -cE "sampling goes on without it|sampled in a group of its own" "$T/hw.err" || true)
	expect_eq 1 "$said" "the raw event's fate is said"
	expect_eq "page-faults" "$(json_eval "$T/hw.exp/meta.json" 'd["sampling"]["events"][1]["name"]')" "page-faults still sampled"
	if [ "$(json_eval "$T/hw.exp/meta.json" 'd["sampling"]["events"][2]["state"]')" = "not supported" ]; then
		report_csv_or_die hwrep "$T/hw.exp"
		expect_eq "" "$(csv_get "$T/hwrep.out" r0000 name=phase_a)" "an event not sampled has no count, not 0"
	fi
else
	note "r0000 opened here: nothing to say about it"
fi

# sampling not permitted: a preloaded syscall() refuses perf_event_open with EACCES (as a
# seccomp policy or perf_event_paranoid would); the command is not run, exit 2, one line naming
# the setting and the fix. A process without CAP_PERFMON at paranoid 3 (a fake procfs: its
# self/status has no capability) is told to lower the setting; a privileged one that is still
# refused, what else forbids it.
cat >"$T/deny.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>

long syscall(long n, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (n == SYS_perf_event_open) {
		errno = EACCES;
		return -1;
	}
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}
C
${CC:-cc} -shared -fPIC -O1 -o "$T/deny.so" "$T/deny.c" -ldl >"$T/deny.log" 2>&1 || die "cannot build the shim: $(cat "$T/deny.log")"
pre=$T/deny.so
[ "${PSC_SANITIZE:-OFF}" = ON ] && pre="$(${CC:-cc} -print-file-name=libasan.so):$pre"
mkdir -p "$T/np/sys/kernel" "$T/np/self"
echo 3 >"$T/np/sys/kernel/perf_event_paranoid"
printf 'Name:\tperfscope\nCapEff:\t0000000000000000\n' >"$T/np/self/status"
run np env LD_PRELOAD="$pre" ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 \
	PERFSCOPE_PROCFS_ROOT="$T/np" "$PERFSCOPE" record --sample -o "$T/np.exp" -- touch "$T/np.ran"
expect_eq 2 "$RC" "sampling not permitted exits 2"
expect_eq 1 "$(wc -l <"$T/np.err")" "sampling not permitted: one line"
expect_eq "perfscope record: sampling not permitted (kernel.perf_event_paranoid=3): kernel.perf_event_paranoid is 3, counting this process needs <= 2: run as root, grant CAP_PERFMON, or: sysctl -w kernel.perf_event_paranoid=2" \
	"$(cat "$T/np.err")" "the line names the setting and the fix"
expect_no_file "$T/np.ran" "the command is not run"
printf 'Name:\tperfscope\nCapEff:\t000001ffffffffff\n' >"$T/np/self/status"
run npc env LD_PRELOAD="$pre" ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 \
	PERFSCOPE_PROCFS_ROOT="$T/np" "$PERFSCOPE" record --sample -o "$T/npc.exp" -- touch "$T/np.ran"
expect_eq 2 "$RC" "privileged and still refused: exits 2"
expect_eq "perfscope record: sampling not permitted (kernel.perf_event_paranoid=3): run as root or grant CAP_PERFMON (a seccomp or LSM policy forbids perf_event_open)" \
	"$(cat "$T/npc.err")" "privileged and still refused: the line says what else forbids it"
expect_no_file "$T/np.ran" "the command is not run"

# views of samples on an experiment without them
record_or_die plain "$T/p.exp" -- true
run tl "$PERFSCOPE" timeline "$T/p.exp"
expect_eq 2 "$RC" "timeline without samples exits 2"
expect_grep "has no samples: record with perfscope record --sample" "$T/tl.err" "timeline says how to get samples"
run ln "$PERFSCOPE" report "$T/p.exp" --lines
expect_eq 2 "$RC" "report --lines without samples exits 2"
expect_grep "has no samples" "$T/ln.err" "report --lines says there are no samples"
run iv "$PERFSCOPE" timeline "$T/c.exp" --interval 0
expect_eq 2 "$RC" "--interval 0 exits 2"
expect_grep "expected a duration" "$T/iv.err" "--interval says what it expects"
finish
