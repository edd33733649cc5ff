#!/usr/bin/env bash
# Function tracing counts every call: examples/calls under `perfscope record --functions` gives
# exactly the calls documented in calls.c, merged and per thread, with consistent times; main's
# inclusive time is the main thread's traced time. Processes made by fork and exec each get
# their own streams with their own calls, none counted twice; runs killed by SIGKILL, abort()
# and SIGSEGV still give a report that says the run did not end cleanly, with the calls open at
# the signal closed and counted (exactly the stack depth). report --tree gives the exact call
# paths; a program without instrumented functions gets a report that says why it is empty.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

prog=$EX/calls
[ -x "$prog" ] || die "$prog was not built"
header="name,thread,calls,incl_ns,excl_ns,min_ns,max_ns,file,line"
# merged over calls' 3 threads, the CSV also has each function's load imbalance
merged_header="name,thread,calls,incl_ns,excl_ns,min_ns,max_ns,imbalance_pct,file,line"

# check_times CSV WHAT: every row has incl_ns >= excl_ns >= 0 and min_ns <= max_ns
check_times() {
	PSC_CHECKS=$((PSC_CHECKS + 1))
	local bad
	bad=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ i = $(c["incl_ns"]); e = $(c["excl_ns"]); lo = $(c["min_ns"]); hi = $(c["max_ns"]) }
		!(i != "" && e != "" && i + 0 >= e + 0 && e + 0 >= 0 && lo != "" && lo + 0 >= 0 &&
		  lo + 0 <= hi + 0) { print }' "$1")
	[ -z "$bad" ] || fail "$2: rows without incl_ns >= excl_ns >= 0 and 0 <= min_ns <= max_ns: $bad"
}

# rows CSV: number of data rows
rows() {
	echo $(($(wc -l <"$1") - 1))
}

# ---------------------------------------------------------------- calls: exact counts
d=$T/calls.exp
record_or_die rec "$d" --functions -- "$prog"
expect_eq "leaf: 1000 calls, rec: 11 calls, work: 1000 calls in 2 threads" "$(sed -n 1p "$T/rec.out")" \
	"calls runs normally under record --functions"

report_csv_or_die merged "$d"
csv=$T/merged.out
expect_eq "$merged_header" "$(csv_header "$csv")" "report --csv header"
for fc in main:1 leaf:1000 rec:11 worker:2 work:1000; do
	expect_eq "${fc#*:}" "$(csv_get "$csv" calls name="${fc%:*}")" "report --csv: calls of ${fc%:*}"
	expect_eq all "$(csv_get "$csv" thread name="${fc%:*}")" "report --csv: thread of ${fc%:*} (merged)"
done
expect_eq 5 "$(rows "$csv")" "report --csv: one row per function (main leaf rec worker work)"
check_times "$csv" "report --csv"
# times known in advance: main sleeps 100 ms itself (nanosleep is not traced)
expect_cmp "$(csv_get "$csv" excl_ns name=main)" '>=' 100000000 "exclusive time of main (it sleeps 100 ms)"
for f in leaf work worker; do
	# a function that does not recurse: every call between min and max
	n=$(csv_get "$csv" calls name=$f)
	expect_cmp "$(csv_get "$csv" incl_ns name=$f)" '>=' "$(awk -v a="$(csv_get "$csv" min_ns name=$f)" -v n="$n" 'BEGIN { print a * n }')" \
		"$f: inclusive time >= calls x min_ns"
	expect_cmp "$(csv_get "$csv" incl_ns name=$f)" '<=' "$(awk -v a="$(csv_get "$csv" max_ns name=$f)" -v n="$n" 'BEGIN { print a * n }')" \
		"$f: inclusive time <= calls x max_ns"
done
expect_cmp "$(csv_get "$csv" incl_ns name=rec)" '<=' "$(csv_get "$csv" incl_ns name=main)" \
	"rec (called from main) within main's inclusive time"
expect_cmp "$(csv_get "$csv" incl_ns name=work)" '<=' "$(csv_get "$csv" incl_ns name=worker)" \
	"work (called from worker) within worker's inclusive time"
# source positions: the line of each definition in calls.c
for f in main leaf rec worker work; do
	expect_eq calls.c "$(basename "$(csv_get "$csv" file name=$f)")" "file of $f"
	want=$(grep -n "^[A-Za-z_].*[ *]$f(" "$PSC_SOURCE/examples/calls.c" | head -1 | cut -d: -f1)
	expect_eq "$want" "$(csv_get "$csv" line name=$f)" "line of $f (its definition in calls.c)"
done

# --by thread: main, leaf and rec on the main thread (tid = pid), one worker and 500 work on
# each of the two other threads
report_csv_or_die by-thread "$d" --by thread
csv=$T/by-thread.out
expect_eq "$header" "$(csv_header "$csv")" "report --csv --by thread header"
check_times "$csv" "report --csv --by thread"
streams=()
for s in "$d"/stream.*; do
	[ -f "$s" ] && streams+=("$(basename "$s")")
done
expect_eq 3 "${#streams[@]}" "calls: one stream per thread (${streams[*]})"
pid=$(printf '%s\n' "${streams[@]}" | awk -F. '$2 == $3 { print $2 }')
[ -n "$pid" ] || die "no stream of a main thread (stream.<pid>.<pid>) in $d: ${streams[*]}"
others=$(printf '%s\n' "${streams[@]}" | awk -F. '$2 != $3 { print $3 }' | sort -n | tr '\n' ' ')
for f in main leaf rec; do
	expect_eq "$pid" "$(csv_get "$csv" thread name=$f)" "--by thread: $f on the main thread"
done
expect_eq 1 "$(csv_get "$csv" calls name=main)" "--by thread: calls of main"
expect_eq 1000 "$(csv_get "$csv" calls name=leaf)" "--by thread: calls of leaf"
expect_eq 11 "$(csv_get "$csv" calls name=rec)" "--by thread: calls of rec"
got=$(awk -F, 'NR > 1 && $1 == "work" { print $2 ":" $3 }' "$csv" | sort -t: -k1n | tr '\n' ' ')
want=$(for t in $others; do printf '%s:500 ' "$t"; done)
expect_eq "$want" "$got" "--by thread: work 500 times on each worker thread (tid:calls)"
got=$(awk -F, 'NR > 1 && $1 == "worker" { print $2 ":" $3 }' "$csv" | sort -t: -k1n | tr '\n' ' ')
want=$(for t in $others; do printf '%s:1 ' "$t"; done)
expect_eq "$want" "$got" "--by thread: worker once on each worker thread (tid:calls)"
expect_eq 7 "$(rows "$csv")" "--by thread: rows (main, leaf, rec; worker and work twice)"

# main's inclusive time is the main thread's traced time (report --json: threads[].traced_ns),
# within 1 %; that span is checked against the stream itself: its first and last timestamps,
# through the process's calibration pairs
main_incl=$(csv_get "$csv" incl_ns name=main)
run json "$PERFSCOPE" report "$d" --json
expect_eq 0 "$RC" "report --json exit status"
span=$(json_eval "$T/json.out" "[t['traced_ns'] for t in d['threads'] if t['tid'] == $pid and t['image'] == 0][0]")
raw_span=$(python3 - "$d" "$pid" <<'EOF'
import json, struct, sys
d, pid = sys.argv[1], sys.argv[2]
proc = json.load(open(f"{d}/proc.{pid}.json"))
data = open(f"{d}/stream.{pid}.{pid}", "rb").read()
off = struct.unpack_from("<I", data, 12)[0]
first = last = None
while off + 16 <= len(data):
    magic, size, _ = struct.unpack_from("<IIQ", data, off)
    if magic != 0x4B435350 or off + 16 + size > len(data):
        break
    pos, end = off + 16, off + 16 + size
    while pos < end:
        w0, w1 = struct.unpack_from("<QQ", data, pos)
        ticks = w0 >> 2
        first = ticks if first is None else first
        last = ticks
        pos += 8 * ((w1 >> 16) & 0xFFFF) if (w0 & 3) == 2 else 16
    off = end
pairs = [(int(t), int(n)) for t, n in proc["calibration"]]
scale = 1.0
if proc.get("clock") != "monotonic" and len(pairs) >= 2 and pairs[-1][0] != pairs[0][0]:
    scale = (pairs[-1][1] - pairs[0][1]) / (pairs[-1][0] - pairs[0][0])
print(f"{(last - first) * scale:.0f}" if first is not None else "")
EOF
)
expect_within 0.1 "$raw_span" "$span" "report --json: traced_ns of the main thread (${span}) against its stream's span (${raw_span} ns)"
expect_within 1 "$span" "$main_incl" "main's inclusive time (${main_incl} ns) against the main thread's traced time (${span} ns)"

# tree_rows FILE: the call tree of a report --tree as "DEPTH:NAME:CALLS" words, one per line,
# in a canonical order that does not depend on times (siblings by name, --by thread trees by
# tid, each after a "thread TID" line)
tree_rows() {
	python3 - "$1" <<'PY'
import re, sys
blocks, cur = {}, None
for line in open(sys.argv[1], encoding="utf-8"):
    m = re.match(r"^  thread (\d+) ", line)
    if m:
        cur = int(m.group(1))
        continue
    m = re.match(r"^ *[\d.]+ \S+ +[\d.]+% +([\d,]+) +[\d.]+ \S+ ( *)(\S+)$", line.rstrip("\n"))
    if m:
        blocks.setdefault(cur, []).append((len(m.group(2)) // 2, m.group(3), m.group(1).replace(",", "")))

def subtrees(nodes, i, depth):
    """the nodes at DEPTH from index I on, each as its printed lines, sorted by name"""
    out = []
    while i < len(nodes) and nodes[i][0] >= depth:
        d, name, calls = nodes[i]
        kids, i = subtrees(nodes, i + 1, depth + 1)
        out.append((name, [f"{d}:{name}:{calls}"] + [l for k in kids for l in k[1]]))
    return sorted(out), i

for tid in sorted(blocks, key=lambda t: -1 if t is None else t):
    if tid is not None:
        print("thread", tid)
    for _, lines in subtrees(blocks[tid], 0, 0)[0]:
        print("\n".join(lines))
PY
}

# tree_times FILE: check that every node of a report --tree has inclusive >= exclusive and
# inclusive = exclusive + its children's inclusive times, within the rounding of the printed
# times (3 significant digits: 0.5 % of each term); prints the mismatches, and "NAME INCL_NS"
# for the first node of each name
tree_times() {
	python3 - "$1" <<'PY'
import re, sys
unit = {"ns": 1, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
nodes = []
for line in open(sys.argv[1], encoding="utf-8"):
    m = re.match(r"^ *([\d.]+) (\S+) +[\d.]+% +[\d,]+ +([\d.]+) (\S+) ( *)(\S+)$", line.rstrip("\n"))
    if m:
        nodes.append([len(m.group(5)) // 2, m.group(6), float(m.group(1)) * unit[m.group(2)],
                      float(m.group(3)) * unit[m.group(4)]])
seen = set()
for i, (depth, name, incl, excl) in enumerate(nodes):
    kids = []
    for d2, _, i2, _ in nodes[i + 1:]:
        if d2 <= depth:
            break
        if d2 == depth + 1:
            kids.append(i2)
    tol = 0.005 * (incl + excl + sum(kids)) + 1
    if excl > incl * 1.005 + 1 or abs(incl - excl - sum(kids)) > tol:
        print(f"mismatch: {name} at depth {depth}: incl {incl:.0f} excl {excl:.0f} children {sum(kids):.0f}")
    if name not in seen:
        seen.add(name)
        print(f"{name} {incl:.0f}")
PY
}

# report --tree: the call paths with exact calls (merged over threads: worker twice, work 1000
# times under it), rec's chain of 11 nested calls under main
run tree "$PERFSCOPE" report "$d" --tree
expect_eq 0 "$RC" "report --tree exit status"
want="0:main:1 1:leaf:1000 $(for i in $(seq 1 11); do printf '%d:rec:1 ' "$i"; done)0:worker:2 1:work:1000"
expect_eq "$want" "$(tree_rows "$T/tree.out" | tr '\n' ' ' | sed 's/ $//')" "report --tree: depth:function:calls"
tree_times "$T/tree.out" >"$T/tree.times"
expect_eq "" "$(grep '^mismatch' "$T/tree.times" || true)" "report --tree: inclusive = exclusive + children's inclusive"
# leaf and main are called from one place only: their node's inclusive time is the profile's
for f in main leaf; do
	expect_within 0.5 "$(csv_get "$T/merged.out" incl_ns name=$f)" "$(awk -v f=$f '$1 == f { print $2 }' "$T/tree.times")" \
		"report --tree: inclusive time of $f against report --csv (3 printed digits)"
done
# --by thread: one tree per thread; main's on the main thread, worker once and work 500 times
# under it on each worker thread
run tree-t "$PERFSCOPE" report "$d" --tree --by thread
expect_eq 0 "$RC" "report --tree --by thread exit status"
# shellcheck disable=SC2086 # $others: a list of tids
want=$(for t in $(printf '%s\n' "$pid" $others | sort -n); do
	if [ "$t" = "$pid" ]; then
		printf 'thread %s 0:main:1 1:leaf:1000 %s' "$t" "$(for i in $(seq 1 11); do printf '%d:rec:1 ' "$i"; done)"
	else
		printf 'thread %s 0:worker:1 1:work:500 ' "$t"
	fi
done)
expect_eq "${want% }" "$(tree_rows "$T/tree-t.out" | tr '\n' ' ' | sed 's/ $//')" "report --tree --by thread: depth:function:calls per thread"
tree_times "$T/tree-t.out" >"$T/tree-t.times"
expect_eq "" "$(grep '^mismatch' "$T/tree-t.times" || true)" "report --tree --by thread: inclusive = exclusive + children's inclusive"

# --min-time 50ms: only main (it sleeps 100 ms) reaches it; every other function and call path
# takes microseconds in all
run tree-min "$PERFSCOPE" report "$d" --tree --min-time 50ms
expect_eq 0 "$RC" "report --tree --min-time 50ms exit status"
expect_eq "0:main:1" "$(tree_rows "$T/tree-min.out" | tr '\n' ' ' | sed 's/ $//')" "report --tree --min-time 50ms: only main"
report_csv_or_die min "$d" --min-time 50ms
expect_eq 1 "$(rows "$T/min.out")" "report --csv --min-time 50ms: one row"
expect_eq 1 "$(csv_get "$T/min.out" calls name=main)" "report --csv --min-time 50ms: main"

# ---------------------------------------------------------------- a program built without -finstrument-functions
# examples/spin marks a region but has no instrumented function: record --functions says so,
# and the function report (--by function) says why it is empty instead of showing nothing
d=$T/spin.exp
record_or_die rec-spin "$d" --functions -- "$EX/spin" 0.01
expect_grep "perfscope record: no function events were recorded: build $EX/spin with -finstrument-functions" \
	"$T/rec-spin.err" "record --functions of a program without instrumented functions"
run spin-fn "$PERFSCOPE" report "$d" --by function
expect_eq 0 "$RC" "report --by function of a program without instrumented functions: exit status"
cat "$T/spin-fn.out" "$T/spin-fn.err" >"$T/spin-fn.all"
expect_grep "no function events were recorded: build the program with -finstrument-functions and record it with perfscope record --functions" \
	"$T/spin-fn.all" "report --by function: why there are no functions"
run spin-csv "$PERFSCOPE" report "$d" --by function --csv
expect_eq 0 "$RC" "report --by function --csv without function events: exit status"
expect_eq 0 "$(rows "$T/spin-csv.out")" "report --by function --csv without function events: no rows"

# ---------------------------------------------------------------- fork + exec
# parent: pre_fork 5 times, fork; the child calls in_child 3 times and execs this program
# again ("child"): main, child_work 7 times and a thread running child_thread (child_work 4
# times). The parent's records made before fork must not reappear in the child's streams.
cat >"$T/forkexec.c" <<'C'
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noipa)) static void pre_fork(void) { sink++; }
__attribute__((noipa)) static void in_child(void) { sink++; }
__attribute__((noipa)) static void child_work(void) { sink++; }

__attribute__((noipa)) static void *child_thread(void *arg)
{
	for (int i = 0; i < 4; i++)
		child_work();
	*(long *)arg = syscall(SYS_gettid);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "child")) {
		pthread_t th;
		long tid = 0;

		for (int i = 0; i < 7; i++)
			child_work();
		if (pthread_create(&th, NULL, child_thread, &tid) != 0)
			return 3;
		pthread_join(th, NULL);
		printf("child %d thread %ld\n", (int)getpid(), tid);
		return 0;
	}
	for (int i = 0; i < 5; i++)
		pre_fork();
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 3; i++)
			in_child();
		execl("/proc/self/exe", argv[0], "child", (char *)NULL);
		_exit(127);
	}
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 2;
	printf("parent %d forked %d\n", (int)getpid(), (int)pid);
	return 0;
}
C
build_traced forkexec "$T/forkexec.c"
d=$T/fork.exp
record_or_die rec-fork "$d" --functions -- "$T/forkexec"
ppid=$(sed -n 's/^parent \([0-9]*\) forked [0-9]*$/\1/p' "$T/rec-fork.out")
cpid=$(sed -n 's/^parent [0-9]* forked \([0-9]*\)$/\1/p' "$T/rec-fork.out")
ctid=$(sed -n 's/^child [0-9]* thread \([0-9]*\)$/\1/p' "$T/rec-fork.out")
[ -n "$ppid" ] && [ -n "$cpid" ] && [ -n "$ctid" ] || die "forkexec did not print its pids: $(cat "$T/rec-fork.out")"
expect_eq "$cpid" "$(sed -n 's/^child \([0-9]*\) thread [0-9]*$/\1/p' "$T/rec-fork.out")" \
	"the exec'd child kept its pid"
# one stream per process image and thread: the parent, the forked child before exec, and the
# exec'd image's two threads (docs/format.md: stream.<pid>.<tid>[.<image>])
got=$(cd "$d" && printf '%s\n' stream.* | sort | tr '\n' ' ')
want=$(printf '%s\n' "stream.$ppid.$ppid" "stream.$cpid.$cpid" "stream.$cpid.$cpid.1" "stream.$cpid.$ctid.1" | sort | tr '\n' ' ')
expect_eq "$want" "$got" "fork + exec: stream files"
report_csv_or_die fork "$d"
csv=$T/fork.out
expect_eq 5 "$(csv_get "$csv" calls name=pre_fork)" "fork + exec: calls of pre_fork (parent, none copied into the child)"
expect_eq 3 "$(csv_get "$csv" calls name=in_child)" "fork + exec: calls of in_child (forked child before exec)"
expect_eq 11 "$(csv_get "$csv" calls name=child_work)" "fork + exec: calls of child_work (exec'd child, 2 threads)"
expect_eq 1 "$(csv_get "$csv" calls name=child_thread)" "fork + exec: calls of child_thread"
# main: the parent's, the forked child's (entered at the fork: the child runs in it until its
# exec) and the exec'd image's
expect_eq 3 "$(csv_get "$csv" calls name=main)" "fork + exec: calls of main (parent, forked child, exec'd child)"
check_times "$csv" "fork + exec: report --csv"
report_csv_or_die fork-t "$d" --by thread
csv=$T/fork-t.out
expect_eq "$ppid" "$(csv_get "$csv" thread name=pre_fork)" "fork + exec --by thread: pre_fork in the parent"
expect_eq "$cpid" "$(csv_get "$csv" thread name=in_child)" "fork + exec --by thread: in_child in the child"
expect_eq 7 "$(csv_get "$csv" calls name=child_work thread="$cpid")" "fork + exec --by thread: child_work in the child's main thread"
expect_eq 4 "$(csv_get "$csv" calls name=child_work thread="$ctid")" "fork + exec --by thread: child_work in the child's thread"
got=$(awk -F, 'NR > 1 && $1 == "main" { print $2 ":" $3 }' "$csv" | sort | tr '\n' ' ')
expect_eq "$(printf '%s\n' "$ppid:1" "$cpid:1" "$cpid:1" | sort | tr '\n' ' ')" "$got" \
	"fork + exec --by thread: main once in each process image"

# ---------------------------------------------------------------- runs that do not end cleanly
# crash MODE FILE: "loop" writes its pid to FILE and calls step() (about 1 us) until killed (by
# SIGALRM after 30 s at the latest); "abort" and "segv" call step() 1000 times, then abort() in
# main or write to a PROT_NONE page inside boom(), called through dive(2), dive(1), dive(0): 1
# and 5 calls (main, dive x 3, boom) are open when the signal comes
cat >"$T/crash.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noipa)) static unsigned long step(unsigned long x)
{
	for (int i = 0; i < 300; i++) {
		x = x * 6364136223846793005UL + 1;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

__attribute__((noipa)) static void boom(volatile char *p)
{
	*p = 1;
}

__attribute__((noipa)) static void dive(int n, volatile char *p)
{
	if (n == 0)
		boom(p);
	else
		dive(n - 1, p);
	__asm__ volatile("" ::: "memory"); /* no tail call */
}

int main(int argc, char **argv)
{
	unsigned long x = 1;

	if (argc != 3)
		return 2;
	if (!strcmp(argv[1], "loop")) {
		FILE *f = fopen(argv[2], "w");

		if (!f)
			return 2;
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
		alarm(30);
		for (;;)
			x = step(x);
	}
	for (int i = 0; i < 1000; i++)
		x = step(x);
	printf("%lu\n", x);
	fflush(stdout);
	if (!strcmp(argv[1], "abort"))
		abort();
	char *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 2;
	dive(2, page);
	return 0;
}
C
build_traced crash "$T/crash.c"
# sanitizer builds: the runtime's fatal-signal handler, not ASan's, must see the SIGSEGV
[ "${PSC_SANITIZE:-OFF}" = ON ] && export ASAN_OPTIONS="handle_segv=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"

# check_unclean NAME DIR: report (text) exits 0 and says the run did not end cleanly; the CSV
# report exits 0 too; prints nothing else
check_unclean() {
	local name=$1 dir=$2
	[ -f "$dir/meta.json" ] || { fail "$name: no experiment left in $dir"; return 0; }
	run "$name-rep" "$PERFSCOPE" report "$dir"
	expect_eq 0 "$RC" "$name: report exit status"
	cat "$T/$name-rep.out" "$T/$name-rep.err" >"$T/$name-rep.all"
	expect_grep "did not end cleanly" "$T/$name-rep.all" "$name: the report says the run did not end cleanly"
	run "$name-csv" "$PERFSCOPE" report "$dir" --csv
	expect_eq 0 "$RC" "$name: report --csv exit status"
	[ "$RC" -eq 0 ] || show "$name-csv"
}

# SIGKILL after 0.5 s: the chunks written before the kill are read
d=$T/kill.exp
"$PERFSCOPE" record --functions -o "$d" -- "$T/crash" loop "$T/crash.pid" \
	>"$T/rec-kill.out" 2>"$T/rec-kill.err" &
rec_pid=$!
for _ in $(seq 100); do
	[ -s "$T/crash.pid" ] && break
	sleep 0.1
done
[ -s "$T/crash.pid" ] || { kill "$rec_pid" 2>/dev/null || true; die "the looping program did not start: $(cat "$T/rec-kill.err")"; }
sleep 0.5
kill -KILL "$(cat "$T/crash.pid")"
RC=0
wait "$rec_pid" || RC=$?
expect_ne 0 "$RC" "record of a program killed by SIGKILL: exit status"
check_unclean kill "$d"
expect_cmp "$(csv_get "$T/kill-csv.out" calls name=step)" '>=' 1 "SIGKILL: calls of step in the chunks written before the kill"
# the stream ends wherever the last written chunk ended: inside main, maybe inside step too
run kill-json "$PERFSCOPE" report "$d" --json
k=$(json_eval "$T/kill-json.out" "d['threads'][0]['synthetic_exits']")
expect_cmp "$k" '>=' 1 "SIGKILL: synthetic exits (main is open)"
expect_cmp "$k" '<=' 2 "SIGKILL: synthetic exits (main, step: the deepest stack)"

# abort() and SIGSEGV: the runtime flushes on the fatal signal, so every call before it is there
for mode in abort segv; do
	d=$T/$mode.exp
	run "rec-$mode" "$PERFSCOPE" record --functions -o "$d" -- "$T/crash" "$mode" -
	expect_ne 0 "$RC" "record of a program ending with $mode: exit status"
	check_unclean "$mode" "$d"
	expect_eq 1000 "$(csv_get "$T/$mode-csv.out" calls name=step)" "$mode: calls of step (all before the signal)"
	[ $mode = segv ] && expect_eq 1 "$(csv_get "$T/$mode-csv.out" calls name=boom)" "segv: boom, where it crashed, is there"
	# the calls open at the signal are closed by the reader at the thread's last timestamp
	# and flagged: exactly the stack depth (abort: main; segv: main, dive x 3, boom)
	depth=1 open="main:1 step:0"
	[ $mode = segv ] && depth=5 open="boom:1 dive:3 main:1 step:0"
	run "$mode-json" "$PERFSCOPE" report "$d" --json
	expect_eq 0 "$RC" "$mode: report --json exit status"
	expect_eq "[$depth]" "$(json_eval "$T/$mode-json.out" "[t['synthetic_exits'] for t in d['threads']]")" \
		"$mode: report --json threads[].synthetic_exits (the stack depth at the signal)"
	expect_eq "$open" "$(json_eval "$T/$mode-json.out" "' '.join(f\"{f['name']}:{f['unclosed_calls']}\" for f in sorted(d['functions'], key=lambda f: f['name']))")" \
		"$mode: report --json functions[].unclosed_calls"
	expect_eq "[0]" "$(json_eval "$T/$mode-json.out" "[t['unmatched_exits'] for t in d['threads']]")" \
		"$mode: report --json threads[].unmatched_exits"
	# the total counts the closed calls as the heading does: main and step's 1000 (abort), and
	# dive x 3 and boom (segv)
	calls=1001 heading=1,001
	[ $mode = segv ] && calls=1005 heading=1,005
	expect_eq "$calls" "$(json_eval "$T/$mode-json.out" "d['calls']")" "$mode: report --json's total calls"
	expect_grep "Functions, by exclusive time: $heading calls in 1 thread" "$T/$mode-rep.all" \
		"$mode: the text heading's total calls"
	expect_grep "$depth calls had no exit record (the run was killed, or called exit, pthread_exit or exec, or longjmp or an exception skipped them): closed at the next exit of a caller or at the last timestamp" \
		"$T/$mode-rep.all" "$mode: the text report says the open calls were closed at the last timestamp"
	# main, closed at the last timestamp, spans at most the thread's traced time (and at least
	# the 1000 calls of step it made)
	expect_cmp "$(json_eval "$T/$mode-json.out" "[f['incl_ns'] for f in d['functions'] if f['name'] == 'main'][0]")" '<=' \
		"$(json_eval "$T/$mode-json.out" "d['threads'][0]['traced_ns']")" "$mode: main's inclusive time <= the thread's traced time"
	expect_cmp "$(json_eval "$T/$mode-json.out" "[f['incl_ns'] for f in d['functions'] if f['name'] == 'main'][0]")" '>=' \
		"$(csv_get "$T/$mode-csv.out" incl_ns name=step)" "$mode: main's inclusive time >= step's"
done

finish
