#!/usr/bin/env bash
# Function tracing under signals and unusual ends (issue 3): a signal handler that runs
# instrumented code while the program is inside the hooks never tears a record (every call of
# the main loop is counted exactly, the handler's calls are counted or reported lost, never
# mixed up); exit() called from a second thread and SIGTERM both leave a readable trace whose
# report says how the run ended.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

cat >"$T/sig.c" <<'C'
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t handled;
static volatile unsigned long sink;

__attribute__((noinline)) void in_handler(void) { sink++; }
__attribute__((noinline)) void on_alarm(int sig) { (void)sig; in_handler(); handled++; }
__attribute__((noinline)) void body(unsigned long i) { sink += i; }

int main(void)
{
	struct sigaction sa;
	struct itimerval it = {{0, 200}, {0, 200}};

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	/* signals land everywhere, inside the hooks too */
	for (unsigned long i = 0; i < 3000000; i++)
		body(i);
	setitimer(ITIMER_REAL, &(struct itimerval){{0, 0}, {0, 0}}, NULL);
	printf("handled %d\n", (int)handled);
	return 0;
}
C
build_traced sig "$T/sig.c"
d=$T/sig.exp
record_or_die rec "$d" --functions -- "$T/sig"
handled=$(sed -n 's/^handled //p' "$T/rec.out")
expect_cmp "$handled" ">" 100 "signals handled during the loop"
report_csv_or_die rep "$d"
expect_eq 3000000 "$(csv_get "$T/rep.out" calls name=body)" "calls of body, with signals landing in the hooks"
expect_eq 1 "$(csv_get "$T/rep.out" calls name=main)" "calls of main"
# a handler's calls are either all recorded or dropped as lost, never half of one
h=$(csv_get "$T/rep.out" calls name=on_alarm)
expect_eq "$h" "$(csv_get "$T/rep.out" calls name=in_handler)" "the handler and its callee: same count"
run json "$PERFSCOPE" report "$d" --json
lost=$(json_eval "$T/json.out" 'sum(t["lost_records"] for t in d["threads"])')
expect_eq "$handled" "$((h + lost / 4))" "handled signals = recorded handler calls + lost ones (4 records each)"
expect_eq 0 "$(json_eval "$T/json.out" 'sum(t["synthetic_exits"] + t["unmatched_exits"] for t in d["threads"])')" \
	"no call without its exit, no exit without its call"

# exit() from a second thread while the main thread is still calling functions; with an
# argument the program instead says it is ready (after its first calls) and loops until killed
cat >"$T/texit.c" <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile unsigned long sink;
__attribute__((noinline)) void spin_call(void) { sink++; }
__attribute__((noinline)) void *quitter(void *arg) { (void)arg; usleep(50000); exit(3); }

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1) {
		for (int i = 0; i < 1000; i++)
			spin_call();
		fclose(fopen(argv[1], "w"));
	} else {
		pthread_create(&t, NULL, quitter, NULL);
	}
	for (;;)
		spin_call();
}
C
build_traced texit "$T/texit.c"
d=$T/texit.exp
run rec "$PERFSCOPE" record --functions -o "$d" -- "$T/texit"
expect_eq 3 "$RC" "record passes on the exit status of exit(3) from a thread"
run rep "$PERFSCOPE" report "$d" --json
expect_eq 0 "$RC" "report after exit() from a thread"
expect_eq exited "$(json_eval "$d"/proc.*.json 'd["state"]')" "process state after exit() from a thread"
expect_eq 1 "$(json_eval "$T/rep.out" 'len([f for f in d["functions"] if f["name"] == "quitter"])')" \
	"the quitting thread's function is in the report"
expect_cmp "$(json_eval "$T/rep.out" '[f["calls"] for f in d["functions"] if f["name"] == "spin_call"][0]')" \
	">" 1000 "calls of spin_call recorded until exit"

# SIGTERM once the program is recording: the runtime writes every stream before the default
# action
d=$T/term.exp
"$PERFSCOPE" record --functions -o "$d" -- "$T/texit" "$T/ready" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 500); do
	[ -e "$T/ready" ] && break
	sleep 0.01
done
expect_file "$T/ready" "the program started recording"
kill -TERM "$(pgrep -P "$pid" texit)"
wait "$pid" || true
run rep "$PERFSCOPE" report "$d" --json
expect_eq 0 "$RC" "report after SIGTERM"
expect_grep "signal 15 (SIGTERM)" "$T/rep.out" "report says the run ended by SIGTERM"
expect_cmp "$(json_eval "$T/rep.out" '[f["calls"] for f in d["functions"] if f["name"] == "spin_call"][0]')" \
	">=" 1000 "calls of spin_call recorded before SIGTERM"
finish
