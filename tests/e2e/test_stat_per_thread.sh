#!/usr/bin/env bash
# stat --per-thread: each thread's own page faults. stat-threads-prog runs threads walk-1000,
# walk-2000 and walk-3000 (N fresh pages each), "idle" (none) and, in a child process,
# child-500. A thread's count is its pages plus its start-up faults (its stack and TLS, shared
# pages it touches first, in a child process copy-on-write: docs/cmd-stat.md says at most 8);
# the threads' sum misses at most one fault per child process (the kernel's write of the
# child's tid before its first stop), shown as "unattributed".
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

# expect_re REGEX FILE WHAT: a line of FILE matches the extended REGEX
expect_re() {
	PSC_CHECKS=$((PSC_CHECKS + 1))
	grep -qE -- "$1" "$2" || fail "$3: /$1/ not found in $(basename "$2"): $(head -c 3000 "$2")"
}

START=8 # documented start-up faults of a thread
cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || skip "no C compiler ($cc) to build the test program"
"$cc" -O1 -pthread "$PSC_SOURCE/tests/e2e/stat-threads-prog.c" -o "$T/stprog" >"$T/cc.log" 2>&1 ||
	die "cannot build stat-threads-prog.c: $(cat "$T/cc.log")"

run csv "$PERFSCOPE" stat --per-thread -e page-faults,task-clock --csv -o "$T/t.csv" -- "$T/stprog" 1000 2000 3000
expect_eq 3 "$RC" "exit status is the command's"
f=$T/t.csv
expect_eq "row,pid,tid,name,event,value,running_pct,status" "$(csv_header "$f")" "CSV columns"
for n in 1000 2000 3000; do
	v=$(csv_get "$f" value row=thread name=walk-$n event=page-faults)
	expect_cmp "$v" '>=' "$n" "walk-$n: at least its $n pages"
	expect_cmp "$v" '<=' $((n + 2 + START)) "walk-$n: its $n pages + 2 + $START start-up faults"
done
v=$(csv_get "$f" value row=thread name=child-500 event=page-faults)
expect_cmp "$v" '>=' 500 "child-500 (thread of a child process): at least its 500 pages"
expect_cmp "$v" '<=' $((500 + 2 + START)) "child-500: its 500 pages + 2 + $START start-up faults"
expect_cmp "$(csv_get "$f" value row=thread name=idle event=page-faults)" '<=' $((2 + START)) \
	"idle: start-up faults only"

# processes and threads: the launched process (stprog), its 4 threads, the child and its thread
main_pid=$(csv_get "$f" pid row=thread name=stprog event=page-faults)
expect_eq "$main_pid" "$(csv_get "$f" tid row=thread name=stprog event=page-faults)" \
	"the launched thread is listed first, as its process"
expect_eq "$main_pid" "$(csv_get "$f" pid row=thread name=walk-2000 event=page-faults)" \
	"walk-2000 is a thread of the launched process"
child_pid=$(csv_get "$f" pid row=thread name=child-500 event=page-faults)
expect_ne "$main_pid" "$child_pid" "child-500 belongs to the child process"
expect_ne "$child_pid" "$(csv_get "$f" tid row=thread name=child-500 event=page-faults)" \
	"child-500 is not the child process's first thread"
expect_eq 7 "$(grep -c '^thread,.*,page-faults,' "$f")" "7 threads (2 processes)"
expect_eq 7 "$(grep -c '^thread,.*,task-clock,[1-9][0-9]*,100.00,counted$' "$f")" \
	"every thread has its task-clock, never multiplexed"

# the sum over threads against the inherited total
total=$(csv_get "$f" value row=total event=page-faults)
unattr=$(csv_get "$f" value row=unattributed event=page-faults)
sum=$(awk -F, '$1 == "thread" && $5 == "page-faults" { s += $6 } END { print s }' "$f")
expect_eq "$total" "$((sum + unattr))" "threads' sum + unattributed = total"
expect_cmp "$unattr" '>=' 0 "unattributed page-faults not negative"
expect_cmp "$unattr" '<=' 1 "unattributed page-faults: at most one per child process"
expect_cmp "$total" '>=' 6500 "total: every walk (6500 pages)"

# the text table and JSON
run txt "$PERFSCOPE" stat --per-thread -e page-faults -- "$T/stprog" 1000 2000 3000
expect_eq 3 "$RC" "text: exit status is the command's"
expect_grep "Per thread (7 threads" "$T/txt.out" "text: the threads' table"
expect_re '^ +pid +tid +name +page-faults +running$' "$T/txt.out" "text: the table's header"
expect_re '^ +[0-9]+ +[0-9]+ +walk-3000 +3,0[01][0-9] +100\.0%$' "$T/txt.out" "text: walk-3000's row"
expect_re '^ +unattributed +[01]$' "$T/txt.out" "text: the unattributed row"

run json "$PERFSCOPE" stat --per-thread -e page-faults --json -o "$T/t.json" -- "$T/stprog" 10 20
expect_eq 3 "$RC" "json: exit status is the command's"
json_ok "$T/t.json" || fail "the JSON output does not parse"
expect_eq 3 "$(json_eval "$T/t.json" 'd["exit_status"]')" "json: exit_status"
expect_eq 6 "$(json_eval "$T/t.json" 'len(d["threads"])')" "json: 6 threads"
v=$(json_eval "$T/t.json" '[t for t in d["threads"] if t["name"] == "walk-20"][0]["events"][0]["value"]')
expect_cmp "$v" '>=' 20 "json: walk-20's page-faults"
expect_cmp "$v" '<=' $((20 + 2 + START)) "json: walk-20's page-faults"
expect_eq page-faults "$(json_eval "$T/t.json" 'd["unattributed"][0]["name"]')" "json: unattributed"
expect_eq page-faults "$(json_eval "$T/t.json" 'd["events"][0]["name"]')" "json: the totals stay"

# signals reach the command; its status is kept
run sig "$PERFSCOPE" stat --per-thread -e page-faults -- sh -c 'trap "echo got USR1" USR1; kill -USR1 $$; kill -KILL $$'
expect_eq 137 "$RC" "killed command: 128 + SIGKILL"
expect_grep "got USR1" "$T/sig.out" "a signal is delivered to the traced command"
run stop "$PERFSCOPE" stat --per-thread -e page-faults -- sh -c '(sleep 0.2; kill -CONT $$) & kill -STOP $$; echo resumed'
expect_eq 0 "$RC" "stopped and continued command"
expect_grep "resumed" "$T/stop.out" "a stopped command continues"

run rep "$PERFSCOPE" stat --per-thread -r 2 -e page-faults -- true
expect_eq 2 "$RC" "--per-thread with -r 2 is a usage error"
run nf "$PERFSCOPE" stat --per-thread -e page-faults -- /nonexistent/prog
expect_eq 127 "$RC" "command not found"

finish
