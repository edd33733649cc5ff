#!/usr/bin/env bash
# How the recorded command ended, as record saw it (meta.json's exit_status and exit_signal):
# an exit code above 128 is not called a signal, a signal is named, and an experiment of an
# older record (no exit_signal) says it cannot tell. The same for stat, with and without
# --per-thread (which follows the command with ptrace).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

${CC:-cc} -O1 "$PSC_SOURCE/tests/e2e/exit-prog.c" -o "$T/ex" >"$T/cc.log" 2>&1 ||
	die "cannot build exit-prog.c: $(cat "$T/cc.log")"

run r130 "$PERFSCOPE" record -o "$T/e130" -- "$T/ex" 130
expect_eq 130 "$RC" "exit 130: record's exit status"
expect_eq "130 0" "$(json_eval "$T/e130/meta.json" '"%d %d" % (d["exit_status"], d["exit_signal"])')" \
	"exit 130: meta.json"
run rep130 "$PERFSCOPE" report "$T/e130"
expect_grep "! the recorded command exited with status 130" "$T/rep130.out" "exit 130: the caveat"
expect_no_grep "signal" "$T/rep130.out" "exit 130: no signal named"
run info130 "$PERFSCOPE" info "$T/e130"
expect_grep "exit status  130" "$T/info130.out" "exit 130: info"
expect_no_grep "killed" "$T/info130.out" "exit 130: info says nobody was killed"

run rterm "$PERFSCOPE" record -o "$T/eterm" -- "$T/ex" signal 15
expect_eq 143 "$RC" "SIGTERM: record's exit status"
expect_eq "143 15" "$(json_eval "$T/eterm/meta.json" '"%d %d" % (d["exit_status"], d["exit_signal"])')" \
	"SIGTERM: meta.json"
run repterm "$PERFSCOPE" report "$T/eterm"
expect_grep "! the recorded command was killed by SIGTERM (signal 15, status 143)" "$T/repterm.out" \
	"SIGTERM: the caveat"
run infoterm "$PERFSCOPE" info "$T/eterm" --json
expect_eq 15 "$(json_eval "$T/infoterm.out" 'd["exit_signal"]')" "SIGTERM: info --json"

# an older record wrote no exit_signal: 130 may be either
python3 -c 'import json, sys
p = sys.argv[1]; d = json.load(open(p)); del d["exit_signal"]; json.dump(d, open(p, "w"))' \
	"$T/e130/meta.json"
run repold "$PERFSCOPE" report "$T/e130"
expect_grep "exited with status 130 (killed by a signal, or its own exit code)" "$T/repold.out" \
	"no exit_signal: the caveat says it cannot tell"

for pt in "" --per-thread; do
	run st130 "$PERFSCOPE" stat $pt -e task-clock -- "$T/ex" 130
	expect_grep "the command exited with status 130" "$T/st130.out" "stat $pt: exit 130"
	expect_no_grep "signal" "$T/st130.out" "stat $pt: exit 130 is no signal"
	run stterm "$PERFSCOPE" stat $pt -e task-clock -- "$T/ex" signal 15
	expect_grep "the command was killed by signal 15 (status 143)" "$T/stterm.out" \
		"stat $pt: SIGTERM"
done
run stjson "$PERFSCOPE" stat --json -e task-clock -- "$T/ex" 130
expect_eq "130 0" "$(json_eval "$T/stjson.out" '"%d %d" % (d["exit_status"], d["exit_signal"])')" \
	"stat --json: exit 130"

finish
