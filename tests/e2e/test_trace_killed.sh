#!/usr/bin/env bash
# A process that ends without closing its streams loses nothing it recorded: its threads'
# buffers are files of the experiment (live.*), completed into the streams by record when the
# command ends, or by the next perfscope command that reads the experiment. Killed by SIGKILL
# after N calls (under record, and with PERFSCOPE_OUT alone), and the parent of daemon(), which
# leaves through _exit, all have every call; the report says how the streams ended.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

build_traced kp "$PSC_SOURCE/tests/e2e/killed-prog.c"

# no_live DIR WHAT: no live buffer file is left in DIR
no_live() {
	PSC_CHECKS=$((PSC_CHECKS + 1))
	if compgen -G "$1/live.*" >/dev/null; then
		fail "$2: live files left: $(cd "$1" && echo live.*)"
	fi
}

# killed under record: the launcher completes the stream
run rec "$PERFSCOPE" record --functions -o "$T/rec" -- "$T/kp" kill 10
expect_eq 137 "$RC" "killed under record: exit status"
expect_grep "completed from their buffers" "$T/rec.err" "killed under record: record says so"
expect_no_grep "build .* with -finstrument-functions" "$T/rec.err" "killed under record: no build advice"
no_live "$T/rec" "killed under record"
report_csv_or_die recrep "$T/rec"
expect_eq 10 "$(csv_get "$T/recrep.out" calls name=f)" "killed under record: calls of f"
run rectext "$PERFSCOPE" report "$T/rec"
expect_grep "not closed (killed by SIGKILL, or left through _exit)" "$T/rectext.out" \
	"killed under record: the report says how the stream ended"

# killed with PERFSCOPE_OUT alone: the first command that reads it completes it
set_preload
run out env PERFSCOPE_OUT="$T/out" LD_PRELOAD="$PRE" "$T/kp" kill 7 || true
compgen -G "$T/out/live.*" >/dev/null || fail "killed alone: its live file is there"
report_csv_or_die outrep "$T/out"
expect_eq 7 "$(csv_get "$T/outrep.out" calls name=f)" "killed alone: calls of f"
expect_grep "completed from their buffers now" "$T/outrep.err" "killed alone: report says so"
no_live "$T/out" "killed alone, once completed"

# the parent of daemon() leaves through _exit; the child goes on and exits normally
run dmn env DAEMON_DONE="$T/daemon.done" "$PERFSCOPE" record --functions -o "$T/dmn" -- \
	"$T/kp" daemon 12 34
expect_eq 0 "$RC" "daemon: exit status"
# the child's streams are closed, and its live files removed, when it has exited
for _ in $(seq 100); do
	[ -e "$T/daemon.done" ] && ! compgen -G "$T/dmn/live.*" >/dev/null && break
	sleep 0.1
done
[ -e "$T/daemon.done" ] || die "daemon: the child did not finish"
report_csv_or_die dmnrep "$T/dmn"
expect_eq 12 "$(csv_get "$T/dmnrep.out" calls name=f)" "daemon: calls of f by the parent"
expect_eq 34 "$(csv_get "$T/dmnrep.out" calls name=g)" "daemon: calls of g by the child"

# live files whose header is not written yet: a process that runs may be making it (left
# alone, not called damaged); one of a process that is gone recorded nothing (removed
# quietly); a damaged one of a process that is gone is named
sleep 0 &
dead=$!
wait "$dead"
truncate -s 8192 "$T/rec/live.$$.0.7" "$T/rec/live.$dead.0.8"
head -c 8192 /dev/urandom >"$T/rec/live.$dead.0.9"
run fresh "$PERFSCOPE" report "$T/rec"
expect_eq 0 "$RC" "unwritten live files: report exit status"
expect_no_grep "live.$$.0.7" "$T/fresh.out" "a live file of a running process is not named"
expect_file "$T/rec/live.$$.0.7" "a live file of a running process is left alone"
expect_no_grep "live.$dead.0.8" "$T/fresh.out" "an unwritten live file of a gone process is not named"
expect_no_file "$T/rec/live.$dead.0.8" "an unwritten live file of a gone process is removed"
expect_grep "live.$dead.0.9: not a live buffer file" "$T/fresh.out" \
	"a damaged live file of a gone process is named"
expect_grep "! 1 buffer of streams left open could not be added" "$T/fresh.out" \
	"only the damaged live file is counted as not added"

finish
